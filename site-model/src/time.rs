//! Points in time as the site stores them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, UTC.
///
/// An integer rather than a date string, so ordering ("newest first") is
/// exact whatever format a backend keeps; [`Timestamp`]'s `Display` gives
/// RFC 3339 for people and models.
///
/// ```
/// use site_model::Timestamp;
/// assert_eq!(Timestamp(1_717_243_200).to_string(), "2024-06-01T12:00:00Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Midnight (UTC) starting this instant's day.
    ///
    /// ```
    /// use site_model::Timestamp;
    /// assert_eq!(Timestamp(1_717_243_200).day_start().to_string(), "2024-06-01T00:00:00Z");
    /// ```
    pub fn day_start(self) -> Timestamp {
        Timestamp(self.0 - self.0.rem_euclid(86_400))
    }

    /// Midnight (UTC) starting the day `date` names (`YYYY-MM-DD`), or
    /// `None` when it names no day.
    ///
    /// ```
    /// use site_model::Timestamp;
    /// assert_eq!(Timestamp::from_date("2024-06-01"), Some(Timestamp(1_717_200_000)));
    /// assert_eq!(Timestamp::from_date("2024-02-30"), None);
    /// assert_eq!(Timestamp::from_date("yesterday"), None);
    /// ```
    pub fn from_date(date: &str) -> Option<Timestamp> {
        let mut parts = date.trim().splitn(3, '-');
        let year: i64 = parts.next()?.parse().ok()?;
        let month: u32 = parts.next()?.parse().ok()?;
        let day: u32 = parts.next()?.parse().ok()?;
        let days = days_from_civil(year, month, day)?;
        Some(Timestamp(days * 86_400))
    }

    /// Midnight (UTC) starting this instant's month.
    ///
    /// ```
    /// use site_model::Timestamp;
    /// assert_eq!(Timestamp(1_717_243_200).month_start().to_string(), "2024-06-01T00:00:00Z");
    /// assert_eq!(Timestamp(1_719_705_600).month_start().to_string(), "2024-06-01T00:00:00Z");
    /// ```
    pub fn month_start(self) -> Timestamp {
        let (_, _, day) = civil_from_days(self.0.div_euclid(86_400));
        Timestamp(self.day_start().0 - i64::from(day - 1) * 86_400)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )
    }
}

/// Howard Hinnant's `civil_from_days`: proleptic Gregorian, exact for every
/// `i64` day count a site will meet, and no date crate for one conversion.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Howard Hinnant's `days_from_civil`, the inverse of [`civil_from_days`];
/// `None` for a month or day that does not exist.
fn days_from_civil(year: i64, month: u32, day: u32) -> Option<i64> {
    if !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    // A day past the month's end lands in the next month: refuse it.
    (civil_from_days(days) == (year, month, day)).then_some(days)
}
