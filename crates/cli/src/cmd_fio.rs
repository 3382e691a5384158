//! `diskbench fio [options] [jobfile]...`: fio's job files and command-line
//! form. The jobs of a group run at the same time, groups one after another
//! (`stonewall`), as fio runs them; `--parse-only` prints the jobs as parsed
//! and runs nothing. With `--runs`/`--duration` (a soak, see
//! [`crate::soak_loop`]) each run prints its output as it ends, and the list of
//! runs follows; JSON is then one document holding every run's.

//!
//! The rest of fio's command line: `--status-interval` prints the output so
//! far while the jobs run ([`status`]); `--version`, `--cmdhelp`,
//! `--enghelp`, `--debug=?` and `--inflate-log` print and run nothing;
//! `--showcmd` prints the jobs as fio command lines; `--eta*` shape the
//! progress line; the trigger and the aggregate bandwidth logs are in
//! [`extras`].

mod checks;
mod extras;
mod status;

use crate::outcome::Exit;
use crate::soak_loop;
use anyhow::Context;
use fio::OutputFormat;

/// fio exits 1 whenever something fails: an unknown option, a bad value,
/// a missing job file and a job that cannot lay out its files exit 1 as a
/// failed run does, and scripts written for fio test for that; when several
/// jobs fail, fio exits with how many did. So `diskbench fio` does the
/// same, while diskbench's own commands keep 2 for a command line they
/// refuse. A run SIGINT or SIGTERM (or SIGHUP, which diskbench also stops
/// on cleanly) stopped exits 128, as fio's does, not the shell's 128 + the
/// signal's number.
pub fn run(args: Vec<String>) -> anyhow::Result<Exit> {
    crate::outcome::signal_exit_as_fio();
    match run_jobs(args) {
        Ok(exit) => Ok(as_fio_exits(exit)),
        Err(e) => {
            eprintln!("diskbench fio: {e:#}");
            Ok(Exit::Runtime)
        }
    }
}

/// fio's exit for what `diskbench fio` ended with: a usage error is 1, an
/// interruption 128.
fn as_fio_exits(exit: Exit) -> Exit {
    match exit {
        Exit::Usage => Exit::Runtime,
        Exit::Interrupted | Exit::Terminated => Exit::Fio(crate::outcome::FIO_SIGNAL_EXIT),
        other => other,
    }
}

