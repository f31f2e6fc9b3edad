//! Each user's budget per day, checked before every round of their runs:
//! the run whose next request would cross it stops before sending it,
//! `budget` with the reason, on the command line; tokens and estimated
//! cost of the day's other runs count.

use super::Host;
use super::fake_model::{FakeModel, answering};

const PRICED: &str = r#""input_price_per_mtok": 1000000, "output_price_per_mtok": 1000000"#;

pub fn a_daily_budget_stops_the_run_that_would_cross_it(host: &Host) {
    let model = FakeModel::start([answering("first"), answering("second")]);
    let setting = model.setting();
    let priced = format!("{}, {PRICED}}}", setting.trim_end_matches('}'));
    host.setting("model", &priced);
    host.setting(
        "budgets",
        r#"{"users": {"petra": {"tokens_per_day": 1000}}}"#,
    );
    // Every tool petra is offered makes the first request larger than her
    // whole budget: it is never sent.
    let out = host.ok(&["--user", "petra", "run", "hello"]);
    assert!(
        out.contains("stopped by the budget: petra's budget is 1000 tokens a day: 0 spent today"),
        "{out}"
    );
    assert!(model.seen().is_empty(), "no request went out");
    let listed = host.ok(&["--user", "petra", "runs", "list"]);
    assert!(listed.contains("budget"), "{listed}");

    // Someone else (the default: no limit) runs as before.
    let out = host.ok(&["--user", "clara", "run", "hello"]);
    assert!(out.contains("first"), "{out}");
    assert_eq!(model.seen().len(), 1);

    // The tokens and estimated cost of the day's runs count: 19 tokens at
    // a price of 1 each leave nothing of a budget of 20.
    host.setting(
        "budgets",
        r#"{"default": {"cost_per_day": 20}, "users": {"petra": {"tokens_per_day": 100000}}}"#,
    );
    let out = host.ok(&["--user", "clara", "run", "hello"]);
    assert!(
        out.contains("stopped by the budget: clara's budget is an estimated 20.0000 a day"),
        "{out}"
    );
    assert_eq!(model.seen().len(), 1, "no second request");
    let out = host.ok(&["--user", "petra", "run", "hello"]);
    assert!(out.contains("second"), "{out}");
}
