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
use site_model::demo::marked_data;
use site_model::{MemorySite, Site};
use tool_core::exposure::{content_of, tool_wrote};
use tool_core::{Content, Outcome};

use common::walk::{arguments, environment, public_index};
use common::{EVERYONE, cx_on, registry};

/// What every person-written field of [`marked_site`] ends with.
const MARKER: &str = "[[person-written]]";

/// What the person-written fields the site model hands out as `Authored`
/// end with, besides: text a tool can only reach by reading it through
/// its call's context, so its result is marked by the data alone.
const AUTHORED: &str = "[[authored]]";

/// The demo site with [`MARKER`] at the end of what people write there,
/// and [`AUTHORED`] before it where the site model says so by its type
/// (`site_model::demo::marked_data`).
fn marked_site() -> MemorySite {
    let mut actors = EVERYONE.to_vec();
    actors.push("ops");
    MemorySite::new(marked_data(AUTHORED, MARKER, &actors))
}

#[test]
fn whatever_carries_what_a_person_wrote_raises_the_exposure_whatever_the_tool_declared() {
    let site = Arc::new(marked_site());
    let registry = registry();
    let calls = arguments(&site.data());
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
                    Err(error) if tool_wrote(&error) => (
                        error.model_text(),
                        error.carries_authored(),
                        content_of(declaration, error.carries_authored()),
                    ),
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
