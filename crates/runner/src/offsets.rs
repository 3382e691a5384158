//! Where the next I/O goes: which file, which direction, which offset.
//!
//! Random patterns visit every block exactly once per pass, like fio's
//! default random map, but without a bitmap: a keyed bijection on the
//! smallest power-of-two domain that holds the blocks, walked until it lands
//! inside (on average under two steps). Memory stays O(1) whatever the size,
//! and the sequence repeats for the same seed (`randrepeat`).
//!
//! That plain path (one block size, uniform random or sequential, files in
//! turn) is the one measured against fio and stays as it is; fio's other
//! pattern options (`bssplit`, `bsrange`, `blockalign`,
//! `random_distribution`, `norandommap`, `percentage_random`,
//! `file_service_type`) take [`General`], chosen once per job. fio's
//! `sprandom` takes a writer of its own (see `sprandom`), given by the
//! runner once it has made the job's plan.

mod sprandom;
mod steps;
mod window;

use crate::blocksizes::SizePicker;
use crate::distribution::Sampler;
use model::job::{BlockSizes, Distribution, FileService, FileServiceSpec, RwStep};
use model::{Direction, JobSpec, RwMode};
use steps::{skipped, ZoneCursor};

pub use crate::draw::Rng;
pub(crate) use crate::draw::Shuffle;
pub use crate::region::Region;

#[derive(Clone, Debug)]
struct FileCursor {
    region: Region,
    /// Next sequential block, per direction (fio keeps one per direction).
    seq: [u64; 2],
    perm: Shuffle,
    index_in_pass: u64,
}

/// Passes over the files: one ends when a random pattern has visited every
/// block of a file (its random map is full) or a sequential one wraps to
/// the start. fio reopens the files there, and drops their cached pages
/// again (`invalidate`), so a buffered job's later passes read from the
/// disk as its first did; the worker does the same on each new pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Passes {
    /// Passes ended so far, over all files.
    pub ended: u64,
    /// The file whose pass ended last.
    pub file: u32,
}

impl Passes {
    #[inline]
    fn end(&mut self, file: usize) {
        self.ended += 1;
        self.file = file as u32;
    }
}

/// The next I/O of a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
    pub len: u64,
}

pub struct OffsetGen {
    mode: RwMode,
    read_pct: u64,
    files: Vec<FileCursor>,
    next_file: usize,
    rng: Rng,
    /// fio's pattern options beyond one block size, a uniform random map and
    /// files in turn (see [`General`]); `None` keeps the path that is
    /// measured against fio as it is.
    general: Option<Box<General>>,
    /// `sprandom`: every write from its pass.
    sprandom: Option<Box<sprandom::Writer>>,
    passes: Passes,
}

pub(crate) use sprandom::Plan as SpRandomPlan;
pub(crate) use steps::gapped_pass_blocks;

impl OffsetGen {
    pub fn new(mode: RwMode, read_pct: u32, regions: &[Region], seed: u64) -> OffsetGen {
        let mut rng = Rng::new(seed);
        let files = regions
            .iter()
            .map(|&region| FileCursor {
                region,
                seq: [0, 0],
                perm: Shuffle::new(region.blocks.max(1), &mut rng),
                index_in_pass: 0,
            })
            .collect();
        OffsetGen {
            mode,
            read_pct: read_pct as u64,
            files,
            next_file: 0,
            rng,
            general: None,
            sprandom: None,
            passes: Passes::default(),
        }
    }

    /// Takes every I/O from `plan`'s pass over the job's one file (the
    /// runner made the plan for it, see [`SpRandomPlan::for_job`]).
    pub(crate) fn with_sprandom(mut self, plan: Option<SpRandomPlan>) -> OffsetGen {
        if let (Some(plan), Some(file)) = (plan, self.files.first()) {
            let rng = Rng::new(self.rng.next_u64());
            let writer = sprandom::Writer::new(plan, file.region.blocks, rng);
            self.sprandom = Some(Box::new(writer));
        }
        self
    }

    /// The generator of `spec`'s I/Os over `regions` (whose blocks are
    /// `spec.bs_bytes`, the largest size of the job).
    pub fn for_job(spec: &JobSpec, regions: &[Region], seed: u64) -> OffsetGen {
        let mut gen = OffsetGen::new(spec.rw, spec.rwmix_read_pct, regions, seed);
        if needs_general(spec, regions.len()) || window::wanted(spec, regions) {
            gen.general = Some(Box::new(General::new(spec, regions, &mut gen.rng)));
        }
        gen
    }

