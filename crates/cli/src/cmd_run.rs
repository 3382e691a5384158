//! `diskbench run [DIR]`: the default suite. It prints the target first, then
//! a table of every test, then seed 000's three headline figures.
//!
//! The suite is data (suites/default.fio, in fio's command-line form) parsed
//! by the same parser as `diskbench fio`, so a test here and a fio job mean
//! exactly the same thing.

use crate::outcome::{report_problems, stop_on_signals, Exit};
use crate::progress;
use anyhow::Context;
use clap::Args;
use model::{FileTarget, JobSpec};
use runner::{RunError, RunOptions};
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
    let opts = RunOptions {
        stop: stop_on_signals()?,
        progress: if args.json { None } else { progress::bar() },
        command_line: std::env::args().collect(),
        ..RunOptions::default()
    };
    if !args.json {
        let before = model::RunResult {
            targets: vec![runner::probe::target(&dir)],
            ..Default::default()
        };
        print!("{}", report::table::target_header(&before));
        println!();
    }
    let outcome = runner::run(&groups, &opts);
    progress::clear();
    if args.json {
        println!("{}", report::json::render(&outcome.result));
    } else if !outcome.result.jobs.is_empty() {
        print!("{}", report::table::summary_table(&outcome.result));
        println!();
        if outcome.failure.is_none() || outcome.failure == Some(RunError::Interrupted) {
            print!("{}", report::table::headline(&outcome.result));
        }
    }
    report_problems(&outcome);
    std::io::Write::flush(&mut std::io::stdout()).context("writing results")?;
    let exit = Exit::of(&outcome.failure);
    Ok(crate::history::save_run(
        model::RunKind::Suite,
        &outcome.result,
        &args.save,
        exit,
    ))
}
