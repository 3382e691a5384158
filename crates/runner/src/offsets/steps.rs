//! The offset moves beyond the plain patterns: fio's `rw=PATTERN:SKIP`
//! (sequential I/O that skips or goes back) and `zonemode=strided` (I/O
//! that stays in one zone for `zonesize` bytes, then moves on). The
//! general path of `offsets` calls these; each was checked against fio
//! 3.33's `write_iolog` of the same job.

use super::{Region, Rng};
use model::job::{RwStep, StridedZones};
use model::JobSpec;

/// Where `zonemode=strided` is in one file.
#[derive(Clone, Copy, Debug)]
pub(super) struct ZoneCursor {
    pub(super) zones: StridedZones,
    /// The zone's first byte, from the file's base.
    pub(super) start: u64,
    /// Bytes done in this zone, and the next sequential position in it.
    pub(super) done: u64,
    pub(super) pos: u64,
}

impl ZoneCursor {
    /// The next I/O in the zone (`random`: anywhere in it, at `align`),
    /// as (offset from the file's base, longest length that fits).
    pub(super) fn place(
        &mut self,
        random: bool,
        align: u64,
        min: u64,
        bytes: u64,
        rng: &mut Rng,
    ) -> (u64, u64) {
        if self.start + min > bytes {
            self.start = 0;
        }
        let zone = self.zones.range.min(bytes - self.start).max(min);
        let rel = match random {
            true => rng.below((zone.saturating_sub(min) / align) + 1) * align,
            false => match self.pos + min > zone {
                true => 0,
                false => self.pos,
            },
        };
        (self.start + rel, zone - rel)
    }

    /// `len` bytes were done at `rel` in the zone; past `size`, the next zone.
    pub(super) fn done(&mut self, rel: u64, len: u64, bytes: u64) {
        self.pos = rel + len;
        self.done += len;
        if self.done >= self.zones.size {
            self.start += self.zones.range + self.zones.skip;
            if self.start >= bytes {
                self.start = 0;
            }
            (self.done, self.pos) = (0, 0);
        }
    }
}

/// Where a sequential pattern with fio's `rw=PATTERN:SKIP` goes after an
/// I/O that ended at `end`: `skip` bytes further (a gap) or back. Going back
/// past the start wraps to as far before the end of the file, as fio 3.33
/// does (`rw=read:-8k` with bs=4k over 64k: 0, 56k, 52k, ..., 4k, 0); going
/// past the end wraps to the start (the caller's check).
pub(super) fn skipped(end: u64, skip: i64, len: u64, bytes: u64) -> u64 {
    match end.checked_add_signed(skip) {
        Some(next) => next,
        None => {
            let back = skip.unsigned_abs() - end;
            bytes.saturating_sub(back + len)
        }
    }
}

/// The blocks one pass of a sequential job with gaps (`rw=read:512k`)
/// does over `regions`: a pass ends where the next I/O would not fit
/// before the end of the file, as fio's does (size=128m, bs=1m, a 512k
/// gap: 85 reads, at 0, 1.5m, ..., 126m), not once it has done the size
/// in bytes. `None` for any other job: its pass is the region's blocks.
pub(crate) fn gapped_pass_blocks(spec: &JobSpec, regions: &[Region]) -> Option<u64> {
    let gap = match spec.offset_steps.rw_step {
        Some(RwStep::Skip(gap)) if gap > 0 && !spec.rw.is_random() => gap.unsigned_abs(),
        _ => return None,
    };
    let bs = spec.bs_bytes;
    if bs == 0 || spec.block_sizes.is_some() {
        return None;
    }
    let fits = |bytes: u64| match bytes >= bs {
        true => (bytes - bs) / (bs + gap) + 1,
        false => 0,
    };
    Some(regions.iter().map(|r| fits(r.blocks * r.block_bytes)).sum())
}

#[cfg(test)]
mod tests {
    use super::super::{OffsetGen, Region};
    use model::job::{RwStep, StridedZones};
    use model::{Direction, JobSpec, RwMode};

