//! `diskbench import FILE...`: fio JSON and GoBonnieGo `-json` results into
//! the history (see `import` for the formats). Every file is read before
//! anything is saved, and all runs are saved in one transaction: a bad
//! file means nothing is imported. A result is imported once: the same
//! document again is refused with the id its run has (`--again` keeps a
//! copy on purpose), so no run counts twice in a comparison.

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
    /// Import a result the history holds already (an earlier import of the
    /// same document): keeps another copy, under a new id
    #[arg(long)]
    again: bool,
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
            i.results.iter().zip(&i.uuids).map(|(r, uuid)| {
                let mut record = args.tags.record(i.kind, r.clone());
                // With --again the store gives the copy a fresh UUID.
                if !args.again {
                    record.uuid = uuid.clone();
                }
                record
            })
        })
        .collect();
    let mut store = args.db.open().context("opening the history")?;
    if !args.again {
        let uuids: Vec<(&std::path::Path, &[String])> = files
            .iter()
            .map(|(p, i)| (p.as_path(), i.uuids.as_slice()))
            .collect();
        if let Some(refusal) = history::copies::imported_before(&uuids, &store)? {
            eprintln!("diskbench import: {refusal}; nothing was imported");
            return Ok(Exit::Usage);
        }
    }
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
