//! fio's buffer options, what a job's writes carry: `zero_buffers`,
//! `refill_buffers`, `scramble_buffers`, `buffer_pattern`,
//! `buffer_compress_percentage`, `buffer_compress_chunk`,
//! `dedupe_percentage`, `dedupe_mode`, `dedupe_working_set_percentage`,
//! `dedupe_global`
//! (see `model::data` for what each does, and the runner's `worker::data`).
//!
//! `buffer_pattern`'s grammar is `verify_pattern`'s (hex, decimal, double-
//! quoted strings, one after another, and a file name in single quotes whose
//! bytes are read: see `pattern_files`), except that `%o` means nothing.

use crate::error::FioError;
use crate::options::Key;
use crate::values::Given;
use model::data::{BufferData, DedupeMode};
use model::verify::PatternPiece;
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let d = &mut spec.buffer_data;
    match o.key {
        Key::ZeroBuffers => d.zero = o.flag()?,
        Key::RefillBuffers => d.refill = o.flag()?,
        Key::ScrambleBuffers => d.scramble = o.boolean()?,
        Key::BufferPattern => d.pattern = Some(pattern(o)?),
        Key::BufferCompressPercentage => {
            d.compress_pct = Some(o.percent()?).filter(|p| *p > 0);
        }
        Key::BufferCompressChunk => d.compress_chunk = o.size()?,
        Key::DedupePercentage => d.dedupe_pct = o.percent()?,
        Key::DedupeWorkingSetPercentage => d.dedupe_working_set_pct = o.percent()?,
        Key::DedupeGlobal => d.dedupe_global = o.boolean()?,
        Key::DedupeMode => {
            d.dedupe_mode = match o.text.trim() {
                "repeat" => DedupeMode::Repeat,
                "working_set" => DedupeMode::WorkingSet,
                _ => return Err(o.invalid("use repeat (the default) or working_set")),
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn pattern(o: &Given) -> Result<Vec<u8>, FioError> {
    let pieces = crate::pattern_files::with_files(o.scope, o.name, o.text, |text| {
        crate::verify_opts::pattern(o.scope, o.name, text)
    })?;
    let mut bytes = Vec::new();
    for piece in pieces {
        match piece {
            PatternPiece::Bytes(b) => bytes.extend(b),
            PatternPiece::Offset => {
                return Err(o.invalid(
                    "%o (the block's offset) is verify_pattern's; buffer_pattern takes hex, \
                     decimal or quoted strings",
                ))
            }
        }
    }
    Ok(bytes)
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let d = &job.buffer_data;
    let def = BufferData::default();
    let flags = [("zero_buffers", d.zero), ("refill_buffers", d.refill)];
    for (name, on) in flags {
        if on {
            opts.push((name, None));
        }
    }
    if d.scramble != def.scramble {
        opts.push(("scramble_buffers", Some("0".into())));
    }
    if let Some(p) = &d.pattern {
        let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
        opts.push(("buffer_pattern", Some(format!("0x{hex}"))));
    }
    if let Some(pct) = d.compress_pct {
        opts.push(("buffer_compress_percentage", Some(pct.to_string())));
    }
    if d.compress_chunk != def.compress_chunk {
        opts.push(("buffer_compress_chunk", Some(d.compress_chunk.to_string())));
    }
    if d.dedupe_pct > 0 {
        opts.push(("dedupe_percentage", Some(d.dedupe_pct.to_string())));
        opts.push(("dedupe_mode", Some(d.dedupe_mode.fio_name().to_string())));
        if d.dedupe_mode == DedupeMode::WorkingSet {
            let ws = d.dedupe_working_set_pct.to_string();
            opts.push(("dedupe_working_set_percentage", Some(ws)));
        }
        if d.dedupe_global {
            opts.push(("dedupe_global", Some("1".into())));
        }
    }
}

/// Once the job is complete: verify writes its own blocks (headers and
/// checksums over its pattern or random data), so buffer options beside it
/// would not be what is written.
pub(crate) fn finish(spec: &JobSpec) -> Result<(), FioError> {
    if spec.verify.is_none() || spec.buffer_data.is_default() {
        return Ok(());
    }
    let scope = crate::error::Scope::Job(spec.name.clone());
    let (name, value) = spec
        .options
        .iter()
        .find(|(k, _)| NAMES.contains(&k.as_str()))
        .cloned()
        .unwrap_or_else(|| ("zero_buffers".to_string(), "1".to_string()));
    Err(FioError::invalid(
        &scope,
        &name,
        &value,
        "verify= writes its own blocks (a header and checksum over its data), so this \
         would not be what the job writes: drop it, or drop verify= to measure this data",
    ))
}

const NAMES: [&str; 9] = [
    "zero_buffers",
    "refill_buffers",
    "scramble_buffers",
    "buffer_pattern",
    "buffer_compress_percentage",
    "buffer_compress_chunk",
    "dedupe_percentage",
    "dedupe_mode",
    "dedupe_working_set_percentage",
];