    #[test]
    fn a_pass_with_gaps_ends_where_the_next_io_would_not_fit() {
        let mut spec = JobSpec::new("g");
        spec.rw = RwMode::Read;
        spec.bs_bytes = 1 << 20;
        spec.offset_steps.rw_step = Some(RwStep::Skip(512 << 10));
        let file = Region {
            base: 0,
            blocks: 128,
            block_bytes: 1 << 20,
        };
        // fio's t/jobs test 7: 87,040 KiB of 1 MiB reads.
        assert_eq!(super::gapped_pass_blocks(&spec, &[file]), Some(85));
        spec.offset_steps.rw_step = Some(RwStep::Skip(-4096));
        assert_eq!(super::gapped_pass_blocks(&spec, &[file]), None);
    }

    /// 64 KiB of 4 KiB blocks from 0, with fio's offset modifier `step`.
    fn stepped(rw: RwMode, step: RwStep) -> Vec<u64> {
        let mut spec = JobSpec::new("s");
        spec.rw = rw;
        spec.offset_steps.rw_step = Some(step);
        let region = Region {
            base: 0,
            blocks: 16,
            block_bytes: 4096,
        };
        let mut g = OffsetGen::for_job(&spec, &[region], 1);
        let dir = if rw.reads() {
            Direction::Read
        } else {
            Direction::Write
        };
        (0..16)
            .map(|_| g.next_for(dir, u64::MAX).offset >> 10)
            .collect()
    }

    #[test]
    fn rw_skips_go_backwards_and_leave_holes_as_fio_does() {
        // fio 3.33's write_iolog of the same jobs, in KiB.
        let back = stepped(RwMode::Read, RwStep::Skip(-8192));
        assert_eq!(
            back,
            [0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0]
        );
        let holes = stepped(RwMode::Write, RwStep::Skip(4096));
        assert_eq!(
            holes,
            [0, 8, 16, 24, 32, 40, 48, 56, 0, 8, 16, 24, 32, 40, 48, 56]
        );
        assert_eq!(stepped(RwMode::Read, RwStep::Skip(-4096)), [0; 16]);
    }

    /// 64 KiB of 4 KiB blocks in strided zones, sequential, in KiB.
    fn zoned(range: u64, size: u64, skip: u64) -> Vec<u64> {
        let mut spec = JobSpec::new("z");
        spec.offset_steps.strided = Some(StridedZones { range, size, skip });
        let region = Region {
            base: 0,
            blocks: 16,
            block_bytes: 4096,
        };
        let mut g = OffsetGen::for_job(&spec, &[region], 1);
        (0..16)
            .map(|_| g.next_for(Direction::Read, u64::MAX).offset >> 10)
            .collect()
    }

    #[test]
    fn strided_zones_follow_fio() {
        // fio 3.33's write_iolog of the same jobs (size=64k bs=4k), in KiB.
        let k = 1024;
        let part = zoned(16 * k, 8 * k, 0);
        assert_eq!(
            part,
            [0, 4, 16, 20, 32, 36, 48, 52, 0, 4, 16, 20, 32, 36, 48, 52]
        );
        let skipping = zoned(16 * k, 8 * k, 16 * k);
        assert_eq!(
            skipping,
            [0, 4, 32, 36, 0, 4, 32, 36, 0, 4, 32, 36, 0, 4, 32, 36]
        );
        let round = zoned(16 * k, 32 * k, 0);
        assert_eq!(
            round,
            [0, 4, 8, 12, 0, 4, 8, 12, 16, 20, 24, 28, 16, 20, 24, 28]
        );
    }

    #[test]
    fn rw_random_every_n_runs_n_sequential_ios_from_each_draw() {
        let offs = stepped(RwMode::RandRead, RwStep::RandomEvery(4));
        for run in offs.chunks(4) {
            let follows = run.windows(2).all(|w| w[1] == (w[0] + 4) % 64);
            assert!(follows, "runs of 4 sequential blocks: {offs:?}");
        }
        let starts: Vec<u64> = offs.chunks(4).map(|r| r[0]).collect();
        assert!(
            starts.windows(2).any(|w| w[1] != w[0] + 16),
            "drawn: {offs:?}"
        );
    }
}
