//! `diskbench show RUN`: one run from the history, printed as it was
//! printed when it ran (the suite's table and headline for `run`, fio's
//! text for `fio` and for imports, the command's own text for `ping`,
//! `meta`, `fileserver` and `gobonniego`), warnings and errors on stderr
//! again.

use crate::args::DbArgs;
use crate::outcome::Exit;
use clap::Args;
use model::{RunKind, RunRecord};

#[derive(Args)]
pub struct ShowArgs {
    /// The run's id (see `diskbench history`)
    #[arg(value_name = "RUN", value_parser = crate::selection::parse_run_id)]
    id: i64,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: ShowArgs) -> anyhow::Result<Exit> {
    let record = crate::save::open(&args.db)?.get(args.id)?;
    print!("{}", render(&record));
    let r = &record.result;
    match record.kind {
        // Each kind of warning and check once, as `run` says them.
        RunKind::Suite => {
            let unsaid: &[&str] = match quick(r) {
                true => &[report::sanity::TOO_SHORT],
                false => &[],
            };
            eprint!("{}", report::glance::said_again(r, unsaid));
            eprint!("{}", report::stopped_text(r));
        }
        _ => eprint!("{}", report::problems_text(r)),
    }
    Ok(Exit::Ok)
}

/// Whether the run was `run --quick`, whose figures its headline says are quick ones.
fn quick(r: &model::RunResult) -> bool {
    r.command_line.iter().any(|a| a == "--quick")
}

/// The stdout of the command that made the run.
pub fn render(record: &RunRecord) -> String {
    let r = &record.result;
    if let Some(w) = &r.workload {
        return w.text.clone();
    }
    match record.kind {
        RunKind::Suite => {
            let mut out = report::table::target_header(r);
            out.push('\n');
            if !r.jobs.is_empty() {
                out.push_str(&report::table::summary_table(r));
                out.push('\n');
                if r.error.is_none() || r.interrupted {
                    out.push_str(&report::table::headline(r));
                    out.push_str(&report::stability::headline_intervals(r));
                }
                if let (true, Some(note)) = (quick(r), report::sanity::quick_note(r)) {
                    out.push_str(&note);
                }
            }
            out
        }
        // A run of the other commands always has its text (`workload`);
        // fio's is the best of what is left should one come without.
        RunKind::Fio
        | RunKind::Sweep
        | RunKind::Limit
        | RunKind::Fit
        | RunKind::ImportedFio
        | RunKind::ImportedGoBonnieGo
        | RunKind::Ping
        | RunKind::Meta
        | RunKind::Fileserver
        | RunKind::GoBonnieGo => report::fio_normal::render(r),
    }
}
