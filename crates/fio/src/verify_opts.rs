//! fio's `verify*` options, parsed into `model::VerifySpec`, and the checks
//! that need the whole job (a pattern for `verify=pattern`, no `verify_only`
//! on a time-based job).
//!
//! Two options change only how fio goes about the check, not what is read
//! back or what is checked, and are accepted as such:
//! - `experimental_verify=1`: fio forgets what it wrote and replays the
//!   write phase's offsets to read them back, instead of keeping a list of
//!   the blocks written. Either way every block written is read back once
//!   and checked (fio 3.33 reads 128 KiB for a 128 KiB write with it).
//!   diskbench's record of the writes is one number per chunk, the cost the
//!   replay saves in fio, so the pass is the same with or without it.
//! - `verify_async_cpus=LIST`: the CPUs of `verify_async`'s threads;
//!   diskbench checks in the worker's thread (see `error_opts`), so the list
//!   is checked for its form and pins nothing.
//!
//! `verify_pattern` follows fio's grammar: pieces written one after another,
//! each a hex number (`0xdeadbeef`, any length), a decimal (1 to 4 bytes,
//! little-endian, as wide as it needs), a quoted string, or `%o` (the
//! chunk's offset).

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::verify::{PatternPiece, VerifyAlgo, VerifySpec};
use model::JobSpec;