    /// Whether `file` is among the files served now (see `window`): a file
    /// that is not may be closed.
    pub fn is_open(&self, file: u32) -> bool {
        let window = self.general.as_ref().and_then(|g| g.window.as_ref());
        window.is_none_or(|w| w.is_open(file as usize))
    }

    /// The passes ended so far (see [`Passes`]).
    #[inline]
    pub fn passes(&self) -> Passes {
        self.passes
    }

    /// Whether every I/O is one block, at a uniform random or sequential
    /// offset, files in turn: then [`Self::next_io`] is all a worker needs.
    pub fn is_plain(&self) -> bool {
        self.general.is_none() && self.sprandom.is_none()
    }

    /// The direction of the next I/O, by `rwmixread` for mixed patterns.
    #[inline]
    pub fn direction(&mut self) -> Direction {
        match self.mode {
            RwMode::Read | RwMode::RandRead => Direction::Read,
            RwMode::Write | RwMode::RandWrite => Direction::Write,
            // A trim takes the write side's offsets; the worker trims there
            // (and for trimwrite then writes).
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite => {
                Direction::Write
            }
            RwMode::ReadWrite | RwMode::RandRw => {
                if self.rng.next_u64() % 100 < self.read_pct {
                    Direction::Read
                } else {
                    Direction::Write
                }
            }
        }
    }

    /// The next I/O of a plain pattern ([`Self::is_plain`]): files in round
    /// robin, one I/O each (fio's default `file_service_type`).
    #[inline]
    pub fn next_io(&mut self) -> Target {
        let dir = self.direction();
        self.plain_target(dir)
    }

    /// The next I/O in `dir`, any pattern; where block sizes vary it is at
    /// most `room` bytes long (what is left of the job's bytes), unless
    /// even the smallest size is longer.
    pub fn next_for(&mut self, dir: Direction, room: u64) -> Target {
        if let Some(w) = self.sprandom.as_deref_mut() {
            return w.next_target(dir, self.files[0].region, &mut self.passes);
        }
        match self.general.as_deref_mut() {
            Some(g) => g.next(dir, room, self.mode, &mut self.rng, &mut self.passes),
            None => self.plain_target(dir),
        }
    }

    #[inline]
    fn plain_target(&mut self, dir: Direction) -> Target {
        let file = self.next_file;
        self.next_file += 1;
        if self.next_file == self.files.len() {
            self.next_file = 0;
        }
        let random = self.mode.is_random();
        let cur = &mut self.files[file];
        let block = if random {
            if cur.index_in_pass == cur.region.blocks {
                cur.index_in_pass = 0;
                cur.perm = Shuffle::new(cur.region.blocks, &mut self.rng);
                self.passes.end(file);
            }
            let b = cur.perm.next();
            cur.index_in_pass += 1;
            b
        } else {
            let d = dir as usize;
            let b = cur.seq[d];
            cur.seq[d] = if b + 1 >= cur.region.blocks {
                self.passes.end(file);
                0
            } else {
                b + 1
            };
            b
        };
        Target {
            file: file as u32,
            dir,
            offset: cur.region.base + block * cur.region.block_bytes,
            len: cur.region.block_bytes,
        }
    }
}

/// The directions a pattern uses.
fn used_dirs(mode: RwMode) -> impl Iterator<Item = Direction> {
    [
        (mode.reads(), Direction::Read),
        (mode.uses_write_side(), Direction::Write),
    ]
    .into_iter()
    .filter(|d| d.0)
    .map(|d| d.1)
}

/// Whether the job's generator never repeats an offset within a pass even
/// without the random map: fio's `lfsr`, a full-period generator, touches
/// every block once per pass with `norandommap` too (HOWTO: it "is
/// guaranteed to never generate the same offset twice"), which the keyed
/// permutation also does.
fn full_period(spec: &JobSpec) -> bool {
    spec.random.generator == model::job::RandomGenerator::Lfsr
}

/// Whether the job named fio's 32-bit `tausworthe` itself: fio keeps it
/// then even where it cannot reach every block (HOWTO: tausworthe64 "is
/// selected automatically" when the space exceeds 2^32 blocks, as the default).
fn named_tausworthe(spec: &JobSpec) -> bool {
    spec.random.generator == model::job::RandomGenerator::Tausworthe
        && spec.options.iter().any(|(k, _)| k == "random_generator")
}

