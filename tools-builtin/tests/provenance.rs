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
use tool_core::{Authored, Content, Outcome};

use common::walk::{arguments, environment, public_index};
use common::{EVERYONE, cx_on, demo_data, registry};

/// What every person-written field of [`marked_site`] ends with.
const MARKER: &str = "[[person-written]]";

/// What the person-written fields the site model hands out as `Authored`
/// end with, besides: text a tool can only reach by reading it through
/// its call's context, so its result is marked by the data alone.
const AUTHORED: &str = "[[authored]]";

fn mark(text: &mut String) {
    text.push_str(MARKER);
}

fn marked(text: &mut Authored<String>) {
    *text = Authored::new(format!("{}{AUTHORED}{MARKER}", text.for_host()));
}

/// Every string in `value`, marked with `with`.
fn mark_strings(value: &mut Value, with: &str) {
    match value {
        Value::String(text) => text.push_str(with),
        Value::Array(items) => items.iter_mut().for_each(|item| mark_strings(item, with)),
        Value::Object(map) => map.values_mut().for_each(|item| mark_strings(item, with)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The demo site with [`MARKER`] at the end of what people write there
/// (and [`AUTHORED`] before it where the site model says so by its type):
/// pages' titles, navigation titles and descriptions; elements' headers
/// and bodies; files' names, titles and alternative texts; every string of
/// every record; log messages and their payloads (user agents among
/// them); the names of the accounts no test acts as.
fn marked_site() -> MemorySite {
    let mut data: SiteData = demo_data();
    for page in &mut data.pages {
        marked(&mut page.title);
        page.nav_title.as_mut().map(marked);
        page.description.as_mut().map(marked);
    }
    for element in &mut data.elements {
        marked(&mut element.header);
        marked(&mut element.body);
    }
    for file in &mut data.files {
        mark(&mut file.name);
        file.title.as_mut().map(marked);
        let mut alternative = file.alternative.for_host().clone();
        for text in alternative.values_mut() {
            text.push_str(&format!("{AUTHORED}{MARKER}"));
        }
        file.alternative = Authored::new(alternative);
    }
    for record in &mut data.records {
        record
            .values
            .values_mut()
            .for_each(|value| mark_strings(value, MARKER));
    }
    for entry in &mut data.logs {
        marked(&mut entry.message);
        let mut payload = entry.payload.for_host().clone();
        mark_strings(&mut payload, &format!("{AUTHORED}{MARKER}"));
        entry.payload = Authored::new(payload);
    }
    for user in &mut data.users {
        marked(&mut user.real_name);
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
    let mut authored = 0;
    let mut trusted: Vec<String> = Vec::new();
    let mut unmarked: Vec<String> = Vec::new();
    for person in EVERYONE {
        let shared: Arc<dyn Site> = site.clone();
        let cx = cx_on(shared, person)
            .with_service(environment())
            .with_service(public_index(&*site));
        for (tool, arguments) in &calls {
            let declaration = registry.get(tool).unwrap().declaration();
            let call = format!("{tool} {arguments} as {person}");
            let (text, carries, content) =
                match block_on(registry.call_ungated(tool, arguments.clone(), &cx)) {
                    Ok(Outcome::Done(output)) => (
                        output.to_model_text(),
                        output.carries_authored(),
                        content_of(declaration, output.carries_authored()),
                    ),
                    Ok(Outcome::Proposed(_)) => panic!("{tool} is a read tool"),
                    Err(error) if tool_wrote(&error) => {
                        (error.model_text(), false, declaration.content)
                    }
                    // The host wrote it (a refusal, bad arguments): nothing
                    // of the site's.
                    Err(_) => continue,
                };
            if text.contains(MARKER) {
                marked += 1;
                if content != Content::Untrusted {
                    trusted.push(call.clone());
                }
            }
            // Text the site model hands out as `Authored` marks the result
            // by the data alone: the declaration plays no part.
            if text.contains(AUTHORED) {
                authored += 1;
                if !carries {
                    unmarked.push(call);
                }
            }
        }
    }
    assert!(
        trusted.is_empty(),
        "person-written text counted as trusted: {trusted:#?}"
    );
    assert!(
        unmarked.is_empty(),
        "authored text in a result the data did not mark: {unmarked:#?}"
    );
    // The walk reached person-written text, not only ids.
    assert!(
        marked > calls.len(),
        "only {marked} outputs carried the marker"
    );
    assert!(authored > 0, "no output carried authored text");
}
