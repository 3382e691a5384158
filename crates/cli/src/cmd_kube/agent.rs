//! `diskbench kube pod -- COMMAND...`: what runs inside each pod. It runs
//! the diskbench command in this process, saving its runs in a history in
//! the pod's /tmp, then prints those runs between markers in the log
//! (`cluster::results`), which is how the collector gets them whole:
//! histograms, per-second series, labels, the run's UUID. With `--db
//! postgresql://...` the pod also saves them straight into that shared
//! history, so they are kept even when nobody collects (`kube
//! manifests`). The pod exits with the command's exit code.
//!
//! `--runs N` runs the command N times in a row, so a node's run-to-run
//! spread is measured where it is judged; `--work-dir` makes a directory
//! of the pod's own on a node's shared directory (`kube run --host-path`)
//! and removes it afterwards.

use crate::args::DbArgs;
use crate::outcome::Exit;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct PodArgs {
    /// A shared history the pod saves its runs in as well (postgresql://...)
    #[arg(long, value_name = "URL")]
    db: Option<PathBuf>,
    /// Run the command this many times (each run saved apart)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    /// Work in this new directory under the current one, removed at the end
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// The diskbench command to run, e.g. `run --quick`
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    command: Vec<String>,
}

pub fn run(args: PodArgs) -> anyhow::Result<Exit> {
    let local = std::env::temp_dir().join("diskbench-pod-history.sqlite3");
    let _ = std::fs::remove_file(&local);
    let mut command = args.command.clone();
    command.push(format!("--db={}", local.display()));
    if let Some(dir) = &args.work_dir {
        std::fs::create_dir_all(dir)?;
        std::env::set_current_dir(dir)?;
    }
    let mut exit = Exit::Ok;
    for _ in 0..args.runs {
        exit = crate::run_args(&command);
        if exit != Exit::Ok {
            break;
        }
    }
    if let Some(dir) = &args.work_dir {
        std::env::set_current_dir("..")?;
        if let Err(e) = std::fs::remove_dir_all(dir) {
            eprintln!(
                "diskbench kube pod: could not remove {}: {e}",
                dir.display()
            );
        }
    }
    let mut lines = Vec::new();
    let mut records = Vec::new();
    // A command that failed before saving anything leaves no history.
    if local.exists() {
        let store = store::Store::open(&local)?;
        records = store.list(&store::Filter::default())?;
        for r in &records {
            lines.push(serde_json::to_string(r)?);
        }
    }
    if let (Some(db), false) = (args.db, records.is_empty()) {
        let shared = DbArgs { db: Some(db) };
        match shared.open().and_then(|mut s| Ok(s.merge(&records)?)) {
            Ok(m) => eprintln!("saved {} runs in the shared history", m.added + m.completed),
            Err(e) => eprintln!("diskbench kube pod: the shared history did not take the runs ({e:#}); the collector saves them"),
        }
    }
    print!("{}", cluster::results::block(&lines, exit.code()));
    Ok(exit)
}
