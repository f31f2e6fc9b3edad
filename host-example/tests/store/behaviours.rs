//! What every backend must do, one function per behaviour, each given the
//! URL of a fresh database.

use std::collections::BTreeMap;
use std::sync::Arc;

use host_example::app::calls::CallScope;
use host_example::store::{
    AuditEntry, AuditKind, DEMO_PASSWORD, LATEST_VERSION, Store, StoreError,
};
use serde_json::{Value, json};
use site_model::{
    Accounts, ChangeSet, Changes, Configuration, ElementId, FieldChange, FileId, FileQuery, Files,
    HistoryAction, HistoryEntry, LogLevel, LogQuery, Logs, MemorySite, Operation, PageId, Pages,
    Records, SiteData, SiteError, StorageId, Target, Timestamp, UserId,
};
use sqlx::Row;
use tool_core::approval::{ApprovalStore, ClaimError, Decision};
use tool_core::{Actor, ProposalId, RunId};

fn demo() -> SiteData {
    SiteData::from_json(site_model::demo::DATA).unwrap()
}

fn counts(data: &SiteData) -> [usize; 13] {
    [
        data.columns.len(),
        data.pages.len(),
        data.elements.len(),
        data.tables.len(),
        data.records.len(),
        data.history.len(),
        data.storages.len(),
        data.files.len(),
        data.references.len(),
        data.users.len(),
        data.groups.len(),
        data.logs.len(),
        data.sites.len(),
    ]
}

pub async fn first_start_migrates_and_seeds(url: &str) {
    let store = Store::open(url).await.unwrap();
    assert_eq!(
        store.audit_log().schema_version().await.unwrap(),
        LATEST_VERSION
    );
    let dump = store.site().dump().await.unwrap();
    assert_eq!(counts(&dump), counts(&demo()));
    let names: Vec<String> = store
        .people()
        .users()
        .await
        .unwrap()
        .into_iter()
        .map(|u| format!("{}:{}", u.name, u.admin))
        .collect();
    assert_eq!(
        names,
        [
            "admin:true",
            "clara:false",
            "nils:false",
            "ops:true",
            "petra:false"
        ]
    );
}

pub async fn second_start_does_not_seed_twice(url: &str) {
    let first = Store::open(url).await.unwrap();
    first.pool().close().await;
    let second = Store::open(url).await.unwrap();
    assert_eq!(
        counts(&second.site().dump().await.unwrap()),
        counts(&demo())
    );
    assert_eq!(second.people().users().await.unwrap().len(), 5);
}

pub async fn concurrent_first_starts_seed_once(url: &str) {
    let (a, b) = tokio::join!(Store::open(url), Store::open(url));
    let (a, _b) = (a.unwrap(), b.unwrap());
    assert_eq!(counts(&a.site().dump().await.unwrap()), counts(&demo()));
    assert_eq!(a.people().users().await.unwrap().len(), 5);
}

