//! What a trim mode (`rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`)
//! may be combined with.
//!
//! diskbench trims with the write side's block sizes and offsets (the
//! runner turns those targets into trims), which is what fio does unless an
//! option gives trims a value of their own (`bs=4k,8k,16k`: the third part
//! is the trims'). Such a third part, and the options whose trim side is not
//! carried out yet (rates, verify, logs of the I/Os, steady state), are
//! refused here rather than silently applied to the writes or ignored.

use crate::error::{FioError, Scope};
use crate::options::{lookup, Key, Lookup};
use model::{EngineKind, JobSpec};

/// The options of the form `READ,WRITE,TRIM` whose trim part diskbench
/// takes from the write part.
const PER_DIR_SIZES: [Key; 4] = [Key::Bs, Key::BsRange, Key::BsSplit, Key::BlockAlign];

/// Checks a job with a trim mode, once all its options are known.
pub(crate) fn finish(spec: &JobSpec) -> Result<(), FioError> {
    if !spec.rw.trims() {
        return Ok(());
    }
    let scope = Scope::Job(spec.name.clone());
    let mode = spec.rw.fio_name();
    for (name, value) in &spec.options {
        let Lookup::Job(def) = lookup(name) else {
            continue;
        };
        if !PER_DIR_SIZES.contains(&def.key) {
            continue;
        }
        let parts: Vec<&str> = value.split(',').map(str::trim).collect();
        if let [_, write, trim] = parts[..] {
            if !trim.is_empty() && trim != write {
                return Err(FioError::not_yet(
                    &scope,
                    name,
                    value,
                    " (a trim size of its own, the third part)",
                    &format!(
                        ": with rw={mode} trims take the write size; give {name}={}",
                        parts[..2].join(",")
                    ),
                ));
            }
        }
    }
    let refused = [
        (spec.rate.caps() || spec.rate.floors(), "rate"),
        (spec.verify.is_some(), "verify"),
        (
            spec.logs.any(),
            "write_bw_log/write_iops_log/write_lat_log/write_hist_log",
        ),
        (
            spec.iolog.write.is_some() || !spec.iolog.read.is_empty(),
            "write_iolog/read_iolog",
        ),
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
