//! Trust by provenance (docs/exposure.md): on a site whose every
//! person-written field ends with a marker, every read tool, with every
//! argument of the secrets walk, as the administrator and as each editor:
//! an output (or a failure the tool wrote) that carries the marker raises
//! the run's exposure to untrusted content, whatever the tool declared.
//!
//! The walk covers every registered read tool but the ones it lists as
//! not walked (`common::walk`), so a new tool joins this test or fails the
//! secrets test's completeness check.

mod common;

use std::sync::Arc;

use futures_executor::block_on;
use serde_json::Value;
use site_model::{MemorySite, Site, SiteData};
use tool_core::exposure::{content_of, tool_wrote};
use tool_core::{Content, Outcome};

use common::walk::{arguments, environment, public_index};
use common::{EVERYONE, cx_on, demo_data, registry};

/// What every person-written field of [`marked_site`] ends with.
const MARKER: &str = "[[person-written]]";

fn mark(text: &mut String) {
    text.push_str(MARKER);
}

/// Every string in `value`, marked.
fn mark_strings(value: &mut Value) {
    match value {
        Value::String(text) => mark(text),
        Value::Array(items) => items.iter_mut().for_each(mark_strings),
        Value::Object(map) => map.values_mut().for_each(mark_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The demo site with [`MARKER`] at the end of what people write there:
/// pages' titles, navigation titles and descriptions; elements' headers
/// and bodies; files' names, titles and alternative texts; every string of
/// every record; log messages and their payloads (user agents among
/// them); the names of the accounts no test acts as.
fn marked_site() -> MemorySite {
    let mut data: SiteData = demo_data();
    for page in &mut data.pages {
        mark(&mut page.title);
        page.nav_title.as_mut().map(mark);
        page.description.as_mut().map(mark);
    }
    for element in &mut data.elements {
        mark(&mut element.header);
        mark(&mut element.body);
    }
    for file in &mut data.files {
        mark(&mut file.name);
        file.title.as_mut().map(mark);
        file.alternative.values_mut().for_each(mark);
    }
    for record in &mut data.records {
        record.values.values_mut().for_each(mark_strings);
    }
    for entry in &mut data.logs {
        mark(&mut entry.message);
        mark_strings(&mut entry.payload);
    }
    for user in &mut data.users {
        mark(&mut user.real_name);
        if !EVERYONE.contains(&user.name.as_str()) && user.name != "ops" {
            mark(&mut user.name);
        }
    }
    MemorySite::new(data)
}

#[test]
fn whatever_carries_what_a_person_wrote_raises_the_exposure_whatever_the_tool_declared() {
    let site = Arc::new(marked_site());
    let registry = registry();
    let calls = arguments();
    let mut marked = 0;
    let mut unmarked: Vec<String> = Vec::new();
    for person in EVERYONE {
        let shared: Arc<dyn Site> = site.clone();
        let cx = cx_on(shared, person)
            .with_service(environment())
            .with_service(public_index(&*site));
        for (tool, arguments) in &calls {
            let declaration = registry.get(tool).unwrap().declaration();
            let (text, content) =
                match block_on(registry.call_ungated(tool, arguments.clone(), &cx)) {
                    Ok(Outcome::Done(output)) => (
                        output.to_model_text(),
                        content_of(declaration, output.carries_authored()),
                    ),
                    Ok(Outcome::Proposed(_)) => panic!("{tool} is a read tool"),
                    Err(error) if tool_wrote(&error) => (error.model_text(), declaration.content),
                    // The host wrote it (a refusal, bad arguments): nothing of
                    // the site's.
                    Err(_) => continue,
                };
            if !text.contains(MARKER) {
                continue;
            }
            marked += 1;
            if content != Content::Untrusted {
                unmarked.push(format!("{tool} {arguments} as {person}"));
            }
        }
    }
    assert!(
        unmarked.is_empty(),
        "person-written text counted as trusted: {unmarked:#?}"
    );
    // The walk reached person-written text, not only ids.
    assert!(
        marked > calls.len(),
        "only {marked} outputs carried the marker"
    );
}
