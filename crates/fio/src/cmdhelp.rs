//! What `--version`, `--cmdhelp`, `--enghelp` and `--debug=?` print: the
//! answers come from the option tables, so they always say what this build
//! carries out.
//!
//! `--version` prints `fio-3.33` (`model::result::FIO_VERSION`), exactly
//! what fio 3.33 prints: scripts and tools check fio's version by matching
//! `fio-3` or the whole line, and 3.33 is the fio release whose output
//! formats diskbench writes. diskbench's own version is `diskbench
//! --version`'s, and the JSON's `diskbench.version`.

use crate::error::FioError;
use crate::options::{self, Lookup};
use crate::run_opts::{Info, DEBUG_CATEGORIES};
use crate::suggest::closest;
use model::EngineKind;

/// The text to print for `info`; `None` for what the CLI does itself
/// (inflating a log reads a file).
pub fn info_text(info: &Info) -> Result<Option<String>, FioError> {
    Ok(Some(match info {
        Info::Version => format!("{}\n", model::result::FIO_VERSION),
        Info::CmdHelp(None) => all_options(),
        Info::CmdHelp(Some(name)) if name == "all" => all_options(),
        Info::CmdHelp(Some(name)) => one_option(name)?,
        Info::EngHelp(None) => {
            let mut text = "Available IO engines:\n".to_string();
            for name in EngineKind::NAMES.split(", ") {
                text.push_str(&format!("\t{name}\n"));
            }
            text
        }
        Info::EngHelp(Some(spec)) => {
            let (engine, option) = match spec.split_once(',') {
                Some((e, o)) => (e, Some(o)),
                None => (spec.as_str(), None),
            };
            if EngineKind::parse(engine).is_none() {
                return Err(FioError::RunOption {
                    option: "enghelp".into(),
                    value: spec.clone(),
                    problem: format!(
                        "diskbench has no engine '{engine}': its engines are {}",
                        EngineKind::NAMES
                    ),
                });
            }
            match option {
                Some(o) => one_option(o)?,
                None => format!(
                    "{engine}: carried out by diskbench's own engine; its options are job \
                     options (--cmdhelp lists them)\n"
                ),
            }
        }
        Info::DebugHelp => format!(
            "debug categories: {}\ndiskbench traces 'parse' (the jobs as understood, on stderr); \
             for the others it says where to look (strace -f for system calls, the JSON's \
             diskbench section for depth, buffers and disk counters)\n",
            DEBUG_CATEGORIES.join(",")
        ),
        Info::InflateLog(_) => return Ok(None),
    }))
}

fn all_options() -> String {
    let mut names: Vec<&str> = options::carried_out_names().collect();
    names.sort_unstable();
    names.dedup();
    let mut text = "options diskbench carries out:\n".to_string();
    for name in names {
        text.push_str(&format!("  {name}\n"));
    }
    text
}

fn one_option(name: &str) -> Result<String, FioError> {
    Ok(match options::lookup(name) {
        Lookup::Job(def) => {
            let mut text = format!("{:>20}: job option, carried out\n", def.name);
            if !def.aliases.is_empty() {
                text.push_str(&format!("{:>20}: {}\n", "alias", def.aliases.join(", ")));
            }
            let form = match def.arity {
                options::Arity::Value => "--NAME=VALUE, or NAME=VALUE in a job file",
                options::Arity::Flag => "--NAME (or NAME=0|1)",
            };
            text.push_str(&format!("{:>20}: {form}\n", "form"));
            text
        }
        Lookup::Run(run) => format!("{run:>20}: option of the whole run, carried out\n"),
        Lookup::NotCarriedOut => {
            format!("{name:>20}: fio has it; diskbench does not carry it out yet (refused)\n")
        }
        Lookup::Unknown => {
            return Err(FioError::Unknown {
                option: name.to_string(),
                suggestion: closest(name, options::known_names()).map(str::to_string),
            })
        }
    })
}
