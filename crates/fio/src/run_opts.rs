//! fio's command-line options of the whole run (not job options): how and
//! when to print (`--minimal`, `--eta`, `--status-interval`, ...), what to
//! check (`--warnings-fatal`), triggers, and the requests that print
//! something and run nothing (`--version`, `--cmdhelp`, `--enghelp`,
//! `--debug=?`).
//!
//! Scripts pass these to fio by habit; a script that swaps `fio` for
//! `diskbench fio` must not stop at them. Each is either carried out
//! (stored here for `cmd_fio` and the runner), or, for options that only
//! size fio's own internals (`--max-jobs`, the size of its shared-memory
//! pool for job structures; `--alloc-size`, its smalloc pool), checked and
//! accepted: diskbench has no such fixed pools, so there is nothing they
//! could change. fio's client/server options are refused with a pointer to
//! diskbench's own way of measuring many machines.

use crate::error::FioError;
use crate::suggest::closest;
use crate::OutputFormat;
use model::units::{parse_duration, parse_int};
use std::iter::Peekable;
use std::time::Duration;

/// fio's `--eta`: when the progress line is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eta {
    /// When stderr is a terminal (fio's default).
    #[default]
    Auto,
    Always,
    Never,
}

/// What to print instead of running jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    Version,
    /// `--cmdhelp[=OPTION]`; `None` or `all` lists every option.
    CmdHelp(Option<String>),
    /// `--enghelp[=ENGINE[,OPTION]]`.
    EngHelp(Option<String>),
    /// `--debug=?`.
    DebugHelp,
    /// `--inflate-log=FILE`: a log fio stored compressed, printed inflated.
    InflateLog(String),
}

/// The options of the whole run that shape printing and checking.
#[derive(Clone, Debug, PartialEq)]
pub struct CliOptions {
    pub eta: Eta,
    /// `--eta-interval`: how often the progress line is refreshed (fio's
    /// default is a second; 250 ms at least, as fio requires).
    pub eta_interval: Duration,
    /// `--eta-newline`: start a new progress line this often (for logs).
    pub eta_newline: Option<Duration>,
    /// `--status-interval`: print the output so far this often.
    pub status_interval: Option<Duration>,
    /// `--warnings-fatal`: a parser warning is an error (exit 2).
    pub warnings_fatal: bool,
    /// `--showcmd`: print the jobs as one fio command line each, run nothing.
    pub showcmd: bool,
    /// `--merge-blktrace-only`: merge the jobs' traces (`merge_blktrace_file`,
    /// done while parsing) and run nothing.
    pub merge_blktrace_only: bool,
    /// `--debug=...`: the categories asked for (see [`DEBUG_CATEGORIES`]).
    pub debug: Vec<String>,
    /// `--bandwidth-log[=NAME]`: the aggregate bandwidth logs' prefix
    /// (`agg` when bare, as fio names them `agg-read_bw.log`).
    pub bandwidth_log: Option<String>,
    /// `--trigger-file`, `--trigger-timeout`, `--trigger`: stop the jobs when
    /// the file appears or the time has passed, then run the command.
    pub trigger_file: Option<String>,
    pub trigger_timeout: Option<Duration>,
    pub trigger: Option<String>,
    /// `--aux-path`: where state files go (`verify_state_save`'s).
    pub aux_path: Option<String>,
    /// `--max-jobs` and `--alloc-size`, as given (checked, nothing to size).
    pub max_jobs: Option<u64>,
    pub alloc_size_kib: Option<u64>,
    /// `--terse-version`: the terse format's version (fio's default is 3).
    pub terse_version: u32,
}

impl Default for CliOptions {
    fn default() -> Self {
        CliOptions {
            eta: Eta::Auto,
            eta_interval: Duration::from_secs(1),
            eta_newline: None,
            status_interval: None,
            warnings_fatal: false,
            showcmd: false,
            merge_blktrace_only: false,
            debug: Vec::new(),
            bandwidth_log: None,
            trigger_file: None,
            trigger_timeout: None,
            trigger: None,
            aux_path: None,
            max_jobs: None,
            alloc_size_kib: None,
            terse_version: 3,
        }
    }
}

/// Options that stand alone.
const FLAGS: &[&str] = &[
    "minimal",
    "append-terse",
    "version",
    "showcmd",
    "warnings-fatal",
    "merge-blktrace-only",
];
/// Options whose value is optional (only after `=`, as with getopt).
const OPTIONAL: &[&str] = &["cmdhelp", "enghelp", "bandwidth-log"];
/// Options that need a value.
const VALUED: &[&str] = &[
    "terse-version",
    "eta",
    "eta-interval",
    "eta-newline",
    "status-interval",
    "max-jobs",
    "alloc-size",
    "debug",
    "inflate-log",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "aux-path",
];

/// Every name handled here, for the option tables.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    FLAGS.iter().chain(OPTIONAL).chain(VALUED).copied()
}

/// fio's client/server options, refused with [`crate::error::REMOTE_HELP`].
pub(crate) const REMOTE: &[&str] = &["server", "client", "daemonize", "remote-config"];

/// fio's `--debug` categories; diskbench traces `parse` (the jobs as it
/// understood them, on stderr) and says for the others where to look.
pub const DEBUG_CATEGORIES: &[&str] = &[
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
    "all",
];

/// The terse format versions fio writes (`--terse-version`), all of which
/// `report::terse` writes too.
pub const TERSE_VERSIONS: [u32; 4] = [2, 3, 4, 5];

