//! Dates for the history: UTC printing, `--since`/`--until` parsing and the
//! RFC 3339 timestamps GoBonnieGo writes. A few lines of calendar
//! arithmetic (Howard Hinnant's days-from-civil) instead of a date crate:
//! the history needs UTC and nothing else.

use report::format::civil_from_days;

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-11-22 02:07:58` (UTC).
pub fn format_utc(unix_ms: u64) -> String {
    let secs = (unix_ms / 1000) as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

fn num(text: &str, len: usize) -> Option<u32> {
    (text.len() == len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD` as (y, m, d), checked.
fn date(text: &str) -> Option<(i64, u32, u32)> {
    let mut parts = text.split('-');
    let y = num(parts.next()?, 4)?;
    let m = num(parts.next()?, 2)?;
    let d = num(parts.next()?, 2)?;
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some((y as i64, m, d))
}

/// `HH:MM[:SS[.fraction]]` as milliseconds into the day.
fn time_of_day(text: &str) -> Option<u64> {
    let (hms, frac) = match text.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let mut parts = hms.split(':');
    let h = num(parts.next()?, 2)?;
    let m = num(parts.next()?, 2)?;
    let s = match parts.next() {
        Some(s) => num(s, 2)?,
        None => 0,
    };
    if parts.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let ms = match frac {
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let f = format!("{f:0<3}");
            f[..3].parse::<u64>().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    Some(((h as u64 * 60 + m as u64) * 60 + s as u64) * 1000 + ms)
}

fn day_ms(y: i64, m: u32, d: u32) -> Option<u64> {
    u64::try_from(days_from_civil(y, m, d) * 86_400_000).ok()
}

/// RFC 3339 (`2026-11-22T02:07:58.382174148Z`, or with `+01:00`) as Unix ms.
pub fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let (d, rest) = text.split_once(['T', 't', ' '])?;
    let (y, m, day) = date(d)?;
    let (clock, offset_min) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0i64)
    } else {
        let at = rest.rfind(['+', '-'])?;
        let (c, off) = rest.split_at(at);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (oh, om) = off[1..].split_once(':')?;
        (c, sign * (num(oh, 2)? as i64 * 60 + num(om, 2)? as i64))
    };
    let ms = day_ms(y, m, day)? as i64 + time_of_day(clock)? as i64 - offset_min * 60_000;
    u64::try_from(ms).ok()
}

/// A `--since`/`--until` time: `2026-11-22`, `2026-11-22T14:30[:00]` or
/// `2026-11-22 14:30` (UTC), or an age such as `7d`, `12h`, `30m` (that
/// long before `now_ms`). A bare date given to `--until` means the end of
/// that day (`end_of_day`), so `--until 2026-11-22` includes the 22nd.
pub fn parse_when(text: &str, now_ms: u64, end_of_day: bool) -> Result<u64, String> {
    let t = text.trim();
    if let Some((y, m, d)) = date(t) {
        let start = day_ms(y, m, d).ok_or_else(|| bad_when(text))?;
        return Ok(if end_of_day {
            start + 86_400_000 - 1
        } else {
            start
        });
    }
    if let Some(ms) = parse_rfc3339_ms(t) {
        return Ok(ms);
    }
    if let Some((d, clock)) = t.split_once(['T', ' ']) {
        let (y, m, day) = date(d).ok_or_else(|| bad_when(text))?;
        let tod = time_of_day(clock).ok_or_else(|| bad_when(text))?;
        return Ok(day_ms(y, m, day).ok_or_else(|| bad_when(text))? + tod);
    }
    if t.ends_with(|c: char| c.is_ascii_alphabetic()) {
        if let Ok(age) = model::units::parse_duration(t) {
            return Ok(now_ms.saturating_sub(age.as_millis() as u64));
        }
    }
    Err(bad_when(text))
}

fn bad_when(text: &str) -> String {
    format!(
        "'{text}' is not a time: use a UTC date (2026-11-22), a date and time \
         (2026-11-22T14:30) or an age (30m, 12h, 7d)"
    )
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(1_795_313_282_000), "2026-11-22 02:08:02");
        for days in [-1000i64, 0, 59, 60, 365, 11_016, 20_000, 100_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
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
        let e = parse_when("last tuesday", 0, false).unwrap_err();
        assert!(e.contains("2026-11-22T14:30") && e.contains("7d"), "{e}");
        assert!(parse_when("12", 0, false).is_err());
    }
}
