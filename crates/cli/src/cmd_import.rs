//! `diskbench import FILE...`: fio JSON and GoBonnieGo `-json` results into
//! the history (see `import` for the formats). Every file is read before
//! anything is saved, and all runs are saved in one transaction: a bad
//! file means nothing is imported.

use crate::args::{DbArgs, TagArgs};
use crate::outcome::Exit;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct ImportArgs {
    /// fio output (--output-format=json or json+) or GoBonnieGo -json output
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    tags: TagArgs,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: ImportArgs) -> anyhow::Result<Exit> {
    let command_line = history::command_line();
    let mut files = Vec::new();
    for path in &args.files {
        match import::read(path, &command_line) {
            Ok(imported) => files.push((path, imported)),
            Err(e) => {
                eprintln!("diskbench import: {e}");
                return Ok(Exit::Usage);
            }
        }
    }
    let records: Vec<_> = files
        .iter()
        .flat_map(|(_, i)| {
            i.results
                .iter()
                .map(|r| args.tags.record(i.kind, r.clone()))
        })
        .collect();
    let mut store = args.db.open().context("opening the history")?;
    let mut ids = store.save_all(&records)?.into_iter();
    for (path, imported) in &files {
        let mine: Vec<String> = ids
            .by_ref()
            .take(imported.results.len())
            .map(|id| id.to_string())
            .collect();
        println!(
            "imported {} ({}) as run{} {} in {}",
            path.display(),
            imported.summary,
            if mine.len() == 1 { "" } else { "s" },
            mine.join(", "),
            store.path().display()
        );
        for r in &imported.results {
            eprint!("{}", report::warnings_text(r));
        }
    }
    Ok(Exit::Ok)
}
