//! Each call's rows commit together or not at all: a failure in the
//! middle of writing them (an audit insert the database refuses, through
//! a trigger the test installs) leaves none of them, on every backend.

use host_example::Host;
use host_example::HostError;
use host_example::app::calls::{CallControl, CallError, CallScope, Caller};
use host_example::store::{AuditEntry, AuditKind, Backend, McpClient, Store};
use serde_json::json;
use sqlx::Row;
use tool_core::agent::{CallResult, Event};
use tool_core::calls::CancelToken;
use tool_core::{Actor, Outcome, RunId};

/// Makes the database refuse every audit row whose client is `boom`.
async fn refuse_boom_audit_rows(store: &Store) {
    let sql = match store.backend() {
        Backend::Sqlite => {
            "CREATE TRIGGER refuse_boom BEFORE INSERT ON audit WHEN NEW.client_name = 'boom'
             BEGIN SELECT RAISE(ABORT, 'audit row refused by the test'); END"
        }
        Backend::Postgres => {
            "CREATE FUNCTION refuse_boom() RETURNS trigger AS $$
             BEGIN RAISE EXCEPTION 'audit row refused by the test'; END $$ LANGUAGE plpgsql;
             CREATE TRIGGER refuse_boom BEFORE INSERT ON audit FOR EACH ROW
             WHEN (NEW.client_name = 'boom') EXECUTE FUNCTION refuse_boom()"
        }
    };
    sqlx::raw_sql(sql).execute(store.pool()).await.unwrap();
}

async fn count(store: &Store, sql: &str) -> i64 {
    sqlx::query(sql)
        .fetch_one(store.pool())
        .await
        .unwrap()
        .try_get::<i64, _>(0)
        .unwrap()
}

fn caller(client: &str) -> Caller {
    Caller {
        actor: Actor {
            id: "clara".into(),
            admin: false,
        },
        client_name: Some(client.into()),
        client_version: Some("1".into()),
        protocol: Some("2026-07-28".into()),
    }
}

/// Clara proposes a new title for page 20 (one she may edit); `n` tells
/// the calls apart.
async fn propose(host: &Host, client: &str, n: u64) -> Result<Outcome, CallError> {
    let control = CallControl {
        cancel: CancelToken::new(),
        progress: None,
        client: None,
    };
    host.calls()
        .call_watched(
            &caller(client),
            "update_page_metadata",
            json!({"page": 20, "title": format!("Retitled {n}")}),
            RunId(format!("call-{client}-{n}")),
            &CallScope::Stateless,
            control,
        )
        .await
}

pub async fn a_call_whose_audit_row_fails_keeps_no_proposal(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .config()
        .set_setting("tools", r#"{"update_page_metadata": {"state": "enabled"}}"#)
        .await
        .unwrap();
    refuse_boom_audit_rows(&store).await;
    let host = Host::open(url).await.unwrap();

    let refused = propose(&host, "boom", 0).await;
    assert!(
        matches!(refused, Err(CallError::Host(HostError::Unrecorded(_)))),
        "{refused:?}"
    );
    assert!(
        store
            .decisions()
            .pending_proposals()
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM runs").await, 0);
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM audit WHERE kind = 'call'").await,
        0
    );

    // Calls finishing together share a transaction; the one that cannot
    // be recorded fails alone, the others keep their rows.
    let calls = (0..8u64).map(|n| {
        let client = if n == 3 { "boom" } else { "fine" };
        propose(&host, client, n)
    });
    let results = futures_util::future::join_all(calls).await;
    for (n, result) in results.iter().enumerate() {
        if n == 3 {
            assert!(matches!(result, Err(CallError::Host(_))), "{result:?}");
        } else {
            assert!(matches!(result, Ok(Outcome::Proposed(_))), "{result:?}");
        }
    }
    let pending = store.decisions().pending_proposals().await.unwrap();
    assert_eq!(pending.len(), 7);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM runs").await, 7);
    let audited = store.audit_log().audit_tail(100).await.unwrap();
    let proposed: Vec<_> = audited
        .iter()
        .filter(|e| e.kind == AuditKind::Call && e.decision == "proposed")
        .collect();
    assert_eq!(proposed.len(), 7);
    for stored in &pending {
        let named = format!("proposal {}", stored.proposal.id());
        assert_eq!(
            proposed
                .iter()
                .filter(|e| e.detail.as_deref() == Some(named.as_str()))
                .count(),
            1,
            "{named}"
        );
    }
    // The failed transactions left no hole in the host's audit chain: its
    // head was read back before the next write.
    let report = store.audit_log().verify_audit().await.unwrap();
    assert!(report.is_sound(), "{:?}", report.problems);
    assert_eq!(report.rows, 7);
}

pub async fn a_run_event_whose_audit_row_fails_is_not_stored(url: &str) {
    let store = Store::open(url).await.unwrap();
    refuse_boom_audit_rows(&store).await;
    let run = RunId("run-1".into());
    store
        .run_log()
        .create_run(
            &run,
            "admin",
            &tool_core::gates::Grant::empty(),
            host_example::store::Lease {
                owner: "test",
                until_ms: i64::MAX,
            },
        )
        .await
        .unwrap();
    let proposal: tool_core::Proposal = serde_json::from_value(json!({
        "id": "p-1",
        "tool": "edit_page_metadata",
        "arguments": {"page": 2},
        "created_at": 1_800_000_000u64,
        "record": "pages:2",
        "changes": [{"field": "title", "new": "Bikes", "replaces": "Products"}],
        "summary": "Retitle page 2",
    }))
    .unwrap();
    let arguments = json!({"page": 2});
    let event = Event::ToolExecuted {
        round: 1,
        call_id: "c1".into(),
        tool: "edit_page_metadata".into(),
        arguments: std::borrow::Cow::Borrowed(&arguments),
        result: CallResult::Proposed { proposal },
        duration: std::time::Duration::from_millis(3),
    };
    let gate = AuditEntry::new(AuditKind::Gate, "admin", "allowed");
    let mut call = AuditEntry::new(AuditKind::Call, "admin", "proposed");
    call.client = Some(McpClient {
        name: Some("boom".into()),
        ..McpClient::default()
    });
    // The gate's row is written, then the call's fails: none of the three
    // kinds of row is left.
    assert!(
        store
            .decisions()
            .record_event_with(&run, &event, &[gate.clone(), call])
            .await
            .is_err()
    );
    assert!(store.run_log().run_events(&run).await.unwrap().is_empty());
    assert!(
        store
            .decisions()
            .pending_proposals()
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM audit").await, 0);

    // Written whole when nothing fails: numbered from 1.
    assert_eq!(
        store
            .decisions()
            .record_event_with(&run, &event, &[gate])
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.run_log().run_events(&run).await.unwrap().len(), 1);
    assert_eq!(
        store.decisions().pending_proposals().await.unwrap().len(),
        1
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM audit").await, 1);
}
