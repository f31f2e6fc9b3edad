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
