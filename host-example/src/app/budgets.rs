//! Each user's budget (setting `budgets`: tokens and estimated cost per day
//! and per month, with a default for everyone), checked before every round
//! of every run of theirs, whichever door started or resumed it: the core's
//! [`Budget`](tool_core::agent::Budget) hook, fed what their other runs
//! spent today and this month. A round whose request would cross a limit is
//! not sent; the run ends `budget` with the reason.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use site_model::Timestamp;
use tool_core::RunId;
use tool_core::agent::{BudgetExceeded, RunEnd, Spent, Usage};

use crate::app::{Admin, HostError, SettingKey};
use crate::model::ModelConfig;
use crate::store::{Limits, Spending, now};

/// What one run of a user may still spend, as its budget check sees it.
#[derive(Debug)]
pub struct Allowance {
    user: String,
    limits: Limits,
    /// Their other runs' spending since the start of the day and month.
    day: Spending,
    month: Spending,
    /// The run's model configuration, for its prices.
    prices: ModelConfig,
    /// The estimated size of the first request this invocation sends.
    first_request: u64,
    /// The run's tokens at the last check; `u64::MAX` before the first.
    seen: AtomicU64,
}

/// One user's budget and spending, for the people page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserBudget {
    /// The user.
    pub name: String,
    /// Their limits in effect.
    pub limits: Limits,
    /// Whether the limits are their own (else the default's).
    pub own: bool,
    /// Tokens spent today (UTC).
    pub day_tokens: u64,
    /// Estimated cost spent today.
    pub day_cost: f64,
    /// Tokens spent this month (UTC).
    pub month_tokens: u64,
    /// Estimated cost spent this month.
    pub month_cost: f64,
}

fn tokens(usage: Usage) -> u64 {
    usage.input_tokens.saturating_add(usage.output_tokens)
}

impl Allowance {
    /// Whether the next round may be sent: what the user's other runs
    /// spent, this run's spending, and the next request's estimate (the
    /// first request's size, then the last round's tokens: the next request
    /// carries all of that again) against each limit.
    pub fn check(&self, spent: &Spent) -> Result<(), BudgetExceeded> {
        let used = tokens(spent.usage);
        let before = self.seen.swap(used, Ordering::Relaxed);
        let next = if before == u64::MAX {
            self.first_request
        } else {
            used.saturating_sub(before)
        };
        let cost = |usage: Usage| self.prices.estimate_cost(usage).unwrap_or(0.0);
        let run_cost = cost(spent.usage)
            + cost(Usage {
                input_tokens: next,
                output_tokens: 0,
            });
        let periods = [
            (
                "a day",
                "today",
                self.limits.tokens_per_day,
                self.limits.cost_per_day,
                self.day,
            ),
            (
                "a month",
                "this month",
                self.limits.tokens_per_month,
                self.limits.cost_per_month,
                self.month,
            ),
        ];
        for (per, when, token_limit, cost_limit, other) in periods {
            if let Some(limit) = token_limit {
                let spent = other.tokens.saturating_add(used);
                if spent.saturating_add(next) > limit {
                    return Err(BudgetExceeded::new(format!(
                        "{}'s budget is {limit} tokens {per}: {spent} spent {when}, and the next request needs about {next} more",
                        self.user
                    )));
                }
            }
            if let Some(limit) = cost_limit {
                let spent = other.cost + run_cost;
                if spent > limit {
                    return Err(BudgetExceeded::new(format!(
                        "{}'s budget is an estimated {limit:.4} {per}: {spent:.4} with the next request {when}",
                        self.user
                    )));
                }
            }
        }
        Ok(())
    }
}

impl Admin<'_> {
    /// What a run of `user` on `prices` may spend now, `run` (when it is
    /// resumed) left out of their other runs, `first_request` the estimated
    /// tokens of the request it sends first.
    pub(in crate::app) async fn allowance(
        &self,
        user: &str,
        run: Option<&RunId>,
        prices: &ModelConfig,
        first_request: u64,
    ) -> Result<Allowance, HostError> {
        let at = Timestamp(now());
        Ok(Allowance {
            limits: self.host.store().config().budgets().await?.of(user),
            day: self
                .host
                .store()
                .people()
                .spent_since(user, at.day_start().0, run)
                .await?,
            month: self
                .host
                .store()
                .people()
                .spent_since(user, at.month_start().0, run)
                .await?,
            user: user.to_owned(),
            prices: prices.clone(),
            first_request,
            seen: AtomicU64::new(u64::MAX),
        })
    }

    /// Records what `run` is estimated to have cost, at `prices`, from how
    /// this invocation of it ended.
    pub(in crate::app) async fn record_cost(
        &self,
        run: &RunId,
        prices: &ModelConfig,
        end: &RunEnd,
    ) -> Result<(), HostError> {
        let usage = match end {
            RunEnd::Finished(finished) => finished.usage,
            RunEnd::Suspended(state) => state.usage(),
        };
        Ok(self
            .host
            .store()
            .people()
            .set_run_cost(run, prices.estimate_cost(usage))
            .await?)
    }

    /// Every user's budget and spending today and this month, for `viewer`,
    /// an administrator.
    pub async fn budgets(&self, viewer: &str) -> Result<Vec<UserBudget>, HostError> {
        self.access.require_admin(viewer, "see budgets").await?;
        let budgets = self.host.store().config().budgets().await?;
        let at = Timestamp(now());
        let mut all = Vec::new();
        for user in self.host.store().people().users().await? {
            let day = self
                .host
                .store()
                .people()
                .spent_since(&user.name, at.day_start().0, None)
                .await?;
            let month = self
                .host
                .store()
                .people()
                .spent_since(&user.name, at.month_start().0, None)
                .await?;
            all.push(UserBudget {
                limits: budgets.of(&user.name),
                own: budgets.users.contains_key(&user.name),
                day_tokens: day.tokens,
                day_cost: day.cost,
                month_tokens: month.tokens,
                month_cost: month.cost,
                name: user.name,
            });
        }
        Ok(all)
    }

    /// Everyone's limits unless their own are set, for `viewer`, an
    /// administrator.
    pub async fn default_budget(&self, viewer: &str) -> Result<Limits, HostError> {
        self.access.require_admin(viewer, "the budgets").await?;
        Ok(self.host.store().config().budgets().await?.default)
    }

    /// Sets `name`'s own limits (`None`: the default's again), or the
    /// default (`name` `None`), as `user`, an administrator: stored in the
    /// `budgets` setting, checked and audited as any setting is.
    pub async fn set_budget(
        &self,
        user: &str,
        name: Option<&str>,
        limits: Option<Limits>,
    ) -> Result<(), HostError> {
        self.access.administrator(user, "settings").await?;
        let mut budgets = self.host.store().config().budgets().await?;
        match (name, limits) {
            (None, limits) => budgets.default = limits.unwrap_or_default(),
            (Some(name), Some(limits)) => {
                self.host.actor(name).await?;
                budgets.users.insert(name.to_owned(), limits);
            }
            (Some(name), None) => {
                budgets.users.remove(name);
            }
        }
        let json = serde_json::to_string(&budgets).unwrap_or_default();
        self.set_setting(user, SettingKey::Budgets.name(), &json)
            .await
            .map(drop)
    }
}
