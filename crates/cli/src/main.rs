//! The `diskbench` binary: parses the command line, runs one subcommand and
//! maps its outcome to an exit code (0 ok, 1 runtime error, 2 usage error,
//! 130 interrupted). Each subcommand lives in its own small file.

/// `eprintln!` that never panics. std's panics when stderr is closed
/// (`diskbench run 2>&1 >/dev/null | head -c1`), which stopped a run between
/// measuring and saving: exit 101 and the run left as killed. What stderr
/// carries is for a person; once nobody reads it, the run goes on, is
/// saved as it was, and exits with its own code. Defined before the
/// modules, so every `eprintln!` of the binary is this one.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics, as [`eprintln!`].
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod args;
mod cmd_chart;
mod cmd_compare;
mod cmd_db;
mod cmd_docs;
mod cmd_export;
mod cmd_fileserver;
mod cmd_fio;
mod cmd_fit;
mod cmd_gobonniego;
mod cmd_history;
mod cmd_import;
mod cmd_kube;
mod cmd_limit;
mod cmd_meta;
mod cmd_ping;
mod cmd_report;
mod cmd_rm;
mod cmd_run;
mod cmd_show;
mod cmd_sweep;
mod cmd_sync;
mod cmd_volumes;
mod outcome;
mod progress;
mod run_shape;
mod save;
mod selection;
mod soak_loop;
mod sweeper;
mod volume;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "diskbench",
    version,
    about = "What a disk really delivers: IOPS, throughput and latency, measured honestly"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the default suite on a directory (default: the current one)
    Run(cmd_run::RunArgs),
    /// Run fio job files, or jobs in fio's command-line form (--name=... --rw=... ...)
    #[command(disable_help_flag = true)]
    Fio {
        /// fio options and job files: --name=NAME starts a job; options before it apply to all jobs
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// GoBonnieGo's test with its flags (-dir, -size, -runs, -json, ...): write, read, 512-byte IOPS
    #[command(disable_help_flag = true)]
    Gobonniego {
        /// GoBonnieGo's flags, with one dash or two
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Latency one request at a time, as ioping (-c, -i, -s, -D, -W, -R, ...)
    Ping(cmd_ping::PingArgs),
    /// File create / stat / delete rates, as bonnie++ -n
    Meta(cmd_meta::MetaArgs),
    /// A dbench-like file-server load (built-in mix or a dbench loadfile)
    Fileserver(cmd_fileserver::FileserverArgs),
    /// Measure one job at growing queue depth: its saturation curve and knee
    Sweep(cmd_sweep::SweepArgs),
    /// The most IOPS with a latency percentile under a target (searches depth, then rate)
    Limit(cmd_limit::LimitArgs),
    /// Is this disk good enough for etcd, PostgreSQL, ...: a verdict per published requirement
    /// (without a workload: the list)
    Fit(cmd_fit::FitArgs),
    /// List the named profiles of `run --profile` with their origins
    Profiles,
    /// List the runs kept in the history
    History(cmd_history::HistoryArgs),
    /// Print one run from the history as it was printed when it ran
    Show(cmd_show::ShowArgs),
    /// Remove runs from the history
    Rm(cmd_rm::RmArgs),
    /// Print one run from the history as JSON, fio's JSON or CSV
    Export(cmd_export::ExportArgs),
    /// Bring fio JSON and GoBonnieGo -json results into the history
    Import(cmd_import::ImportArgs),
    /// Copy runs between the local history and a shared PostgreSQL one, each once
    Sync(cmd_sync::SyncArgs),
    /// Manage a shared PostgreSQL history: `db grant-writer ROLE`
    Db(cmd_db::DbCommand),
    /// Compare groups of runs (by label): IOPS, Read MB/s, Write MB/s, p99, costs
    ///
    /// Like is compared with like: a column is averaged only over runs whose
    /// figure came from jobs of one shape (rw, bs, iodepth, numjobs, direct,
    /// engine); otherwise it reads "mixed" and a note under the table names
    /// the shapes found. Select runs of one kind (--command, --label) or label
    /// them apart and group by that label. A --by label no selected run has
    /// is an error listing the labels there are.
    Compare(cmd_compare::CompareArgs),
    /// Write one self-contained HTML report with charts
    Report(cmd_report::ReportArgs),
    /// Write one of the report's charts as SVG or PNG
    Chart(cmd_chart::ChartArgs),
    /// The cloud volume catalogue, or what one volume should deliver (--type, --size)
    Volumes(cmd_volumes::VolumesArgs),
    /// Benchmark a Kubernetes cluster's StorageClasses as Jobs: `kube run`, `manifests`,
    /// `collect`, `cleanup`, `image`
    Kube(cmd_kube::KubeArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell)
    Completions(cmd_docs::CompletionsArgs),
    /// Print the man page (roff), or a subcommand's: `diskbench man run | man -l -`
    Man(cmd_docs::ManArgs),
}

/// A closed stdout (`diskbench export 2 | head -1`, `run --runs 3 | head`)
/// ends the process as it ends `cat`, with 141 (128 + SIGPIPE, the status
/// shells report for `cat`) and no message, and removes the test
/// directories first, so that a run cut short this way leaves nothing on
/// the disk. SIGPIPE stays ignored (Rust's default): a write to the closed
/// pipe then fails with EPIPE instead of killing the process where it
/// stands, which left the test files behind. `println!` panics on that
/// error; this hook turns that one panic into the clean exit, before any
/// message.
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        // EPIPE is 32 on every Linux architecture.
        if message.starts_with("failed printing to stdout") && message.ends_with("(os error 32)") {
            runner::remove_test_dirs();
            std::process::exit(141);
        }
        default(info);
    }));
}

