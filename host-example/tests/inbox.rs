//! The app layer behind the inbox and the actions, on a real SQLite
//! database with a fake model on loopback: who may decide, a run's
//! proposals decided together, a one-call proposal decided with no run to
//! continue, and a batch's estimate and budget.

#[path = "host/fake_model.rs"]
mod fake_model;

use fake_model::{FakeModel, answering, calling};
use host_example::Host;
use host_example::HostError;
use host_example::app::actions::Action;
use host_example::app::actions::batch::RunKind;
use host_example::app::approvals::{Applied, Verdict};
use host_example::app::runs::RunEnded;
use host_example::store::{AuditKind, CallProposal, RunRequest, Store};
use serde_json::{Value, json};
use site_model::{PageId, Pages};
use std::sync::Arc;

use tool_core::RunId;
use tool_core::exposure::Exposure;
use tool_core::gates::{Gates, Selection};
use tool_core::{Outcome, ToolContext};

const WRITE_TOOLS_ON: &str = r#"{
    "update_page_metadata": {"state": "enabled"},
    "create_translation_draft": {"state": "enabled"}
}"#;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    host: Host,
    /// The database beneath the app layer, to check what it wrote.
    store: Store,
    _folder: tempfile::TempDir,
}

impl Fixture {
    /// A fresh database whose model is `model`, with `model_extra` merged
    /// into its setting.
    fn new(model: &FakeModel, model_extra: Value) -> Fixture {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", folder.path().join("h.db").display());
        let (host, store) = runtime.block_on(async {
            let store = Store::open(&url).await.unwrap();
            let mut setting: Value = serde_json::from_str(&model.setting()).unwrap();
            for (key, value) in model_extra.as_object().unwrap() {
                setting[key] = value.clone();
            }
            store
                .config()
                .set_setting("model", &setting.to_string())
                .await
                .unwrap();
            store
                .config()
                .set_setting("tools", WRITE_TOOLS_ON)
                .await
                .unwrap();
            (Host::new(store.clone()).unwrap(), store)
        });
        Fixture {
            runtime,
            host,
            store,
            _folder: folder,
        }
    }

    fn title(&self, page: u64) -> String {
        let site = self.store.site();
        self.runtime
            .block_on(site.page(PageId(page)))
            .unwrap()
            .title
            .for_host()
            .clone()
    }

    /// A run of `user` that waits on its first proposal; its id and the
    /// proposal's.
    fn suspended(&self, user: &str) -> (RunId, String) {
        let report = self
            .runtime
            .block_on(
                self.host
                    .runs()
                    .start_run(user, RunRequest::new("go"), &mut ()),
            )
            .unwrap();
        match report.ended {
            RunEnded::Suspended(proposal) => (report.run, proposal.id().as_str().to_owned()),
            other => panic!("not suspended: {other:?}"),
        }
    }
}

fn rename(id: &str, page: u64, title: &str) -> (String, String, Value) {
    (
        id.to_owned(),
        "update_page_metadata".to_owned(),
        json!({"page": page, "title": title}),
    )
}

fn calls(list: &[(String, String, Value)]) -> Value {
    let borrowed: Vec<(&str, &str, Value)> = list
        .iter()
        .map(|(id, tool, arguments)| (id.as_str(), tool.as_str(), arguments.clone()))
        .collect();
    calling(&borrowed)
}

#[test]
fn only_who_may_decide_sees_or_rejects_a_proposal() {
    let model = FakeModel::start([calls(&[rename("w", 2, "Bikes")])]);
    let fx = Fixture::new(&model, json!({}));
    let (_, proposal) = fx.suspended("ops");

    // Petra edits the product pages; nils the news pages only.
    let inbox = |who: &str| {
        fx.runtime
            .block_on(fx.host.approvals().inbox(who, 10))
            .unwrap()
    };
    assert_eq!(inbox("petra").pending.len(), 1);
    assert_eq!(inbox("nils").pending.len(), 0);
    assert_eq!(inbox("admin").pending.len(), 1);

    let refused = fx.runtime.block_on(fx.host.approvals().decide(
        &proposal,
        "nils",
        Verdict::Reject("mine".into()),
        &mut (),
    ));
    assert!(
        matches!(refused, Err(HostError::MayNotDecide)),
        "{refused:?}"
    );
    let audit = fx
        .runtime
        .block_on(fx.store.audit_log().audit_tail(5))
        .unwrap();
    assert!(
        audit
            .iter()
            .any(|e| e.kind == AuditKind::Gate && e.actor == "nils" && e.decision == "denied"),
        "{audit:?}"
    );
    // Nothing was decided: it still waits, for petra.
    let view = fx
        .runtime
        .block_on(fx.host.approvals().proposal_for("admin", &proposal))
        .unwrap();
    assert_eq!(view.decision, None);
    assert_eq!(fx.title(2), "Products");
}

