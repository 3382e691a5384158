//! The value parsers: sizes, times, booleans, counts (`model::units`), every
//! fio job option's value (ranges, `bssplit`, percentages, distributions,
//! rates, CPU lists, `verify_pattern`, ...), `--inject-fault` rules, ioping's
//! and bonnie++'s spellings, dbench status names, and the CLI's dates. None may panic, whatever the text.
//!
//! The first byte picks the parser, the rest is the text. fio's value
//! parsers are crate-private, so they are reached through `parse_args` with a
//! minimal job and `--OPTION=TEXT`, for each option the crate carries out (the
//! list comes from `fio::job_option_names()`, so new options are fuzzed as they
//! land), on the command line and in a job file. The dates are the `diskbench-dates`
//! crate's.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use model::units;
use std::sync::OnceLock;

/// The job options the fio crate carries out, without their aliases.
fn fio_options() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(fio::job_option_names)
}

const FIXED: u8 = 8;

fn expect_answer(args: Vec<String>) {
    if let Err(e) = fio::parse_args(args) {
        assert!(!e.to_string().is_empty(), "an error without a message");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let text = text.as_ref();
    match pick {
        0 => {
            if let Ok(bytes) = units::parse_size(text) {
                // What fio echoes (`format_size`) reads back the same.
                let shown = units::format_size(bytes);
                assert_eq!(units::parse_size(&shown), Ok(bytes), "{shown}");
                let _ = units::format_bytes_binary(bytes);
            }
        }
        1 => {
            let _ = units::parse_duration(text);
        }
        2 => {
            let _ = (units::parse_bool(text), units::parse_int(text));
        }
        3 => {
            let _ = model::RwMode::parse(text);
            let _ = model::EngineKind::parse(text);
            let _ = model::FadviseHint::parse(text);
            let _ = model::job::RandomGenerator::parse(text);
            let _ = model::RunKind::parse(text);
            let _ = model::VerifyAlgo::parse(text);
            // --inject-fault: what is printed reads back the same.
            if let Ok(rule) = text.parse::<model::FaultRule>() {
                assert_eq!(rule.to_string().parse::<model::FaultRule>(), Ok(rule));
            }
        }
        4 => {
            use workloads::ping;
            if let Ok(b) = ping::parse_size(text) {
                let _ = ping::format_size(b);
            }
            if let Ok(t) = ping::parse_time(text) {
                let _ = ping::format_time(u64::try_from(t.as_nanos()).unwrap_or(u64::MAX));
            }
            if let Ok(n) = ping::parse_count(text) {
                let _ = ping::format_count(n);
            }
        }
        5 => {
            if let Ok(spec) = workloads::meta::FileSpec::parse(text) {
                let _ = spec.files();
            }
        }
        6 => {
            if let Some(status) = workloads::fileserver::status::Status::parse(text) {
                let _ = status.as_str();
            }
        }
        7 => {
            if let Some(ms) = dates::parse_rfc3339_ms(text) {
                let _ = dates::format_utc(ms);
            }
            for end_of_day in [false, true] {
                if let Ok(ms) = dates::parse_when(text, 1_795_000_000_000, end_of_day) {
                    let _ = dates::format_utc(ms);
                }
            }
        }
        _ => {
            // Odd picks put the option in a job file: values there are
            // expanded as in a file (`${VAR}`, `$ncpus`, arithmetic), which
            // differs a little from the command line.
            let names = fio_options();
            let n = usize::from(pick - FIXED);
            let name = &names[(n / 2) % names.len()];
            if n % 2 == 0 {
                let args = [
                    "--name=v".to_string(),
                    "--size=1m".to_string(),
                    format!("--{name}={text}"),
                ];
                expect_answer(args.to_vec());
            } else {
                let job = format!("[v]\nsize=1m\n{name}={text}\n");
                if common::includes_stay_inside(&job) {
                    expect_answer(vec![common::write("values.fio", job.as_bytes())]);
                }
            }
        }
    }
});
