//! The one way a result is saved, so `run`, `fio`, `ping`, `meta`,
//! `fileserver` and `gobonniego` keep runs alike and fail alike, and
//! diskbench's own flags (`crate::args`) split out of the command lines of
//! `fio` and `gobonniego`, whose other flags are the tool's.
//!
//! Saving comes after the results are printed: a database that is locked,
//! damaged, from a newer diskbench or on a read-only path costs the user
//! the history entry, never the measurement. The failure is said on stderr
//! and turns a clean exit into 1.

use crate::args::{DbArgs, FaultArgs, MetricsArgs, RepeatArgs, SafetyArgs, SaveArgs};
use crate::outcome::Exit;
use anyhow::Context;
use clap::Parser;
use history::{Workload, Written};
use model::{RunKind, RunRecord, RunResult, SoakRef};
use store::{Store, StoreError};

/// The diskbench flags taken out of a fio-style command line; the others
/// say whether they take a value. The first [`SAVE_FLAGS`] are the history's.
const FLAGS: &[(&str, bool)] = &[
    ("--db", true),
    ("--no-save", false),
    ("--label", true),
    ("--price-gib-month", true),
    ("--price-per-million-ios", true),
    ("--price-month", true),
    ("--volume", true),
    ("--runs", true),
    ("--duration", true),
    ("--pause", true),
    ("--until-throttled", false),
    ("--until-steady", false),
    ("--max-duration", true),
    ("--recovery-check", true),
    ("--ci", true),
    ("--max-rounds", true),
    ("--allow-overwrite", false),
    ("--allow-mounted-write", false),
    ("--readonly", false),
    ("--inject-fault", true),
    ("--metrics-listen", true),
];
const SAVE_FLAGS: usize = 7;

/// Only diskbench's own flags, parsed by clap so they mean what they mean for `run`.
#[derive(Parser)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct OwnOnly {
    #[command(flatten)]
    save: SaveArgs,
    #[command(flatten)]
    repeat: RepeatArgs,
    #[command(flatten)]
    safety: SafetyArgs,
    #[command(flatten)]
    faults: FaultArgs,
    #[command(flatten)]
    metrics: MetricsArgs,
}

/// diskbench's own flags taken out of a `fio` command line, and the rest.
pub struct OwnArgs {
    pub rest: Vec<String>,
    pub save: SaveArgs,
    pub repeat: RepeatArgs,
    pub safety: SafetyArgs,
    pub faults: FaultArgs,
    pub metrics: MetricsArgs,
}

/// Splits diskbench's own flags (history: `--db PATH` or `--db=PATH`,
/// `--label k=v`, ...; repetition: `--runs`, `--duration`, `--pause`) from
/// the fio options of `diskbench fio`, which go on to the fio parser.
pub fn split_own_args(args: Vec<String>) -> Result<OwnArgs, String> {
    let (rest, ours) = take_flags(args, FLAGS)?;
    let parsed = OwnOnly::try_parse_from(&ours).map_err(first_line)?;
    Ok(OwnArgs {
        rest,
        save: parsed.save,
        repeat: parsed.repeat,
        safety: parsed.safety,
        faults: parsed.faults,
        metrics: parsed.metrics,
    })
}

/// Only the history flags, for a command with a parser of its own whose
/// other flags may look like diskbench's (GoBonnieGo's `-runs`).
#[derive(Parser)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct SaveOnly {
    #[command(flatten)]
    save: SaveArgs,
}

/// Splits the history flags (`--db`, `--no-save`, `--label`, `--price-*`)
/// from the other arguments of `diskbench gobonniego`, also in the one-dash
/// form (`-db PATH`) Go's flags take there.
pub fn split_save_args(args: Vec<String>) -> Result<(Vec<String>, SaveArgs), String> {
    let save_flags = &FLAGS[..SAVE_FLAGS];
    let two_dashes = args.into_iter().map(|arg| {
        let name = arg.split('=').next().unwrap_or_default();
        let known = save_flags
            .iter()
            .any(|(f, _)| f.strip_prefix('-') == Some(name));
        if known {
            format!("-{arg}")
        } else {
            arg
        }
    });
    let (rest, ours) = take_flags(two_dashes.collect(), save_flags)?;
    let parsed = SaveOnly::try_parse_from(&ours).map_err(first_line)?;
    Ok((rest, parsed.save))
}