/// A command line clap refuses: its message on stderr and exit 2, as
/// `Cli::parse` does, and for `run --json` also the one JSON document with
/// the error that the output contract promises on stdout (`fio` parses its
/// own arguments and does the same there).
fn refuse_command_line(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    let shown_on_request = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run_json = args.first().is_some_and(|a| a == "run") && args.iter().any(|a| a == "--json");
    if run_json && !shown_on_request {
        let rendered = e.to_string();
        let first_line = rendered.lines().next().unwrap_or_default();
        let failure = model::Failure::usage(first_line.trim_start_matches("error: "));
        print!(
            "{}",
            report::json::error_json(&failure, runner::TOOL_VERSION)
        );
    }
    e.exit()
}

/// What `diskbench` alone prints: the three commands most people need,
/// a line each, and where the rest is; clap's usage line alone lists 25
/// commands and says none of them is the one to start with.
const START_HERE: &str = "\
diskbench: what a disk really delivers (IOPS, throughput, latency), measured honestly.

Start here:
  diskbench run [DIR]        measure the disk under DIR (default: here) in about 30 s; --quick: 10 s
  diskbench fio ARGS...      run fio's job files or options, with fio's output (a drop-in for fio)
  diskbench compare --by L   compare the runs kept in the history, grouped by their label L

Every command: diskbench --help; one command: diskbench COMMAND --help, or diskbench man COMMAND.
";

fn main() -> ExitCode {
    exit_quietly_on_closed_stdout();
    // What the runner has to say outside a result goes to stderr, when said.
    runner::notice::set_sink(|text| eprintln!("{text}"));
    if std::env::args_os().len() == 1 {
        print!("{START_HERE}");
        return ExitCode::SUCCESS;
    }
    let cli = Cli::try_parse().unwrap_or_else(|e| refuse_command_line(e));
    dispatch(cli.command).into()
}

/// A diskbench command line run in this process, as if it were the
/// process's own (`kube pod` runs each pod's command so); a command line
/// clap refuses is said on stderr and is a usage error.
pub(crate) fn run_args(args: &[String]) -> outcome::Exit {
    let argv = std::iter::once("diskbench".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(cli) => dispatch(cli.command),
        Err(e) => {
            let _ = e.print();
            outcome::Exit::Usage
        }
    }
}

/// Runs one subcommand and maps its outcome to an exit.
fn dispatch(command: Command) -> outcome::Exit {
    let result = match command {
        Command::Run(args) => cmd_run::run(args),
        Command::Fio { args } => cmd_fio::run(args),
        Command::Gobonniego { args } => cmd_gobonniego::run(args),
        Command::Ping(args) => cmd_ping::run(args),
        Command::Meta(args) => cmd_meta::run(args),
        Command::Fileserver(args) => cmd_fileserver::run(args),
        Command::Sweep(args) => cmd_sweep::run(args),
        Command::Limit(args) => cmd_limit::run(args),
        Command::Fit(args) => cmd_fit::run(args),
        Command::Profiles => {
            print!("{}", profiles::list_text());
            Ok(outcome::Exit::Ok)
        }
        Command::History(args) => cmd_history::run(args),
        Command::Compare(args) => cmd_compare::run(args),
        Command::Report(args) => cmd_report::run(args),
        Command::Chart(args) => cmd_chart::run(args),
        Command::Completions(args) => cmd_docs::completions(args),
        Command::Man(args) => cmd_docs::man(args),
        Command::Show(args) => cmd_show::run(args),
        Command::Rm(args) => cmd_rm::run(args),
        Command::Export(args) => cmd_export::run(args),
        Command::Import(args) => cmd_import::run(args),
        Command::Sync(args) => cmd_sync::run(args),
        Command::Db(args) => cmd_db::run(args),
        Command::Volumes(args) => cmd_volumes::run(args),
        Command::Kube(args) => cmd_kube::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("diskbench: {e:#}");
            // A --db URL that cannot be read is the user's to fix: a usage error.
            match e.downcast_ref::<store::StoreError>() {
                Some(store::StoreError::BadUrl { .. }) => outcome::Exit::Usage,
                _ => outcome::Exit::Runtime,
            }
        }
    }
}
