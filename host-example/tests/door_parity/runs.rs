//! What a run is asked for, held alike at the doors that start runs (the
//! command line and the playground; MCP starts none): the groups and
//! tools asked for are all the run is offered.

use serde_json::json;

use super::{World, stderr, stdout};

#[test]
fn a_run_asked_for_a_group_is_offered_its_tools_alone_at_every_door() {
    let world = World::new();
    world.trust_confidential();
    let prompt = format!(
        "CALL search_code {}",
        json!({"pattern": "namespace Northwind"})
    );
    // search_code is of the `code` group; its last report says this.
    let searched = "files searched";

    // What the model is told of a tool the run was not offered.
    let left_out = "tool `search_code` is not available";

    let outside = world.cli("admin", &["run", &prompt, "--group", "files"]);
    assert!(outside.status.success(), "{}", stderr(&outside));
    let told = stdout(&outside);
    assert!(
        told.contains("the run's selection leaves it out (gate: selection)"),
        "{told}"
    );
    assert!(
        told.contains(left_out) && !told.contains(searched),
        "{told}"
    );
    let inside = world.cli("admin", &["run", &prompt, "--group", "code"]);
    assert!(inside.status.success(), "{}", stderr(&inside));
    let told = stdout(&inside);
    assert!(
        told.contains(searched) && !told.contains(left_out),
        "{told}"
    );

    // The playground's group boxes, the same two runs.
    let mut admin = world.browser("admin");
    for (group, offered) in [("files", false), ("code", true)] {
        let started = admin.post(
            "/playground/run",
            &[("prompt", prompt.as_str()), ("groups", group)],
        );
        assert_eq!(started.status, 303, "{}", started.body);
        let steps = admin
            .get(&format!("{}/events", started.location.unwrap()))
            .body;
        assert_eq!(steps.contains(searched), offered, "{group}: {steps}");
        assert_eq!(steps.contains(left_out), !offered, "{group}: {steps}");
    }
}
