//! `diskbench report`: one self-contained HTML file (it works offline; no
//! request leaves the page) with the comparison table, bar charts with a
//! log-scale switch, a run-by-run timeline per group, per-second series,
//! latency percentile curves and the table of runs with host facts.

use crate::args::DbArgs;
use crate::outcome::Exit;
use crate::selection::{load_or_exit, Selection};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReportArgs {
    /// Where to write the report
    #[arg(short, long, default_value = "diskbench-report.html")]
    output: PathBuf,
    /// Group runs by these labels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "LABEL,...")]
    by: Vec<String>,
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    db: DbArgs,
}

/// Why `-o PATH` cannot be written, as a usage error the user fixes by
/// choosing another path: a directory that is not there, or a directory
/// given where a file is meant. Checked before the history is read.
pub fn output_path_problem(path: &Path, example: &str) -> Option<String> {
    if path.is_dir() {
        return Some(format!(
            "{} is a directory: give a file name, e.g. -o {}",
            path.display(),
            path.join(example).display()
        ));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!parent.is_dir()).then(|| {
        format!(
            "cannot write {}: the directory {} does not exist: create it or choose another -o",
            path.display(),
            parent.display()
        )
    })
}

pub fn run(args: ReportArgs) -> anyhow::Result<Exit> {
    if let Some(problem) = output_path_problem(&args.output, "diskbench-report.html") {
        eprintln!("diskbench report: {problem}");
        return Ok(Exit::Usage);
    }
    let store = crate::save::open(&args.db)?;
    let runs = match load_or_exit("report", &args.selection, &store) {
        Ok(runs) => runs,
        Err(exit) => return exit,
    };
    if let Some(problem) = crate::cmd_compare::unknown_by_label(&runs, &args.by) {
        eprintln!("diskbench report: {problem}");
        return Ok(Exit::Usage);
    }
    let html = report::html::render_report(&runs, &args.by);
    std::fs::write(&args.output, html)
        .with_context(|| format!("writing the report to {}", args.output.display()))?;
    eprintln!(
        "wrote {} ({})",
        args.output.display(),
        report::format::count(runs.len(), "run")
    );
    Ok(Exit::Ok)
}
