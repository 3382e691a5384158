//! Every date diskbench prints or reads, in one place and through one
//! library (`jiff`): the history's `2026-11-22 02:07:58`, fio's ctime-style
//! `Sun Nov 22 02:08:06 2026`, GoBonnieGo's RFC 3339 timestamps and the
//! `--since`/`--until` times of the history commands.
//!
//! Everything is UTC: a result file or a history says the same thing
//! wherever it is read, so no time zone database is needed. This crate
//! only converts; it reads no clock but [`now_ms`] and prints nothing.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::Timestamp;

/// A `--since`/`--until` text that is not a time; the message shows the
/// forms that are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a time: use a UTC date (2026-11-22), a date and time \
     (2026-11-22T14:30) or an age (30m, 12h, 7d)"
)]
pub struct NotATime(pub String);

/// The instant `unix_ms` milliseconds after 1970-01-01 UTC, if jiff can
/// hold it (years -9999 to 9999).
fn instant(unix_ms: u64) -> Option<Timestamp> {
    Timestamp::from_millisecond(i64::try_from(unix_ms).ok()?).ok()
}

/// `2026-11-22 02:07:58` (UTC). An instant past the year 9999 (only a
/// corrupt file holds one) is shown as its milliseconds.
pub fn format_utc(unix_ms: u64) -> String {
    match instant(unix_ms) {
        Some(t) => t.strftime("%Y-%m-%d %H:%M:%S").to_string(),
        None => format!("{unix_ms} ms after 1970"),
    }
}

/// C's `ctime()` layout, in UTC: `Sun Nov 22 02:08:06 2026` (no newline).
/// fio prints local time; we print UTC so that a file says the same thing
/// wherever it is read. An instant past the year 9999 is shown as its
/// seconds.
pub fn ctime_utc(unix_secs: u64) -> String {
    match unix_secs.checked_mul(1000).and_then(instant) {
        Some(t) => t.strftime("%a %b %e %H:%M:%S %Y").to_string(),
        None => format!("{unix_secs} s after 1970"),
    }
}

/// RFC 3339 (`2026-11-22T02:07:58.382174148Z`, or with `+01:00`) as Unix
/// ms, the fraction cut to the millisecond; `None` for anything else,
/// including an instant before 1970.
pub fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let t: Timestamp = text.parse().ok()?;
    u64::try_from(t.as_millisecond()).ok()
}

/// Milliseconds since 1970 of a civil time taken as UTC, none before 1970.
fn utc_ms(dt: DateTime) -> Option<u64> {
    let t = dt.to_zoned(TimeZone::UTC).ok()?.timestamp();
    u64::try_from(t.as_millisecond()).ok()
}

/// A `--since`/`--until` time: `2026-11-22`, `2026-11-22T14:30[:00]` or
/// `2026-11-22 14:30` (UTC), or an age such as `7d`, `12h`, `30m` (that
/// long before `now_ms`). A bare date given to `--until` means the end of
/// that day (`end_of_day`), so `--until 2026-11-22` includes the 22nd.
pub fn parse_when(text: &str, now_ms: u64, end_of_day: bool) -> Result<u64, NotATime> {
    let bad = || NotATime(text.to_string());
    let t = text.trim();
    if is_date(t) {
        let date: Date = t.parse().map_err(|_| bad())?;
        let start = utc_ms(date.to_datetime(jiff::civil::Time::midnight())).ok_or_else(bad)?;
        return Ok(if end_of_day {
            start + 86_400_000 - 1
        } else {
            start
        });
    }
    if let Some(ms) = parse_rfc3339_ms(t) {
        return Ok(ms);
    }
    if let Some((d, _)) = t.split_once(['T', ' ']) {
        if !is_date(d) {
            return Err(bad());
        }
        let dt: DateTime = t.parse().map_err(|_| bad())?;
        return utc_ms(dt).ok_or_else(bad);
    }
    if t.ends_with(|c: char| c.is_ascii_alphabetic()) {
        if let Ok(age) = model::units::parse_duration(t) {
            return Ok(now_ms.saturating_sub(age.as_millis() as u64));
        }
    }
    Err(bad())
}

/// `YYYY-MM-DD` in digits: the only date form the history commands take
/// (jiff would also take `+002026-11-22` and `20261122`).
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Milliseconds since 1970-01-01 UTC, now.
pub fn now_ms() -> u64 {
    u64::try_from(Timestamp::now().as_millisecond()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_the_history_prints_them() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(1_795_313_282_000), "2026-11-22 02:08:02");
        assert_eq!(format_utc(951_782_400_000), "2000-02-29 00:00:00");
    }

    #[test]
    fn ctime_matches_c() {
        assert_eq!(ctime_utc(1_795_313_286), "Sun Nov 22 02:08:06 2026");
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn rfc3339_as_gobonniego_writes_it() {
        assert_eq!(
            parse_rfc3339_ms("2026-11-22T02:07:58.382174148Z"),
            Some(1_795_313_278_382)
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-22T03:07:58+01:00"),
            Some(1_795_313_278_000)
        );
        assert_eq!(parse_rfc3339_ms("2026-11-22"), None);
        assert_eq!(parse_rfc3339_ms("yesterday"), None);
        assert_eq!(parse_rfc3339_ms("2026-13-22T00:00:00Z"), None);
    }

    #[test]
    fn since_and_until() {
        let day = 1_795_305_600_000; // 2026-11-22 00:00:00
        assert_eq!(parse_when("2026-11-22", 0, false), Ok(day));
        assert_eq!(parse_when("2026-11-22", 0, true), Ok(day + 86_400_000 - 1));
        assert_eq!(parse_when("2026-11-22T01:30", 0, true), Ok(day + 5_400_000));
        assert_eq!(
            parse_when("2026-11-22 01:30:01", 0, false),
            Ok(day + 5_401_000)
        );
        assert_eq!(parse_when("7d", 10 * 86_400_000, false), Ok(3 * 86_400_000));
        assert_eq!(parse_when("90m", 3_600_000, false), Ok(0));
        let e = parse_when("last tuesday", 0, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2026-11-22T14:30") && e.contains("7d"), "{e}");
        assert!(parse_when("12", 0, false).is_err());
    }
}
