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
use crate::options::Key;
use crate::values::{self, Given};
use model::job::{RwStep, StridedZones};
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

/// `zonemode`, `zonesize`, `zonerange`, `zoneskip`: each value is checked
/// as it comes; they are put together once the job is complete
/// ([`finish_zones`]), as any of them may come first.
pub(crate) fn zone_option(o: &Given) -> Result<(), FioError> {
    match o.key {
        Key::ZoneMode => match o.text.trim() {
            "none" | "strided" => Ok(()),
            // `requirements::scan` answers zbd in job files; this is the
            // command line's and a file's [global] via another path.
            "zbd" => Err(o.invalid(
                "zonemode=zbd needs a zoned block device (host-managed or host-aware SMR, or \
                 NVMe ZNS), which diskbench does not drive: use zonemode=strided or none",
            )),
            _ => Err(o.invalid("use none, strided or zbd")),
        },
        _ => o.size().map(|_| ()),
    }
}

/// `zonemode=strided` with its sizes; `zonerange` defaults to `zonesize`.
/// With `zonemode=none` (fio's default) the sizes are ignored, as fio does.
pub(crate) fn finish_zones(spec: &mut JobSpec) -> Result<(), FioError> {
    let last = |name: &str| {
        spec.options
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    if last("zonemode").as_deref().map(str::trim) != Some("strided") {
        return Ok(());
    }
    let scope = crate::error::Scope::Job(spec.name.clone());
    let size_of = |name: &str| -> Result<u64, FioError> {
        match last(name) {
            Some(v) => values::size(&scope, name, &v),
            None => Ok(0),
        }
    };
    let size = size_of("zonesize")?;
    if size == 0 {
        return Err(FioError::invalid(
            &scope,
            "zonemode",
            "strided",
            "strided zones need zonesize= (the bytes done in each zone), e.g. zonesize=256m",
        ));
    }
    let range = match size_of("zonerange")? {
        0 => size,
        r => r,
    };
    let skip = size_of("zoneskip")?;
    spec.offset_steps.strided = Some(StridedZones { range, size, skip });
    Ok(())
}
