//! `write_iolog`, `read_iolog` and the `replay_*` options, and the reading
//! of the log to replay (fio's iolog versions 2 and 3; see
//! `model::iolog`).
//!
//! The log is read here, when the job is parsed, as job files are: a log
//! that cannot be replayed is a usage error before anything runs, and the
//! job takes its shape from the log: its files (those the log names, each
//! action going to its own as in fio, or the one of `replay_redirect`), a
//! size that holds the furthest I/O into each, a block size that holds the
//! longest, and a pattern that reads and/or writes as the log does.
//! fio's text logs are read by `iolog_text`, blktrace binary traces by
//! `blktrace`; both give an `iolog_text::Parsed`.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::{self, Given};
use model::iolog::{IoLogSpec, ReplayAction};
use model::{Direction, JobSpec, RwMode};
use std::path::PathBuf;
use std::sync::Arc;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let log = &mut spec.iolog;
    match o.key {
        Key::WriteIolog => log.write = Some(PathBuf::from(one_path(o)?)),
        Key::ReadIolog => log.read = paths(o)?,
        Key::MergeBlktraceFile => log.merge_file = Some(PathBuf::from(one_path(o)?)),
        Key::MergeBlktraceScalars => log.merge_scalars = numbers(o)?,
        Key::MergeBlktraceIters => log.merge_iters = numbers(o)?,
        Key::ReplayNoStall => log.no_stall = o.boolean()?,
        Key::ReplayRedirect => log.redirect = Some(PathBuf::from(one_path(o)?)),
        Key::ReplayAlign => {
            let align = o.size()?;
            if align != 0 && !align.is_power_of_two() {
                return Err(o.invalid("give a power of 2, e.g. 4k"));
            }
            log.align = align;
        }
        Key::ReplayScale => log.scale = u64::from(o.at_least_one("1 (offsets as logged)")?),
        Key::ReplayTimeScale => log.time_scale_pct = o.at_least_one("100 (the logged pace)")?,
        Key::ReplaySkip => {
            let mut skip = Vec::new();
            for part in o.text.split(',').map(str::trim) {
                if !["read", "write", "trim", "sync"].contains(&part) {
                    return Err(o.invalid("give a comma list of read, write, trim and sync"));
                }
                skip.push(part.to_string());
            }
            log.skip = skip;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `a:b:c` (a ':' in a name written `\\:`), each checked as one path.
fn paths(o: &Given) -> Result<Vec<PathBuf>, FioError> {
    let mut list = Vec::new();
    let mut part = String::new();
    let mut chars = o.text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                part.push_str("\\:");
                chars.next();
            }
            ':' => list.push(std::mem::take(&mut part)),
            c => part.push(c),
        }
    }
    list.push(part);
    list.iter()
        .map(|p| {
            let path = values::single_path(o.scope, o.name, p)?;
            if path == "-" || path.is_empty() {
                return Err(o.invalid("give the log's file (standard input is not read)"));
            }
            Ok(PathBuf::from(path))
        })
        .collect()
}

/// A ':' list of whole numbers (fio's float lists, taken whole as fio does).
fn numbers(o: &Given) -> Result<Vec<u32>, FioError> {
    o.text
        .split(':')
        .map(|n| {
            let v: f64 = n
                .trim()
                .parse()
                .map_err(|_| o.invalid("give numbers separated by ':', e.g. 50:100"))?;
            if !(1.0..=u32::MAX as f64).contains(&v) {
                return Err(o.invalid("each number must be at least 1"));
            }
            Ok(v as u32)
        })
        .collect()
}

fn one_path(o: &Given) -> Result<String, FioError> {
    let path = values::single_path(o.scope, o.name, o.text)?;
    if o.key == Key::ReadIolog && path == "-" {
        return Err(
            o.invalid("reading the log from standard input is not carried out: give its file")
        );
    }
    Ok(path)
}