pub async fn reads_match_the_memory_site(url: &str) {
    let store = Store::open(url).await.unwrap();
    let sql = store.site();
    let mem = MemorySite::demo();
    macro_rules! same {
        ($($call:tt)*) => {
            assert_eq!(sql.$($call)*.await, mem.$($call)*.await, "{}", stringify!($($call)*));
        };
    }
    same!(pages());
    same!(page(PageId(2)));
    same!(page(PageId(9999)));
    same!(children(None));
    same!(children(Some(PageId(1))));
    same!(children(Some(PageId(2))));
    same!(translations(PageId(2)));
    same!(columns());
    for page in mem.pages().await.unwrap() {
        same!(elements(page.id));
    }
    same!(element(ElementId(1)));
    same!(element(ElementId(99999)));
    same!(rootline(PageId(4)));
    same!(tables());
    same!(table("news"));
    same!(table("nope"));
    same!(record("news", 1));
    same!(record("news", 9999));
    same!(record("nope", 1));
    same!(find_records("news", &BTreeMap::new()));
    same!(find_records(
        "products",
        &BTreeMap::from([("id".into(), json!(2))])
    ));
    same!(find_records(
        "news",
        &BTreeMap::from([("nope".into(), json!(1))])
    ));
    same!(search_records("news", "20%", 10));
    same!(search_records("news", "2_%", 10));
    same!(search_records("products", "E", 3));
    for record in mem.find_records("news", &BTreeMap::new()).await.unwrap() {
        same!(history("news", record.id));
    }
    same!(storages());
    same!(list_folder(StorageId(1), ""));
    same!(list_folder(StorageId(1), "images"));
    same!(list_folder(StorageId(1), "not-there"));
    same!(list_folder(StorageId(99), ""));
    same!(search_files(&FileQuery {
        storage: None,
        text: String::new(),
        limit: 100
    }));
    same!(search_files(&FileQuery {
        storage: Some(StorageId(2)),
        text: "JPG".into(),
        limit: 5
    }));
    same!(file(FileId(1)));
    same!(file(FileId(9999)));
    for file in mem
        .search_files(&FileQuery {
            storage: None,
            text: String::new(),
            limit: 100,
        })
        .await
        .unwrap()
    {
        same!(references(file.id));
    }
    same!(missing_files());
    same!(users());
    same!(user(UserId(3)));
    same!(user(UserId(99)));
    same!(groups());
    for user in 1..=5 {
        same!(permissions(UserId(user)));
    }
    same!(logs(&LogQuery::newest(25)));
    same!(logs(&LogQuery {
        min_level: Some(LogLevel::Warning),
        component: None,
        limit: 500
    }));
    same!(logs(&LogQuery {
        min_level: Some(LogLevel::Info),
        component: Some("auth".into()),
        limit: 7
    }));
    same!(sites());
    same!(site("main"));
    same!(site("nope"));
    // The whole stored site is the demo data, list by list.
    let mut data = demo();
    let dump = sql.dump().await.unwrap();
    data.pages.sort_by_key(|p| p.id);
    data.elements.sort_by_key(|e| e.id);
    data.logs.sort_by_key(|l| l.id);
    assert_eq!(dump.pages, data.pages);
    assert_eq!(dump.elements, data.elements);
    assert_eq!(dump.logs, data.logs);
    assert_eq!(dump.history, data.history);
}

/// An update of page 2's title expecting its current title.
fn retitle(expected: Value, new: &str) -> Operation {
    Operation::Update {
        target: Target::Page(PageId(2)),
        expected: BTreeMap::from([("title".into(), expected)]),
        new: BTreeMap::from([("title".into(), json!(new))]),
    }
}