/// Whether `spec` asks for more than the plain path does.
fn needs_general(spec: &JobSpec, files: usize) -> bool {
    let random = spec.rw.is_random();
    let r = &spec.random;
    used_dirs(spec.rw).any(|dir| {
        let sizes = spec.block_sizes_of(dir);
        let align = *spec.blockalign_bytes.get(dir);
        sizes != BlockSizes::fixed(spec.bs_bytes)
            || (random && align != 0 && align != sizes.min_bytes())
            || (random && *r.distribution.get(dir) != Distribution::Random)
            || (random && r.norandommap && !full_period(spec))
            || (random && *r.percentage_random.get(dir) < 100)
    }) || (files > 1 && spec.file_service != FileServiceSpec::default())
        || spec.offset_steps.rw_step.is_some()
        || spec.offset_steps.strided.is_some()
}

/// One file of the general path, in bytes from its base.
#[derive(Clone, Debug)]
struct GenFile {
    base: u64,
    bytes: u64,
    /// Where the next sequential I/O of each direction starts: after the
    /// previous I/O of that direction, random or not (`percentage_random`).
    seq: [u64; 2],
    samplers: [Sampler; 2],
    /// Bytes of this pass, for `file_service_type=sequential`.
    done_bytes: u64,
    /// `zonemode=strided`: the zone being worked on.
    zone: Option<ZoneCursor>,
}

/// Several block sizes, `blockalign`, `random_distribution`,
/// `norandommap`, `percentage_random`, `file_service_type`.
///
/// Random offsets are positions of `blockalign` bytes (by default the
/// direction's smallest block size, as in fio) where the smallest block still
/// fits; an I/O that would pass the end of the file (or the job's bytes)
/// takes the largest size that fits, as fio shortens it. With several sizes
/// and the random map, an I/O also stops at the first unit the pass has
/// covered (see `distribution`), as fio's does, which shifts the mix towards
/// small sizes; with `norandommap` every I/O keeps the size drawn. Each
/// direction keeps its own map (fio shares one between reads and writes).
#[derive(Clone, Debug)]
struct General {
    sizes: [SizePicker; 2],
    align: [u64; 2],
    random_pct: [u64; 2],
    files: Vec<GenFile>,
    service: FileServiceSpec,
    current: usize,
    /// I/Os to the current file since the last switch.
    served: u32,
    /// `openfiles`, or files of different lengths: the files served now.
    window: Option<window::OpenSet>,
    /// `file_service_type=zipf|pareto|normal`: draws a file for every I/O.
    skewed: Option<Sampler>,
    /// The offset modifier of `rw=` (see [`RwStep`]).
    rw_step: Option<RwStep>,
    /// Per direction, I/Os left in the current sequential run of
    /// `RwStep::RandomEvery`.
    run_left: [u64; 2],
}

impl General {
    fn new(spec: &JobSpec, regions: &[Region], rng: &mut Rng) -> General {
        let dirs = [Direction::Read, Direction::Write];
        let sizes = dirs.map(|d| SizePicker::new(&spec.block_sizes_of(d), spec.bs_unaligned));
        let align = dirs.map(|d| match *spec.blockalign_bytes.get(d) {
            0 => sizes[d as usize].min(),
            a => a,
        });
        // fio: a block alignment of its own turns the random map off.
        let no_map = |d: Direction| {
            (spec.random.norandommap && !full_period(spec))
                || align[d as usize] != sizes[d as usize].min()
        };
        let files = regions
            .iter()
            .map(|r| {
                let bytes = r.blocks * r.block_bytes;
                let sampler = |d: Direction| {
                    let i = d as usize;
                    let positions = bytes.saturating_sub(sizes[i].min()) / align[i] + 1;
                    let units = (positions, bytes / align[i]);
                    let dist = spec.random.distribution.get(d);
                    let vary = sizes[i].varies();
                    Sampler::new(dist, no_map(d), units, align[i], vary, rng)
                        .sequence_stride(spec.random.sequence_stride)
                        .narrow_to_32_bits(named_tausworthe(spec))
                };
                GenFile {
                    base: r.base,
                    bytes,
                    seq: [0, 0],
                    samplers: dirs.map(sampler),
                    done_bytes: 0,
                    zone: spec.offset_steps.strided.map(|zones| ZoneCursor {
                        zones,
                        start: 0,
                        done: 0,
                        pos: 0,
                    }),
                }
            })
            .collect();
        let service = spec.file_service;
        let skewed = service
            .kind
            .distribution()
            .map(|d| Sampler::ranked(&d, regions.len() as u64, rng));
        General {
            skewed,
            align,
            random_pct: dirs.map(|d| u64::from(*spec.random.percentage_random.get(d))),
            sizes,
            files,
            service,
            current: 0,
            window: window::wanted(spec, regions).then(|| {
                let n = regions.len();
                let limit = spec.file_options.openfiles.map_or(n, |k| k as usize);
                window::OpenSet::new(n, limit)
            }),
            rw_step: spec.offset_steps.rw_step,
            run_left: [0, 0],
            // A random choice is made before the first I/O.
            served: match service.kind {
                FileService::Random => service.switch_every,
                _ => 0,
            },
        }
    }

