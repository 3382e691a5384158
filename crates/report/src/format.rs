//! Number formatting shared by every renderer, written once.
//!
//! fio users read figures like `IOPS=34.0k`, `BW=133MiB/s (139MB/s)` and
//! `clat (usec)` at a glance, so the fio-style helpers reproduce fio's own
//! rules (`num2str` in fio's `lib/num2str.c`, `nsec_to_usec`/`nsec_to_msec`
//! and the percentile scaling in `stat.c`) rather than approximating them.
//! The terminal table has its own, friendlier helpers (`212 us`, `5.50 ms`).

use model::units::OutputUnits;

/// fio's `num2str(num, maxlen, 1, pow2, unit)`: shortens `num` to at most
/// `maxlen` digits (the dot counts) with a k/M/G (or Ki/Mi/Gi) prefix,
/// rounding the last digit. `unit` is appended after the prefix (`"B/s"`, `"B"`, `""`).
///
/// One deliberate difference: fio stops at P; we also know E, so a huge
/// value is never printed without its prefix.
pub fn num2str(num: u64, maxlen: usize, pow2: bool, unit: &str) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { &IEC } else { &SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };

    let mut num = num;
    let mut post = 0;
    let mut modulo = None;
    let mut carry = false;
    while post + 1 < prefixes.len() && digits(num) > maxlen {
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    let Some(modulo) = modulo else {
        return format!("{num}{}{unit}", prefixes[post]);
    };
    let int_len = digits(num);
    if maxlen <= int_len + 1 {
        // No room for decimals: round the integer part.
        if carry {
            num += 1;
        }
        return format!("{num}{}{unit}", prefixes[post]);
    }
    let decimals = maxlen - int_len - 1;
    let frac = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if frac.starts_with('1') {
        // 0.99.. rounded up to 1.0: carry into the integer part, as newer fio does.
        num += 1;
    }
    format!("{num}.{}{}{unit}", &frac[2..], prefixes[post])
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// fio's IOPS figure: `34.0k`, `9876`, `1.20M` (4 significant characters, decimal prefixes).
pub fn fio_iops(iops: f64) -> String {
    num2str(to_u64(iops), 4, false, "")
}

/// fio's bandwidth figure: binary units, decimal ones in brackets: `133MiB/s (139MB/s)`.
pub fn fio_bw(bytes_per_sec: u64) -> String {
    format!(
        "{} ({})",
        num2str(bytes_per_sec, 4, true, "B/s"),
        num2str(bytes_per_sec, 4, false, "B/s")
    )
}

/// fio's bandwidth under `kb_base`/`unit_base`: IEC first by default, SI
/// first with `kb_base=1000` (`50.0MB/s (47.7MiB/s)`), in bits with
/// `unit_base=1` (`400Mibit/s (419Mbit/s)`), as fio 3.33 prints them.
pub fn fio_bw_in(bytes_per_sec: u64, units: OutputUnits) -> String {
    format!(
        "{} ({})",
        fio_rate_in(bytes_per_sec, units, false),
        fio_rate_in(bytes_per_sec, units, true)
    )
}

/// One of the two figures of [`fio_bw_in`]: the first, or the one in brackets.
pub fn fio_rate_in(bytes_per_sec: u64, units: OutputUnits, second: bool) -> String {
    let (num, unit) = match units.bits {
        true => (bytes_per_sec.saturating_mul(8), "bit/s"),
        false => (bytes_per_sec, "B/s"),
    };
    num2str(num, 4, units.kb_base_1000 == second, unit)
}

/// fio's byte count under `kb_base`: `399MiB`, or `418MB` with `kb_base=1000`
/// (`second`: the other one, printed in brackets).
pub fn fio_bytes_in(bytes: u64, units: OutputUnits, second: bool) -> String {
    num2str(bytes, 4, units.kb_base_1000 == second, "B")
}

/// fio's byte count, binary: `411MiB`.
pub fn fio_bytes(bytes: u64) -> String {
    num2str(bytes, 4, true, "B")
}

/// fio's byte count, decimal: `431MB`.
pub fn fio_bytes_si(bytes: u64) -> String {
    num2str(bytes, 4, false, "B")
}

/// The unit fio picks for a `slat`/`clat`/`lat` line and its divisor in ns:
/// msec when min > 2 ms, max > 100 ms and stdev > 1 ms; else usec when
/// min > 2 us, max > 100 us and stdev > 1 us; else nsec.
pub fn fio_lat_unit(min_ns: u64, max_ns: u64, stddev_ns: f64) -> (&'static str, u64) {
    if min_ns > 2_000_000 && max_ns > 99_999_999 && stddev_ns > 1_000_000.0 {
        ("msec", 1_000_000)
    } else if min_ns > 2000 && max_ns > 99_999 && stddev_ns > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// The unit of a `clat percentiles` block, chosen from the smallest and
/// largest percentile values, and how many times fio divides by 1000
/// (rounding up each time).
pub fn fio_percentile_unit(min_ns: u64, max_ns: u64) -> (&'static str, u32) {
    if min_ns > 2_000_000 && max_ns > 99_999_999 {
        ("msec", 2)
    } else if min_ns > 2000 && max_ns > 99_999 {
        ("usec", 1)
    } else {
        ("nsec", 0)
    }
}

/// fio's rounding of a percentile value to a coarser unit: up, 1000 at a time.
pub fn fio_scale_up(mut value: u64, times: u32) -> u64 {
    for _ in 0..times {
        value = value.div_ceil(1000);
    }
    value
}

/// A latency for the terminal: three significant digits in ns, us, ms or s
/// (`850 ns`, `21.2 us`, `5.50 ms`, `1.23 s`).
pub fn latency(ns: f64) -> String {
    if !ns.is_finite() || ns <= 0.0 {
        return "0 us".to_string();
    }
    let (value, unit) = if ns < 1000.0 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "us")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", three_digits(value))
}

/// `1523`, `152`, `15.2`, `1.52`: three significant digits, never fewer decimals than needed.
pub fn three_digits(value: f64) -> String {
    if value >= 99.95 {
        format!("{value:.0}")
    } else if value >= 9.995 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// A size for people: binary with the decimal figure beside it, `20.0 GiB (21.5 GB)`.
pub fn size_both(bytes: u64) -> String {
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    format!(
        "{} ({})",
        scaled(bytes, 1024.0, &IEC_UNITS),
        scaled(bytes, 1000.0, &SI_UNITS)
    )
}

const IEC_UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
const SI_UNITS: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

fn scaled(bytes: u64, base: f64, units: &[&str; 7]) -> String {
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= base && i + 1 < units.len() {
        v /= base;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// A count and its noun, singular for one: `1 run`, `2 runs`, `0 runs`.
/// Every "N things" a person reads goes through here, so none says "1 runs".
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// A rate in decimal megabytes per second (10^6 bytes), as disk vendors and Brian Cunnie's 2018 benchmark of cloud disks quote them.
pub fn mb_per_sec(bytes_per_sec: f64) -> f64 {
    bytes_per_sec / 1e6
}

/// A rate in binary mebibytes per second (2^20 bytes), as fio prints them.
pub fn mib_per_sec(bytes_per_sec: f64) -> f64 {
    bytes_per_sec / (1024.0 * 1024.0)
}

/// C's `ctime()` layout in UTC (`Sun Nov 22 02:08:06 2026`), as fio's
/// JSON and the HTML report date a run: the one date library's.
pub use dates::ctime_utc;

/// Rounds to fio's 6 decimals, and turns NaN or infinity (a division by a
/// zero runtime) into 0 so JSON never holds `null` where fio has a number.
pub fn six_decimals(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}

/// A non-negative float to an integer, saturating; NaN becomes 0.
pub fn to_u64(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        x as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_like_fio() {
        assert_eq!(fio_iops(34017.994002), "34.0k");
        assert_eq!(fio_iops(35081.0), "35.1k");
        assert_eq!(fio_iops(11332.9), "11.3k");
        assert_eq!(fio_iops(9876.4), "9876");
        assert_eq!(fio_iops(0.0), "0");
        assert_eq!(fio_iops(1_234_567.0), "1235k");
        assert_eq!(fio_iops(12_345_678.0), "12.3M");
    }

    #[test]
    fn bandwidth_like_fio() {
        // From the sample: 418152448 bytes in 3001 ms.
        assert_eq!(fio_bw(139_337_703), "133MiB/s (139MB/s)");
        // 45.6MiB/s (47.8MB/s) in the sample's text output.
        assert_eq!(fio_bw(47_815_000), "45.6MiB/s (47.8MB/s)");
        assert_eq!(fio_bw(512), "512B/s (512B/s)");
        assert_eq!(fio_bytes(418_152_448), "399MiB");
        assert_eq!(fio_bytes_si(418_152_448), "418MB");
    }

    #[test]
    fn kb_base_and_unit_base_like_fio() {
        // fio 3.33, rate=50m for 2 s: 52 428 800 B/s, 100 MiB moved.
        let (bw, io) = (52_428_800, 104_857_600);
        let units = |kb_base_1000, bits| OutputUnits { kb_base_1000, bits };
        assert_eq!(fio_bw_in(bw, units(false, false)), "50.0MiB/s (52.4MB/s)");
        assert_eq!(fio_bw_in(bw, units(false, true)), "400Mibit/s (419Mbit/s)");
        // kb_base=1000, rate=50m: 50 000 000 B/s, 100 000 000 B.
        let (bw, io_si) = (50_000_000, 100_000_000);
        assert_eq!(fio_bw_in(bw, units(true, false)), "50.0MB/s (47.7MiB/s)");
        assert_eq!(fio_bw_in(bw, units(true, true)), "400Mbit/s (381Mibit/s)");
        assert_eq!(fio_bytes_in(io_si, units(true, false), false), "100MB");
        assert_eq!(fio_bytes_in(io_si, units(true, true), true), "95.4MiB");
        assert_eq!(fio_bytes_in(io, units(false, true), false), "100MiB");
        assert_eq!(fio_bytes_in(io, units(false, false), true), "105MB");
    }

    #[test]
    fn rounding_up_carries_into_the_integer_part() {
        // 12 MiB + 1023 KiB: 12.999 MiB must print 13.0, not 12.0.
        assert_eq!(
            num2str(12 * 1024 * 1024 + 1023 * 1024, 4, true, "B"),
            "13.0MiB"
        );
        assert_eq!(num2str(999_999, 4, false, ""), "1000k");
    }

    #[test]
    fn min_max_with_six_digits() {
        // `clat (nsec): min=130, max=5776.2k` in the sample.
        assert_eq!(num2str(5_776_200, 6, false, ""), "5776.2k");
        assert_eq!(num2str(130, 6, false, ""), "130");
    }

    #[test]
    fn latency_units_like_fio() {
        // slat (usec) in the sample: min 3.6 us, max 1.3 ms, stdev 8.4 us.
        assert_eq!(fio_lat_unit(3645, 1_342_000, 8370.0), ("usec", 1000));
        // clat (nsec): min 130 ns keeps nsec though the mean is 321 us.
        assert_eq!(fio_lat_unit(130, 5_776_200, 157_261.0), ("nsec", 1));
        assert_eq!(
            fio_lat_unit(2_500_000, 200_000_000, 5e6),
            ("msec", 1_000_000)
        );
        assert_eq!(fio_percentile_unit(204_000, 5_669_000), ("usec", 1));
        assert_eq!(fio_scale_up(211_968, 1), 212);
        assert_eq!(fio_scale_up(2_000_001, 2), 3);
    }

    #[test]
    fn terminal_latency() {
        assert_eq!(latency(850.0), "850 ns");
        assert_eq!(latency(21_230.0), "21.2 us");
        assert_eq!(latency(212_000.0), "212 us");
        assert_eq!(latency(5_500_000.0), "5.50 ms");
        assert_eq!(latency(1_234_000_000.0), "1.23 s");
        assert_eq!(latency(0.0), "0 us");
        assert_eq!(three_digits(99.96), "100");
    }

    #[test]
    fn sizes() {
        assert_eq!(size_both(512), "512 B");
        assert_eq!(size_both(20 << 30), "20.0 GiB (21.5 GB)");
        assert_eq!(mb_per_sec(139_337_703.0).round(), 139.0);
        assert_eq!(mib_per_sec(139_337_703.0).round(), 133.0);
    }

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "run"), "1 run");
        assert_eq!(count(0, "run"), "0 runs");
        assert_eq!(count(28, "group"), "28 groups");
    }

    #[test]
    fn ctime_matches_the_sample() {
        // fio-3.33-randrw.json: "timestamp" : 1795313286, "time" : "Sun Nov 22 02:08:06 2026".
        assert_eq!(ctime_utc(1_795_313_286), "Sun Nov 22 02:08:06 2026");
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn json_floats() {
        assert_eq!(six_decimals(34017.9940019993), 34017.994002);
        assert_eq!(six_decimals(f64::NAN), 0.0);
        assert_eq!(to_u64(-1.0), 0);
        assert_eq!(to_u64(f64::NAN), 0);
    }
}
