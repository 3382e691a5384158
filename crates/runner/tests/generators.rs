//! the workload generators never send an I/O outside its
//! file or off its alignment, and with the random map each block (or
//! position) is visited exactly once per pass, whatever the pattern options.
//!
//! `offsets.rs` already checks one pass over one file of the plain path;
//! these add several files, several passes, mixed directions, the sequential
//! patterns, and the general path (`bssplit`, `bsrange`, `blockalign`,
//! `norandommap`, `random_distribution`, `percentage_random`,
//! `file_service_type`) as `OffsetGen::for_job` builds it for a worker.
//! Only the public API is used.

use diskbench_runner::offsets::{OffsetGen, Region, Target};
use model::job::{BlockSizes, BsShare, Distribution, FileService, FileServiceSpec, PerDir, Zone};
use model::{Direction, JobSpec, RwMode};
use proptest::prelude::*;

/// Kept small: these run with every `cargo test`.
const CASES: u32 = 64;

const MODES: [RwMode; 6] = [
    RwMode::Read,
    RwMode::Write,
    RwMode::ReadWrite,
    RwMode::RandRead,
    RwMode::RandWrite,
    RwMode::RandRw,
];

fn dir_allowed(mode: RwMode, dir: Direction) -> bool {
    match dir {
        Direction::Read => mode.reads(),
        Direction::Write => mode.writes(),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Regions as the runner lays them out: `blocks` blocks of `block_bytes`
/// from the job's offset (a multiple of the block size here, as O_DIRECT needs).
fn regions(block_bytes: u64) -> impl Strategy<Value = Vec<Region>> {
    prop::collection::vec((1u64..200, 0u64..8), 1..4).prop_map(move |v| {
        v.into_iter()
            .map(|(blocks, base)| Region {
                base: base * block_bytes,
                blocks,
                block_bytes,
            })
            .collect()
    })
}

fn plain_case() -> impl Strategy<Value = (RwMode, u32, Vec<Region>, u64)> {
    let block = prop::sample::select(vec![512u64, 4096, 16384, 1 << 20]);
    (
        prop::sample::select(MODES.to_vec()),
        0u32..=100,
        block.prop_flat_map(regions),
        any::<u64>(),
    )
}

/// A file's blocks in the order one file received them.
fn per_file(targets: &[Target], files: usize) -> Vec<Vec<&Target>> {
    let mut out = vec![Vec::new(); files];
    for t in targets {
        out[t.file as usize].push(t);
    }
    out
}

/// Each whole pass (`n` visits) of `seq` is a permutation of `0..n`.
fn each_pass_visits_all_once(seq: &[u64], n: u64) -> Result<(), TestCaseError> {
    for (p, pass) in seq.chunks_exact(n as usize).enumerate() {
        let mut seen = vec![false; n as usize];
        for &b in pass {
            prop_assert!(b < n, "pass {}: position {} of {}", p, b, n);
            prop_assert!(!seen[b as usize], "pass {}: position {} twice", p, b);
            seen[b as usize] = true;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// The plain path (`OffsetGen::new`): every I/O is one whole block of
    /// its file, in the direction the pattern allows.
    #[test]
    fn plain_ios_stay_inside_and_aligned((mode, read_pct, regions, seed) in plain_case()) {
        let mut g = OffsetGen::new(mode, read_pct, &regions, seed);
        let most = regions.iter().map(|r| r.blocks).max().unwrap_or(1);
        for _ in 0..(3 * most * regions.len() as u64) {
            let t = g.next_io();
            let r = regions[t.file as usize];
            prop_assert!(dir_allowed(mode, t.dir), "{:?} in {:?}", t.dir, mode);
            prop_assert_eq!(t.len, r.block_bytes);
            prop_assert!(t.offset >= r.base, "{:?} before {:?}", t, r);
            prop_assert!(t.offset + t.len <= r.base + r.blocks * r.block_bytes, "{:?} past {:?}", t, r);
            prop_assert_eq!((t.offset - r.base) % r.block_bytes, 0, "{:?} unaligned in {:?}", t, r);
        }
    }

    /// Random patterns: the files take I/Os in turn, and each file's I/Os,
    /// cut into passes of its block count, visit every block once per pass
    /// (reads and writes of `randrw` share the map, as in fio).
    #[test]
    fn plain_random_map_covers_every_block_once_per_pass(
        (_, read_pct, regions, seed) in plain_case(),
        mode in prop::sample::select(vec![RwMode::RandRead, RwMode::RandWrite, RwMode::RandRw]),
    ) {
        let mut g = OffsetGen::new(mode, read_pct, &regions, seed);
        let most = regions.iter().map(|r| r.blocks).max().unwrap_or(1);
        let n = (3 * most + 1) * regions.len() as u64;
        let ios: Vec<Target> = (0..n).map(|_| g.next_io()).collect();
        for (i, t) in ios.iter().enumerate() {
            prop_assert_eq!(t.file as usize, i % regions.len(), "files in turn");
        }
        for (file, list) in per_file(&ios, regions.len()).iter().enumerate() {
            let r = regions[file];
            let blocks: Vec<u64> = list.iter().map(|t| (t.offset - r.base) / r.block_bytes).collect();
            prop_assert!(blocks.len() as u64 >= 3 * r.blocks);
            each_pass_visits_all_once(&blocks, r.blocks)?;
        }
    }

    /// Sequential patterns: each direction walks its file's blocks in
    /// order and wraps at the end.
    #[test]
    fn plain_sequential_walks_in_order(
        (_, read_pct, regions, seed) in plain_case(),
        mode in prop::sample::select(vec![RwMode::Read, RwMode::Write, RwMode::ReadWrite]),
    ) {
        let mut g = OffsetGen::new(mode, read_pct, &regions, seed);
        let most = regions.iter().map(|r| r.blocks).max().unwrap_or(1);
        let ios: Vec<Target> = (0..(2 * most + 1) * regions.len() as u64).map(|_| g.next_io()).collect();
        for (file, list) in per_file(&ios, regions.len()).iter().enumerate() {
            let r = regions[file];
            for dir in [Direction::Read, Direction::Write] {
                let blocks: Vec<u64> = list
                    .iter()
                    .filter(|t| t.dir == dir)
                    .map(|t| (t.offset - r.base) / r.block_bytes)
                    .collect();
                for (i, &b) in blocks.iter().enumerate() {
                    prop_assert_eq!(b, i as u64 % r.blocks, "file {} {:?}", file, dir);
                }
            }
        }
    }
}

/// One direction's block sizes, as `bs`, `bsrange` or `bssplit` give them.
fn block_sizes() -> impl Strategy<Value = BlockSizes> {
    let unit = prop::sample::select(vec![512u64, 4096]);
    prop_oneof![
        (unit.clone(), 1u64..=16).prop_map(|(u, k)| BlockSizes::fixed(u * k)),
        (unit.clone(), 1u64..=4, 1u64..=16).prop_map(|(u, a, b)| BlockSizes::Range {
            min_bytes: u * a,
            max_bytes: u * a.max(b),
        }),
        (unit, prop::collection::vec((1u64..=32, 1u32..=10), 1..5)).prop_map(|(u, items)| {
            // Shares scaled to add up to 100, the rest to the first.
            let total: u32 = items.iter().map(|i| i.1).sum();
            let mut shares: Vec<BsShare> = items
                .iter()
                .map(|&(k, w)| BsShare {
                    bytes: u * k,
                    pct: w * 100 / total,
                })
                .collect();
            shares[0].pct += 100 - shares.iter().map(|s| s.pct).sum::<u32>();
            shares.retain(|s| s.pct > 0);
            BlockSizes::Split(shares)
        }),
    ]
}

fn distribution() -> impl Strategy<Value = Distribution> {
    let center = prop::option::of(0.0f64..=1.0);
    prop_oneof![
        3 => Just(Distribution::Random),
        1 => (0.2f64..3.0, center.clone())
            .prop_filter("theta 1 is refused", |(t, _)| (t - 1.0).abs() > 1e-9)
            .prop_map(|(theta, center)| Distribution::Zipf { theta, center }),
        1 => (0.01f64..0.99, center.clone()).prop_map(|(h, center)| Distribution::Pareto { h, center }),
        1 => (0.1f64..100.0, center).prop_map(|(dev_pct, center)| Distribution::Normal { dev_pct, center }),
        1 => Just(Distribution::Zoned(vec![
            Zone { access_pct: 60.0, size: 10.0 },
            Zone { access_pct: 30.0, size: 20.0 },
            Zone { access_pct: 10.0, size: 70.0 },
        ])),
        1 => Just(Distribution::ZonedAbs(vec![
            Zone { access_pct: 50.0, size: 65536.0 },
            Zone { access_pct: 50.0, size: 1048576.0 },
        ])),
    ]
}

/// A job of the general path and the regions a worker would get for it.
#[derive(Clone, Debug)]
struct GeneralCase {
    spec: JobSpec,
    regions: Vec<Region>,
}

fn general_case(modes: &[RwMode]) -> impl Strategy<Value = GeneralCase> {
    (
        prop::sample::select(modes.to_vec()),
        0u32..=100,
        (block_sizes(), block_sizes()),
        prop::sample::select(vec![0u64, 0, 512, 4096, 8192]),
        (distribution(), distribution()),
        any::<bool>(),
        prop::sample::select(vec![100u32, 100, 50, 0]),
        (
            prop::sample::select(vec![
                FileService::RoundRobin,
                FileService::Sequential,
                FileService::Random,
            ]),
            1u32..4,
        ),
        prop::collection::vec((1u64..40, 0u64..4), 1..4),
    )
        .prop_map(
            |(rw, mix, (read, write), align, (dr, dw), norandommap, pct, (kind, every), files)| {
                let mut spec = JobSpec::new("g");
                spec.rw = rw;
                spec.rwmix_read_pct = mix;
                let used = [(rw.reads(), &read), (rw.writes(), &write)];
                spec.bs_bytes = used
                    .iter()
                    .filter(|u| u.0)
                    .map(|u| u.1.max_bytes())
                    .max()
                    .unwrap_or(4096);
                spec.block_sizes = Some(PerDir { read, write });
                spec.blockalign_bytes = PerDir::both(align);
                spec.random.distribution = PerDir {
                    read: dr,
                    write: dw,
                };
                spec.random.norandommap = norandommap;
                spec.random.percentage_random = PerDir::both(pct);
                spec.file_service = FileServiceSpec {
                    kind,
                    switch_every: every,
                };
                let regions = files
                    .into_iter()
                    .map(|(blocks, base)| Region {
                        base: base * spec.bs_bytes,
                        blocks,
                        block_bytes: spec.bs_bytes,
                    })
                    .collect();
                GeneralCase { spec, regions }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// The general path: every I/O starts and ends inside its file (even
    /// when the room left is smaller than any size: then it is the smallest
    /// size, still inside the file), has one of the direction's sizes (or,
    /// cut short by the random map, fewer whole units), and sits on the
    /// direction's alignment: random offsets on `blockalign` (by default the
    /// smallest size), sequential ones after the previous I/O, so on the
    /// greatest common divisor of the sizes and the alignment.
    #[test]
    fn general_ios_stay_inside_and_aligned(
        case in general_case(&MODES),
        seed in any::<u64>(),
        rooms in prop::collection::vec(prop_oneof![Just(u64::MAX), 0u64..100_000], 1..8),
    ) {
        let GeneralCase { spec, regions } = case;
        let mut g = OffsetGen::for_job(&spec, &regions, seed);
        let total: u64 = regions.iter().map(|r| r.blocks).sum();
        for i in 0..(4 * total * spec.bs_bytes / 512).min(3000) {
            let dir = g.direction();
            prop_assert!(dir_allowed(spec.rw, dir));
            let room = rooms[i as usize % rooms.len()];
            let t = g.next_for(dir, room);
            let r = regions[t.file as usize];
            let sizes = spec.block_sizes_of(dir);
            let all = sizes.sizes();
            let align = match *spec.blockalign_bytes.get(dir) {
                0 => sizes.min_bytes(),
                a => a,
            };
            // The random map may stop an I/O early (see the test below);
            // without it every I/O has one of the sizes.
            let map = spec.rw.is_random()
                && !spec.random.norandommap
                && *spec.random.distribution.get(dir) == Distribution::Random
                && align == sizes.min_bytes();
            prop_assert!(
                all.contains(&t.len) || (map && t.len > 0 && t.len < sizes.max_bytes()),
                "{:?}: len not among {:?}", t, all
            );
            prop_assert!(t.len <= room.max(sizes.min_bytes()), "{:?} longer than room {}", t, room);
            prop_assert!(t.offset >= r.base, "{:?} before {:?}", t, r);
            prop_assert!(
                t.offset + t.len <= r.base + r.blocks * r.block_bytes,
                "{:?} past the end of {:?}", t, r
            );
            let grain = all.iter().fold(align, |g, &s| gcd(g, s));
            prop_assert_eq!((t.offset - r.base) % grain, 0, "{:?} off the {}-byte grain", t, grain);
            if spec.rw.is_random() && *spec.random.percentage_random.get(dir) == 100 {
                prop_assert_eq!((t.offset - r.base) % align, 0, "{:?} off blockalign {}", t, align);
            }
        }
    }

    /// The random map, as `OffsetGen::for_job` builds it (uniform, no
    /// `norandommap`, the default alignment, all I/Os random): in each file
    /// (and direction, on the general path) the I/Os of a pass cover every
    /// unit of `blockalign` bytes exactly once before the next pass begins:
    /// with one block size each I/O is one unit; with several, an I/O starts
    /// on a unit not yet covered and stops before one the pass already
    /// covered, as fio's does (a size that is not a multiple of the unit
    /// takes its last unit whole).
    #[test]
    fn random_map_covers_every_unit_once_per_pass(
        case in general_case(&[RwMode::RandRead, RwMode::RandWrite, RwMode::RandRw]),
        seed in any::<u64>(),
    ) {
        let GeneralCase { mut spec, regions } = case;
        spec.blockalign_bytes = PerDir::both(0);
        spec.random.distribution = PerDir::both(Distribution::Random);
        spec.random.norandommap = false;
        spec.random.percentage_random = PerDir::both(100);
        let mut g = OffsetGen::for_job(&spec, &regions, seed);
        // The plain path keeps one map per file for both directions (fio's
        // `randrw` too); the general path one per file and direction.
        let shared = g.is_plain();
        // A unit: a block on the plain path, else the direction's smallest size.
        let unit = |dir: Direction| match shared {
            true => spec.bs_bytes,
            false => spec.block_sizes_of(dir).min_bytes(),
        };
        let units = |r: &Region, dir: Direction| r.blocks * r.block_bytes / unit(dir);
        // Per file and map: the units this pass has covered, and the passes done.
        let mut maps: Vec<[(Vec<bool>, u32); 2]> = regions
            .iter()
            .map(|r| {
                [Direction::Read, Direction::Write]
                    .map(|d| (vec![false; units(r, d) as usize], 0))
            })
            .collect();
        let most = maps.iter().flatten().map(|m| m.0.len()).max().unwrap_or(1) as u64;
        for _ in 0..(most * regions.len() as u64 * 8).min(40_000) {
            let dir = g.direction();
            let t = g.next_for(dir, u64::MAX);
            let r = regions[t.file as usize];
            let u = unit(dir);
            prop_assert_eq!((t.offset - r.base) % u, 0, "{:?}", t);
            let key = if shared { 0 } else { dir as usize };
            let (covered, passes) = &mut maps[t.file as usize][key];
            let first = (t.offset - r.base) / u;
            // A size that is not a multiple of the unit ends inside its last unit.
            for k in first..first + t.len.div_ceil(u) {
                prop_assert!(
                    !covered[k as usize],
                    "file {} {:?}: unit {} covered twice in pass {} by {:?}",
                    t.file, dir, k, passes, t
                );
                covered[k as usize] = true;
            }
            if covered.iter().all(|&c| c) {
                covered.fill(false);
                *passes += 1;
            }
        }
    }
}

/// A pass of the random map is whole before the next begins, even when a
/// file has a single block, and the map starts afresh (another order) on the
/// next pass, as fio's does after it fills.
#[test]
fn one_block_files_and_fresh_passes() {
    let one = Region {
        base: 0,
        blocks: 1,
        block_bytes: 4096,
    };
    let mut g = OffsetGen::new(RwMode::RandRead, 100, &[one], 9);
    assert!((0..5).all(|_| g.next_io().offset == 0));
    let many = Region {
        base: 0,
        blocks: 64,
        block_bytes: 4096,
    };
    let mut g = OffsetGen::new(RwMode::RandRead, 100, &[many], 9);
    let first: Vec<u64> = (0..64).map(|_| g.next_io().offset).collect();
    let second: Vec<u64> = (0..64).map(|_| g.next_io().offset).collect();
    assert_ne!(first, second, "each pass draws a new order");
}
