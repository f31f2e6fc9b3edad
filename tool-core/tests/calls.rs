//! How a call ends and explains itself (`tool_core::calls`): timeouts,
//! progress, the ceiling, cancellation and retries, on a manual clock.

mod clock;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::calls::{CancelToken, ManualTimer, RetryPolicy, TimeLimit, Timer};
use tool_core::{
    Execute, Outcome, Proposal, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput, Write,
};

use clock::{drive, drive_with, secs};

/// Sleeps as long as asked, on the test's clock.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read", timeout = "2s")]
struct SlowRead {
    /// Seconds to sleep.
    seconds: f64,
}

impl Execute for SlowRead {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        cx.service::<ManualTimer>()?.sleep(secs(self.seconds)).await;
        Ok(ToolOutput::text("slept"))
    }
}

/// Works in steps of 1.5 s, reporting progress after each.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read", timeout = "2s")]
struct SteadyRead {
    /// How many steps.
    steps: u32,
}

impl Execute for SteadyRead {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timer = cx.service::<ManualTimer>()?;
        for done in 1..=self.steps {
            timer.sleep(secs(1.5)).await;
            cx.progress(u64::from(done), Some(u64::from(self.steps)), "a step");
        }
        Ok(ToolOutput::text(format!("{} steps", self.steps)))
    }
}

/// Declares no timeout: the host's default applies.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read")]
struct UnboundedRead {
    /// Seconds to sleep.
    seconds: f64,
}

impl Execute for UnboundedRead {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        cx.service::<ManualTimer>()?.sleep(secs(self.seconds)).await;
        Ok(ToolOutput::text("slept"))
    }
}

/// Watches its cancel token between steps and says how far it got.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read")]
struct PoliteRead {}

impl Execute for PoliteRead {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timer = cx.service::<ManualTimer>()?;
        for step in 0..10 {
            if cx.is_cancelled() {
                return Ok(ToolOutput::text(format!("stopped after {step} steps")));
            }
            timer.sleep(secs(1.0)).await;
        }
        Ok(ToolOutput::text("all steps"))
    }
}

/// Proposes slowly.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "write", timeout = "1s")]
struct SlowWrite {
    /// Seconds to take proposing.
    seconds: f64,
}

impl Write for SlowWrite {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        cx.service::<ManualTimer>()?.sleep(secs(self.seconds)).await;
        Ok(Proposal::new("r", Vec::new(), "nothing"))
    }
    async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("applied"))
    }
}

fn registry(timer: &ManualTimer) -> Registry {
    Registry::builder()
        .linked()
        .timer(timer.clone())
        .build()
        .unwrap()
}

fn cx(timer: &ManualTimer) -> ToolContext {
    ToolContext::new(RunId("run".into())).with_service(timer.clone())
}

#[test]
fn a_call_past_its_timeout_ends_timed_out_and_its_future_is_dropped() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let cx = cx(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("slow_read", json!({"seconds": 10}), &cx),
    );
    let error = driven.output.unwrap_err();
    assert_eq!(
        error,
        ToolError::TimedOut {
            tool: "slow_read".into(),
            after: Duration::from_secs(2),
            limit: TimeLimit::Timeout,
        }
    );
    assert_eq!(error.model_text(), "tool `slow_read` timed out after 2 s");
    assert_eq!(driven.at, Duration::from_secs(2));
    // The tool's own sleep went with its future.
    assert_eq!(timer.pending(), 0);
}

#[test]
fn a_call_within_its_timeout_finishes() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("slow_read", json!({"seconds": 1.5}), &cx(&timer)),
    );
    assert_eq!(driven.output, Ok(Outcome::Done(ToolOutput::text("slept"))));
    assert_eq!(driven.steps, 1);
}

#[test]
fn progress_restarts_the_timeout() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    // Five steps of 1.5 s: 7.5 s in all, each step within the 2 s timeout.
    let driven = drive(
        &timer,
        registry.call_ungated("steady_read", json!({"steps": 5}), &cx(&timer)),
    );
    assert_eq!(
        driven.output,
        Ok(Outcome::Done(ToolOutput::text("5 steps")))
    );
    assert_eq!(driven.at, secs(7.5));
}

#[test]
fn progress_reaches_the_hosts_sink_and_still_restarts_the_timeout() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&reports);
    let cx = cx(&timer).with_progress_sink(move |done, total, message: &str| {
        seen.lock().unwrap().push((done, total, message.to_owned()));
    });
    let driven = drive(
        &timer,
        registry.call_ungated("steady_read", json!({"steps": 3}), &cx),
    );
    assert_eq!(
        driven.output,
        Ok(Outcome::Done(ToolOutput::text("3 steps")))
    );
    let step = |done| (done, Some(3), "a step".to_owned());
    assert_eq!(*reports.lock().unwrap(), [step(1), step(2), step(3)]);
}

