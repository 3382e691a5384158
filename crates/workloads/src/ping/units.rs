//! ioping's units, parsed and printed as ioping does, so its users can type
//! `-s 4k -i 10ms -c 1k` and read `151.8 us`, `13.2 k iops`, `51.5 MiB/s`
//! exactly as they know them. ioping's own rules, not diskbench's
//! (`model::units`): counts are decimal (`1k` = 1000), sizes binary, and
//! sizes also take `sector` and `page`.

use std::time::Duration;

pub(crate) const KIB: u64 = 1 << 10;
pub(crate) const MIB: u64 = 1 << 20;
pub(crate) const NS_PER_SEC: u64 = 1_000_000_000;

/// ioping's size suffixes (case-insensitive; `k` is 1024, as in ioping).
const SIZE_SUFFIXES: &[(&str, u64)] = &[
    ("", 1),
    ("b", 1),
    ("k", KIB),
    ("kb", KIB),
    ("kib", KIB),
    ("m", MIB),
    ("mb", MIB),
    ("mib", MIB),
    ("g", 1 << 30),
    ("gb", 1 << 30),
    ("gib", 1 << 30),
    ("t", 1 << 40),
    ("tb", 1 << 40),
    ("tib", 1 << 40),
    ("pb", 1 << 50),
    ("pib", 1 << 50),
    ("sector", 512),
    ("page", 4096),
];

/// ioping's time suffixes; a bare number is seconds.
const TIME_SUFFIXES: &[(&str, u64)] = &[
    ("", NS_PER_SEC),
    ("s", NS_PER_SEC),
    ("sec", NS_PER_SEC),
    ("ms", 1_000_000),
    ("msec", 1_000_000),
    ("us", 1_000),
    ("usec", 1_000),
    ("ns", 1),
    ("nsec", 1),
    ("m", 60 * NS_PER_SEC),
    ("min", 60 * NS_PER_SEC),
    ("h", 3600 * NS_PER_SEC),
    ("hour", 3600 * NS_PER_SEC),
];

/// ioping's count suffixes: decimal, `k` is 1000.
const COUNT_SUFFIXES: &[(&str, u64)] = &[
    ("", 1),
    ("da", 10),
    ("k", 1_000),
    ("m", 1_000_000),
    ("g", 1_000_000_000),
    ("t", 1_000_000_000_000),
    ("p", 1_000_000_000_000_000),
];

/// A size, time or count that ioping's syntax cannot read: the text, what
/// it should have been, why it is not, and how to write one.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not {what}: {why}; {hint}")]
pub struct PingValueError {
    pub text: String,
    pub what: &'static str,
    pub why: String,
    pub hint: &'static str,
}

/// Parses `NUMBER[/DIVISOR]SUFFIX` as ioping's `parse_suffix` does.
fn parse_suffixed(
    text: &str,
    table: &[(&str, u64)],
    what: &'static str,
    hint: &'static str,
) -> Result<u64, PingValueError> {
    let t = text.trim();
    let bad = |why: String| PingValueError {
        text: text.to_string(),
        what,
        why,
        hint,
    };
    let number_end = |s: &str| {
        s.find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len())
    };
    let (num, mut rest) = t.split_at(number_end(t));
    let mut value: f64 = match (num, rest.starts_with('/')) {
        ("", true) => 1.0,
        ("", false) => return Err(bad("it has no number".into())),
        (n, _) => n
            .parse()
            .map_err(|_| bad("the number is malformed".into()))?,
    };
    if let Some(after) = rest.strip_prefix('/') {
        let (den, tail) = after.split_at(number_end(after));
        let den: f64 = den
            .parse()
            .map_err(|_| bad("the divisor is malformed".into()))?;
        if den == 0.0 {
            return Err(bad("division by zero".into()));
        }
        value /= den;
        rest = tail;
    }
    let Some(&(_, scale)) = table.iter().find(|(s, _)| s.eq_ignore_ascii_case(rest)) else {
        return Err(bad(format!("unknown suffix '{rest}'")));
    };
    let result = value * scale as f64;
    if !result.is_finite() || result >= u64::MAX as f64 {
        return Err(bad("it is too large".into()));
    }
    Ok(result.round() as u64)
}

/// A size in ioping's syntax: `4k`, `1MiB`, `8sector`, `1page`, `512`.
pub fn parse_size(text: &str) -> Result<u64, PingValueError> {
    let hint = "use a number of bytes with an optional suffix k, m, g, t (or KiB, MiB, GiB), \
                sector or page, e.g. 4k";
    parse_suffixed(text, SIZE_SUFFIXES, "a size", hint)
}

