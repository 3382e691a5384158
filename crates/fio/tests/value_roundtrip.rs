//! Property tests of the value parsers against their round trip: fio's
//! values, written the ways people write them, parse to what they mean, and what diskbench prints parses back
//! to the same thing.
//!
//! - sizes: a number with k/m/g/t/p in any case and spelling (`k`, `kb`,
//!   `KiB`), powers of two whatever the spelling (fio's default
//!   `kb_base=1024`; under `kb_base=1000`, `k` and `kb` are powers of ten,
//!   `ki` and `kib` of two), `format_size` reads back the same;
//! - times: bare seconds, `s`/`ms`/`us`/`ns`/`m`/`h`/`d` and their long
//!   forms, fractions; `thinktime` counts bare numbers in microseconds;
//! - ranges `lo-hi` (`bsrange`, `startdelay`, `cpus_allowed`), refused when
//!   they go down;
//! - `bssplit` lists whose shares add up to 100 (or leave some to share)
//!   parse to the same entries;
//! - the `--parse-only` line of a job parses back to the same job;
//! - whatever text an option is given, the answer is a job or an error.
//!
//! Only the public API is used: the fio crate's value parsers are private,
//! so values go through `parse_args` as `--option=value`, the way users give
//! them.

use diskbench_fio::{job_line, parse_args, FioError};
use model::job::{BlockSizes, BsShare, DelayRange};
use model::units::{format_size, parse_duration, parse_size};
use model::JobSpec;
use proptest::prelude::*;
use std::time::Duration;

/// Kept small: these run with every `cargo test`.
const CASES: u32 = 96;