/// Applies one `verify*` option; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let v = || VerifySpec::default();
    match o.key {
        Key::Verify => match o.text.trim() {
            "0" | "none" | "" => spec.verify_draft().algo = VerifyAlgo::Null,
            t => {
                let algo = VerifyAlgo::parse(t).ok_or_else(|| {
                    let hint = match t.starts_with("sha3") {
                        true => format!(
                            "sha3 is not carried out: use sha256 or sha512 (one of {})",
                            VerifyAlgo::NAMES
                        ),
                        false => format!("use one of {}", VerifyAlgo::NAMES),
                    };
                    FioError::invalid(o.scope, o.name, t, &hint)
                })?;
                spec.verify.get_or_insert_with(v).algo = algo;
            }
        },
        Key::DoVerify => spec.verify_draft().do_verify = o.boolean()?,
        Key::VerifyOnly => spec.verify_draft().only = o.flag()?,
        Key::VerifyInterval => {
            spec.verify_draft().interval = o.size()?;
        }
        Key::VerifyOffset => spec.verify_draft().header_offset = o.size()?,
        Key::VerifyPattern => {
            let parse = |text: &str| pattern(o.scope, o.name, text);
            let pieces = crate::pattern_files::with_files(o.scope, o.name, o.text, parse)?;
            spec.verify_draft().pattern = Some(pieces);
        }
        Key::VerifyFatal => spec.verify_draft().fatal = o.boolean()?,
        Key::VerifyDump => spec.verify_draft().dump = o.boolean()?,
        Key::VerifyBacklog => spec.verify_draft().backlog = o.int()?,
        Key::VerifyBacklogBatch => spec.verify_draft().backlog_batch = o.int()?,
        Key::VerifyWriteSequence => spec.verify_draft().write_sequence = o.boolean()?,
        Key::VerifyHeaderSeed => spec.verify_draft().header_seed = o.boolean()?,
        Key::VerifyPatternInterval => spec.verify_draft().pattern_interval = o.size()?,
        Key::VerifyStateSave => spec.verify_draft().state_save = o.boolean()?,
        Key::VerifyStateLoad => spec.verify_draft().state_load = o.boolean()?,
        Key::VerifyPolicy => match o.text.trim() {
            "completed" | "fsynced" => spec.verify_draft().fsynced = o.text.trim() == "fsynced",
            _ => return Err(o.invalid("use completed or fsynced")),
        },
        // Same blocks read back, same checks: see the module comment.
        Key::ExperimentalVerify => {
            o.boolean()?;
        }
        Key::VerifyAsyncCpus => {
            crate::pattern::cpu_list(o.scope, o.text)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options that shape verification may come before `verify=` (fio allows
/// any order); they are kept in a draft that only counts once `verify=` is set.
trait VerifyDraft {
    fn verify_draft(&mut self) -> &mut VerifySpec;
}

impl VerifyDraft for JobSpec {
    fn verify_draft(&mut self) -> &mut VerifySpec {
        // A spec made by an option other than `verify=` starts as `null`
        // (nothing checked) and is dropped in `finish` unless `verify=` came.
        self.verify.get_or_insert_with(|| VerifySpec {
            algo: VerifyAlgo::Null,
            ..VerifySpec::default()
        })
    }
}

/// The whole-job checks, once every option is in.
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    let last_verify = spec.options.iter().rev().find(|(n, _)| n == "verify");
    if !last_verify.is_some_and(|(_, v)| !matches!(v.trim(), "0" | "none" | "")) {
        // fio: the other verify options do nothing without `verify=`.
        spec.verify = None;
        return Ok(());
    }
    // fio: a job that writes nothing has no writes to replay, and runs as
    // it is (a read job with `verify=` reads and checks each block).
    let writes = spec.rw.writes();
    if let Some(v) = spec.verify.as_mut().filter(|_| !writes) {
        v.only = false;
    }
    let Some(v) = &spec.verify else {
        return Ok(());
    };
    let scope = Scope::Job(spec.name.clone());
    if v.algo.needs_pattern() && v.pattern.is_none() {
        return Err(FioError::invalid(
            &scope,
            "verify",
            v.algo.fio_name(),
            "verify=pattern and pattern_hdr need verify_pattern=..., e.g. verify_pattern=0xdeadbeef",
        ));
    }
    if v.only && spec.time_based {
        return Err(FioError::invalid(
            &scope,
            "verify_only",
            "1",
            "the writes of a time_based job cannot be replayed: drop time_based \
             (verify_only checks what a size-based run of the same job wrote)",
        ));
    }
    if let Err(e) = verify::chunk_format(spec) {
        return Err(FioError::invalid(
            &scope,
            "verify",
            v.algo.fio_name(),
            e.to_string(),
        ));
    }
    if v.only && !spec.randrepeat {
        return Err(FioError::invalid(
            &scope,
            "verify_only",
            "1",
            "verify_only rebuilds the earlier run's data from its seed: drop randrepeat=0 \
             (and give the randseed= that run used, if any)",
        ));
    }
    Ok(())
}

/// `--aux-path`: where the jobs' verify state files go.
pub(crate) fn set_state_dir(jobs: &mut [Vec<JobSpec>], aux_path: Option<&str>) {
    for v in jobs.iter_mut().flatten().filter_map(|j| j.verify.as_mut()) {
        v.state_dir = aux_path.map(str::to_string);
    }
}

/// `verify_pattern`'s pieces.
pub(crate) fn pattern(
    scope: &Scope,
    name: &str,
    text: &str,
) -> Result<Vec<PatternPiece>, FioError> {
    let bad = |why: &str| FioError::invalid(scope, name, text, why);
    let mut pieces = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("%o") {
            pieces.push(PatternPiece::Offset);
            rest = r;
        } else if let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
            let end = rest[1..]
                .find(q)
                .ok_or_else(|| bad("a quoted string is not closed: add the closing quote"))?;
            pieces.push(PatternPiece::Bytes(rest.as_bytes()[1..1 + end].to_vec()));
            rest = &rest[2 + end..];
        } else if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let n = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
            if n == 0 {
                return Err(bad("0x must be followed by hex digits, e.g. 0xdeadbeef"));
            }
            pieces.push(PatternPiece::Bytes(hex_bytes(&h[..n])));
            rest = &h[n..];
        } else {
            let neg = rest.starts_with('-');
            let digits = &rest[neg as usize..];
            // A decimal ends at the first non-digit, or where a hex piece
            // starts: fio reads "-120xdeadface" as -12 then 0xdeadface.
            let n = digits
                .char_indices()
                .find(|&(i, c)| !c.is_ascii_digit() || starts_hex(&digits[i..]))
                .map_or(digits.len(), |(i, _)| i);
            if n == 0 {
                return Err(bad(
                    "a pattern is hex (0xdeadbeef), decimal (-12, 255), a quoted string (\"abcd\") \
                     or %o (the block's offset), one after another",
                ));
            }
            let v: i64 = digits[..n]
                .parse()
                .ok()
                .filter(|v| *v <= u32::MAX as i64)
                .ok_or_else(|| {
                    bad("a decimal piece is at most 32 bits: write larger values in hex")
                })?;
            let v = if neg { -v } else { v };
            pieces.push(PatternPiece::Bytes(decimal_bytes(v)));
            rest = &digits[n..];
        }
    }
    if pieces.is_empty() {
        return Err(bad("give a pattern, e.g. verify_pattern=0xdeadbeef"));
    }
    Ok(pieces)
}