/// A time in ioping's syntax: `1s`, `10ms`, `500us`, `0`; bare numbers are seconds.
pub fn parse_time(text: &str) -> Result<Duration, PingValueError> {
    let hint = "use a number with an optional suffix ns, us, ms, s, m (minutes) or h, e.g. 10ms";
    parse_suffixed(text, TIME_SUFFIXES, "a time", hint).map(Duration::from_nanos)
}

/// A count in ioping's syntax: `10`, `1k` (1000), `2m` (2 000 000).
pub fn parse_count(text: &str) -> Result<u64, PingValueError> {
    let hint = "use a whole number with an optional suffix k (1000), m or g, e.g. 100 or 1k";
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if t[..digits].is_empty() || t[digits..].starts_with(['.', '/']) {
        return Err(PingValueError {
            text: text.to_string(),
            what: "a count",
            why: "it must be a whole number".into(),
            hint,
        });
    }
    parse_suffixed(text, COUNT_SUFFIXES, "a count", hint)
}

/// ioping's `print_suffix`: the largest unit not above the value, with 0,
/// 1 or 2 decimals (exact, at least ten units, below ten units).
fn format_suffixed(value: u64, table: &[(&str, u64)]) -> String {
    let &(unit, scale) = table
        .iter()
        .find(|&&(_, scale)| value >= scale || scale == 1)
        .unwrap_or(&("", 1));
    let precision = if value.is_multiple_of(scale) {
        0
    } else if value >= scale.saturating_mul(10) {
        1
    } else {
        2
    };
    let number = format!("{:.*}", precision, value as f64 / scale as f64);
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}

/// Bytes as ioping prints them: `4 KiB`, `51.5 MiB`, `252.0 GiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: &[(&str, u64)] = &[
        ("PiB", 1 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", MIB),
        ("KiB", KIB),
        ("B", 1),
    ];
    format_suffixed(bytes, UNITS)
}

/// Nanoseconds as ioping prints them: `151.8 us`, `8.44 us`, `1.23 ms`.
pub fn format_time(ns: u64) -> String {
    const UNITS: &[(&str, u64)] = &[
        ("hour", 3600 * NS_PER_SEC),
        ("min", 60 * NS_PER_SEC),
        ("s", NS_PER_SEC),
        ("ms", 1_000_000),
        ("us", 1_000),
        ("ns", 1),
    ];
    format_suffixed(ns, UNITS)
}

/// A count as ioping prints it: `20`, `13.2 k`, `1.05 M`.
pub fn format_count(n: u64) -> String {
    const UNITS: &[(&str, u64)] = &[
        ("T", 1_000_000_000_000),
        ("G", 1_000_000_000),
        ("M", 1_000_000),
        ("k", 1_000),
        ("", 1),
    ];
    format_suffixed(n, UNITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_parses_iopings_units() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("1M"), Ok(MIB));
        assert_eq!(parse_size("8sector"), Ok(4096));
        assert_eq!(parse_size("2page"), Ok(8192));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert!(parse_size("4x")
            .unwrap_err()
            .to_string()
            .contains("unknown suffix 'x'"));
        assert!(parse_size("k").is_err());
        assert_eq!(parse_time("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_time("10ms"), Ok(Duration::from_millis(10)));
        assert_eq!(parse_time("0"), Ok(Duration::ZERO));
        assert_eq!(parse_time("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_time("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_time("1/4s"), Ok(Duration::from_millis(250)));
        assert!(parse_time("1/0")
            .unwrap_err()
            .to_string()
            .contains("division by zero"));
        assert!(parse_time("5 parsecs").is_err());
        assert_eq!(parse_count("10"), Ok(10));
        assert_eq!(parse_count("1k"), Ok(1000));
        assert_eq!(parse_count("2M"), Ok(2_000_000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("-1").is_err());
    }

    #[test]
    fn ping_formats_as_ioping_prints() {
        // Figures from a real `ioping -c 3 -i 0 /tmp` run.
        assert_eq!(format_time(151_800), "151.8 us");
        assert_eq!(format_time(8_440), "8.44 us");
        assert_eq!(format_time(136_300), "136.3 us");
        assert_eq!(format_time(3_000_000_000), "3 s");
        assert_eq!(format_time(0), "0 ns");
        assert_eq!(format_size(4096), "4 KiB");
        assert_eq!(format_size(8192), "8 KiB");
        assert_eq!(format_size(54_001_664), "51.5 MiB");
        assert_eq!(format_size(270_600_000_000), "252.0 GiB");
        assert_eq!(format_size(1 << 30), "1 GiB");
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_count(13_200), "13.2 k");
        assert_eq!(format_count(9_070), "9.07 k");
        assert_eq!(format_count(2), "2");
    }
}
