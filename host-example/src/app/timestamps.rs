//! Seconds since the Unix epoch, as the doors show them: the pages as
//! `2026-12-02 12:34 UTC`, MCP as ISO 8601 (`2026-12-02T12:34:56Z`).

/// A moment in UTC, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utc {
    /// The year (proleptic Gregorian).
    pub year: i64,
    /// 1 to 12.
    pub month: i64,
    /// 1 to 31.
    pub day: i64,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
}

impl Utc {
    /// The moment `seconds` after the Unix epoch.
    pub fn from_epoch(seconds: i64) -> Utc {
        let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
        let rest = seconds.rem_euclid(86_400);
        Utc {
            year,
            month,
            day,
            hour: rest / 3600,
            minute: rest % 3600 / 60,
            second: rest % 60,
        }
    }

    /// `2026-12-02T12:34:56Z`.
    pub fn iso8601(self) -> String {
        let Utc {
            year,
            month,
            day,
            hour,
            minute,
            second,
        } = self;
        format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
    }
}

/// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a
/// day count from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::Utc;

    #[test]
    fn dates_around_leap_days_and_the_epoch() {
        assert_eq!(Utc::from_epoch(0).iso8601(), "1970-01-01T00:00:00Z");
        // 2024-02-29 23:59:59 and the second after.
        assert_eq!(
            Utc::from_epoch(1_709_251_199).iso8601(),
            "2024-02-29T23:59:59Z"
        );
        assert_eq!(
            Utc::from_epoch(1_709_251_200).iso8601(),
            "2024-03-01T00:00:00Z"
        );
        assert_eq!(Utc::from_epoch(-1).iso8601(), "1969-12-31T23:59:59Z");
    }
}
