//! Where a job's I/Os start and how they move beyond the plain patterns:
//! fio's `offset_increment` (clone `n` of `numjobs` starts `n` increments
//! further, so clones of one job work on separate stripes of a file or
//! device) and the offset modifier after `rw=` (`rw=read:-8k` reads
//! backwards, `rw=write:4k` leaves holes, `rw=randread:8` does runs of 8
//! sequential I/Os from each random offset).
//!
//! fio reads the modifier as a size (signed) for sequential patterns and as
//! a count for random ones; `rw=read:4` is four bytes, not four blocks
//! (checked with fio 3.33's `write_iolog`).

use crate::error::{FioError, Scope};
use crate::values::{self, Given};
use model::job::RwStep;
use model::JobSpec;

/// `rw=PATTERN[:MODIFIER]`.
pub(crate) fn rw(spec: &mut JobSpec, scope: &Scope, text: &str) -> Result<(), FioError> {
    let (pattern, modifier) = match text.split_once(':') {
        Some((p, m)) if model::RwMode::parse(p.trim()).is_some() => (p.trim(), Some(m.trim())),
        _ => (text, None),
    };
    spec.rw = values::rw(scope, pattern)?;
    spec.offset_steps.rw_step = match modifier {
        None => None,
        Some(m) => step(spec.rw.is_random(), scope, text, m)?,
    };
    Ok(())
}

fn step(random: bool, scope: &Scope, whole: &str, m: &str) -> Result<Option<RwStep>, FioError> {
    let bad = |why: &str| FioError::invalid(scope, "rw", whole, why);
    if random {
        let every: u64 = m.parse().map_err(|_| {
            bad("after a random pattern ':' takes a count of I/Os, e.g. rw=randread:8")
        })?;
        // fio: a count of 0 or 1 draws a new offset for every I/O, as without one.
        return Ok((every > 1).then_some(RwStep::RandomEvery(every)));
    }
    let (negative, size) = match m.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, m),
    };
    let bytes = values::size(scope, "rw", size).map_err(|_| {
        bad("after a sequential pattern ':' takes a size to skip, e.g. rw=write:4k or rw=read:-8k")
    })?;
    let bytes = i64::try_from(bytes).map_err(|_| bad("the skip is larger than any file"))?;
    Ok((bytes != 0).then_some(RwStep::Skip(if negative { -bytes } else { bytes })))
}

/// `offset_increment=SIZE`.
pub(crate) fn increment(spec: &mut JobSpec, o: &Given) -> Result<(), FioError> {
    spec.offset_steps.increment = values::size_or_percent(o.scope, o.name, o.text)?;
    Ok(())
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    if job.offset_steps.increment > 0 {
        opts.push((
            "offset_increment",
            Some(model::units::format_size(job.offset_steps.increment)),
        ));
    }
}

/// `rw=` as fio reads it back, with the modifier.
pub(crate) fn rw_text(job: &JobSpec) -> String {
    let name = job.rw.fio_name();
    match job.offset_steps.rw_step {
        None => name.to_string(),
        Some(RwStep::RandomEvery(n)) => format!("{name}:{n}"),
        Some(RwStep::Skip(b)) if b < 0 => format!("{name}:-{}", b.unsigned_abs()),
        Some(RwStep::Skip(b)) => format!("{name}:{b}"),
    }
}