/// For a job that replays a log: reads it and shapes the job after it.
/// The files the I/O goes to (`directory` before each, as before
/// `filename`) are left in `spec.iolog.files`; they replace `filename`.
pub(crate) fn finish(spec: &mut JobSpec, directory: Option<&str>) -> Result<(), FioError> {
    let source = match spec.iolog.read.as_slice() {
        [] => return Ok(()),
        [one] if spec.iolog.merge_file.is_none() => one.clone(),
        several => {
            let Some(out) = spec.iolog.merge_file.clone() else {
                return Err(FioError::Invalid {
                    scope: Scope::Job(spec.name.clone()),
                    option: "read_iolog".into(),
                    value: spec
                        .iolog
                        .read
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(":"),
                    problem: "several logs, one per clone, are not replayed yet: give one, or \
                              merge blktrace traces with merge_blktrace_file=FILE"
                        .into(),
                });
            };
            merge_traces(&spec.name, several, &spec.iolog, &out)?;
            out
        }
    };
    let scope = Scope::Job(spec.name.clone());
    let bad = |problem: String| FioError::Invalid {
        scope: scope.clone(),
        option: "read_iolog".into(),
        value: source.display().to_string(),
        problem,
    };
    let data = std::fs::read(&source).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let parsed = if crate::blktrace::is_blktrace(&data) {
        let (mut parsed, depth) =
            crate::blktrace::parse(&data, &spec.iolog).map_err(|e| bad(e.to_string()))?;
        // The trace names devices by number; this machine's node for it.
        if spec.iolog.redirect.is_none() {
            for device in &mut parsed.files {
                *device = crate::blktrace::device_path(device).ok_or_else(|| {
                    bad(format!(
                        "the trace's device {device} is not on this machine: give \
                         replay_redirect=FILE (a file or device to replay it on)"
                    ))
                })?;
            }
        }
        // fio replays a trace at the depth it kept, unless iodepth was given.
        if !spec.options.iter().any(|(k, _)| k == "iodepth") {
            spec.iodepth = depth;
        }
        parsed
    } else {
        let text = String::from_utf8(data).map_err(|_| {
            bad(
                "neither a fio iolog (a text file whose first line is 'fio version 2 iolog' \
                 or 'fio version 3 iolog') nor a blktrace trace"
                    .into(),
            )
        })?;
        crate::iolog_text::parse(&text, &spec.iolog).map_err(|e| bad(e.to_string()))?
    };
    if parsed.files.is_empty() {
        return Err(bad("the log has no I/O to replay".into()));
    }
    let files = parsed.files.len();
    if spec
        .file_options
        .openfiles
        .is_some_and(|n| (n as usize) < files)
    {
        return Err(bad(format!(
            "the log's I/O goes to {files} files and the replay keeps them all open: drop \
             openfiles=, or give replay_redirect=FILE to send it all to one"
        )));
    }
    // A trim changes data as a write does (the guards see it), but needs no
    // buffer: the block size holds the longest read or write only (a
    // replayed trim may span gigabytes).
    let (mut reads, mut writes, mut longest) = (false, false, 0);
    for op in parsed.ops.iter() {
        match op.action {
            ReplayAction::Io { dir, len, .. } => {
                match dir {
                    Direction::Read => reads = true,
                    Direction::Write => writes = true,
                }
                longest = longest.max(len);
            }
            ReplayAction::Trim { .. } => writes = true,
            ReplayAction::Sync { .. } => {}
        }
    }
    spec.rw = match (reads, writes) {
        (true, true) => RwMode::RandRw,
        (false, true) => RwMode::RandWrite,
        _ => RwMode::RandRead,
    };
    spec.bs_bytes = spec.bs_bytes.max(longest);
    spec.block_sizes = None;
    spec.iolog.files = parsed
        .files
        .iter()
        .map(|file| crate::fileopts::in_directory(directory, file))
        .collect();
    spec.iolog.ops = Arc::new(parsed.ops);
    if spec.size_bytes.is_none() {
        // The furthest I/O into each file, in whole blocks; several files
        // add up, as fio's size does (the runner sizes each to its own).
        spec.size_bytes = Some(spec.iolog.file_sizes(spec.bs_bytes).iter().sum());
    }
    Ok(())
}

