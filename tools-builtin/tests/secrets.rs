//! Every read tool, with every argument the demo data makes meaningful, as
//! the administrator and as each editor: no secret of the demo site ever
//! appears in what the model would read.

mod common;

use std::collections::BTreeSet;

use site_model::MemorySite;
use tool_core::Effect;

use common::walk::{NOT_WALKED, arguments, environment, public_index};
use common::{EVERYONE, assert_no_secret, call_with, cx, registry};

#[test]
fn no_tool_ever_shows_a_demo_secret() {
    let calls = arguments(&MemorySite::demo().data());
    let walked: BTreeSet<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    let registry = registry();
    let expected: BTreeSet<&str> = registry
        .tools()
        .iter()
        .filter(|tool| tool.declaration().effect == Effect::Read)
        .map(|tool| tool.name())
        .filter(|name| NOT_WALKED.iter().all(|(left, _)| left != name))
        .collect();
    assert_eq!(
        walked, expected,
        "every read tool is walked, or listed as not walked"
    );
    let mut outputs = 0;
    for person in EVERYONE {
        let cx = cx(person)
            .with_service(environment())
            .with_service(public_index(&MemorySite::demo()));
        for (tool, arguments) in &calls {
            let text = match call_with(tool, arguments.clone(), &cx) {
                Ok(text) => {
                    outputs += 1;
                    text
                }
                Err(error) => format!("{}\n{error}", error.model_text()),
            };
            assert_no_secret(&format!("{tool} {arguments} as {person}"), &text);
        }
    }
    // The walk reached real output, not only refusals.
    assert!(outputs > calls.len(), "only {outputs} outputs");
}
