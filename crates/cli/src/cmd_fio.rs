//! `diskbench fio [options] [jobfile]...`: fio's job files and command-line
//! form. The jobs of a group run at the same time, groups one after another
//! (`stonewall`), as fio runs them; `--parse-only` prints the jobs as parsed
//! and runs nothing.

use crate::outcome::{report_problems, stop_on_signals, Exit};
use crate::progress;
use anyhow::Context;
use fio::OutputFormat;
use runner::RunOptions;

pub fn run(args: Vec<String>) -> anyhow::Result<Exit> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}{}", fio::help(), crate::history::FIO_HELP);
        return Ok(Exit::Ok);
    }
    let (args, save) = match crate::history::split_save_args(args.clone()) {
        Ok(split) => split,
        Err(e) => {
            if args
                .iter()
                .any(|a| a.starts_with("--output-format") && a.contains("json"))
            {
                println!("{}", report::json::error_json(&e, runner::TOOL_VERSION));
            }
            eprintln!("diskbench fio: {e}");
            return Ok(Exit::Usage);
        }
    };
    let wants_json = args
        .iter()
        .any(|a| a.starts_with("--output-format") && a.contains("json"));
    let parsed = match fio::parse_args(args) {
        Ok(p) => p,
        Err(e) => {
            if wants_json {
                println!(
                    "{}",
                    report::json::error_json(&e.to_string(), runner::TOOL_VERSION)
                );
            }
            eprintln!("diskbench fio: {e}");
            return Ok(Exit::Usage);
        }
    };
    for warning in &parsed.warnings {
        eprintln!("diskbench fio: warning: {warning}");
    }
    if parsed.parse_only {
        print!("{}", fio::showcmd(&parsed.groups));
        return Ok(Exit::Ok);
    }
    let opts = RunOptions {
        allow_destructive: parsed.allow_destructive,
        stop: stop_on_signals()?,
        progress: progress::bar(),
        command_line: std::env::args().collect(),
    };
    let outcome = runner::run(&parsed.groups, &opts);
    progress::clear();
    let mut text = String::new();
    for format in &parsed.output_format {
        match format {
            OutputFormat::Normal => text.push_str(&report::fio_normal::render(&outcome.result)),
            OutputFormat::Json => {
                text.push_str(&report::json::render(&outcome.result));
                text.push('\n');
            }
        }
    }
    match &parsed.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("writing the results to {}", path.display()))?,
        None => print!("{text}"),
    }
    report_problems(&outcome);
    let exit = Exit::of(&outcome.failure);
    Ok(crate::history::save_run(
        model::RunKind::Fio,
        &outcome.result,
        &save,
        exit,
    ))
}