/// Takes the `flags` out of `args`, each as one `--flag=value` token (so a
/// value such as "-3" reaches the value parser and its message instead of
/// looking like a flag); the rest keep their order.
fn take_flags(
    args: Vec<String>,
    flags: &[(&str, bool)],
) -> Result<(Vec<String>, Vec<String>), String> {
    let mut rest = Vec::new();
    let mut ours = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (arg.as_str(), None),
        };
        match flags.iter().find(|(f, _)| *f == name) {
            None => rest.push(arg),
            Some((flag, takes_value)) => match (takes_value, inline) {
                (true, Some(v)) => ours.push(format!("{flag}={v}")),
                (true, None) => match args.next() {
                    Some(v) => ours.push(format!("{flag}={v}")),
                    None => return Err(format!("{flag} needs a value")),
                },
                (false, Some(_)) => return Err(format!("{flag} takes no value")),
                (false, None) => ours.push(flag.to_string()),
            },
        }
    }
    Ok((rest, ours))
}

/// clap's message without its `error: ` prefix and usage lines.
fn first_line(e: clap::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("invalid option");
    first.trim_start_matches("error: ").to_string()
}

/// Saves a measured result (after it was printed) and says where on
/// stderr. `live` is what the live writer left: the run's row, written
/// while it went on, is then saved whole under the same id. Returns the
/// exit code the command ends with (a failed save turns success into 1 and
/// leaves any other code as it was) and the run's id.
pub fn save_run(
    kind: RunKind,
    result: &RunResult,
    soak: Option<SoakRef>,
    live: Written,
    args: &SaveArgs,
    exit: Exit,
) -> (Exit, Option<i64>) {
    if args.no_save {
        return (exit, None);
    }
    if history::nothing_measured(result) {
        if let (Some(id), Some(mut store)) = (live.id, live.store) {
            let _ = store.remove(&[id]);
        }
        if !args.quiet {
            eprintln!("diskbench: nothing was measured, so nothing was saved");
        }
        return (exit, None);
    }
    // The run's global id, the live row's if there is one: a run kept
    // locally because the server went away keeps it, so `sync` completes
    // that row instead of saving the run twice.
    let record = RunRecord {
        soak,
        uuid: live.uuid.clone(),
        ..args.tags.record(kind, result.clone())
    };
    let db = args.db.db.as_deref();
    match history::save(&record, live, db) {
        Ok((id, mut store)) => {
            if !args.quiet {
                eprintln!("saved as run {id} in {}", store.path().display());
            }
            if let Some(sent) = history::offline::send_pending(&mut store) {
                say_sent(&sent, args.quiet);
            }
            (exit, Some(id))
        }
        Err(e) if history::offline::is_server(db) => (keep_locally(&record, db, &e), None),
        Err(e) => {
            eprintln!(
                "diskbench: not saved: {}; the results above are complete",
                with_causes(&e)
            );
            let exit = if exit == Exit::Ok {
                Exit::Runtime
            } else {
                exit
            };
            (exit, None)
        }
    }
}

/// Keeps `record` locally after the server refused it with `error`, and
/// says so. The save failed, so the exit is 1; the figures are safe.
fn keep_locally(record: &RunRecord, db: Option<&std::path::Path>, error: &StoreError) -> Exit {
    let server = history::offline::server_name(db);
    eprintln!("diskbench: not saved in {server}: {}", with_causes(error));
    match history::offline::keep_locally(record, &server) {
        Ok((id, path)) => eprintln!(
            "diskbench: kept as run {id} in the local history {}; `diskbench sync --to {server}` \
             sends it there (so does the next run saved there)",
            path.display()
        ),
        Err(e) => eprintln!(
            "diskbench: not kept locally either: {}; the results above are complete",
            with_causes(&e)
        ),
    }
    Exit::Runtime
}