/// Hex digits as bytes, most significant first (as written: 0xdeadbeef is de ad be ef).
fn hex_bytes(h: &str) -> Vec<u8> {
    let padded = match h.len() % 2 {
        1 => format!("0{h}"),
        _ => h.to_string(),
    };
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).unwrap_or(0))
        .collect()
}

/// Whether `s` starts with a hex piece (`0x` and a hex digit).
fn starts_hex(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X') && b[2].is_ascii_hexdigit()
}

/// A decimal in little-endian bytes: a positive one as wide as its value
/// needs (1 to 4 bytes), a negative one in 4 (fio 3.33 writes -1 as ff ff
/// ff ff, 256 as 00 01).
fn decimal_bytes(v: i64) -> Vec<u8> {
    let bytes = (v as i32 as u32).to_le_bytes();
    let width = match v {
        0..=255 => 1,
        256..=65535 => 2,
        65536..=16_777_215 => 3,
        _ => 4,
    };
    bytes[..width].to_vec()
}

/// The `verify*` options of `job` in command-line form (for `--parse-only`),
/// defaults left out; the pattern in hex, so it reads back the same.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let Some(v) = &job.verify else { return };
    let d = VerifySpec::default();
    opts.push(("verify", Some(v.algo.fio_name().to_string())));
    let flags = [
        ("do_verify", v.do_verify != d.do_verify, v.do_verify),
        ("verify_fatal", v.fatal, true),
        ("verify_dump", v.dump, true),
        ("verify_write_sequence", !v.write_sequence, false),
        ("verify_header_seed", !v.header_seed, false),
    ];
    for (name, differs, value) in flags {
        if differs {
            opts.push((name, Some((value as u8).to_string())));
        }
    }
    if v.only {
        opts.push(("verify_only", None));
    }
    let numbers = [
        ("verify_interval", v.interval),
        ("verify_offset", v.header_offset),
        ("verify_backlog", v.backlog),
        ("verify_backlog_batch", v.backlog_batch),
        ("verify_pattern_interval", v.pattern_interval),
    ];
    for (name, n) in numbers.into_iter().filter(|(_, n)| *n != 0) {
        opts.push((name, Some(n.to_string())));
    }
    if let Some(pieces) = &v.pattern {
        let text: String = pieces
            .iter()
            .map(|p| match p {
                PatternPiece::Offset => "%o".to_string(),
                PatternPiece::Bytes(b) => {
                    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                    format!("0x{hex}")
                }
            })
            .collect();
        opts.push(("verify_pattern", Some(text)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Vec<PatternPiece>, FioError> {
        pattern(&Scope::Job("j".into()), "verify_pattern", text)
    }

    #[test]
    fn patterns_in_every_spelling() {
        use PatternPiece::*;
        assert_eq!(
            p("0xdeadbeef").unwrap(),
            vec![Bytes(vec![0xde, 0xad, 0xbe, 0xef])]
        );
        assert_eq!(p("0xf").unwrap(), vec![Bytes(vec![0x0f])]);
        assert_eq!(p("255").unwrap(), vec![Bytes(vec![0xff])]);
        assert_eq!(p("256").unwrap(), vec![Bytes(vec![0, 1])]);
        assert_eq!(
            p("0xff%o\"abcd\"-12").unwrap(),
            vec![
                Bytes(vec![0xff]),
                Offset,
                Bytes(b"abcd".to_vec()),
                Bytes(vec![0xf4, 0xff, 0xff, 0xff])
            ]
        );
        // A decimal ends where a hex piece starts, as fio reads it.
        assert_eq!(
            p("\"abcd\"-120xdeadface").unwrap(),
            vec![
                Bytes(b"abcd".to_vec()),
                Bytes(vec![0xf4, 0xff, 0xff, 0xff]),
                Bytes(vec![0xde, 0xad, 0xfa, 0xce]),
            ]
        );
        assert_eq!(
            p("120xff").unwrap(),
            vec![Bytes(vec![12]), Bytes(vec![0xff])]
        );
        assert_eq!(p("'ab'").unwrap(), vec![Bytes(b"ab".to_vec())]);
    }

    #[test]
    fn bad_patterns_say_what_a_pattern_is() {
        for bad in ["", "0x", "\"open", "abc", "99999999999"] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains("verify_pattern"), "{bad}: {e}");
        }
    }
}
