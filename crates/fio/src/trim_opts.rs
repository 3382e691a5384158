//! What a trim mode (`rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`)
//! may be combined with, and the block sizes its trims take.
//!
//! fio gives trims the third part of `bs`, `bsrange`, `bssplit` and
//! `blockalign` (`bs=4k,4k,8k`: 8 KiB trims; an empty third part is fio's
//! default, 4 KiB; without a third part the write part), and in
//! `trimwrite`/`randtrimwrite` each write follows its trim, same offset and
//! size (fio 3.33: `randtrimwrite bs=4k,4k,8k` trims and writes 8 KiB
//! blocks). diskbench draws a trim mode's blocks on the write side (the
//! runner turns those targets into trims), so in a trim mode the write side
//! takes the trims' sizes ([`trim_sizes`]). The options whose trim side is
//! not carried out yet (rates, verify, steady state) are refused
//! here rather than silently applied to the writes or ignored. fio's logs
//! take trims, as direction 2 (see the runner's `logs`), and `write_iolog`
//! writes them as `trim` lines.

use crate::error::{FioError, Scope};
use crate::options::{lookup, Key, Lookup};
use crate::values::DEFAULT_BS;
use crate::{pattern, values};
use model::job::{BsShare, PerDir};
use model::{EngineKind, JobSpec};

/// The block sizes being built for a job, each direction's (see `jobs`).
pub(crate) struct Sizes<'a> {
    pub bs: &'a mut PerDir<(u64, u64)>,
    pub bssplit: &'a mut PerDir<Option<Vec<BsShare>>>,
}

/// In a trim mode, the write side takes the trims' part of the last
/// `bs`/`bsrange`, `bssplit` and `blockalign` given, where it has three.
pub(crate) fn trim_sizes(spec: &mut JobSpec, sizes: Sizes) -> Result<(), FioError> {
    if !spec.rw.trims() {
        return Ok(());
    }
    let scope = Scope::Job(spec.name.clone());
    let last = |keys: &[Key]| {
        spec.options
            .iter()
            .rev()
            .find_map(|(name, value)| match lookup(name) {
                Lookup::Job(def) if keys.contains(&def.key) => Some((def.key, name, value)),
                _ => None,
            })
    };
    // The third part; `None` without one. An empty one is fio's default.
    let trim_part = |value: &str| {
        let parts: Vec<&str> = value.split(',').map(str::trim).collect();
        (parts.len() == 3).then(|| parts[2].to_string())
    };
    let kb_base_1000 = spec.units.kb_base_1000;
    values::with_kb_base(kb_base_1000, || {
        if let Some((key, name, value)) = last(&[Key::Bs, Key::BsRange]) {
            if let Some(part) = trim_part(value) {
                sizes.bs.write = match (key, part.as_str()) {
                    (_, "") => (DEFAULT_BS, DEFAULT_BS),
                    (Key::Bs, p) => values::one_bs(&scope, p).map(|b| (b, b))?,
                    (_, p) => pattern::size_range(&scope, name, p)?,
                };
            }
        }
        if let Some((_, _, value)) = last(&[Key::BsSplit]) {
            if let Some(part) = trim_part(value) {
                sizes.bssplit.write = match part.as_str() {
                    "" => None,
                    p => Some(pattern::bssplit(&scope, p)?),
                };
            }
        }
        if let Some((_, name, value)) = last(&[Key::BlockAlign]) {
            if let Some(part) = trim_part(value) {
                spec.blockalign_bytes.write = match part.as_str() {
                    "" => 0,
                    p => values::block_size(&scope, name, p)?,
                };
            }
        }
        Ok(())
    })
}

/// Checks a job with a trim mode, once all its options are known.
pub(crate) fn finish(spec: &JobSpec) -> Result<(), FioError> {
    if !spec.rw.trims() {
        return Ok(());
    }
    let scope = Scope::Job(spec.name.clone());
    let mode = spec.rw.fio_name();
    let refused = [
        (spec.rate.caps() || spec.rate.floors(), "rate"),
        (spec.verify.is_some(), "verify"),
        // A replayed log gives the job its own mode (its trims are replayed).
        (!spec.iolog.read.is_empty(), "read_iolog"),
        (spec.steadystate.is_some(), "steadystate"),
        (spec.engine == EngineKind::Ftruncate, "ioengine=ftruncate"),
    ];
    if let Some((_, option)) = refused.into_iter().find(|(given, _)| *given) {
        return Err(FioError::not_yet(
            &scope,
            "rw",
            mode,
            &format!(" together with {option}"),
            &format!(": drop {option} from the trim job, or use a write mode"),
        ));
    }
    Ok(())
}