fn parse(args: &[String]) -> Result<JobSpec, FioError> {
    let mut all = vec!["--name=j".to_string(), "--ioengine=null".to_string()];
    all.extend_from_slice(args);
    parse_args(all).map(|a| a.jobs[0].clone())
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `k`, `K`, `kb`, `Kb`, `KiB`, `KIB`, ...: a letter, then nothing, `b` or
/// `ib`, each letter in either case.
fn spelling(letter: char) -> impl Strategy<Value = String> {
    (0..3usize, any::<[bool; 3]>()).prop_map(move |(form, upper)| {
        let tail = ["", "b", "ib"][form];
        std::iter::once(letter)
            .chain(tail.chars())
            .zip(upper)
            .map(|(c, up)| match up {
                true => c.to_ascii_uppercase(),
                false => c,
            })
            .collect()
    })
}

/// A size as text, and the bytes it means (`None` when it overflows u64).
fn size_text() -> impl Strategy<Value = (String, Option<u64>)> {
    let units = prop::sample::select(vec![
        (None, 0u32),
        (Some('k'), 10),
        (Some('m'), 20),
        (Some('g'), 30),
        (Some('t'), 40),
        (Some('p'), 50),
    ]);
    let number = prop_oneof![0u64..=4096, any::<u32>().prop_map(u64::from), any::<u64>()];
    (number, units, any::<bool>())
        .prop_flat_map(|(n, (letter, shift), bytes_suffix)| {
            let suffix = match letter {
                Some(l) => spelling(l).boxed(),
                // A bare number, or `b` for bytes.
                None => Just(if bytes_suffix { "b" } else { "" }.to_string()).boxed(),
            };
            (Just(n), Just(shift), suffix)
        })
        .prop_map(|(n, shift, suffix)| (format!("{n}{suffix}"), n.checked_mul(1 << shift)))
}

/// A time unit as people write it, and its length in nanoseconds.
fn time_unit() -> impl Strategy<Value = (&'static str, u64)> {
    prop::sample::select(vec![
        ("", 1_000_000_000),
        ("s", 1_000_000_000),
        ("sec", 1_000_000_000),
        ("ms", 1_000_000),
        ("msec", 1_000_000),
        ("us", 1_000),
        ("usec", 1_000),
        ("ns", 1),
        ("m", 60_000_000_000),
        ("min", 60_000_000_000),
        ("h", 3_600_000_000_000),
        ("d", 86_400_000_000_000),
    ])
}

/// `n` of a unit, as text, with its length.
fn time_text() -> impl Strategy<Value = (String, Duration)> {
    (time_unit(), 0u64..1_000_000, any::<bool>()).prop_map(|((unit, ns), n, upper)| {
        let unit = if upper {
            unit.to_uppercase()
        } else {
            unit.to_string()
        };
        (format!("{n}{unit}"), nanos(u128::from(n) * u128::from(ns)))
    })
}

fn nanos(total: u128) -> Duration {
    let secs = u64::try_from(total / 1_000_000_000).expect("in range");
    Duration::new(secs, (total % 1_000_000_000) as u32)
}

/// A block size that fits a 16 MiB job, written in any of its spellings.
fn block_size() -> impl Strategy<Value = (String, u64)> {
    (1u64..=4096, prop::sample::select(vec![0u32, 9, 10, 12]))
        .prop_map(|(n, shift)| n << shift)
        .prop_filter("fits the job", |b| *b <= 16 << 20)
        .prop_flat_map(|bytes| {
            let shown = prop_oneof![
                Just(bytes.to_string()),
                Just(format_size(bytes)),
                Just(format!("{bytes}B")),
            ];
            (shown, Just(bytes))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn sizes_are_powers_of_two_in_every_spelling(
        (text, bytes) in size_text(),
        pad in prop::sample::select(vec!["", " ", "\t"]),
    ) {
        let padded = format!("{pad}{text}{pad}");
        match bytes {
            Some(b) => prop_assert_eq!(parse_size(&padded), Ok(b), "{:?}", padded),
            None => prop_assert!(parse_size(&padded).is_err(), "{:?} overflows", padded),
        }
    }

    #[test]
    fn formatted_sizes_read_back(bytes in prop_oneof![
        any::<u64>(),
        (any::<u32>(), 0u32..=40).prop_map(|(n, s)| u64::from(n) << s),
    ]) {
        let shown = format_size(bytes);
        prop_assert_eq!(parse_size(&shown), Ok(bytes), "{}", shown);
    }

    /// The same sizes as fio options: `size` (0 means "the file's size", as
    /// in fio), `offset`, and `bs`.
    #[test]
    fn size_options_take_the_same_sizes(
        (text, bytes) in size_text(),
        (bs_text, bs) in block_size(),
    ) {
        let job = parse(&args(&["--size=16m", &format!("--offset={text}"), &format!("--bs={bs_text}")]));
        match bytes {
            Some(b) => {
                let job = job.map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(job.offset_bytes, b);
                prop_assert_eq!(job.bs_bytes, bs);
            }
            None => prop_assert!(job.is_err()),
        }
        if let Some(b) = bytes.filter(|b| *b >= 4096) {
            let job = parse(&args(&[&format!("--size={text}")]))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(job.size_bytes, Some(b));
        }
    }

    #[test]
    fn times_mean_their_unit((text, want) in time_text()) {
        prop_assert_eq!(parse_duration(&text), Ok(want), "{}", text);
        // The same through the options that take times.
        let job = parse(&args(&["--size=1m", &format!("--runtime={text}"), &format!("--ramp_time={text}")]))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        // runtime=0 is "no limit", as in fio.
        prop_assert_eq!(job.runtime, Some(want).filter(|d| !d.is_zero()));
        prop_assert_eq!(job.ramp_time, want);
    }

    /// Fractions, where an f64 of seconds still holds every nanosecond
    /// (up to about 11 days).
    #[test]
    fn fractions_of_a_unit((unit, ns) in time_unit(), whole in any::<u64>(), milli in 0u64..1000) {
        // 1000 * ns divides evenly for every unit but ns.
        prop_assume!(ns >= 1000);
        let whole = whole % (1_000_000_000_000_000 / ns);
        let text = format!("{whole}.{milli:03}{unit}");
        let want = nanos(u128::from(whole * ns + milli * (ns / 1000)));
        prop_assert_eq!(parse_duration(&text), Ok(want), "{}", text);
    }

    #[test]
    fn thinktime_counts_bare_numbers_in_microseconds(n in 0u64..100_000_000) {
        let job = parse(&args(&["--size=1m", &format!("--thinktime={n}")]))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(job.thinktime.think, Duration::from_micros(n));
    }

    #[test]
    fn block_size_ranges(
        (lo_text, lo) in block_size(),
        (hi_text, hi) in block_size(),
        sep in prop::sample::select(vec!["-", ":"]),
    ) {
        let text = format!("{lo_text}{sep}{hi_text}");
        let job = parse(&args(&["--size=16m", "--rw=randrw", &format!("--bsrange={text}")]));
        if lo <= hi {
            let job = job.map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            let want = BlockSizes::Range { min_bytes: lo, max_bytes: hi };
            prop_assert_eq!(job.block_sizes_of(model::Direction::Read), want.clone());
            prop_assert_eq!(job.block_sizes_of(model::Direction::Write), want);
            prop_assert_eq!(job.bs_bytes, hi);
        } else {
            let msg = job.err().map(|e| e.to_string()).unwrap_or_default();
            prop_assert!(msg.contains("smaller size first"), "{}: {}", text, msg);
        }
    }

    #[test]
    fn time_ranges((lo_text, lo) in time_text(), (hi_text, hi) in time_text()) {
        let text = format!("{lo_text}-{hi_text}");
        let job = parse(&args(&["--size=1m", &format!("--startdelay={text}")]));
        if lo <= hi {
            let job = job.map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert_eq!(job.startdelay, DelayRange { min: lo, max: hi });
        } else {
            prop_assert!(job.is_err(), "{} goes down", text);
        }
    }

    #[test]
    fn cpu_ranges(lo in 0u32..300, len in 0u32..300, single in 0u32..300) {
        let hi = lo + len;
        let job = parse(&args(&["--size=1m", &format!("--cpus_allowed={lo}-{hi},{single}")]))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut want: Vec<u32> = (lo..=hi).chain([single]).collect();
        want.sort_unstable();
        want.dedup();
        prop_assert_eq!(job.cpus_allowed, Some(want));
    }

    /// Shares that add up to 100 come back as given (0% entries dropped).
    #[test]
    fn bssplit_lists_read_back(
        entries in prop::collection::vec(((1u64..=64).prop_map(|k| k << 10), 0u32..=100), 1..8),
        per_dir in any::<bool>(),
    ) {
        // Scale the shares to add up to exactly 100.
        let total: u32 = entries.iter().map(|e| e.1).sum::<u32>().max(1);
        let mut shares: Vec<BsShare> = entries
            .iter()
            .map(|&(bytes, w)| BsShare { bytes, pct: w * 100 / total })
            .collect();
        let short = 100 - shares.iter().map(|s| s.pct).sum::<u32>();
        shares[0].pct += short;
        let text: Vec<String> = shares
            .iter()
            .map(|s| format!("{}/{}", format_size(s.bytes), s.pct))
            .collect();
        let text = text.join(":");
        let value = if per_dir { format!("{text},4k/100") } else { text.clone() };
        let job = parse(&args(&["--size=16m", "--rw=randrw", &format!("--bssplit={value}")]))
            .map_err(|e| TestCaseError::fail(format!("{value}: {e}")))?;
        let want: Vec<BsShare> = shares.into_iter().filter(|s| s.pct > 0).collect();
        prop_assert_eq!(
            job.block_sizes_of(model::Direction::Read),
            BlockSizes::Split(want.clone())
        );
        let write = match per_dir {
            true => vec![BsShare { bytes: 4096, pct: 100 }],
            false => want.clone(),
        };
        prop_assert_eq!(job.block_sizes_of(model::Direction::Write), BlockSizes::Split(write.clone()));
        let largest = want.iter().chain(&write).map(|s| s.bytes).max();
        prop_assert_eq!(Some(job.bs_bytes), largest);
    }

    /// Sizes without a share split what is left evenly, the rounding going
    /// to the first of them (fio: `4k/50:1k/:32k/` is 50, 25, 25); shares
    /// that do not reach 100 with nothing open are refused.
    #[test]
    fn bssplit_open_shares(
        given in prop::collection::vec(((1u64..=64).prop_map(|k| k << 10), 0u32..=40), 0..3),
        open in prop::collection::vec((1u64..=64).prop_map(|k| k << 10), 0..4),
    ) {
        prop_assume!(!given.is_empty() || !open.is_empty());
        let used: u32 = given.iter().map(|g| g.1).sum();
        let mut items: Vec<String> = given
            .iter()
            .map(|(b, p)| format!("{}/{p}", format_size(*b)))
            .collect();
        items.extend(open.iter().map(|b| format!("{}/", format_size(*b))));
        let value = items.join(":");
        let job = parse(&args(&["--size=16m", "--rw=randread", &format!("--bssplit={value}")]));
        let mut want: Vec<BsShare> = given.iter().map(|&(bytes, pct)| BsShare { bytes, pct }).collect();
        if used > 100 || (open.is_empty() && used != 100) {
            let msg = job.err().map(|e| e.to_string()).unwrap_or_default();
            prop_assert!(msg.contains("add up to"), "{}: {}", value, msg);
            return Ok(());
        }
        let (n, left) = (open.len() as u32, 100 - used);
        for (i, &bytes) in open.iter().enumerate() {
            want.push(BsShare { bytes, pct: left / n + u32::from(i == 0) * (left % n) });
        }
        want.retain(|s| s.pct > 0);
        if want.is_empty() {
            prop_assert!(job.is_err(), "{} has no share", value);
        } else {
            let job = job.map_err(|e| TestCaseError::fail(format!("{value}: {e}")))?;
            prop_assert_eq!(job.block_sizes_of(model::Direction::Read), BlockSizes::Split(want));
        }
    }

    /// What `--parse-only` prints for a job is a command line that gives the
    /// same job again: sizes, times, ranges and splits survive the trip.
    #[test]
    fn parse_only_lines_read_back(
        (size_text, _) in block_size(),
        (bs_lo, lo) in block_size(),
        (bs_hi, hi) in block_size(),
        runtime in (0u64..100_000, 0u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n)),
        (ramp_text, _) in time_text(),
        (delay_text, _) in time_text(),
        think_us in 0u64..10_000_000,
        split in any::<bool>(),
    ) {
        let blocks = match (split, lo <= hi) {
            (true, _) => format!("--bssplit={bs_lo}/30:{bs_hi}/70"),
            (false, true) => format!("--bsrange={bs_lo}-{bs_hi}"),
            (false, false) => format!("--bsrange={bs_hi}-{bs_lo}"),
        };
        let first = parse(&args(&[
            "--rw=randrw",
            "--size=64m",
            &format!("--offset={size_text}"),
            &blocks,
            &format!("--runtime={}ns", runtime.as_nanos()),
            &format!("--ramp_time={ramp_text}"),
            &format!("--startdelay={delay_text}"),
            &format!("--thinktime={think_us}"),
        ]))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let line = job_line(&first, false);
        let again = parse_args(line.split_whitespace().map(String::from))
            .map_err(|e| TestCaseError::fail(format!("{line}: {e}")))?;
        let (mut again, mut want) = (again.jobs[0].clone(), first);
        again.options.clear();
        want.options.clear();
        prop_assert_eq!(again, want, "{}", line);
    }

    /// Whatever the text, every option the crate carries out answers with a
    /// job or an error that says something.
    #[test]
    fn arbitrary_values_never_panic(
        option in prop::sample::select(option_names()),
        text in prop_oneof![
            any::<String>(),
            "[0-9a-zA-Z.:/,%$(){}*+^ -]{0,24}",
        ],
    ) {
        let _ = parse_size(&text);
        let _ = parse_duration(&text);
        if let Err(e) = parse(&args(&["--size=1m", &format!("--{option}={text}")])) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

/// The job options diskbench carries out, without aliases.
fn option_names() -> Vec<String> {
    diskbench_fio::job_option_names()
        .into_iter()
        .map(String::from)
        .collect()
}

/// diskbench reads every size spelling in powers of two, which is fio's
/// default `kb_base=1024`; `kb_base=1024` may be given and changes nothing;
/// after `kb_base=1000`, `k`/`kb` are 1000 and `ki`/`kib` 1024, as in fio.
#[test]
fn kb_base_rules() {
    for spelling in ["4k", "4K", "4kb", "4KB", "4kib", "4KiB"] {
        assert_eq!(parse_size(spelling), Ok(4096), "{spelling}");
        let job = parse(&args(&["--size=1m", &format!("--bs={spelling}")])).unwrap();
        assert_eq!(job.bs_bytes, 4096, "{spelling}");
        let bs = format!("--bs={spelling}");
        let job = parse(&args(&["--kb_base=1024", "--size=1m", &bs])).unwrap();
        assert_eq!(job.bs_bytes, 4096, "kb_base=1024 {spelling}");
        let job = parse(&args(&["--kb_base=1000", "--size=1m", &bs])).unwrap();
        let want = if spelling.to_ascii_lowercase().contains('i') {
            4096
        } else {
            4000
        };
        assert_eq!(job.bs_bytes, want, "kb_base=1000 {spelling}");
        assert_eq!(job.size_bytes, Some(1_000_000));
    }
}