/// Says what happened to the runs kept locally for a server that took a run.
fn say_sent(sent: &history::offline::Sent, quiet: bool) {
    let name = &sent.server;
    match &sent.outcome {
        Ok(0) => {}
        Ok(_) if quiet => {}
        Ok(n) => eprintln!(
            "sent {n} run{} kept in {} while {name} was unreachable",
            if *n == 1 { "" } else { "s" },
            sent.local.display()
        ),
        Err(e) => eprintln!(
            "diskbench: the runs kept locally for {name} stay there: {}",
            with_causes(e)
        ),
    }
}

/// An error and its causes, `: `-separated, as anyhow's `{:#}` writes them.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(&format!(": {c}"));
        cause = c.source();
    }
    out
}

/// Saves the run of a command that measures in its own terms, after its
/// output was printed, as [`save_run`] saves `run`'s and `fio`'s: `None`
/// when nothing was measured (nothing is saved, and it is said). Returns
/// the exit code to end with.
pub fn save_workload(workload: Option<Workload>, args: &SaveArgs, exit: Exit) -> Exit {
    let none = Written::none();
    let volume =
        crate::volume::declared_only(args.tags.volume.as_ref(), workload.as_ref().map(|w| w.kind));
    match workload {
        _ if args.no_save => exit,
        None => {
            eprintln!("diskbench: nothing was measured, so nothing was saved");
            exit
        }
        Some(w) => {
            let kind = w.kind;
            let mut result = w.result();
            result.volume = volume;
            save_run(kind, &result, None, none, args, exit).0
        }
    }
}

/// Opens the history for a command that only reads or edits it (it must exist).
pub fn open(db: &DbArgs) -> anyhow::Result<Store> {
    db.open_existing().context("opening the history")
}