#[test]
fn progress_never_extends_a_call_past_the_ceiling() {
    let timer = ManualTimer::new();
    let registry = Registry::builder()
        .linked()
        .timer(timer.clone())
        .timeout_ceiling(Duration::from_secs(5))
        .build()
        .unwrap();
    let driven = drive(
        &timer,
        registry.call_ungated("steady_read", json!({"steps": 5}), &cx(&timer)),
    );
    let error = driven.output.unwrap_err();
    assert!(
        matches!(
            error,
            ToolError::TimedOut {
                limit: TimeLimit::Ceiling,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.model_text(), "tool `steady_read` timed out after 5 s");
    assert_eq!(driven.at, Duration::from_secs(5));
}

/// Reports progress once after 1 s, then stalls.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read", timeout = "2s")]
struct StallingRead {}

impl Execute for StallingRead {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timer = cx.service::<ManualTimer>()?;
        timer.sleep(secs(1.0)).await;
        cx.progress(1, None, "started");
        timer.sleep(secs(60.0)).await;
        Ok(ToolOutput::text("done"))
    }
}

#[test]
fn a_stall_after_progress_times_out_counted_from_the_report() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("stalling_read", json!({}), &cx(&timer)),
    );
    let error = driven.output.unwrap_err();
    assert_eq!(
        error.model_text(),
        "tool `stalling_read` timed out after 2 s without progress"
    );
    assert_eq!(driven.at, Duration::from_secs(3));
}

#[test]
fn the_hosts_default_timeout_covers_tools_that_declare_none() {
    let timer = ManualTimer::new();
    let registry = Registry::builder()
        .linked()
        .timer(timer.clone())
        .default_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let driven = drive(
        &timer,
        registry.call_ungated("unbounded_read", json!({"seconds": 60}), &cx(&timer)),
    );
    assert_eq!(
        driven.output.unwrap_err().model_text(),
        "tool `unbounded_read` timed out after 0.5 s"
    );
    assert_eq!(driven.at, Duration::from_millis(500));
}

#[test]
fn without_a_timer_nothing_times_out() {
    let timer = ManualTimer::new();
    let registry = Registry::builder().linked().build().unwrap();
    let driven = drive(
        &timer,
        registry.call_ungated("slow_read", json!({"seconds": 10}), &cx(&timer)),
    );
    assert!(driven.output.is_ok());
    assert_eq!(driven.at, Duration::from_secs(10));
}

#[test]
fn a_write_tools_timeout_covers_proposing() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("slow_write", json!({"seconds": 3}), &cx(&timer)),
    );
    assert_eq!(
        driven.output.unwrap_err().model_text(),
        "tool `slow_write` timed out after 1 s"
    );
}

#[test]
fn cancelling_mid_call_ends_it_cancelled() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let token = CancelToken::new();
    let cx = cx(&timer).with_cancel(token.clone());
    let driven = drive_with(
        &timer,
        registry.call_ungated("unbounded_read", json!({"seconds": 60}), &cx),
        // As soon as the call waits.
        |_| token.cancel(),
    );
    let error = driven.output.unwrap_err();
    assert_eq!(
        error,
        ToolError::Cancelled {
            tool: "unbounded_read".into()
        }
    );
    assert_eq!(
        error.model_text(),
        "the call to `unbounded_read` was cancelled"
    );
    assert_eq!(driven.at, Duration::ZERO);
    assert_eq!(timer.pending(), 0, "the tool's future was dropped");
}

#[test]
fn a_cancelled_call_does_not_start() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let token = CancelToken::new();
    token.cancel();
    let cx = cx(&timer).with_cancel(token);
    let driven = drive(
        &timer,
        registry.call_ungated("slow_read", json!({"seconds": 1}), &cx),
    );
    assert!(matches!(driven.output, Err(ToolError::Cancelled { .. })));
    assert_eq!(driven.steps, 0);
}

#[test]
fn a_child_token_cancels_one_call_and_not_the_run() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let run = CancelToken::new();
    let call = run.child();
    let cx = cx(&timer).with_cancel(call.clone());
    call.cancel();
    let driven = drive(
        &timer,
        registry.call_ungated("slow_read", json!({"seconds": 1}), &cx),
    );
    assert!(matches!(driven.output, Err(ToolError::Cancelled { .. })));
    assert!(!run.is_cancelled());
}

