//! How the host is used over a chosen period (administrators): calls per
//! tool per day, refusals per gate, how long proposals waited for a
//! decision (median and 90th percentile), and tokens and estimated cost
//! per day, from the audit trail, the proposals and the runs.

use site_model::Timestamp;

use crate::app::{Admin, HostError};
use crate::store::{HostUsage, now};

/// The periods a person may pick, in days.
pub const PERIODS: [u32; 3] = [7, 30, 90];

/// The figures of one period.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    /// The period's first day (days since the Unix epoch, UTC).
    pub first_day: i64,
    /// Its length in days, today included.
    pub days: u32,
    /// The figures.
    pub usage: HostUsage,
    /// The median wait of a decided proposal, in seconds.
    pub wait_median: Option<i64>,
    /// The 90th percentile of the waits, in seconds.
    pub wait_p90: Option<i64>,
}

/// The nearest-rank `percent`th percentile of `sorted`.
fn percentile(sorted: &[i64], percent: usize) -> Option<i64> {
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

impl Admin<'_> {
    /// The last `days` days (one of [`PERIODS`], today included) for
    /// `viewer`, an administrator.
    pub async fn overview(&self, viewer: &str, days: u32) -> Result<Overview, HostError> {
        self.access
            .require_admin(viewer, "see the overview")
            .await?;
        if !PERIODS.contains(&days) {
            return Err(HostError::Invalid(format!(
                "a period of {days} days: choose 7, 30 or 90"
            )));
        }
        let today = Timestamp(now()).day_start().0 / 86_400;
        let first_day = today - i64::from(days) + 1;
        let usage = self
            .host
            .store()
            .run_log()
            .usage_since(first_day * 86_400)
            .await?;
        Ok(Overview {
            first_day,
            days,
            wait_median: percentile(&usage.waits, 50),
            wait_p90: percentile(&usage.waits, 90),
            usage,
        })
    }
}