pub async fn a_failed_compare_and_set_changes_nothing(url: &str) {
    let store = Store::open(url).await.unwrap();
    let site = store.site();
    let before = site.dump().await.unwrap();
    let title = site.page(PageId(2)).await.unwrap().title.for_host().clone();
    // The first operation alone would apply; the second expects a value
    // the record does not hold, so the set fails whole.
    let changes = ChangeSet {
        operations: vec![
            retitle(json!(title), "Bikes"),
            Operation::Update {
                target: Target::Record {
                    table: "news".into(),
                    id: 1,
                },
                expected: BTreeMap::from([("title".into(), json!("not the title"))]),
                new: BTreeMap::from([("title".into(), json!("Changed"))]),
            },
        ],
        history: vec![HistoryEntry {
            table: "pages".into(),
            record_id: 2,
            at: Timestamp(1_800_000_000),
            actor: "test".into(),
            action: HistoryAction::Updated,
            changes: vec![],
            proposed_by: None,
            approved_by: None,
            proposed: None,
        }],
    };
    let error = site.apply(changes).await.unwrap_err();
    match &error {
        SiteError::Conflict { target, field, .. } => {
            assert_eq!(target, "news:1");
            assert_eq!(field, "title");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(error.to_string().contains("`title`"), "{error}");
    assert_eq!(site.dump().await.unwrap(), before);
    // Unknown targets and fields change nothing either.
    let missing = ChangeSet {
        operations: vec![Operation::Update {
            target: Target::Page(PageId(9999)),
            expected: BTreeMap::new(),
            new: BTreeMap::from([("title".into(), json!("x"))]),
        }],
        history: vec![],
    };
    assert!(matches!(
        site.apply(missing).await,
        Err(SiteError::NotFound { .. })
    ));
    let unknown = ChangeSet {
        operations: vec![
            retitle(json!(title), "Bikes"),
            Operation::Update {
                target: Target::Element(ElementId(1)),
                expected: BTreeMap::new(),
                new: BTreeMap::from([("colour".into(), json!("red"))]),
            },
        ],
        history: vec![],
    };
    assert!(matches!(
        site.apply(unknown).await,
        Err(SiteError::Invalid { .. })
    ));
    assert_eq!(site.dump().await.unwrap(), before);
}

pub async fn a_compare_and_set_applies_and_appends_history(url: &str) {
    let store = Store::open(url).await.unwrap();
    let site: Arc<dyn site_model::Site> = Arc::new(store.site());
    let memory = MemorySite::demo();
    let title = site.page(PageId(2)).await.unwrap().title.for_host().clone();
    let entry = HistoryEntry {
        table: "pages".into(),
        record_id: 2,
        at: Timestamp(1_900_000_000),
        actor: "petra".into(),
        action: HistoryAction::Updated,
        changes: vec![FieldChange {
            field: "title".into(),
            old: json!(title).into(),
            new: json!("Bikes").into(),
        }],
        proposed_by: Some("petra".into()),
        approved_by: Some("admin".into()),
        proposed: None,
    };
    let changes = ChangeSet {
        operations: vec![retitle(json!(title), "Bikes")],
        history: vec![entry],
    };
    site.apply(changes.clone()).await.unwrap();
    memory.apply(changes.clone()).await.unwrap();
    assert_eq!(site.page(PageId(2)).await, memory.page(PageId(2)).await);
    assert_eq!(
        site.history("pages", 2).await,
        memory.history("pages", 2).await
    );
    // The same change again expects the old title: a conflict now.
    assert!(matches!(
        site.apply(changes).await,
        Err(SiteError::Conflict { .. })
    ));
    // Of eight racing sets expecting the same value, one applies.
    let racing = (0..8).map(|n| {
        let site = site.clone();
        tokio::spawn(async move {
            site.apply(ChangeSet {
                operations: vec![retitle(json!("Bikes"), &format!("Bikes {n}"))],
                history: vec![],
            })
            .await
        })
    });
    let results = futures_join(racing).await;
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .filter_map(|r| r.as_ref().err())
            .all(|e| matches!(e, SiteError::Conflict { .. })),
        "{results:?}"
    );
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        out.push(handle.await.unwrap());
    }
    out
}

pub async fn concurrent_claims_have_one_winner(url: &str) {
    let store = Store::open(url).await.unwrap();
    let id = ProposalId::new("0123456789abcdef0123456789abcdef");
    let claims = (0..8).map(|n| {
        let approvals = store.decisions().approvals();
        let id = id.clone();
        tokio::spawn(async move {
            let decision = Decision::Approved {
                approver: Actor {
                    id: format!("approver-{n}"),
                    admin: true,
                },
            };
            approvals.claim(&id, &decision).await
        })
    });
    let results = futures_join(claims).await;
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    let winner = store.decisions().decision(&id).await.unwrap().unwrap();
    for result in &results {
        match result {
            Ok(()) => {}
            Err(ClaimError::AlreadyDecided(already)) => assert_eq!(already.decision, winner),
            Err(other) => panic!("{other}"),
        }
    }
    // A later claim from another process (another pool) loses too.
    let other = Store::open(url).await.unwrap();
    let late = other
        .decisions()
        .approvals()
        .claim(&id, &Decision::Expired)
        .await;
    assert!(
        matches!(late, Err(ClaimError::AlreadyDecided(_))),
        "{late:?}"
    );
}

