//! `diskbench run [DIR]`: the default suite. It prints the target first, then
//! a table of every test, then the three headline figures of
//! Brian Cunnie's 2018 benchmark of cloud disks (IOPS, Read MB/s, Write MB/s).
//!
//! The suite is data (suites/default.fio, in fio's command-line form) parsed
//! by the same parser as `diskbench fio`, so a test here and a fio job mean
//! exactly the same thing.
//!
//! With `--runs`/`--duration` (a soak, see [`crate::soak_loop`]) it prints one
//! line per run, the table of the last run, and the list of runs.
//!
//! Each test stops as soon as its figure is stable ([`stable_rule`]): its
//! rate, the mean of its 200 ms slices, is known within 3% (95% interval),
//! after at least 2 s and 500 I/Os of measuring, and never past `--runtime`
//! (the cap, 7 s). Without `--runtime` the suite also shares a budget of
//! 3 s of measuring per test: a disk that holds its speed is measured in
//! about 2 s a test, and the time it saves goes to the tests after it; one
//! that wanders gets its share, so the suite takes about 28 s on any disk.
//! `--fixed` measures every test for the whole runtime. The headline is
//! printed with its interval.

use crate::outcome::Exit;
use crate::soak_loop;
use clap::Args;
use model::{FileTarget, JobSpec};
use runner::RunError;
use std::path::{Path, PathBuf};

/// Every test shares this one file, laid out once.
const SUITE_FILE: &str = "diskbench-run.dat";

use report::sanity::{TRUSTED_IOS, TRUSTED_RUNTIME_NS};

#[derive(Args)]
pub struct RunArgs {
    /// Directory to measure; the test file goes in a fresh subdirectory and is removed after
    dir: Option<PathBuf>,
    /// Size of the test file (default 1g, or 256m with --quick)
    #[arg(long, value_parser = parse_run_size, allow_negative_numbers = true)]
    size: Option<String>,
    /// About 10 seconds in all instead of about 30
    #[arg(long)]
    quick: bool,
    /// Run a named profile instead of the default suite (see `diskbench profiles`)
    #[arg(long, default_value = "default")]
    profile: String,
    /// Each test's longest measured time, e.g. 30s, 2m (default: 7s, within the suite's budget of
    /// 3s a test on average; 1200ms with --quick); a test stops sooner once its figure is stable,
    /// unless --fixed
    #[arg(long, value_parser = parse_run_runtime, allow_negative_numbers = true)]
    runtime: Option<String>,
    /// Print the native JSON (fio's shape, one entry in `jobs` per test) on stdout
    #[arg(long)]
    json: bool,
    /// I/O engine (io_uring falls back to libaio, then psync, with a warning)
    #[arg(long, default_value = "io_uring", value_parser = parse_run_engine)]
    engine: String,
    #[command(flatten)]
    shape: crate::run_shape::ShapeArgs,
    #[command(flatten)]
    save: crate::args::SaveArgs,
    #[command(flatten)]
    repeat: crate::args::RepeatArgs,
    #[command(flatten)]
    profile_args: ProfileArgs,
    #[command(flatten)]
    faults: crate::args::FaultArgs,
    #[command(flatten)]
    metrics: crate::args::MetricsArgs,
    /// Measure every test for the whole --runtime, instead of stopping it once its figure is
    /// stable (within 3% after 2 s)
    #[arg(long)]
    fixed: bool,
    #[command(flatten)]
    explain: crate::args::ExplainArgs,
}

/// The precision a test stops at: the mean of its 200 ms slices within 3%.
const STABLE_WITHIN_PCT: f64 = 3.0;
/// The slice: short enough for a dozen samples in a few seconds (a disk
/// that catches up after each slow slice is judged by pairs of slices, and
/// six pairs take 2.4 s), long enough to hold dozens of I/Os on any disk
/// worth a headline.
const STABLE_SLICE_NS: u64 = 200_000_000;
/// What the suite's tests measure on average when `--runtime` is not
/// given: the suite has this much per test beside its ramps, shared (a
/// test that stopped once stable leaves the rest of its share to the
/// tests after it), so 7 tests take about 28 s whatever the disk. A disk
/// whose figures wander for a minute is no better known after 7 s than
/// after 3 (measured on a virtual disk: 5.0% from its 60 s figure after
/// 3 s, 5.2% after 7 s, on average over 14 tests); its intervals say
/// how well it is known.
const MEASURED_SHARE_NS: u64 = 3_000_000_000;

