//! `diskbench run [DIR]`: the default suite. It prints the target first, then
//! a table of every test, then seed 000's three headline figures.
//!
//! The suite is data (suites/default.fio, in fio's command-line form) parsed
//! by the same parser as `diskbench fio`, so a test here and a fio job mean
//! exactly the same thing.
//!
//! With `--runs`/`--duration` (a soak, see [`crate::soak`]) it prints one
//! line per run, the table of the last run, and the list of runs.

use crate::outcome::Exit;
use crate::profiles;
use crate::soak;
use clap::Args;
use model::{FileTarget, JobSpec};
use runner::RunError;
use std::path::{Path, PathBuf};

/// Every test shares this one file, laid out once.
const SUITE_FILE: &str = "diskbench-run.dat";

#[derive(Args)]
pub struct RunArgs {
    /// Directory to measure; the test file goes in a fresh subdirectory and is removed after
    dir: Option<PathBuf>,
    /// Size of the test file (default 1g, or 256m with --quick)
    #[arg(long, value_parser = parse_run_size, allow_negative_numbers = true)]
    size: Option<String>,
    /// About 10 seconds in all instead of about a minute
    #[arg(long)]
    quick: bool,
    /// Run a named profile instead of the default suite (see `diskbench profiles`)
    #[arg(long, default_value = "default")]
    profile: String,
    /// Each test's measured time, e.g. 30s, 2m (default 7s, or 1200ms with --quick)
    #[arg(long, value_parser = parse_run_runtime, allow_negative_numbers = true)]
    runtime: Option<String>,
    /// Print the native JSON (fio's shape, one entry in `jobs` per test) on stdout
    #[arg(long)]
    json: bool,
    /// I/O engine (io_uring falls back to libaio, then psync, with a warning)
    #[arg(long, default_value = "io_uring", value_parser = parse_run_engine)]
    engine: String,
    #[command(flatten)]
    save: crate::history::SaveArgs,
    #[command(flatten)]
    repeat: crate::soak::RepeatArgs,
    #[command(flatten)]
    profile_args: profiles::ProfileArgs,
    #[command(flatten)]
    faults: crate::history::FaultArgs,
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
    let (default_runtime, ramp) = if args.quick {
        ("1200ms", "0")
    } else {
        ("7", "1")
    };
    let runtime = args.runtime.as_deref().unwrap_or(default_runtime);
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
    for line in profile.test_lines(passes) {
        let argv = common
            .iter()
            .cloned()
            .chain(line.split_whitespace().map(with_value));
        let parsed = fio::parse_args(argv)?;
        for mut job in parsed.jobs {
            job.target = FileTarget::Generated {
                directory: dir.to_path_buf(),
                nrfiles: 1,
                shared: Some(SUITE_FILE.to_string()),
            };
            if let Some(asked) = cap_sync_depth(&mut job) {
                capped.push((asked, job.name.clone()));
            }
            // A capped test and its QD1 twin are the same test: measured once.
            let twin = capped.iter().any(|(_, ran)| *ran == job.name)
                && groups.iter().flatten().any(|j| j.name == job.name);
            if !twin {
                groups.push(vec![job]);
            }
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
/// (`rand-read-4k-qd32` becomes `rand-read-4k-qd1`); its old name is
/// returned. A name without a `-qdN` suffix is kept.
fn cap_sync_depth(job: &mut JobSpec) -> Option<String> {
    if job.engine != model::EngineKind::Sync || job.iodepth <= 1 {
        return None;
    }
    let asked = job.name.clone();
    job.iodepth = 1;
    if let Some((stem, depth)) = asked.rsplit_once("-qd") {
        if !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()) {
            job.name = format!("{stem}-qd1");
        }
    }
    // The job options echo what ran, so pasting them into fio gives this job.
    for (key, value) in &mut job.options {
        match key.as_str() {
            "iodepth" => *value = "1".into(),
            "name" => value.clone_from(&job.name),
            _ => {}
        }
    }
    Some(asked)
}

pub fn run(args: RunArgs) -> anyhow::Result<Exit> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let profile = match profiles::find(&args.profile) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench run: {e}");
            return Ok(Exit::Usage);
        }
    };
    let passes = match args.profile_args.passes(profile) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("diskbench run: {e}");
            return Ok(Exit::Usage);
        }
    };
    if args.json && !profile.steps().is_empty() {
        eprintln!(
            "diskbench run: profile {} runs other commands ({}) whose output is not part of --json yet: \
             run it without --json, or run those commands with their own --json",
            profile.name,
            profile.steps().join("; ")
        );
        return Ok(Exit::Usage);
    }
    let groups = match suite(&args, profile, passes, &dir) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("diskbench run: {e}");
            return Ok(Exit::Usage);
        }
    };
    let plan = match args.repeat.plan() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench run: {e}");
            return Ok(Exit::Usage);
        }
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
        eprintln!("diskbench run: {e}");
        return Ok(Exit::of(&Some(e)));
    }
    if !args.json {
        let before = model::RunResult {
            targets: vec![runner::probe::target(&dir)],
            ..Default::default()
        };
        print!("{}", report::table::target_header(&before));
        println!();
    }
    let measure = soak::Measure {
        kind: model::RunKind::Suite,
        groups: &groups,
        allow_destructive: false,
        safety: Default::default(),
        faults: &args.faults.faults,
        global_options: &[],
        progress: !args.json,
        save: &args.save,
    };
    let mut docs = Vec::new();
    let summary = soak::run(&measure, plan, |done| {
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
            if headline && (failure.is_none() || *failure == Some(RunError::Interrupted)) {
                print!("{}", report::table::headline(result));
            }
        }
        Ok(())
    })?;
    match (&plan, args.json) {
        (Some(plan), true) => println!("{}", soak::soak_json(&summary, plan, &docs)),
        (None, true) => docs.iter().for_each(|d| println!("{d}")),
        (_, false) => print!("{}", soak::list_text(&summary)),
    }
    step_exit(summary.exit)
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
        let argv = profiles::step_args(step, &dir.display().to_string(), size_gib, runtime);
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