    fn pick_file(&mut self, rng: &mut Rng) -> usize {
        let n = self.files.len();
        let every = self.service.switch_every;
        if let Some(s) = &mut self.skewed {
            // With fewer files open, the draws fold onto the open ones.
            let draw = s.next(rng) as usize;
            self.current = match &self.window {
                Some(w) => w.nth_open(draw),
                None => draw,
            };
            return self.current;
        }
        if let Some(w) = &self.window {
            let turn = self.served >= every;
            let next = w.pick(self.service.kind, self.current, turn, rng);
            if next != self.current || turn {
                self.served = 0;
            }
            self.current = next;
            self.served += 1;
            return next;
        }
        match self.service.kind {
            FileService::RoundRobin if self.served >= every => {
                self.current = (self.current + 1) % n;
                self.served = 0;
            }
            FileService::Random if self.served >= every => {
                self.current = rng.below(n as u64) as usize;
                self.served = 0;
            }
            // fio 3.33 ignores the count here: one file until its pass is done.
            FileService::Sequential => {
                let f = &mut self.files[self.current];
                if f.done_bytes >= f.bytes {
                    f.done_bytes = 0;
                    self.current = (self.current + 1) % n;
                }
            }
            _ => {}
        }
        self.served += 1;
        self.current
    }

    fn next(
        &mut self,
        dir: Direction,
        room: u64,
        mode: RwMode,
        rng: &mut Rng,
        passes: &mut Passes,
    ) -> Target {
        let file = self.pick_file(rng);
        let d = dir as usize;
        let sizes = &self.sizes[d];
        let f = &mut self.files[file];
        let len = sizes.pick(rng);
        let pct = self.random_pct[d];
        let mut random = mode.is_random() && (pct >= 100 || rng.below(100) < pct);
        if let Some(RwStep::RandomEvery(every)) = self.rw_step.filter(|_| random) {
            // A run of `every` I/Os: one drawn, the rest following it.
            random = self.run_left[d] == 0;
            self.run_left[d] = match random {
                true => every - 1,
                false => self.run_left[d] - 1,
            };
        }
        let align = self.align[d];
        if let Some(mut z) = f.zone {
            let (offset, fits) = z.place(random, align, sizes.min(), f.bytes, rng);
            let fits = fits.min(room);
            let len = if len > fits { sizes.fit(fits) } else { len };
            z.done(offset - z.start, len, f.bytes);
            f.zone = Some(z);
            f.done_bytes += len;
            return Target {
                file: file as u32,
                dir,
                offset: f.base + offset,
                len,
            };
        }
        let (offset, len) = if random {
            let before = f.samplers[d].passes_ended;
            let (pos, run) = f.samplers[d].next_run(rng, len.div_ceil(align));
            if f.samplers[d].passes_ended != before {
                passes.end(file);
            }
            (pos * align, len.min(run * align))
        } else {
            if f.seq[d] + sizes.min() > f.bytes {
                f.seq[d] = 0;
                passes.end(file);
            }
            (f.seq[d], len)
        };
        let fits = (f.bytes - offset).min(room);
        let len = if len > fits { sizes.fit(fits) } else { len };
        f.seq[d] = match self.rw_step {
            Some(RwStep::Skip(skip)) => skipped(offset + len, skip, len, f.bytes),
            _ => offset + len,
        };
        f.done_bytes += len;
        if let Some(w) = self.window.as_mut().filter(|_| f.done_bytes >= f.bytes) {
            f.done_bytes = 0;
            w.done(file);
        }
        Target {
            file: file as u32,
            dir,
            offset: f.base + offset,
            len,
        }
    }
}

#[cfg(test)]
mod tests;
