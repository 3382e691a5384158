//! fio's spelling of sizes, times and booleans.
//!
//! Sizes are powers of two (`4k` = 4096), as with fio's default `kb_base=1024`
//! (a fio job's `kb_base=1000` makes `k` 1000: [`parse_size_in`], and changes
//! the units of its normal output: [`OutputUnits`]); times without a suffix
//! are seconds. Errors say what was expected so the front ends can pass them
//! straight to the user.

use std::time::Duration;
use thiserror::Error;

/// fio's `kb_base` and `unit_base` as the normal output reads them (JSON
/// keeps its base units whatever they say, as fio's does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputUnits {
    /// `kb_base=1000`: `k`, `m`, `g` in sizes are powers of ten (`ki`,
    /// `mi`, `gi` powers of two) and the output puts SI units first.
    pub kb_base_1000: bool,
    /// `unit_base=1`: bandwidth in bits per second.
    pub bits: bool,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum UnitError {
    #[error("'{0}' is not a size: use a number with an optional k, m, g, t or p suffix (e.g. 4k, 1m, 1g)")]
    Size(String),
    #[error("'{0}' is not a duration: use a number with an optional us, ms, s, m or h suffix (e.g. 30, 500ms, 3h)")]
    Duration(String),
    #[error("'{0}' is not a boolean: use 1 or 0 (also true/false, yes/no, on/off)")]
    Bool(String),
    #[error("'{0}' is not a whole number")]
    Int(String),
}

/// Parses `4k`, `1m`, `1g`, `4KiB`, `4KB`, `512` (bytes) into bytes.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    parse_size_in(text, false)
}

/// [`parse_size`] under fio's `kb_base=1000` when `kb_base_1000`: `k`, `kb`,
/// `m`, ... are powers of ten and `ki`, `kib`, `mi`, ... powers of two, as
/// fio 3.33 reads them (`1m` is 1000000 bytes, `1mi` and `1MiB` 1048576).
/// Under the default base every suffix is a power of two: fio 3.33 reads
/// `ki`/`kib` there as powers of ten (`4KiB` = 4000 bytes), which no one
/// writing `4KiB` means, so diskbench keeps 4096.
pub fn parse_size_in(text: &str, kb_base_1000: bool) -> Result<u64, UnitError> {
    let err = || UnitError::Size(text.to_string());
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() {
        return Err(err());
    }
    let suffix = suffix.to_ascii_lowercase();
    // `k`, `kb` (SI under kb_base=1000) or `ki`, `kib` (always IEC).
    let (prefix, iec) = if let Some(p) = suffix.strip_suffix("ib") {
        (p, true)
    } else if let Some(p) = suffix.strip_suffix('i') {
        (p, true)
    } else {
        (suffix.strip_suffix('b').unwrap_or(&suffix), false)
    };
    let power = match prefix {
        "" if !iec => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(err()),
    };
    let scale = match iec || !kb_base_1000 {
        true => 1u64 << (10 * power),
        false => 1000u64.pow(power),
    };
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(scale).ok_or_else(err);
    }
    let f: f64 = num.parse().map_err(|_| err())?;
    let bytes = f * scale as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(err());
    }
    Ok(bytes.round() as u64)
}

/// Parses `30`, `30s`, `500ms`, `100us`, `10m`, `3h`, `1d`: bare numbers are seconds.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let err = || UnitError::Duration(text.to_string());
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| err())?;
    let seconds_per_unit = match suffix.to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1.0,
        "ms" | "msec" => 1e-3,
        "us" | "usec" => 1e-6,
        "ns" | "nsec" => 1e-9,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return Err(err()),
    };
    let secs = value * seconds_per_unit;
    if !secs.is_finite() || secs < 0.0 {
        return Err(err());
    }
    // Beyond Duration's range (about 585 billion years) is an error, not a panic.
    Duration::try_from_secs_f64(secs).map_err(|_| err())
}

pub fn parse_bool(text: &str) -> Result<bool, UnitError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(UnitError::Bool(text.to_string())),
    }
}

pub fn parse_int(text: &str) -> Result<u64, UnitError> {
    text.trim()
        .parse()
        .map_err(|_| UnitError::Int(text.to_string()))
}

/// Formats bytes the way fio prints them in option echoes: `4k`, `1m`, `1g`, or plain bytes.
/// A count with its thousands grouped: 12345 as "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

pub fn format_size(bytes: u64) -> String {
    for (shift, suffix) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{}", bytes >> shift, suffix);
        }
    }
    bytes.to_string()
}

/// Formats a byte count as binary units with one decimal: `1.0 GiB`,
/// `512.0 MiB`, `0 B`. A space between number and unit, as in every size a
/// person reads from diskbench (`Free space 75.2 GiB`); fio's own compact
/// forms (`399MiB`) stay only where fio's output is reproduced.
pub fn format_bytes_binary(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers_of_two() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("4KB"), Ok(4096));
        assert_eq!(parse_size("1m"), Ok(1 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert!(parse_size("4x").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("99999999999p").is_err());
    }

    #[test]
    fn kb_base_1000_reads_fios_si_and_iec_prefixes() {
        // fio 3.33 with kb_base=1000: 1m and 1MB are 10^6, 1mi and 1MiB 2^20.
        for (text, bytes) in [
            ("1m", 1_000_000),
            ("1MB", 1_000_000),
            ("4k", 4000),
            ("1mi", 1 << 20),
            ("1MiB", 1 << 20),
            ("4Ki", 4096),
            ("2g", 2_000_000_000),
            ("512", 512),
            ("512b", 512),
            ("1.5k", 1500),
        ] {
            assert_eq!(parse_size_in(text, true), Ok(bytes), "{text}");
        }
        for text in ["4x", "4kk", "4ib", "4i", "4bb", "4kbi", "4kbb", "4kii", "k"] {
            assert!(parse_size_in(text, true).is_err(), "{text}");
            assert!(parse_size_in(text, false).is_err(), "{text}");
        }
        assert_eq!(parse_size_in("1mi", false), Ok(1 << 20));
    }

    #[test]
    fn durations_default_to_seconds() {
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3h"), Ok(Duration::from_secs(10800)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("18446744073709551616").is_err());
        assert!(parse_duration("99999999999999999999d").is_err());
    }

    #[test]
    fn booleans_and_formats() {
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(parse_bool("off"), Ok(false));
        assert!(parse_bool("maybe").is_err());
        assert_eq!(format_size(4096), "4k");
        assert_eq!(format_size(1 << 30), "1g");
        assert_eq!(format_size(1000), "1000");
        assert_eq!(format_bytes_binary(1 << 30), "1.0 GiB");
        assert_eq!(format_bytes_binary(500 << 30), "500.0 GiB");
        assert_eq!(format_bytes_binary(0), "0 B");
    }
}
