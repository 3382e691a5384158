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
use crate::soak;
use clap::Args;
use model::{FileTarget, JobSpec};
use runner::RunError;
use std::path::PathBuf;

const DEFAULT_SUITE: &str = include_str!("suites/default.fio");
/// Every test shares this one file, laid out once.
const SUITE_FILE: &str = "diskbench-run.dat";

#[derive(Args)]
pub struct RunArgs {
    /// Directory to measure; the test file goes in a fresh subdirectory and is removed after
    dir: Option<PathBuf>,
    /// Size of the test file (default 1g, or 256m with --quick)
    #[arg(long)]
    size: Option<String>,
    /// About 10 seconds in all instead of about a minute
    #[arg(long)]
    quick: bool,
    /// Print the native JSON (fio's shape, one entry in `jobs` per test) on stdout
    #[arg(long)]
    json: bool,
    /// I/O engine (io_uring falls back to libaio, then psync, with a warning)
    #[arg(long, default_value = "io_uring")]
    engine: String,
    #[command(flatten)]
    save: crate::history::SaveArgs,
    #[command(flatten)]
    repeat: crate::soak::RepeatArgs,
}

/// The suite's jobs, one per group so they run one after another.
fn suite(args: &RunArgs, dir: &std::path::Path) -> Result<Vec<Vec<JobSpec>>, fio::FioError> {
    let size = args
        .size
        .clone()
        .unwrap_or_else(|| if args.quick { "256m" } else { "1g" }.into());
    let (runtime, ramp) = if args.quick {
        ("1200ms", "0")
    } else {
        ("7", "1")
    };
    let common = [
        "--direct=1".to_string(),
        format!("--ioengine={}", args.engine),
        format!("--size={size}"),
        format!("--runtime={runtime}"),
        format!("--ramp_time={ramp}"),
        "--time_based".to_string(),
    ];
    let mut groups = Vec::new();
    for line in DEFAULT_SUITE
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let argv = common
            .iter()
            .cloned()
            .chain(line.split_whitespace().map(String::from));
        let parsed = fio::parse_args(argv)?;
        for mut job in parsed.jobs {
            job.target = FileTarget::Generated {
                directory: dir.to_path_buf(),
                nrfiles: 1,
                shared: Some(SUITE_FILE.to_string()),
            };
            groups.push(vec![job]);
        }
    }
    Ok(groups)
}

pub fn run(args: RunArgs) -> anyhow::Result<Exit> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let groups = match suite(&args, &dir) {
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
        global_options: &[],
        progress: !args.json,
        save: &args.save,
    };
    let mut docs = Vec::new();
    let summary = soak::run(&measure, plan, |done| {
        let result = &done.outcome.result;
        if args.json {
            docs.push(report::json::render(result));
        } else if done.soak.is_some() && !done.last {
            // A table per run is too much for a soak of 30: a line each, the table once.
            println!("{}", done.line());
        } else if !result.jobs.is_empty() {
            if done.soak.is_some() {
                println!("{}", done.line());
                println!();
            }
            print!("{}", report::table::summary_table(result));
            println!();
            let failure = &done.outcome.failure;
            if failure.is_none() || *failure == Some(RunError::Interrupted) {
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
    Ok(summary.exit)
}
