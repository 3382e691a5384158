//! Everything that can be wrong with a fio command line.
//!
//! Every error here is a usage error (the CLI exits with code 2), and its
//! `Display` text goes straight to the user, so each one names the option,
//! the value and the job it was found in, and says how to fix it. fio itself
//! often silently ignores or reinterprets what it does not like; diskbench
//! refuses instead, because a benchmark that quietly ran something other than
//! what was asked for reports numbers nobody can trust.

use model::units::UnitError;
use std::fmt;
use thiserror::Error;

/// What to use instead of fio's client/server mode.
pub const REMOTE_HELP: &str = "diskbench does not run fio's client/server protocol: run \
     `diskbench fio ...` on each machine and keep every result in one shared history with \
     --db postgresql://USER@HOST/DB (then compare them with `diskbench compare`), or run \
     a job file on Kubernetes nodes, one pod per volume, with `diskbench kube run --job FILE`";

/// Where an option was given: in the options every job shares (those before
/// the first `--name`, or after `--name=global`), or in one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Job(String),
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("global options"),
            Scope::Job(name) => write!(f, "job '{name}'"),
        }
    }
}

/// A line of a job file (or of a file it includes), shown as `file:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The path as given on the command line, or as resolved for an include.
    pub file: String,
    /// 1-based.
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum FioError {
    /// Any other error, found at a line of a job file.
    #[error("{at}: {error}")]
    At { at: Origin, error: Box<FioError> },

    /// A job file (or an included one) that cannot be read.
    #[error("job file '{file}': {problem}")]
    JobFile { file: String, problem: String },

    /// A line that is not fio's job-file syntax.
    #[error("{0}")]
    Syntax(String),

    #[error(
        "include loop: {0} includes itself (through the files listed); \
         remove one of the include lines"
    )]
    IncludeLoop(String),

    #[error(
        "'{0}' is a command-line option of the whole run, not a job option: \
         give it on the command line, e.g. --{0}=..."
    )]
    RunOptionInFile(String),

    /// `${VAR}`, `$ncpus` or an arithmetic expression that cannot be expanded.
    #[error("{option}={value}: {problem}")]
    Expand {
        option: String,
        value: String,
        problem: String,
    },

    #[error(
        "'{0}' starts with a typographic dash, not '--' (web pages and word processors \
         turn '--' into '–'): write it with two ASCII hyphens, e.g. --{1}"
    )]
    TypographicDash(String, String),

    #[error(
        "--section={name}: no job section of that name{}",
        did_you_mean(.suggestion)
    )]
    NoSuchSection {
        name: String,
        suggestion: Option<String>,
    },

    #[error(
        "no job in {0}: a job file needs a [jobname] section besides [global], \
         e.g. [test] with rw=read and size=1g"
    )]
    NoJobInFiles(String),

    #[error(
        "no job given: start each job with --name=NAME, e.g. `--name=test --rw=randread --size=1g` \
         (options before the first --name apply to every job)"
    )]
    NoJob,

    #[error("'{value}' after --{option}: a flag takes its value after '=', e.g. --{option}=1")]
    FlagValue { option: String, value: String },

    #[error("unknown option '{option}'{}", did_you_mean(.suggestion))]
    Unknown {
        option: String,
        suggestion: Option<String>,
    },

    #[error(
        "option '{0}' is a fio option diskbench does not carry out yet; \
         remove it to run without it"
    )]
    NotCarriedOut(String),

    /// A job that fio would run with hardware, a server or a library this
    /// machine (or diskbench) does not have: see `requirements`.
    #[error(
        "{what} needs {need}, which diskbench does not have: it runs jobs on local files \
         and block devices"
    )]
    NeedsMissing { what: String, need: String },

    #[error("option '{0}' needs a value: --{0}=VALUE")]
    MissingValue(String),

    #[error("{scope}: bad value for {option}: {source}")]
    BadValue {
        scope: Scope,
        option: String,
        #[source]
        source: UnitError,
    },

    /// A value of the right type that makes no sense (`iodepth=0`, `rwmixread=150`).
    #[error("{scope}: {option}={value}: {problem}")]
    Invalid {
        scope: Scope,
        option: String,
        value: String,
        problem: String,
    },

    /// A fio feature diskbench knows about but does not run yet.
    #[error("{scope}: {option}={value}{what} is not supported yet{hint}")]
    NotSupportedYet {
        scope: Scope,
        option: String,
        value: String,
        /// What the value asks for, with a leading space, e.g. " (several files)", or "".
        what: String,
        /// What to do instead, starting with a separator (", planned ...: ...").
        hint: String,
    },

    #[error("job '{job}' needs size= (or filename= of an existing file/device), e.g. --size=1g")]
    MissingSize { job: String },

    #[error(
        "job '{job}' uses ioengine=null, which does no I/O and so has no file to take \
         its size from: give size= or filesize=, e.g. --size=1g"
    )]
    NullNeedsSize { job: String },

    #[error(
        "job '{job}': direct=1 needs {option} to be a multiple of 512 bytes, got {option}={value}: \
         use e.g. {option}={example}, or direct=0"
    )]
    DirectAlignment {
        job: String,
        option: String,
        value: String,
        example: String,
    },

    /// A bad value for one of the options of the whole run (`--output-format`,
    /// `--allow-destructive`).
    #[error("--{option}={value}: {problem}")]
    RunOption {
        option: String,
        value: String,
        problem: String,
    },

    /// fio's client/server options (`--server`, `--client`, ...).
    #[error("--{0}: {help}", help = REMOTE_HELP)]
    Remote(String),
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    }
}

impl FioError {
    /// This error, found at `at` (a job-file line); unchanged without one.
    pub(crate) fn located(self, at: Option<&Origin>) -> FioError {
        match at {
            Some(at) => FioError::At {
                at: at.clone(),
                error: Box::new(self),
            },
            None => self,
        }
    }

    /// The error itself, without the `file:line` it was found at.
    pub fn innermost(&self) -> &FioError {
        match self {
            FioError::At { error, .. } => error.innermost(),
            other => other,
        }
    }

    /// Where in a job file the error was found, if it was.
    pub fn origin(&self) -> Option<&Origin> {
        match self {
            FioError::At { at, .. } => Some(at),
            _ => None,
        }
    }

    pub(crate) fn bad_value(scope: &Scope, option: &str, source: UnitError) -> FioError {
        FioError::BadValue {
            scope: scope.clone(),
            option: option.to_string(),
            source,
        }
    }

    pub(crate) fn invalid(
        scope: &Scope,
        option: &str,
        value: &str,
        problem: impl Into<String>,
    ) -> FioError {
        FioError::Invalid {
            scope: scope.clone(),
            option: option.to_string(),
            value: value.to_string(),
            problem: problem.into(),
        }
    }

    pub(crate) fn not_yet(
        scope: &Scope,
        option: &str,
        value: &str,
        what: &str,
        hint: &str,
    ) -> FioError {
        FioError::NotSupportedYet {
            scope: scope.clone(),
            option: option.to_string(),
            value: value.to_string(),
            what: what.to_string(),
            hint: hint.to_string(),
        }
    }
}