#[test]
fn a_tool_sees_cancellation_and_can_stop_early() {
    let timer = ManualTimer::new();
    let token = CancelToken::new();
    let cx = cx(&timer).with_cancel(token.clone());
    // Called directly, without the call path's race, to see what the tool
    // itself does with the token: cancelled during its fifth step, it
    // stops before the sixth.
    let tool = PoliteRead {};
    let driven = drive_with(&timer, tool.execute(&cx), |now| {
        if now >= Duration::from_secs(4) {
            token.cancel();
        }
    });
    assert_eq!(driven.output, Ok(ToolOutput::text("stopped after 5 steps")));
    assert!(cx.is_cancelled());
}

static FLAKY_ATTEMPTS: AtomicU32 = AtomicU32::new(0);
static FLAKY_WRITE_ATTEMPTS: AtomicU32 = AtomicU32::new(0);
static STUBBORN_ATTEMPTS: AtomicU32 = AtomicU32::new(0);

/// Fails transiently twice, then answers.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "flaky", effect = "read")]
struct FlakyRead {}

impl Execute for FlakyRead {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        match FLAKY_ATTEMPTS.fetch_add(1, Ordering::SeqCst) {
            0 | 1 => Err(ToolError::transient("the index is busy")),
            n => Ok(ToolOutput::text(format!("attempt {}", n + 1))),
        }
    }
}

/// Always fails transiently.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "flaky", effect = "read")]
struct StubbornRead {}

impl Execute for StubbornRead {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        STUBBORN_ATTEMPTS.fetch_add(1, Ordering::SeqCst);
        Err(ToolError::transient("the index is busy"))
    }
}

/// A write tool whose proposing fails transiently.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "flaky", effect = "write")]
struct FlakyWrite {}

impl Write for FlakyWrite {
    async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
        FLAKY_WRITE_ATTEMPTS.fetch_add(1, Ordering::SeqCst);
        Err(ToolError::transient("the record is locked"))
    }
    async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("applied"))
    }
}

#[test]
fn an_idempotent_tool_is_retried_with_backoff_on_the_timer() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("flaky_read", json!({}), &cx(&timer)),
    );
    assert_eq!(
        driven.output,
        Ok(Outcome::Done(ToolOutput::text("attempt 3")))
    );
    // 100 ms, then 200 ms.
    assert_eq!(driven.steps, 2);
    assert_eq!(driven.at, Duration::from_millis(300));
}

#[test]
fn retries_are_bounded_and_the_last_failure_is_the_result() {
    let timer = ManualTimer::new();
    let registry = Registry::builder()
        .linked()
        .timer(timer.clone())
        .retry(RetryPolicy::new(3, Duration::from_secs(1)))
        .build()
        .unwrap();
    let driven = drive(
        &timer,
        registry.call_ungated("stubborn_read", json!({}), &cx(&timer)),
    );
    assert_eq!(driven.output.unwrap_err().model_text(), "the index is busy");
    assert_eq!(STUBBORN_ATTEMPTS.load(Ordering::SeqCst), 4);
    assert_eq!(driven.at, Duration::from_secs(1 + 2 + 4));
}

#[test]
fn a_write_tool_is_not_retried() {
    let timer = ManualTimer::new();
    let registry = registry(&timer);
    let driven = drive(
        &timer,
        registry.call_ungated("flaky_write", json!({}), &cx(&timer)),
    );
    assert!(matches!(driven.output, Err(ToolError::Transient { .. })));
    assert_eq!(FLAKY_WRITE_ATTEMPTS.load(Ordering::SeqCst), 1);
    assert_eq!(driven.steps, 0);
}

#[test]
fn declarations_say_who_is_idempotent() {
    let (read, write) = (SlowRead::DECLARATION, SlowWrite::DECLARATION);
    assert!(read.idempotent);
    assert!(!write.idempotent);
    assert_eq!(SlowRead::DECLARATION.timeout, Some(Duration::from_secs(2)));
    assert_eq!(UnboundedRead::DECLARATION.timeout, None);
}

#[test]
fn the_thread_timer_sleeps_and_forgets_dropped_sleeps() {
    use tool_core::calls::ThreadTimer;
    let timer = ThreadTimer::new();
    // A dropped long sleep must not hold up or disturb a short one.
    drop(timer.sleep(Duration::from_secs(3600)));
    futures_executor::block_on(timer.sleep(Duration::from_millis(1)));
}