/// The options in command-line form (`--showcmd`, `--parse-only`): the
/// log replayed and how, with the file the log named as `filename`.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let log = &job.iolog;
    let d = IoLogSpec::default();
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    if let Some(w) = path(&log.write) {
        opts.push(("write_iolog", Some(w)));
    }
    if log.read.is_empty() {
        return;
    }
    let read: Vec<String> = log.read.iter().map(|p| p.display().to_string()).collect();
    opts.push(("read_iolog", Some(read.join(":"))));
    if let Some(m) = path(&log.merge_file) {
        opts.push(("merge_blktrace_file", Some(m)));
    }
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(":");
    if !log.merge_scalars.is_empty() {
        opts.push(("merge_blktrace_scalars", Some(list(&log.merge_scalars))));
    }
    if !log.merge_iters.is_empty() {
        opts.push(("merge_blktrace_iters", Some(list(&log.merge_iters))));
    }
    if log.no_stall {
        opts.push(("replay_no_stall", Some("1".into())));
    }
    if let Some(r) = path(&log.redirect) {
        opts.push(("replay_redirect", Some(r)));
    }
    let numbers = [
        ("replay_align", log.align, d.align),
        ("replay_scale", log.scale, d.scale),
        (
            "replay_time_scale",
            u64::from(log.time_scale_pct),
            u64::from(d.time_scale_pct),
        ),
    ];
    for (name, value, default) in numbers {
        if value != default {
            opts.push((name, Some(value.to_string())));
        }
    }
    if !log.skip.is_empty() {
        opts.push(("replay_skip", Some(log.skip.join(","))));
    }
}

/// `merge_blktrace_file`: merges the traces `sources` into `out`.
fn merge_traces(
    job: &str,
    sources: &[PathBuf],
    how: &IoLogSpec,
    out: &std::path::Path,
) -> Result<(), FioError> {
    let bad = |option: &str, value: String, problem: String| FioError::Invalid {
        scope: Scope::Job(job.to_string()),
        option: option.into(),
        value,
        problem,
    };
    let mut traces = Vec::with_capacity(sources.len());
    for source in sources {
        let data = std::fs::read(source).map_err(|e| {
            bad(
                "read_iolog",
                source.display().to_string(),
                format!("cannot read it: {e}"),
            )
        })?;
        if !crate::blktrace::is_blktrace(&data) {
            return Err(bad(
                "read_iolog",
                source.display().to_string(),
                "merge_blktrace_file merges blktrace traces, and this is not one".into(),
            ));
        }
        traces.push(data);
    }
    let per_trace = |option: &str, given: &[u32], default: u32| match given.len() {
        0 => Ok(vec![default; sources.len()]),
        n if n == sources.len() => Ok(given.to_vec()),
        n => Err(bad(
            option,
            format!("{n} values"),
            format!("give one value per file of read_iolog ({})", sources.len()),
        )),
    };
    let scalars = per_trace("merge_blktrace_scalars", &how.merge_scalars, 100)?;
    let iters = per_trace("merge_blktrace_iters", &how.merge_iters, 1)?;
    let merged = crate::blktrace::merge(&traces, &scalars, &iters).map_err(|problem| {
        bad(
            "merge_blktrace_file",
            out.display().to_string(),
            problem.to_string(),
        )
    })?;
    std::fs::write(out, merged).map_err(|e| {
        bad(
            "merge_blktrace_file",
            out.display().to_string(),
            format!("cannot write it: {e}"),
        )
    })
}

#[cfg(test)]
mod tests;
