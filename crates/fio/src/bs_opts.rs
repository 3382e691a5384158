//! `bs_is_seq_rand` and `bs_unaligned`, the block-size options that change
//! what `bs`/`bsrange`/`bssplit` mean rather than give sizes of their own.
//!
//! `bs_is_seq_rand=1` makes the READ sizes those of sequential I/Os and the
//! WRITE sizes those of random ones, whatever their direction (fio 3.33 with
//! `bs=4k,64k`: `rw=write` writes 4 KiB, `rw=randread` reads 64 KiB). A job
//! is all sequential or all random unless a random pattern has
//! `percentage_random` below 100, so the sizes are settled here, per
//! direction, and the runner needs nothing new; that last case, where one
//! direction mixes both kinds, is refused until the offset generator picks
//! sizes per I/O kind.

use crate::error::{FioError, Scope};
use model::job::{BlockSizes, BsShare, PerDir};
use model::{Direction, JobSpec};

/// Moves the sequential (READ) or random (WRITE) sizes onto both directions.
pub(crate) fn seq_rand(
    spec: &JobSpec,
    bs: &mut PerDir<(u64, u64)>,
    split: &mut PerDir<Option<Vec<BsShare>>>,
) -> Result<(), FioError> {
    if !spec.rw.is_random() {
        bs.write = bs.read;
        split.write = split.read.clone();
        return Ok(());
    }
    let pct = &spec.random.percentage_random;
    let dirs = [
        (spec.rw.reads(), Direction::Read),
        (spec.rw.uses_write_side(), Direction::Write),
    ];
    if let Some((_, dir)) = dirs.iter().find(|(on, d)| *on && *pct.get(*d) < 100) {
        return Err(FioError::not_yet(
            &Scope::Job(spec.name.clone()),
            "bs_is_seq_rand",
            "1",
            &format!(
                " with percentage_random={} (sequential and random I/Os in one direction)",
                pct.get(*dir)
            ),
            ": give percentage_random=100, or the sizes per direction without bs_is_seq_rand",
        ));
    }
    bs.read = bs.write;
    split.read = split.write.clone();
    Ok(())
}

/// `bs_unaligned` draws any size of a `bsrange`, which O_DIRECT refuses
/// (fio 3.33 warns "may not work" and goes on; the I/Os then fail).
pub(crate) fn check_unaligned(spec: &JobSpec) -> Result<(), FioError> {
    if !spec.bs_unaligned || !spec.direct {
        return Ok(());
    }
    let used = [
        (spec.rw.reads(), Direction::Read),
        (spec.rw.uses_write_side(), Direction::Write),
    ];
    let varies = used.into_iter().any(|(on, d)| {
        on && matches!(spec.block_sizes_of(d), BlockSizes::Range { min_bytes, max_bytes } if min_bytes < max_bytes)
    });
    match varies {
        false => Ok(()),
        true => Err(FioError::invalid(
            &Scope::Job(spec.name.clone()),
            "bs_unaligned",
            "1",
            "sizes that are not multiples of 512 bytes cannot go through O_DIRECT: \
             use direct=0, or drop bs_unaligned",
        )),
    }
}
