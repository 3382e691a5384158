//! fio's job files and command-line form (`--name=job --rw=randread --bs=4k
//! ...`), turned into validated [`JobSpec`]s, grouped as fio runs them.
//!
//! People arrive with fio job files and command lines they already trust;
//! diskbench runs them as they are, and refuses, with a message naming the
//! option (and, in a file, the `file:line`) and the fix, anything it would
//! not carry out exactly. Parsing is three stages:
//! - stage one reads the text: `cmdline` decides what each argument is
//!   (option, value, job, job file), `jobfile` reads fio's ini format into
//!   the same sections of raw options; both expand values (`expand`: `${VAR}`,
//!   `$ncpus`, arithmetic);
//! - stage two, `jobs`, interprets the values, applies fio's defaults and
//!   override rules, and checks what only makes sense across options; one
//!   code path whether an option came from a file or the command line;
//! - stage three, `groups`, cuts the jobs into groups (`stonewall`,
//!   `wait_for`, `new_group`) that run one after another.
//!
//! The option tables live in `options`, so supporting one more fio option is
//! a table entry and one `match` arm.

mod arith;
mod blktrace;
mod bs_opts;
mod cmdhelp;
mod cmdline;
mod control_opts;
mod cpuio_opts;
mod data_opts;
mod debug_parse;
mod engine_opts;
mod error;
mod error_opts;
mod expand;
mod fileop_opts;
mod fileopts;
mod groups;
mod iolog_opts;
mod iolog_text;
mod jobfile;
mod jobs;
mod latency_opts;
mod numa_opts;
mod offset_opts;
mod options;
mod output_opts;
mod pattern;
mod pattern_files;
mod prio_opts;
mod requirements;
mod run_opts;
mod showcmd;
mod spell;
mod sprandom_opts;
mod submit_opts;
mod suggest;
#[cfg(test)]
mod tests;
mod trim_opts;
mod values;
mod verify_opts;

pub use cmdhelp::info_text;
pub use debug_parse::parse_trace;
pub use error::REMOTE_HELP;
pub use error::{FioError, Origin, Scope};
pub use model::JobSpec;
pub use run_opts::{CliOptions, Eta, Info, DEBUG_CATEGORIES};
pub use showcmd::{job_line, showcmd};

use cmdline::SectionKind;
use expand::Env;
use std::path::PathBuf;

/// fio's `--output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// fio's human-readable text.
    Normal,
    Json,
    /// fio's JSON plus each latency histogram's non-empty buckets (`bins`).
    JsonPlus,
    /// fio's semicolon-separated format (`--terse-version`, 3 by default).
    Terse,
    /// diskbench's stream: one JSON object per line, for each job at each
    /// `--status-interval` and at its end (see `cmd_fio`).
    Ndjson,
}

impl OutputFormat {
    pub fn fio_name(self) -> &'static str {
        match self {
            OutputFormat::Normal => "normal",
            OutputFormat::Json => "json",
            OutputFormat::JsonPlus => "json+",
            OutputFormat::Terse => "terse",
            OutputFormat::Ndjson => "ndjson",
        }
    }
}

/// What `gtod_reduce` does in diskbench, said once on stderr: fio stops
/// timing I/Os to save `gettimeofday` calls and reports no latencies;
/// diskbench's clock is already cheap, so it keeps them.
pub const GTOD_REDUCE_NOTE: &str = "gtod_reduce=1: diskbench keeps measuring latencies \
     (its timestamps are cheap: TSC, batched) and reports them, where fio would omit them";

/// What `random_generator` does in diskbench, said once on stderr: every
/// generator fio names is accepted, and diskbench uses its own.
pub const RANDOM_GENERATOR_NOTE: &str = "random_generator: diskbench draws offsets with its \
     own generator (a keyed permutation), whichever is named: the sequence of offsets differs \
     from fio's, their distribution (and the once-per-pass coverage of the random map) does not";

/// A parsed fio command line, with its job files read.
#[derive(Clone, Debug, PartialEq)]
pub struct FioArgs {
    /// The jobs, in groups that run one after another; the jobs of a group
    /// run at the same time. The group's index is fio's `groupid`.
    /// Command-line jobs come first, then each job file's, as in fio.
    pub groups: Vec<Vec<JobSpec>>,
    /// Every job of `groups`, in order (the groups flattened).
    pub jobs: Vec<JobSpec>,
    /// The options given outside any job, in order: on the command line
    /// (before the first `--name`, or after `--name=global`), then in each job
    /// file's `[global]` sections: what fio prints as `global options`. Each
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
    /// `--parse-only`: check and print the jobs (see [`showcmd`]), run nothing.
    pub parse_only: bool,
    /// What diskbench runs differently from fio (approximations), for stderr.
    pub warnings: Vec<String>,
    /// The other options of the whole run (`--eta`, `--status-interval`, ...).
    pub cli: CliOptions,
    /// `--version`, `--cmdhelp`, ...: print this and run nothing (no job is
    /// then needed, and `groups` may be empty).
    pub info: Option<Info>,
}

/// Parses fio's command line: options, command-line jobs and job files
/// (positional arguments; `-` is standard input), which are read here.
/// `args` are the arguments after the program (or subcommand) name.
///
/// ```
/// let args = ["--name=vs", "--filename=/tmp/x", "--rw=randread", "--iodepth=32"];
/// let parsed = diskbench_fio::parse_args(args.map(String::from)).unwrap();
/// assert_eq!(parsed.jobs[0].iodepth, 32);
/// assert_eq!(parsed.groups.len(), 1);
/// ```
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<FioArgs, FioError> {
    parse_with(args, &Env::real())
}

