//! Approvals counted toward a policy of two different approvers
//! (`approval_votes`): each person once, everyone counted when several
//! approve at once (from several pools, as several processes would), and
//! a withdrawal only while the proposal is undecided.

use std::collections::BTreeSet;

use host_example::store::Store;
use serde_json::json;
use tool_core::approval::{ApprovalStore, Decision};
use tool_core::{Actor, ProposalId, RunId};

fn actor(id: &str) -> Actor {
    Actor {
        id: id.into(),
        admin: false,
    }
}

pub async fn approvals_of_two_count_each_person_once_even_at_once(url: &str) {
    let store = Store::open(url).await.unwrap();
    let run = RunId("run-votes".into());
    store
        .run_log()
        .create_run(
            &run,
            "clara",
            &tool_core::gates::Grant::empty(),
            host_example::store::Lease {
                owner: "test",
                until_ms: i64::MAX,
            },
        )
        .await
        .unwrap();
    let proposal: tool_core::Proposal = serde_json::from_value(json!({
        "id": "p-votes",
        "tool": "update_page_metadata",
        "arguments": {"page": 20},
        "created_at": 1_800_000_000u64,
        "record": "pages:20",
        "changes": [{"field": "title", "new": "New", "replaces": "Old"}],
        "summary": "Retitle page 20",
    }))
    .unwrap();
    store
        .decisions()
        .save_proposal(&run, &proposal)
        .await
        .unwrap();
    let id = ProposalId::new("p-votes");

    // Six people at once, each from a pool of their own: every one counted,
    // whatever the order, and the last to count sees all six.
    let mut approving = Vec::new();
    for n in 0..6 {
        let approvals = Store::open(url).await.unwrap().decisions().approvals();
        let id = id.clone();
        approving.push(tokio::spawn(async move {
            approvals
                .second(&id, &actor(&format!("approver-{n}")))
                .await
                .unwrap()
        }));
    }
    let mut seen = Vec::new();
    for handle in approving {
        seen.push(handle.await.unwrap());
    }
    let everyone: BTreeSet<String> = (0..6).map(|n| format!("approver-{n}")).collect();
    assert!(seen.contains(&everyone), "{seen:?}");
    assert_eq!(store.decisions().approvals_of(&id).await.unwrap(), everyone);

    // The same person again counts once.
    let again = store
        .decisions()
        .approvals()
        .second(&id, &actor("approver-0"))
        .await;
    assert_eq!(again.unwrap(), everyone);

    // Withdrawn while undecided; not after the decision.
    assert!(
        store
            .decisions()
            .withdraw_approval(&id, "approver-5")
            .await
            .unwrap()
    );
    assert!(
        !store
            .decisions()
            .withdraw_approval(&id, "approver-5")
            .await
            .unwrap()
    );
    let decision = Decision::Approved {
        approver: actor("approver-4"),
    };
    store
        .decisions()
        .approvals()
        .claim(&id, &decision)
        .await
        .unwrap();
    assert!(
        !store
            .decisions()
            .withdraw_approval(&id, "approver-3")
            .await
            .unwrap()
    );
    assert_eq!(store.decisions().approvals_of(&id).await.unwrap().len(), 5);
}