/// For `diskbench fio --help`: the history flags, which the fio parser never sees.
pub const FIO_HELP: &str = "
History (diskbench's own flags, taken out before the fio options are read):
  --db PATH                   history database (default: $DISKBENCH_DB, else
                              $XDG_DATA_HOME/diskbench/history.sqlite3)
  --no-save                   do not keep this run in the history
  --label KEY=VALUE           label the run, e.g. --label provider=aws (repeatable)
  --price-gib-month PRICE     price per GiB-month, for `diskbench compare`
  --price-per-million-ios PRICE
  --price-month PRICE         flat monthly price
  --volume PROVIDER:TYPE[:SIZE][:iops=N][:mbps=N]
                              the cloud volume under test, e.g. aws:gp2:100GiB:
                              its model's prediction and verdicts (`diskbench volumes`)

Repetition (a soak: each run is saved as it finishes, its per-second series while it runs):
  --runs N                    run the jobs N times
  --duration DURATION         repeat until this much time has passed, e.g. 3h
                              (with --runs: whichever comes first)
  --pause DURATION            idle this long between runs, e.g. 30s
  --until-throttled           repeat until a throttling cliff is confirmed
                              (at most --max-duration, default 24h)
  --until-steady              repeat until steady state (SNIA PTS: 5 runs within
                              20% range and 10% slope of their mean; at most 25 runs)
  --max-duration DURATION     the longest an --until-* soak may go on
  --recovery-check DURATION   when a cliff was found: idle this long, run once
                              more, and report how much came back
  --ci PCT                    repeat until each job's median IOPS is known within
                              PCT (95% interval half-width, e.g. 3%; 6 runs at least)
  --max-rounds N              the most runs --ci may take (default 20)

Live metrics (Prometheus' text format, while the runs go on):
  --metrics-listen ADDR       serve them at http://ADDR/metrics, e.g. 127.0.0.1:9464
                              (:9464 every interface; port 0 any free one)

Safety (diskbench writes only what it created unless told otherwise):
  --allow-destructive         write to a block device (fio: allow it in the job)
  --allow-mounted-write       with --allow-destructive: even a mounted one
  --allow-overwrite           write to a regular file diskbench did not create
  --readonly                  refuse every job that writes

Fault injection (for testing verification and error handling, never a measurement):
  --inject-fault SPEC         make the N-th read or write of every worker fail or
                              lie (repeatable): KIND@DIR:N[/M], /M = and every M-th
                              after N; bitflip@read|write, drop@write,
                              misdirect@write, short@read, eio@read|write,
                              enospc@write, erofs@write; e.g. eio@read:5/100
";

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn split(args: &[&str]) -> Result<(Vec<String>, SaveArgs), String> {
        split_own_args(args.iter().map(|s| s.to_string()).collect()).map(|o| (o.rest, o.save))
    }

    #[test]
    fn history_flags_come_out_of_fio_arguments_in_both_forms() {
        let (rest, save) = split(&[
            "--name=t",
            "--db",
            "/tmp/h.db",
            "--label=provider=aws",
            "--size=4m",
            "--label",
            "disk=gp2",
            "--price-gib-month=0.1",
            "--price-per-million-ios",
            "0.05",
            "--price-month=12",
            "--no-save",
        ])
        .unwrap();
        assert_eq!(rest, ["--name=t", "--size=4m"]);
        assert_eq!(save.db.db, Some(PathBuf::from("/tmp/h.db")));
        assert!(save.no_save);
        assert_eq!(
            save.tags.labels,
            [
                ("provider".into(), "aws".into()),
                ("disk".into(), "gp2".into())
            ]
        );
        assert_eq!(save.tags.prices().per_gib_month, Some(0.1));
        assert_eq!(save.tags.prices().per_million_ios, Some(0.05));
        assert_eq!(save.tags.prices().per_month, Some(12.0));
        // Options that merely start alike stay with fio.
        let (rest, _) = split(&["--dbx=1", "--labels=2"]).unwrap();
        assert_eq!(rest, ["--dbx=1", "--labels=2"]);
    }

    #[test]
    fn repetition_flags_come_out_of_fio_arguments_too() {
        let args = [
            "--runs",
            "3",
            "--name=t",
            "--duration=3h",
            "--pause",
            "200ms",
        ];
        let OwnArgs { rest, repeat, .. } =
            split_own_args(args.iter().map(|s| s.to_string()).collect()).unwrap();
        assert_eq!(rest, ["--name=t"]);
        assert_eq!(repeat.runs, Some(3));
        assert_eq!(
            repeat.duration,
            Some(std::time::Duration::from_secs(3 * 3600))
        );
        assert_eq!(repeat.pause, Some(std::time::Duration::from_millis(200)));
        let e = split(&["--runs=0"]).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
    }

    #[test]
    fn history_flags_come_out_of_go_style_flags_with_one_dash_or_two() {
        let args = [
            "-dir",
            "/d",
            "-db",
            "/h.db",
            "--label=a=b",
            "-runs",
            "3",
            "-no-save",
        ];
        let (rest, save) = split_save_args(args.iter().map(|s| s.to_string()).collect()).unwrap();
        assert_eq!(rest, ["-dir", "/d", "-runs", "3"]);
        assert_eq!(save.db.db, Some(PathBuf::from("/h.db")));
        assert_eq!(save.tags.labels, [("a".into(), "b".into())]);
        assert!(save.no_save);
    }

    #[test]
    fn bad_history_flags_say_what_is_wrong() {
        let e = split(&["--label=novalue"]).unwrap_err();
        assert!(e.contains("not a label") && e.contains("key=value"), "{e}");
        let e = split(&["--price-month=-3"]).unwrap_err();
        assert!(e.contains("not a price"), "{e}");
        assert!(split(&["--db"]).unwrap_err().contains("--db needs a value"));
        assert!(split(&["--no-save=1"])
            .unwrap_err()
            .contains("takes no value"));
    }
}