fn run_jobs(mut args: Vec<String>) -> anyhow::Result<Exit> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}{}{}", fio::help(), crate::save::FIO_HELP, checks::HELP);
        return Ok(Exit::Ok);
    }
    let checks = checks::take(&mut args);
    let crate::save::OwnArgs {
        rest: args,
        mut save,
        repeat,
        safety,
        faults,
        metrics,
    } = match crate::save::split_own_args(args.clone()) {
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
    if let Some(info) = &parsed.info {
        return print_info(info);
    }
    // What the job file asks that diskbench carries out differently: kept
    // in the result with the other checks, said when they are.
    extras::debug_set_lines(&parsed.cli);
    let mut notes: Vec<model::Warning> = (parsed.warnings.iter())
        .map(|note| model::Warning::Approximation { note: note.clone() })
        .collect();
    let runs = !(parsed.cli.showcmd || parsed.cli.merge_blktrace_only || parsed.parse_only);
    if (checks && !runs) || parsed.cli.warnings_fatal {
        for note in &notes {
            eprintln!("diskbench fio: warning: {note}");
        }
    }
    if parsed.cli.warnings_fatal && !parsed.warnings.is_empty() {
        eprintln!(
            "diskbench fio: --warnings-fatal: {} warning(s) above; fix them or drop --warnings-fatal",
            parsed.warnings.len()
        );
        return Ok(Exit::Usage);
    }
    if parsed.cli.showcmd {
        // fio's form: one command line holding every job, stonewalls included.
        let jobs = parsed.groups.iter().enumerate().flat_map(|(gid, group)| {
            group
                .iter()
                .enumerate()
                .map(move |(i, job)| fio::job_line(job, gid > 0 && i == 0))
        });
        println!("fio {}", jobs.collect::<Vec<_>>().join(" "));
        return Ok(Exit::Ok);
    }
    if parsed.cli.merge_blktrace_only {
        // The traces were merged as the jobs were read.
        return Ok(Exit::Ok);
    }
    extras::parse_trace(&parsed);
    if parsed.parse_only {
        print!("{}", fio::showcmd(&parsed.groups));
        return Ok(Exit::Ok);
    }
    notes.extend(extras::debug_note(&parsed.cli));
    // Bound before anything runs: a port in use is a usage error.
    let started = crate::args::plan_and_metrics(&repeat, &metrics, "fio", &save.tags);
    let (plan, metrics) = match started {
        Ok(p) => p,
        Err(e) => {
            if wants_json {
                let failure = model::Failure::usage(e.to_string());
                println!(
                    "{}",
                    report::json::error_json(&failure, runner::TOOL_VERSION)
                );
            }
            eprintln!("diskbench fio: {e}");
            return Ok(Exit::Usage);
        }
    };
    save.quiet = checks::quiet_saves(checks);
    // `--status-interval` with `--output`: the documents so far, for the file.
    let kept = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let measure = soak_loop::Measure {
        kind: model::RunKind::Fio,
        groups: &parsed.groups,
        allow_destructive: parsed.allow_destructive,
        safety,
        faults: &faults.faults,
        global_options: &parsed.global_options,
        progress: crate::progress::Settings {
            show: eta_shown(&parsed),
            interval: parsed.cli.eta_interval,
            newline: parsed.cli.eta_newline,
        },
        watch: parsed.cli.status_interval.map(|every| {
            let kept = parsed.output.as_ref().map(|_| std::sync::Arc::clone(&kept));
            let formats = (parsed.output_format.clone(), parsed.cli.terse_version);
            status::watcher(every, formats, kept)
        }),
        save: &save,
        stable_stop: None,
        checks: None,
        describe: None,
        metrics: metrics.as_ref(),
        notes: &notes,
        checks_on_stderr: checks,
        io_trace: extras::io_trace(&parsed.cli),
    };
    let triggered = extras::watch_trigger(&parsed.cli, crate::outcome::stop_on_signals()?);
    let mut out = Output {
        status: kept,
        terse_version: parsed.cli.terse_version,
        debug_random: extras::debugs(&parsed.cli, "random"),
        ..Output::default()
    };
    // fio's lines before the run (job lines, version, `Starting`): on
    // stdout at once, or first in the `--output` file.
    if parsed.output_format.contains(&OutputFormat::Normal) {
        let ids = runner::groupids(&parsed.groups);
        let jobs: Vec<_> = (parsed.groups.iter().zip(&ids))
            .flat_map(|(group, ids)| group.iter().zip(ids.iter().copied()))
            .collect();
        let header = report::fio_normal::header::before_run(&jobs);
        let specs: Vec<&fio::JobSpec> = jobs.iter().map(|(spec, _)| *spec).collect();
        out.cpuio_lines = report::fio_normal::header::cpuio_lines(&specs);
        match &parsed.output {
            Some(_) => out.text.push_str(&header),
            None => {
                use std::io::Write;
                print!("{header}");
                let _ = std::io::stdout().flush();
            }
        }
    }
    let mut failed_jobs = 0;
    let (summary, exit) = soak_loop::run(&measure, plan, |done| {
        out.add(done, &parsed.output_format);
        failed_jobs = fio_failed_jobs(&done.outcome.result);
        extras::verify_failures(&done.outcome.result);
        extras::dump_errors(&done.outcome.result);
        if let Some(prefix) = &parsed.cli.bandwidth_log {
            extras::write_bandwidth_logs(prefix, &done.outcome.result)?;
        }
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
    // Stopping the jobs is what a trigger is for, not an interruption.
    let fired = triggered.is_some_and(|t| t.load(std::sync::atomic::Ordering::SeqCst));
    if fired && exit == Exit::Interrupted {
        return Ok(Exit::Ok);
    }
    if exit == Exit::Runtime && failed_jobs > 1 {
        return Ok(Exit::Fio(failed_jobs));
    }
    Ok(exit)
}

/// fio's rule of when its run state line is shown: never without the
/// normal output when the results go to stdout, and with `--eta=auto` only
/// when stdout is a terminal (the line itself is diskbench's, on stderr).
fn eta_shown(parsed: &fio::FioArgs) -> fio::Eta {
    use std::io::IsTerminal;
    let normal = parsed.output_format.contains(&OutputFormat::Normal);
    match parsed.cli.eta {
        _ if !normal && parsed.output.is_none() => fio::Eta::Never,
        fio::Eta::Auto if !std::io::stdout().is_terminal() => fio::Eta::Never,
        eta => eta,
    }
}

/// How many of the run's jobs failed, as fio counts them for its exit
/// code (at most 125, below the codes of the signals).
fn fio_failed_jobs(result: &model::RunResult) -> u8 {
    let failed = result.jobs.iter().filter(|j| j.failure.is_some()).count();
    failed.min(125) as u8
}

/// `--version`, `--cmdhelp`, `--enghelp`, `--debug=?`, `--inflate-log`.
fn print_info(info: &fio::Info) -> anyhow::Result<Exit> {
    let text = match fio::info_text(info) {
        Ok(Some(text)) => text,
        Ok(None) => match info {
            fio::Info::InflateLog(path) => match extras::inflate_log(path.as_ref()) {
                Ok(text) => text,
                Err(e) => {
                    eprintln!("diskbench fio: --inflate-log: {e:#}");
                    return Ok(Exit::Runtime);
                }
            },
            _ => String::new(),
        },
        Err(e) => {
            eprintln!("diskbench fio: {e}");
            return Ok(Exit::Usage);
        }
    };
    print!("{text}");
    Ok(Exit::Ok)
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
    /// `--terse-version`.
    terse_version: u32,
    list: String,
    /// `--status-interval`'s documents so far, with `--output`.
    status: std::sync::Arc<std::sync::Mutex<String>>,
    /// `--debug=random`: each run's seeds before its report.
    debug_random: bool,
    /// What fio's cpuio engine says as its clones start, before the results.
    cpuio_lines: String,
}

impl Output {
    /// One run's output, its formats in fio's order whatever order they
    /// were given in: terse, then JSON, then the normal text.
    fn add(&mut self, done: &soak::Finished, formats: &[OutputFormat]) {
        if self.debug_random {
            let seeds = report::fio_debug::random_seeds(&done.outcome.result, std::process::id());
            self.text.push_str(&seeds);
        }
        let rank = |f: &&OutputFormat| match f {
            OutputFormat::Terse => 0,
            OutputFormat::Json | OutputFormat::JsonPlus => 1,
            OutputFormat::Normal => 2,
            OutputFormat::Ndjson => 3,
        };
        // The end of fio's lines before the run, before any result: the
        // files laid out.
        if formats.contains(&OutputFormat::Normal) {
            for l in &done.outcome.laid_out {
                let line = report::fio_normal::header::laying_out(&l.job, l.files, l.bytes);
                self.text.push_str(&line);
            }
            self.text.push_str(&self.cpuio_lines);
        }
        let mut formats: Vec<&OutputFormat> = formats.iter().collect();
        formats.sort_by_key(rank);
        for format in formats {
            match format {
                OutputFormat::Json => self.json_doc_of(done, report::json::render),
                OutputFormat::JsonPlus => self.json_doc_of(done, report::json_plus::render),
                OutputFormat::Normal => {
                    self.normal = true;
                    if done.soak.is_some() {
                        self.text.push_str(&format!("diskbench: {}\n", done.line()));
                    }
                    self.text.push('\n');
                    let pid = Some(std::process::id());
                    let text = report::fio_normal::render_stamped(&done.outcome.result, pid);
                    self.text.push_str(&text);
                }
                OutputFormat::Terse => {
                    self.terse = true;
                    self.text.push_str(&report::terse::render(
                        &done.outcome.result,
                        self.terse_version,
                    ))
                }
                OutputFormat::Ndjson => self
                    .text
                    .push_str(&report::status::ndjson_lines(&done.outcome.result, None)),
            }
        }
    }

    /// A run's JSON document: in the text for a single run, kept for the
    /// end for a soak (one document of every run).
    fn json_doc_of(&mut self, done: &soak::Finished, render: fn(&model::RunResult) -> String) {
        let doc = render(&done.outcome.result);
        match done.soak {
            Some(_) => self.json.push(doc),
            None => self.text.push_str(&format!("{}\n", doc.trim_end())),
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
        let status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        format!(
            "{status}{}{list}{terse}{}",
            self.text,
            self.json_doc(summary, plan)
        )
    }
}
