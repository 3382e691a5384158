//! `diskbench fit [WORKLOAD [DIR]]`: is this disk good enough for etcd,
//! PostgreSQL, ...? Without a workload it lists them; with one it runs the
//! workload's checks (each an fio job from the `fit` crate's catalogue, in
//! a fresh subdirectory of DIR, one after another), prints a verdict per
//! requirement with its margin, how sure it is and its source, and keeps
//! the run in the history like any other (`--label`, `compare`, `report`).
//! The catalogue and the judging are the `fit` crate's; this file only
//! measures, prints and saves.

use crate::args::SaveArgs;
use crate::outcome::Exit;
use crate::soak_loop;
use clap::Args;
use model::{FileTarget, JobSpec, RunKind};
use std::path::{Path, PathBuf};

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
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let groups = match groups(workload, &dir, args.runtime.as_deref()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("diskbench fit: {e}");
            return Ok(Exit::Usage);
        }
    };
    let progress = crate::progress::Settings::shown(!args.json);
    let m = soak_loop::Measure::plain(RunKind::Fit, &groups, &args.save, progress);
    let stop = crate::outcome::stop_on_signals()?;
    let volume = crate::volume::VolumeContext::start(args.save.tags.volume.as_ref(), &groups);
    let mut ws = runner::Workspace::default();
    let (mut outcome, written) = soak_loop::measure_once(&m, &stop, &mut ws, None, None);
    volume.annotate(&mut outcome.result, false);
    let report = fit::judge(workload, &outcome.result);
    let text = fit::text::render(&report);
    let document = serde_json::to_value(&report)?;
    outcome.result.workload = Some(model::WorkloadReport {
        command: RunKind::Fit.name().to_string(),
        text: text.clone(),
        document: document.clone(),
    });
    match args.json {
        true => println!("{}", serde_json::to_string_pretty(&document)?),
        false => print!("{text}"),
    }
    crate::outcome::report_problems(&outcome);
    let exit = Exit::of(&outcome.failure);
    let (exit, _) = crate::save::save_run(
        RunKind::Fit,
        &outcome.result,
        None,
        written,
        &args.save,
        exit,
    );
    Ok(exit)
}
