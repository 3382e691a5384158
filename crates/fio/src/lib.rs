//! fio's command-line form (`--name=job --rw=randread --bs=4k ...`), turned
//! into validated [`JobSpec`]s.
//!
//! People arrive with fio command lines they already trust; diskbench runs
//! them as they are, and refuses, with a message naming the option and the
//! fix, anything it would not carry out exactly. Parsing is two stages:
//! `cmdline` decides what each argument is (option, value, job), then
//! `jobs` interprets the values, applies fio's defaults and override rules,
//! and checks what only makes sense across options. The option tables live in
//! `options`, so supporting one more fio option is a table entry and one
//! `match` arm.
//!
//! fio job files (`[global]`, `[job]` sections) are planned; they will reuse
//! the second stage.

mod cmdline;
mod error;
mod jobs;
mod options;
mod suggest;
mod values;

pub use error::{FioError, Scope};
pub use model::JobSpec;

use std::path::PathBuf;

/// fio's `--output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// fio's human-readable text.
    Normal,
    Json,
}

impl OutputFormat {
    pub fn fio_name(self) -> &'static str {
        match self {
            OutputFormat::Normal => "normal",
            OutputFormat::Json => "json",
        }
    }
}

/// A parsed fio command line.
#[derive(Clone, Debug, PartialEq)]
pub struct FioArgs {
    /// One per `--name` (not counting `--name=global`), in order.
    pub jobs: Vec<JobSpec>,
    /// The options given outside any job (before the first `--name`, or after
    /// `--name=global`), in order: what fio prints as `global options`. Each
    /// job's `options` starts with the global ones that apply to it.
    pub global_options: Vec<(String, String)>,
    /// The formats to print, in the order given, without repeats; `[Normal]`
    /// by default.
    pub output_format: Vec<OutputFormat>,
    /// `--output=FILE`: write the results there instead of stdout.
    pub output: Option<PathBuf>,
    /// diskbench's `--allow-destructive`: permit writes to block devices
    /// that hold data.
    pub allow_destructive: bool,
}

/// Parses fio's command-line form. `args` are the arguments after the
/// program (or subcommand) name.
///
/// ```
/// let args = ["--name=vs", "--filename=/tmp/x", "--rw=randread", "--iodepth=32"];
/// let parsed = diskbench_fio::parse_args(args.map(String::from)).unwrap();
/// assert_eq!(parsed.jobs[0].iodepth, 32);
/// ```
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<FioArgs, FioError> {
    let raw = cmdline::split(args)?;
    let (jobs, global_options) = jobs::build(raw.sections)?;
    Ok(FioArgs {
        jobs,
        global_options,
        output_format: raw.output_format,
        output: raw.output.map(PathBuf::from),
        allow_destructive: raw.allow_destructive,
    })
}

/// `diskbench fio --help`: the form, and the options carried out, from the option tables.
pub fn help() -> String {
    let mut names: Vec<String> = options::JOB_OPTIONS
        .iter()
        .map(|o| match o.aliases {
            [] => o.name.to_string(),
            aliases => format!("{} ({})", o.name, aliases.join(", ")),
        })
        .collect();
    names.sort();
    format!(
        "usage: diskbench fio [--output-format=normal|json] [--output=FILE] [--allow-destructive]\n\
         \x20                    [GLOBAL OPTIONS] --name=JOB [JOB OPTIONS] [--name=JOB2 ...]\n\n\
         fio's command-line form: --name= starts a job; options before the first --name apply\n\
         to every job. Options are --opt=value; flags may be bare (--time_based).\n\
         All jobs run at the same time, as in fio. Any other fio option is refused by name.\n\n\
         job options carried out:\n  {}\n",
        names.join(", ")
    )
}