/// The state [`take`] fills: the output formats and the other options.
pub(crate) struct Taken<'a> {
    pub formats: &'a mut Vec<OutputFormat>,
    pub append_terse: &'a mut bool,
    pub cli: &'a mut CliOptions,
    pub info: &'a mut Option<Info>,
}

/// Reads one of this module's options (`name` as given, `inline` after `=`).
pub(crate) fn take<I: Iterator<Item = String>>(
    name: &'static str,
    inline: Option<&str>,
    rest: &mut Peekable<I>,
    out: Taken,
) -> Result<(), FioError> {
    if FLAGS.contains(&name) {
        let on = match inline {
            None => true,
            Some(v) => model::units::parse_bool(v).map_err(|e| bad(name, v, e.to_string()))?,
        };
        match name {
            "minimal" if on => *out.formats = vec![OutputFormat::Terse],
            "append-terse" => *out.append_terse = on,
            "version" if on => *out.info = Some(Info::Version),
            "showcmd" => out.cli.showcmd = on,
            "warnings-fatal" => out.cli.warnings_fatal = on,
            "merge-blktrace-only" => out.cli.merge_blktrace_only = on,
            _ => {}
        }
        return Ok(());
    }
    if OPTIONAL.contains(&name) {
        let value = inline.filter(|v| !v.is_empty()).map(str::to_string);
        match name {
            "cmdhelp" => *out.info = Some(Info::CmdHelp(value)),
            "enghelp" => *out.info = Some(Info::EngHelp(value)),
            _ => out.cli.bandwidth_log = Some(value.unwrap_or_else(|| "agg".into())),
        }
        return Ok(());
    }
    let value = take_value(name, inline, rest)?;
    let cli = &mut *out.cli;
    match name {
        "terse-version" => {
            let v = parse_int(&value).map_err(|e| bad(name, &value, e.to_string()))?;
            match u32::try_from(v).ok().filter(|v| TERSE_VERSIONS.contains(v)) {
                Some(v) => cli.terse_version = v,
                None => {
                    let problem = "fio's terse versions are 2, 3, 4 and 5 (3 is the default)";
                    return Err(bad(name, &value, problem.into()));
                }
            }
        }
        "eta" => {
            cli.eta = match value.as_str() {
                "auto" => Eta::Auto,
                "always" => Eta::Always,
                "never" => Eta::Never,
                _ => {
                    let mut problem = "use always, never or auto".to_string();
                    if let Some(s) = closest(&value, ["always", "never", "auto"]) {
                        problem.push_str(&format!("; did you mean '{s}'?"));
                    }
                    return Err(bad(name, &value, problem));
                }
            }
        }
        "eta-interval" => {
            let d = time(name, &value)?;
            if d < Duration::from_millis(250) {
                return Err(bad(
                    name,
                    &value,
                    "the shortest interval is 250ms, as in fio".into(),
                ));
            }
            cli.eta_interval = d;
        }
        "eta-newline" => cli.eta_newline = Some(positive_time(name, &value)?),
        "status-interval" => cli.status_interval = Some(positive_time(name, &value)?),
        "trigger-timeout" => cli.trigger_timeout = Some(positive_time(name, &value)?),
        "max-jobs" | "alloc-size" => {
            let n = parse_int(&value).map_err(|e| bad(name, &value, e.to_string()))?;
            if n == 0 {
                return Err(bad(name, &value, "give a positive number".into()));
            }
            match name {
                "max-jobs" => cli.max_jobs = Some(n),
                _ => cli.alloc_size_kib = Some(n),
            }
        }
        "debug" => {
            for part in value.split(',').map(str::trim) {
                if part == "?" || part == "help" {
                    *out.info = Some(Info::DebugHelp);
                } else if DEBUG_CATEGORIES.contains(&part) || part.starts_with("job:") {
                    cli.debug.push(part.to_string());
                } else {
                    let mut problem = format!(
                        "'{part}' is not one of fio's debug categories (--debug=? lists them)"
                    );
                    if let Some(s) = closest(part, DEBUG_CATEGORIES.iter().copied()) {
                        problem.push_str(&format!("; did you mean '{s}'?"));
                    }
                    return Err(bad(name, &value, problem));
                }
            }
        }
        "inflate-log" => *out.info = Some(Info::InflateLog(value)),
        "trigger-file" => cli.trigger_file = Some(value),
        "trigger" => cli.trigger = Some(value),
        _ => cli.aux_path = Some(value),
    }
    Ok(())
}

fn bad(option: &str, value: &str, problem: String) -> FioError {
    FioError::RunOption {
        option: option.to_string(),
        value: value.to_string(),
        problem,
    }
}

fn time(name: &str, value: &str) -> Result<Duration, FioError> {
    parse_duration(value).map_err(|e| bad(name, value, e.to_string()))
}

fn positive_time(name: &str, value: &str) -> Result<Duration, FioError> {
    let d = time(name, value)?;
    if d.is_zero() {
        return Err(bad(
            name,
            value,
            "give a time above zero, e.g. 1 or 500ms".into(),
        ));
    }
    Ok(d)
}

/// The value of an option that needs one: after `=`, or the next argument
/// unless that is itself an option.
pub(crate) fn take_value<I: Iterator<Item = String>>(
    name: &str,
    inline: Option<&str>,
    rest: &mut Peekable<I>,
) -> Result<String, FioError> {
    let value = match inline {
        Some(v) => Some(v.to_string()),
        None => rest.next_if(|next| !next.starts_with("--")),
    };
    match value {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(FioError::MissingValue(name.to_string())),
    }
}

#[cfg(test)]
mod tests;