pub async fn passwords_and_tokens(url: &str) {
    let store = Store::open(url).await.unwrap();
    assert!(
        store
            .people()
            .verify_password("admin", DEMO_PASSWORD)
            .await
            .unwrap()
    );
    assert!(
        !store
            .people()
            .verify_password("admin", "wrong")
            .await
            .unwrap()
    );
    assert!(
        !store
            .people()
            .verify_password("nobody", DEMO_PASSWORD)
            .await
            .unwrap()
    );
    store
        .people()
        .add_user("maria", false, Some("s3cret"))
        .await
        .unwrap();
    assert!(
        store
            .people()
            .verify_password("maria", "s3cret")
            .await
            .unwrap()
    );
    assert!(matches!(
        store.people().add_user("maria", true, None).await,
        Err(StoreError::UserExists(_))
    ));
    let token = store.people().new_token("maria").await.unwrap();
    assert_eq!(token.len(), 64);
    let user = store
        .people()
        .user_for_token(&token)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(user.name, "maria");
    assert_eq!(
        store.people().user_for_token("not-a-token").await.unwrap(),
        None
    );
    let stored: Vec<String> = sqlx::query("SELECT hash, user_name FROM tokens")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|row| {
            format!(
                "{} {}",
                row.get::<String, _>("hash"),
                row.get::<String, _>("user_name")
            )
        })
        .collect();
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].contains(&token));
    let hash: String = sqlx::query("SELECT password_hash FROM users WHERE name = 'maria'")
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get("password_hash");
    assert!(hash.starts_with("$argon2id$") && !hash.contains("s3cret"));
}

pub async fn a_newer_schema_is_refused(url: &str) {
    let store = Store::open(url).await.unwrap();
    sqlx::query(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.pool().close().await;
    let error = Store::open(url).await.unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::NewerSchema {
                found: 999,
                known: LATEST_VERSION
            }
        ),
        "{error}"
    );
}

pub async fn runs_events_proposals_and_audit_round_trip(url: &str) {
    let store = Store::open(url).await.unwrap();
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
    let events = [
        tool_core::agent::Event::RoundStarted { round: 1 },
        tool_core::agent::Event::RoundStarted { round: 2 },
    ];
    for (n, event) in events.iter().enumerate() {
        assert_eq!(
            store.run_log().record_event(&run, event).await.unwrap(),
            n as i64 + 1
        );
    }
    assert_eq!(store.run_log().run_events(&run).await.unwrap(), events);
    let stored = store.run_log().run(&run).await.unwrap().unwrap();
    assert_eq!(stored.status, host_example::store::RunPhase::Running);
    assert_eq!(stored.grant, tool_core::gates::Grant::empty());
    assert_eq!(
        store.run_log().run(&RunId("nope".into())).await.unwrap(),
        None
    );

    // A proposal of the run, decided once, and the run's end.
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
    store
        .decisions()
        .save_proposal(&run, &proposal)
        .await
        .unwrap();
    let pending = store.decisions().pending_proposals().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].proposal, proposal);
    assert_eq!(pending[0].run, run);
    let approve = Decision::Approved {
        approver: Actor {
            id: "admin".into(),
            admin: true,
        },
    };
    store
        .decisions()
        .approvals()
        .claim(proposal.id(), &approve)
        .await
        .unwrap();
    let stored = store
        .decisions()
        .proposal(proposal.id())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, "approved");
    assert!(
        store
            .decisions()
            .pending_proposals()
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.decisions().decision(proposal.id()).await.unwrap(),
        Some(approve)
    );
    let usage = tool_core::agent::Usage {
        input_tokens: 1200,
        output_tokens: 80,
    };
    let finished = tool_core::agent::Finished {
        answer: Some("Done.".into()),
        status: tool_core::agent::RunStatus::Completed,
        usage,
        rounds: 2,
        messages: vec![],
        decisions: vec![],
        exposure: Default::default(),
    };
    store.run_log().finish_run(&run, &finished).await.unwrap();
    let ended = store.run_log().run(&run).await.unwrap().unwrap();
    assert_eq!(
        (ended.status.as_str(), ended.answer.as_deref(), ended.usage),
        ("completed", Some("Done."), usage)
    );
    assert_eq!(ended.state, None);

    for n in 0..3 {
        let mut entry = AuditEntry::new(AuditKind::Gate, "admin", "denied");
        entry.tool = Some(format!("tool_{n}"));
        entry.gate = Some("group".into());
        entry.run = Some(run.0.clone());
        store.audit_log().audit(&entry).await.unwrap();
    }
    let tail = store.audit_log().audit_tail(2).await.unwrap();
    assert_eq!(
        tail.iter()
            .map(|e| e.tool.clone().unwrap())
            .collect::<Vec<_>>(),
        ["tool_1", "tool_2"]
    );
    assert_eq!(tail[0].kind, AuditKind::Gate);
}

