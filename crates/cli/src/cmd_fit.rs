//! `diskbench fit [WORKLOAD [DIR]]`: is this disk good enough for etcd,
//! PostgreSQL, ...? Without a workload it lists them; with one it runs the
//! workload's checks (each an fio job from the `fit` crate's catalogue, in
//! a fresh subdirectory of DIR, one after another), prints a verdict per
//! requirement with its margin, how sure it is and its source, and keeps
//! the run in the history like any other (`--label`, `compare`, `report`).
//! With `--runs`/`--duration` it is a soak of the checks (`run`'s soak
//! loop): a verdict per run and the time it stopped being fit, for a cloud
//! volume that is fit at minute 1 and not once its burst credits are spent.
//! With `--volume`, the volume's promise goes beside each requirement.
//! The catalogue and the judging are the `fit` crate's; this file only
//! measures, prints and saves.

use crate::args::{parse_pause, parse_runs, parse_span, RepeatArgs, SaveArgs};
use crate::outcome::Exit;
use crate::soak_loop;
use clap::Args;
use model::{FileTarget, JobSpec, RunKind, RunResult};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args)]
pub struct FitArgs {
    /// The workload to check (etcd, postgres, ...); without one, the list
    workload: Option<String>,
    /// Directory on the storage to check (default: the current one); the test files go in a
    /// fresh subdirectory and are removed after
    dir: Option<PathBuf>,
    /// Print the verdicts and figures as JSON on stdout
    #[arg(long)]
    json: bool,
    /// Each check's longest measured time, e.g. 10s (default: the catalogue's, 5s for the
    /// time-based checks; etcd's WAL check runs its 22 MiB once, as IBM's fio command does)
    #[arg(long, value_parser = parse_runtime)]
    runtime: Option<String>,
    /// Repeat the checks N times (a soak): a verdict per run, and the run where it stopped
    /// being fit
    #[arg(long, value_name = "N", value_parser = parse_runs)]
    runs: Option<u32>,
    /// Repeat the checks until this much time has passed, e.g. 10m: still fit once a cloud
    /// volume's burst credits are spent? (with --runs: whichever comes first)
    #[arg(long, value_name = "DURATION", value_parser = parse_span)]
    duration: Option<Duration>,
    /// Idle this long between the runs of a soak, e.g. 30s
    #[arg(long, value_name = "DURATION", value_parser = parse_pause)]
    pause: Option<Duration>,
    #[command(flatten)]
    save: SaveArgs,
}

fn parse_runtime(text: &str) -> Result<String, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(text.to_string()),
        Ok(_) => Err("each check needs a measured time above 0, e.g. --runtime 10s".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The workload's checks as jobs in `dir`, one group each so they run one
/// after another.
fn groups(
    w: &fit::Workload,
    dir: &Path,
    runtime: Option<&str>,
) -> Result<Vec<Vec<JobSpec>>, fio::FioError> {
    let mut groups = Vec::new();
    for check in &w.checks {
        let mut jobs = fio::parse_args(check.fio_args(runtime))?.jobs;
        for job in &mut jobs {
            job.target = FileTarget::Generated {
                directory: dir.to_path_buf(),
                nrfiles: 1,
                shared: check.shared_file.clone(),
            };
        }
        groups.push(jobs);
    }
    Ok(groups)
}

/// The verdicts on one run, with the volume's promise beside each
/// requirement when `--volume` declared one (its model is in the result).
fn judged(workload: &fit::Workload, result: &RunResult) -> fit::Report {
    let mut report = fit::judge(workload, result);
    if let Some(m) = result.volume.as_ref().and_then(|v| v.model.as_ref()) {
        fit::promise::attach(&mut report, m);
    }
    report
}

pub fn run(args: FitArgs) -> anyhow::Result<Exit> {
    let Some(name) = &args.workload else {
        print!("{}", fit::text::listing(fit::catalogue()));
        return Ok(Exit::Ok);
    };
    let workload = match fit::catalogue::find(name) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("diskbench fit: {e}");
            return Ok(Exit::Usage);
        }
    };
    let repeat = RepeatArgs {
        runs: args.runs,
        duration: args.duration,
        pause: args.pause,
        ..RepeatArgs::default()
    };
    let plan = match repeat.plan() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench fit: {e}");
            return Ok(Exit::Usage);
        }
    };
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let groups = match groups(workload, &dir, args.runtime.as_deref()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("diskbench fit: {e}");
            return Ok(Exit::Usage);
        }
    };
    let describe = |result: &RunResult| {
        let report = judged(workload, result);
        Some(model::WorkloadReport {
            command: RunKind::Fit.name().to_string(),
            text: fit::text::render(&report),
            document: serde_json::to_value(&report).ok()?,
        })
    };
    let progress = crate::progress::Settings::shown(!args.json);
    let m = soak_loop::Measure {
        describe: Some(&describe),
        ..soak_loop::Measure::plain(RunKind::Fit, &groups, &args.save, progress)
    };
    let mut windows = Vec::new();
    let (summary, exit) = soak_loop::run(&m, plan, |done| {
        let report = judged(workload, &done.outcome.result);
        match (done.soak.is_some(), args.json) {
            (false, true) => println!("{}", serde_json::to_string_pretty(&report)?),
            (false, false) => print!("{}", fit::text::render(&report)),
            (true, json) => {
                let w = fit::soak::Window {
                    run: done.run,
                    at_s: done.at.as_secs_f64(),
                    report,
                };
                if !json {
                    println!("{}", fit::soak::window_line(&w));
                }
                windows.push(w);
            }
        }
        Ok(())
    })?;
    if summary.soak.is_some() {
        let over = fit::soak::over(&workload.name, windows);
        match args.json {
            true => {
                let mut doc = serde_json::to_value(&over)?;
                doc["soak"] = serde_json::json!(summary.soak);
                println!("{}", serde_json::to_string_pretty(&doc)?);
            }
            false => {
                if let Some(last) = over.windows.last() {
                    println!("\nThe last run in full:");
                    print!("{}", fit::text::render(&last.report));
                }
                print!("{}", fit::soak::text(&over));
                print!("{}", soak::list_text(&summary));
            }
        }
    }
    Ok(exit)
}