/// When a test of the suite may stop before its runtime: `None` with
/// `--fixed`. Never before the figure could be trusted anyway
/// ([`TRUSTED_RUNTIME_NS`], [`TRUSTED_IOS`]), so a stable stop never earns
/// the too-short warning. Without `--runtime` the suite shares a budget
/// ([`MEASURED_SHARE_NS`] and its ramp per test); with it, each test may
/// measure the whole runtime it was given.
fn stable_rule(args: &RunArgs, groups: &[Vec<JobSpec>]) -> Option<model::StableStop> {
    let ramp = groups.iter().flatten().map(|j| j.ramp_time).max();
    let per_test = MEASURED_SHARE_NS + ramp.unwrap_or_default().as_nanos() as u64;
    let budget_ns = args
        .runtime
        .is_none()
        .then_some(per_test * groups.len() as u64);
    (!args.fixed).then_some(model::StableStop {
        half_width_pct: STABLE_WITHIN_PCT,
        min_runtime_ns: TRUSTED_RUNTIME_NS,
        min_ios: TRUSTED_IOS,
        slice_ns: STABLE_SLICE_NS,
        budget_ns,
    })
}

/// `--size`, checked here so a bad value is named as `run` spells it, not
/// in the fio vocabulary of the suite it is handed to.
fn parse_run_size(text: &str) -> Result<String, String> {
    match model::units::parse_size(text) {
        Ok(0) => Err("a test file of 0 bytes measures nothing: give e.g. --size 1g".into()),
        Ok(_) => Ok(text.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// `--runtime`: 0 would let every time-based test run without end.
fn parse_run_runtime(text: &str) -> Result<String, String> {
    match model::units::parse_duration(text) {
        Ok(d) if d.is_zero() => {
            Err("each test needs a measured time above 0: give e.g. --runtime 30s".into())
        }
        Ok(_) => Ok(text.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// `--engine`, named as `run` spells it rather than as fio's `ioengine=`.
fn parse_run_engine(text: &str) -> Result<String, String> {
    match model::EngineKind::parse(text) {
        Some(_) => Ok(text.to_string()),
        None => Err(format!(
            "diskbench does not run this engine (yet): use one of {}, e.g. --engine psync",
            model::EngineKind::NAMES
        )),
    }
}

/// The options of `run` that only profiles take.
#[derive(Args, Clone, Debug, Default)]
pub struct ProfileArgs {
    /// For a profile that keeps the best of several passes (crystal: default 5, as
    /// CrystalDiskMark): run each test N times and keep its best
    #[arg(long, value_name = "N", value_parser = parse_passes)]
    pub passes: Option<u32>,
}

fn parse_passes(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{text}' is not a number of passes: give a whole number from 1 to 100, e.g. --passes 3"
        )),
    }
}

/// The profile's tests, one per group so they run one after another.
fn suite(
    args: &RunArgs,
    profile: &profiles::Profile,
    passes: u32,
    dir: &std::path::Path,
) -> Result<Vec<Vec<JobSpec>>, fio::FioError> {
    let size = args
        .size
        .clone()
        .unwrap_or_else(|| if args.quick { "256m" } else { "1g" }.into());
    let (default_runtime, default_ramp) = if args.quick {
        ("1200ms", "0")
    } else {
        ("7", "1")
    };
    let runtime = args.runtime.as_deref().unwrap_or(default_runtime);
    let ramp = args.shape.ramp.as_deref().unwrap_or(default_ramp);
    let common = [
        "--direct=1".to_string(),
        format!("--ioengine={}", args.engine),
        format!("--size={size}"),
        format!("--runtime={runtime}"),
        format!("--ramp_time={ramp}"),
        // With a value, so the job options echo it (fio echoes no bare
        // flag) and pasting them into fio gives the job that ran.
        "--time_based=1".to_string(),
    ];
    let mut groups: Vec<Vec<JobSpec>> = Vec::new();
    let mut capped = Vec::new();
    let mut merged = Vec::new();
    for line in profile.test_lines(passes) {
        let own: Vec<String> = common
            .iter()
            .cloned()
            .chain(line.split_whitespace().map(with_value))
            .collect();
        let asked = fio::parse_args(own.clone())?.jobs;
        // The shape flags follow the test's own options, so they win.
        let shaped = fio::parse_args(own.into_iter().chain(args.shape.fio_options()))?;
        for (mut job, asked) in shaped.jobs.into_iter().zip(&asked) {
            job.target = FileTarget::Generated {
                directory: dir.to_path_buf(),
                nrfiles: 1,
                shared: Some(SUITE_FILE.to_string()),
            };
            let reshaped = args.shape.changes_tests();
            profiles::shape::rename(&mut job, asked, reshaped);
            let capped_now = cap_sync_depth(&mut job, asked, reshaped);
            if let Some(was) = &capped_now {
                capped.push((was.clone(), job.name.clone()));
            }
            // Two tests made alike (QD32 capped to QD1 beside the QD1
            // test, or both given one --iodepth) are one test: measured once.
            let capped_alike = capped.iter().any(|(_, ran)| *ran == job.name);
            if (reshaped || capped_alike) && groups.iter().flatten().any(|j| j.name == job.name) {
                // The capped warning says it for a sync engine.
                if reshaped && !capped_alike {
                    merged.push((asked.name.clone(), job.name.clone()));
                }
                continue;
            }
            groups.push(vec![job]);
        }
    }
    if !capped.is_empty() {
        eprintln!(
            "diskbench run: warning: ioengine={} does one I/O at a time, so queue depth will be \
             capped at 1: {} (each measured once); use --engine io_uring or libaio for a deeper queue",
            args.engine,
            capped
                .iter()
                .map(|(asked, ran)| format!("{asked} runs as {ran}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (asked, ran) in &merged {
        eprintln!(
            "diskbench run: {asked} is {ran} with these flags, which already runs: measured once"
        );
    }
    Ok(groups)
}

/// A profile's bare flag (`--group_reporting`) as `--group_reporting=1`:
/// only options with a value are echoed in the job options.
fn with_value(arg: &str) -> String {
    match arg.starts_with("--") && !arg.contains('=') {
        true => format!("{arg}=1"),
        false => arg.to_string(),
    }
}

/// A synchronous engine keeps one I/O in flight whatever `iodepth` says, so
/// a suite test asking for more runs at QD1 and is named for what it runs
/// (`rand-read-4k-qd32` becomes `rand-read-4k-qd1`, CrystalDiskMark's
/// `RND4K-Q32T1-read` becomes `RND4K-Q1T1-read`); its old name is
/// returned. A name that does not tell its depth is kept, unless shape
/// flags are given (`append`): it then has the depth that ran appended.
fn cap_sync_depth(job: &mut JobSpec, asked: &JobSpec, append: bool) -> Option<String> {
    if job.engine != model::EngineKind::Sync || job.iodepth <= 1 {
        return None;
    }
    let was = job.name.clone();
    job.iodepth = 1;
    profiles::shape::rename(job, asked, append);
    // The job options echo what ran, so pasting them into fio gives this job.
    for (key, value) in &mut job.options {
        if key == "iodepth" {
            *value = "1".into();
        }
    }
    Some(was)
}

pub fn run(args: RunArgs) -> anyhow::Result<Exit> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let usage = |message: String| refuse(&args, model::Failure::usage(message));
    let profile = match profiles::find(&args.profile) {
        Ok(p) => p,
        Err(e) => return usage(e.to_string()),
    };
    let passes = match profile.passes(args.profile_args.passes) {
        Ok(n) => n,
        Err(e) => return usage(e.to_string()),
    };
    if args.json && !profile.steps().is_empty() {
        return usage(format!(
            "profile {} runs other commands ({}) whose output is not part of --json yet: \
             run it without --json, or run those commands with their own --json",
            profile.name,
            profile.steps().join("; ")
        ));
    }
    if let Err(e) = args.shape.check() {
        return usage(e.to_string());
    }
    let groups = match suite(&args, profile, passes, &dir) {
        Ok(g) => g,
        Err(e) => return usage(e.to_string()),
    };
    // Bound before anything runs: a port in use is a usage error.
    let started =
        crate::args::plan_and_metrics(&args.repeat, &args.metrics, "run", &args.save.tags);
    let (plan, metrics) = match started {
        Ok(p) => p,
        Err(e) => return usage(e.to_string()),
    };
    let step_exit = |exit: Exit| -> anyhow::Result<Exit> {
        if exit != Exit::Ok {
            return Ok(exit);
        }
        run_steps(&args, profile, &dir)
    };
    if groups.is_empty() {
        return step_exit(Exit::Ok);
    }
    // An unusable target is reported alone, before any description of it.
    if let Err(e) = runner::check_targets(&groups) {
        return refuse(&args, e.failure());
    }
    if let (Some(runtime), false) = (args.runtime.as_deref(), args.json) {
        let runtime = model::units::parse_duration(runtime)?;
        let expected = profiles::expected_time(&groups, &profile.steps(), runtime);
        eprintln!(
            "diskbench run: expected time: about {} s of measuring ({} test{} of --runtime {}{}), \
             plus laying out {} of test files",
            expected.as_millis() as f64 / 1000.0,
            groups.len(),
            if groups.len() == 1 { "" } else { "s" },
            args.runtime.as_deref().unwrap_or_default(),
            match profile.steps().len() {
                0 => String::new(),
                n => format!(" and {n} other command{}", if n == 1 { "" } else { "s" }),
            },
            model::units::format_bytes_binary(runner::layout_bytes(&groups))
        );
    }
    if !args.json {
        let before = model::RunResult {
            targets: vec![runner::probe::target(&dir)],
            ..Default::default()
        };
        print!("{}", report::table::target_header(&before));
        println!();
    }
    let quick = args.quick;
    let checks = move |result: &model::RunResult| run_checks(result, quick);
    let measure = soak_loop::Measure {
        kind: model::RunKind::Suite,
        groups: &groups,
        allow_destructive: false,
        safety: Default::default(),
        faults: &args.faults.faults,
        global_options: &[],
        progress: crate::progress::Settings::shown(!args.json),
        watch: None,
        save: &args.save,
        metrics: metrics.as_ref(),
        stable_stop: stable_rule(&args, &groups),
        checks: Some(soak_loop::RunChecks {
            verdicts: &checks,
            // A quick run's figures are quick ones: its headline says so once.
            unsaid: if quick {
                &[report::sanity::TOO_SHORT]
            } else {
                &[]
            },
            explain: args.explain.explain,
        }),
        describe: None,
        notes: &[],
        checks_on_stderr: true,
        io_trace: None,
    };
    let mut docs = Vec::new();
    let (summary, exit) = soak_loop::run(&measure, plan, |done| {
        let result = &done.outcome.result;
        if args.json {
            docs.push(profiles::json_document(profile, result, passes));
        } else if done.soak.is_some() && !done.last {
            // A table per run is too much for a soak of 30: a line each, the table once.
            println!("{}", done.line());
        } else if !result.jobs.is_empty() {
            if done.soak.is_some() {
                println!("{}", done.line());
                println!();
            }
            print!("{}", profiles::table(profile, result, passes));
            println!();
            let failure = &done.outcome.failure;
            let headline = profile.name == "default";
            if headline
                && (failure.is_none() || failure.as_ref().is_some_and(RunError::is_interrupted))
            {
                print!("{}", report::table::headline(result));
                print!("{}", report::stability::headline_intervals(result));
            }
            if let (true, Some(note)) = (quick, report::sanity::quick_note(result)) {
                print!("{note}");
            }
        }
        std::io::Write::flush(&mut std::io::stdout())?;
        Ok(())
    })?;
    match (&plan, args.json) {
        (Some(plan), true) => println!("{}", soak::soak_json(&summary, plan, &docs)),
        (None, true) => docs.iter().for_each(|d| println!("{d}")),
        (_, false) => print!("{}", soak::list_text(&summary)),
    }
    step_exit(exit)
}

/// Stops a run that could not start: the message on stderr and, with
/// `--json`, the one JSON document the output contract promises (its
/// `error` and `diskbench.failure`), so a script reading stdout still
/// parses it. The exit code follows the failure's kind.
fn refuse(args: &RunArgs, failure: model::Failure) -> anyhow::Result<Exit> {
    if args.json {
        print!(
            "{}",
            report::json::error_json(&failure, runner::TOOL_VERSION)
        );
    }
    eprintln!("diskbench run: {}", failure.message);
    Ok(Exit::of_kind(Some(failure.kind)))
}

/// `run`'s checks of a finished run: the tests too short to trust, then the
/// sanity verdicts; the history keeps them with the run.
fn run_checks(result: &model::RunResult, quick: bool) -> Vec<report::sanity::Verdict> {
    let fix = match quick {
        true => "drop --quick (7 s a test) or give --runtime, e.g. --runtime 30s",
        false => "raise --runtime, e.g. --runtime 30s",
    };
    let mut found = report::sanity::too_short(result, fix);
    found.extend(report::sanity::verdicts(result));
    found
}

/// Runs the profile's steps (other diskbench commands) one after another,
/// as child processes of this same binary; the first that fails ends them.
fn run_steps(args: &RunArgs, profile: &profiles::Profile, dir: &Path) -> anyhow::Result<Exit> {
    let size_gib = match &args.size {
        Some(s) => model::units::parse_size(s)? as f64 / (1u64 << 30) as f64,
        None if args.quick => 0.25,
        None => 1.0,
    };
    let runtime = match &args.runtime {
        Some(r) => model::units::parse_duration(r)?,
        None if args.quick => std::time::Duration::from_millis(1200),
        None => std::time::Duration::from_secs(7),
    };
    let me = std::env::current_exe()?;
    for step in profile.steps() {
        let mut argv = profiles::step_args(step, &dir.display().to_string(), size_gib, runtime);
        argv.extend(args.save.to_args());
        println!("\n$ diskbench {}", argv.join(" "));
        std::io::Write::flush(&mut std::io::stdout())?;
        let status = std::process::Command::new(&me).args(&argv).status()?;
        match status.code() {
            Some(0) => {}
            Some(2) => return Ok(Exit::Usage),
            Some(130) | None => return Ok(Exit::Interrupted),
            Some(143) => return Ok(Exit::Terminated),
            Some(_) => return Ok(Exit::Runtime),
        }
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_are_a_whole_number_from_1_to_100() {
        assert!(parse_passes("0").is_err() && parse_passes("x").is_err());
        assert_eq!(parse_passes("100"), Ok(100));
    }
}