#[test]
fn a_runs_writes_are_decided_together_and_the_run_answers() {
    let model = FakeModel::start([
        calls(&[
            rename("w1", 3, "Town bikes"),
            rename("w2", 4, "Trail bikes"),
        ]),
        answering("Both renamed."),
    ]);
    let fx = Fixture::new(&model, json!({}));
    let (run, _) = fx.suspended("ops");
    let inbox = fx
        .runtime
        .block_on(fx.host.approvals().inbox("petra", 10))
        .unwrap();
    let entry = &inbox.pending[0];
    assert_eq!(entry.call.as_deref(), Some("w1"));
    assert_eq!(entry.queued.len(), 1);

    let decided = fx
        .runtime
        .block_on(fx.host.approvals().decide_together(
            &run,
            "petra",
            Verdict::Approve,
            &["w1".to_owned(), "w2".to_owned()],
            &mut (),
        ))
        .unwrap();
    assert_eq!(decided.len(), 2, "{decided:?}");
    assert_eq!(
        (fx.title(3), fx.title(4)),
        ("Town bikes".into(), "Trail bikes".into())
    );
    let last = decided[1].outcome.clone().unwrap().decided().unwrap();
    match &last.report.as_ref().unwrap().ended {
        RunEnded::Finished(finished) => {
            assert_eq!(finished.answer.as_deref(), Some("Both renamed."))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_call_unseen_by_the_approver_is_not_decided_with_the_rest() {
    let model = FakeModel::start([
        calls(&[
            rename("w1", 3, "Town bikes"),
            rename("w2", 4, "Trail bikes"),
        ]),
        answering("Done."),
    ]);
    let fx = Fixture::new(&model, json!({}));
    let (run, _) = fx.suspended("ops");
    let decided = fx
        .runtime
        .block_on(fx.host.approvals().decide_together(
            &run,
            "petra",
            Verdict::Approve,
            &["w1".to_owned()],
            &mut (),
        ))
        .unwrap();
    assert_eq!(decided.len(), 1);
    assert_eq!(
        (fx.title(3), fx.title(4)),
        ("Town bikes".into(), "Commuter 500".into())
    );
    let pending = fx
        .runtime
        .block_on(fx.host.approvals().pending_proposals("admin"))
        .unwrap();
    assert_eq!(pending.len(), 1, "w2 waits for its own decision");
}

#[test]
fn a_one_call_proposal_is_decided_with_no_run_to_continue() {
    let model = FakeModel::start([]);
    let fx = Fixture::new(&model, json!({}));
    let proposal = fx.runtime.block_on(async {
        let store = &fx.store;
        let setup = fx.host.runs().setup("ops", &[]).await.unwrap();
        let gates = Gates::new(fx.host.registry(), setup.inputs());
        let grant = gates.resolve().grant;
        let run = RunId("mcp-call-1".into());
        let cx: ToolContext = fx.host.runs().context(&run, &setup.actor);
        let Ok(Outcome::Proposed(proposal)) = gates
            .call(
                &grant,
                "update_page_metadata",
                json!({"page": 5, "title": "E-bikes"}),
                &cx,
            )
            .await
        else {
            panic!("a write tool proposes")
        };
        let made = CallProposal {
            run,
            proposer: "ops".to_owned(),
            grant: Arc::new(grant),
            proposal: (*proposal).clone(),
            exposure: Exposure::default(),
        };
        store.decisions().save_call_proposal(&made).await.unwrap();
        proposal.id().as_str().to_owned()
    });
    // Its card offers no rest of a run to approve with it.
    let inbox = fx
        .runtime
        .block_on(fx.host.approvals().inbox("petra", 10))
        .unwrap();
    let card = inbox
        .pending
        .iter()
        .find(|entry| entry.view.stored.proposal.id().as_str() == proposal)
        .expect("on the inbox");
    assert_eq!((card.call.as_ref(), card.queued.len()), (None, 0));
    let decided = fx
        .runtime
        .block_on(
            fx.host
                .approvals()
                .decide(&proposal, "petra", Verdict::Approve, &mut ()),
        )
        .unwrap();
    let decided = decided.decided().unwrap();
    assert!(decided.report.is_none());
    assert!(
        matches!(decided.applied, Some(Applied::Written(_))),
        "{decided:?}"
    );
    assert_eq!(fx.title(5), "E-bikes");
    assert!(model.seen().is_empty(), "no model was asked");
}

#[test]
fn an_estimate_has_a_price_range_only_with_prices_and_a_ceiling() {
    let model = FakeModel::start([]);
    let action = Action::of_tool("update_page_metadata").unwrap();
    let priced = Fixture::new(
        &model,
        json!({"input_price_per_mtok": 1.0, "output_price_per_mtok": 4.0, "max_tokens": 500}),
    );
    let preview = priced
        .runtime
        .block_on(priced.host.runs().preview_batch("petra", &action, "2 3 4"))
        .unwrap();
    let estimate = &preview.estimate;
    assert_eq!(estimate.runs, 3);
    assert_eq!(estimate.requests, (6, 18));
    assert_eq!(estimate.output_tokens, Some((0, 18 * 500)));
    let (low, high) = estimate.cost.unwrap();
    assert!(0.0 < low && low < high, "{low} {high}");

    let no_ceiling = Fixture::new(
        &model,
        json!({"input_price_per_mtok": 1.0, "output_price_per_mtok": 4.0}),
    );
    let preview = no_ceiling
        .runtime
        .block_on(
            no_ceiling
                .host
                .runs()
                .preview_batch("petra", &action, "2 3 4"),
        )
        .unwrap();
    assert_eq!(preview.estimate.cost, None);
    assert_eq!(preview.estimate.output_tokens, None);
}

#[test]
fn a_batch_out_of_budget_stops_and_names_the_records_it_kept() {
    let model = FakeModel::start((0..5).map(|_| answering("Nothing to change.")));
    let fx = Fixture::new(&model, json!({}));
    let action = Action::of_tool("update_page_metadata").unwrap();
    let floor = fx
        .runtime
        .block_on(fx.host.runs().preview_batch("petra", &action, "3"))
        .unwrap()
        .estimate
        .per_run_floor;
    // Room for one run, and less than a run's floor after it (a run of the
    // fake model spends 19 tokens).
    let report = fx.runtime.block_on(async {
        let job = fx
            .host
            .runs()
            .start_batch("petra", &action, &[3, 4, 5, 6], "", floor + 10)
            .await
            .unwrap();
        assert_eq!(fx.host.jobs().run_due_jobs().await.unwrap(), 1);
        // Not petra's: told as missing.
        assert!(fx.host.runs().batch("ops", &job).await.is_err());
        fx.host.runs().batch("petra", &job).await.unwrap().report
    });
    assert_eq!(report.runs.len(), 1);
    assert_eq!(report.count(RunKind::Unchanged), 1);
    assert_eq!(report.kept_by_budget, [4, 5, 6]);
    assert_eq!(report.spent, 19);

    // Each run is offered the action's tool only.
    let offered = &model.seen()[0]["tools"];
    let names: Vec<&str> = offered
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["update_page_metadata"]);
    let stored = fx
        .runtime
        .block_on(fx.store.run_log().run(report.runs[0].run.as_ref().unwrap()))
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.request.unwrap().tools,
        Selection::Only(["update_page_metadata".to_owned()].into())
    );
}

#[test]
fn a_batch_starts_at_most_20_per_press() {
    let model = FakeModel::start((0..20).map(|_| answering("Fine as it is.")));
    let fx = Fixture::new(&model, json!({}));
    let action = Action::of_tool("create_translation_draft").unwrap();
    let ids: Vec<u64> = (8..23).chain(26..36).collect();
    let report = fx.runtime.block_on(async {
        let job = fx
            .host
            .runs()
            .start_batch("petra", &action, &ids, "", 1_000_000)
            .await
            .unwrap();
        fx.host.jobs().run_due_jobs().await.unwrap();
        fx.host.runs().batch("petra", &job).await.unwrap().report
    });
    assert_eq!(report.runs.len(), 20);
    assert_eq!(report.count(RunKind::Unchanged), 20);
    assert_eq!(report.next_press, [31, 32, 33, 34, 35]);
    assert!(report.kept_by_budget.is_empty());
}