fn parse_with<I: IntoIterator<Item = String>>(args: I, env: &Env) -> Result<FioArgs, FioError> {
    let args: Vec<String> = args.into_iter().collect();
    let as_file: String = args
        .iter()
        .map(|a| format!("{}\n", a.trim_start_matches('-')))
        .collect();
    if let Some(missing) = requirements::scan("command line", &as_file) {
        return Err(match missing {
            FioError::At { error, .. } => *error,
            other => other,
        });
    }
    let mut raw = cmdline::split(args, env)?;
    if let Some(info) = raw.info.take() {
        return Ok(FioArgs {
            groups: Vec::new(),
            jobs: Vec::new(),
            global_options: Vec::new(),
            output_format: raw.output_format,
            output: raw.output.map(PathBuf::from),
            allow_destructive: raw.allow_destructive,
            parse_only: raw.parse_only,
            warnings: Vec::new(),
            cli: raw.cli,
            info: Some(info),
        });
    }
    let wanted = std::mem::take(&mut raw.sections_wanted);
    // `--section` picks command-line jobs by name too, as fio does.
    let mut names: Vec<String> = raw
        .sections
        .iter()
        .filter_map(|s| match &s.kind {
            SectionKind::Job(n) => Some(n.clone()),
            SectionKind::Global => None,
        })
        .collect();
    if !wanted.is_empty() {
        raw.sections.retain(|s| match &s.kind {
            SectionKind::Job(n) => wanted.contains(n),
            SectionKind::Global => true,
        });
    }
    let mut files = Vec::with_capacity(raw.job_files.len());
    for path in &raw.job_files {
        let file = jobfile::read(path, &wanted, env)?;
        names.extend(file.job_names);
        files.push(file.sections);
    }
    if let Some(missing) = wanted.iter().find(|w| !names.contains(w)) {
        return Err(FioError::NoSuchSection {
            name: missing.clone(),
            suggestion: suggest::closest(missing, names.iter().map(String::as_str))
                .map(str::to_string),
        });
    }
    let built = jobs::build(raw.sections, files)?;
    // fio checks options alone with --parse-only: no job needed (exit 0).
    let options_only = raw.parse_only && raw.job_files.is_empty();
    if built.jobs.is_empty() && !options_only {
        return Err(match raw.job_files.is_empty() {
            true => FioError::NoJob,
            false => FioError::NoJobInFiles(raw.job_files.join(", ")),
        });
    }
    let mut grouped = groups::group(built.jobs)?;
    verify_opts::set_state_dir(&mut grouped.groups, raw.cli.aux_path.as_deref());
    if grouped.groups.iter().flatten().any(|j| j.gtod_reduce) {
        grouped.warnings.push(GTOD_REDUCE_NOTE.to_string());
    }
    let named_generator = |j: &JobSpec| j.options.iter().any(|(k, _)| k == "random_generator");
    if grouped.groups.iter().flatten().any(named_generator) {
        grouped.warnings.push(RANDOM_GENERATOR_NOTE.to_string());
    }
    Ok(FioArgs {
        jobs: grouped.groups.iter().flatten().cloned().collect(),
        groups: grouped.groups,
        global_options: built.global_options,
        output_format: raw.output_format,
        output: raw.output.map(PathBuf::from),
        allow_destructive: raw.allow_destructive,
        parse_only: raw.parse_only,
        warnings: grouped.warnings,
        cli: raw.cli,
        info: None,
    })
}

/// `diskbench fio --help`: the form, and the options carried out, from the option tables.
/// The job options diskbench carries out, by fio's name (no aliases), for
/// tests and fuzzers that try every one.
pub fn job_option_names() -> Vec<&'static str> {
    options::JOB_OPTIONS.iter().map(|o| o.name).collect()
}

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
        "usage: diskbench fio [--output-format=normal|json|json+|terse|ndjson] [--output=FILE] [--allow-destructive]\n\
         \x20                    [--parse-only] [--section=NAME]... [GLOBAL OPTIONS]\n\
         \x20                    [--name=JOB [JOB OPTIONS]]... [JOBFILE]...\n\n\
         fio's job files and command-line form. On the command line --name= starts a job;\n\
         options before the first --name apply to every job, and to every job of the job\n\
         files after the files' own options (so --size=16m --runtime=1 shortens a job file;\n\
         fio lets the file win instead). Options are --opt=value; flags may be bare\n\
         (--time_based). The jobs of a group run at the same time, groups one after another\n\
         (stonewall starts a group). --parse-only prints the jobs as diskbench understood\n\
         them and runs nothing; --section=NAME runs only the jobs of that name.\n\
         fio's run options work as in fio: --minimal, --append-terse, --terse-version=2..5,\n\
         --version, --status-interval=T (ndjson: one JSON object per job and interval),\n\
         --eta=auto|always|never, --eta-interval, --eta-newline, --showcmd, --cmdhelp[=OPT],\n\
         --enghelp, --debug=CATS, --warnings-fatal, --bandwidth-log[=NAME], --inflate-log=FILE,\n\
         --trigger-file, --trigger-timeout, --trigger=CMD, --aux-path, --max-jobs, --alloc-size,\n\
         --merge-blktrace-only.\n\
         Any other fio option is refused by name.\n\n\
         job options carried out:\n  {}\n",
        names.join(", ")
    )
}
