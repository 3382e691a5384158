//! `diskbench fio [options] [jobfile]...`: fio's job files and command-line
//! form. The jobs of a group run at the same time, groups one after another
//! (`stonewall`), as fio runs them; `--parse-only` prints the jobs as parsed
//! and runs nothing. With `--runs`/`--duration` (a soak, see
//! [`crate::soak`]) each run prints its output as it ends, and the list of
//! runs follows; JSON is then one document holding every run's.

use crate::outcome::Exit;
use crate::soak;
use anyhow::Context;
use fio::OutputFormat;

pub fn run(args: Vec<String>) -> anyhow::Result<Exit> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}{}", fio::help(), crate::history::FIO_HELP);
        return Ok(Exit::Ok);
    }
    let crate::history::OwnArgs {
        rest: args,
        save,
        repeat,
        safety,
        faults,
    } = match crate::history::split_own_args(args.clone()) {
        Ok(split) => split,
        Err(e) => {
            if args
                .iter()
                .any(|a| a.starts_with("--output-format") && a.contains("json"))
            {
                let failure = model::Failure::usage(e.as_str());
                println!(
                    "{}",
                    report::json::error_json(&failure, runner::TOOL_VERSION)
                );
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
                    report::json::error_json(
                        &model::Failure::usage(e.to_string()),
                        runner::TOOL_VERSION
                    )
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
    let plan = match repeat.plan() {
        Ok(p) => p,
        Err(e) => {
            if wants_json {
                let failure = model::Failure::usage(e.as_str());
                println!(
                    "{}",
                    report::json::error_json(&failure, runner::TOOL_VERSION)
                );
            }
            eprintln!("diskbench fio: {e}");
            return Ok(Exit::Usage);
        }
    };
    let measure = soak::Measure {
        kind: model::RunKind::Fio,
        groups: &parsed.groups,
        allow_destructive: parsed.allow_destructive,
        safety,
        faults: &faults.faults,
        global_options: &parsed.global_options,
        progress: true,
        save: &save,
        stable_stop: None,
    };
    let mut out = Output::default();
    let summary = soak::run(&measure, plan, |done| {
        out.add(done, &parsed.output_format);
        match &parsed.output {
            // The file holds every run so far, whole, whenever a run ends.
            Some(path) => std::fs::write(path, out.whole(None, plan.as_ref()))
                .with_context(|| format!("writing the results to {}", path.display())),
            None => {
                print!("{}", std::mem::take(&mut out.text));
                Ok(())
            }
        }
    })?;
    out.list = soak::list_text(&summary);
    let whole = out.whole(Some(&summary), plan.as_ref());
    match &parsed.output {
        Some(path) => std::fs::write(path, whole)
            .with_context(|| format!("writing the results to {}", path.display()))?,
        None => print!("{whole}"),
    }
    Ok(summary.exit)
}

/// What `fio` prints: normal text as each run ends; JSON, for a soak, as
/// one document of all runs at the end (stdout stays one parseable document).
#[derive(Default)]
struct Output {
    /// Normal text not yet printed (all of it, with `--output`).
    text: String,
    /// Each run's JSON document.
    json: Vec<String>,
    normal: bool,
    terse: bool,
    list: String,
}

impl Output {
    fn add(&mut self, done: &soak::Finished, formats: &[OutputFormat]) {
        for format in formats {
            match format {
                OutputFormat::Normal => {
                    self.normal = true;
                    if done.soak.is_some() {
                        self.text.push_str(&format!("diskbench: {}\n", done.line()));
                    }
                    self.text
                        .push_str(&report::fio_normal::render(&done.outcome.result));
                }
                OutputFormat::Json => self.json.push(report::json::render(&done.outcome.result)),
                OutputFormat::JsonPlus => self
                    .json
                    .push(report::json_plus::render(&done.outcome.result)),
                OutputFormat::Terse => {
                    self.terse = true;
                    self.text
                        .push_str(&report::terse::render(&done.outcome.result))
                }
            }
        }
    }

    /// The JSON to print: a single run's document, or the soak's.
    fn json_doc(&self, summary: Option<&soak::Summary>, plan: Option<&soak::Plan>) -> String {
        if self.json.is_empty() {
            return String::new();
        }
        match (summary, plan) {
            (Some(s), Some(p)) => format!("{}\n", soak::soak_json(s, p, &self.json)),
            (None, Some(_)) => String::new(),
            _ => self.json.iter().map(|d| format!("{d}\n")).collect(),
        }
    }

    /// The whole output for `--output`: text so far, then the list and
    /// JSON once the soak is over (`summary`).
    fn whole(&self, summary: Option<&soak::Summary>, plan: Option<&soak::Plan>) -> String {
        let list = if self.normal { self.list.as_str() } else { "" };
        let terse = match (summary, plan) {
            (Some(s), Some(p)) if self.terse => soak::soak_terse(s, p),
            _ => String::new(),
        };
        format!("{}{list}{terse}{}", self.text, self.json_doc(summary, plan))
    }
}
