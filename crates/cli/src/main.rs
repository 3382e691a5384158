//! The `diskbench` binary: parses the command line, runs one subcommand and
//! maps its outcome to an exit code (0 ok, 1 runtime error, 2 usage error,
//! 130 interrupted). Each subcommand lives in its own small file.

mod cmd_fio;
mod cmd_run;
mod outcome;
mod progress;

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
    /// Run jobs given in fio's command-line form (--name=... --rw=... ...)
    #[command(disable_help_flag = true)]
    Fio {
        /// fio options: --name=NAME starts a job; options before it apply to all jobs
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cmd_run::run(args),
        Command::Fio { args } => cmd_fio::run(args),
    };
    match result {
        Ok(code) => code.into(),
        Err(e) => {
            eprintln!("diskbench: {e:#}");
            outcome::Exit::Runtime.into()
        }
    }
}