pub async fn the_app_layer_sees_settings_proposals_and_audit_of_other_processes(url: &str) {
    use host_example::Host;
    use host_example::app::calls::{CallControl, CallError, Caller};
    use host_example::store::McpClient;
    use tool_core::calls::CancelToken;
    use tool_core::gates::Toggle;
    use tool_core::{Outcome, ToolError};

    // Two handles on one database, as two processes have.
    let server = Host::open(url).await.unwrap();
    let other = Store::open(url).await.unwrap();
    let clara = Actor {
        id: "clara".into(),
        admin: false,
    };
    assert!(
        server
            .access()
            .grant(&clara)
            .await
            .unwrap()
            .allowance("list_tables")
            .is_some()
    );
    let changes = server.access().changes();
    other
        .config().set_setting(
            "tools",
            r#"{"list_tables": {"state": "disabled"}, "update_page_metadata": {"state": "enabled"}}"#,
        )
        .await
        .unwrap();
    server.access().poll_settings().await.unwrap();
    assert!(changes.has_changed().unwrap());
    let refused = server
        .calls()
        .call(
            &clara,
            "list_tables",
            json!({}),
            RunId("r".into()),
            &CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            host_example::app::calls::CallError::Tool(ToolError::Refused { .. })
        ),
        "{refused:?}"
    );
    server
        .admin()
        .switch_tool("admin", "list_tables", Toggle::Enabled)
        .await
        .unwrap();
    assert_eq!(
        other.config().host_settings().await.unwrap().tools["list_tables"].state,
        Toggle::Enabled
    );

    // A proposal of one call, kept with its proposer and grant, read back
    // by another handle.
    let outcome = server
        .calls()
        .call(
            &clara,
            "update_page_metadata",
            json!({"page": 20, "title": "Workshop"}),
            RunId("r".into()),
            &CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    let pending = other.decisions().pending_proposals().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].proposal.id(), proposal.id());
    let run = other.run_log().run(&pending[0].run).await.unwrap().unwrap();
    assert_eq!(run.user, "clara");

    // A refused call in the audit trail, with its client and gate.
    let caller = Caller {
        actor: clara,
        client_name: Some("claude-code".into()),
        client_version: Some("2.1.0".into()),
        protocol: Some("2025-11-25".into()),
    };
    let control = CallControl {
        cancel: CancelToken::new(),
        progress: None,
        client: None,
    };
    let refused = server
        .calls()
        .call_watched(
            &caller,
            "no_such_tool",
            json!({}),
            RunId("r".into()),
            &CallScope::Stateless,
            control,
        )
        .await;
    assert!(matches!(refused, Err(CallError::Tool(_))), "{refused:?}");
    let last = other
        .audit_log()
        .audit_tail(1)
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(
        (last.actor.as_str(), last.kind, last.decision.as_str()),
        ("clara", AuditKind::Call, "refused")
    );
    assert_eq!(last.gate.as_deref(), Some("registered"));
    assert_eq!(
        last.client,
        Some(McpClient {
            name: Some("claude-code".into()),
            version: Some("2.1.0".into()),
            protocol: Some("2025-11-25".into()),
        })
    );
    assert!(last.duration.is_some());
}
