use super::*;
use proptest::prelude::*;

fn region(blocks: u64) -> Region {
    Region {
        base: 4096,
        blocks,
        block_bytes: 4096,
    }
}

#[test]
fn sequential_wraps_within_the_region() {
    let mut g = OffsetGen::new(RwMode::Read, 100, &[region(3)], 1);
    let offs: Vec<u64> = (0..5).map(|_| g.next_io().offset).collect();
    assert_eq!(offs, vec![4096, 8192, 12288, 4096, 8192]);
}

#[test]
fn random_is_repeatable_for_a_seed() {
    let mut a = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 7);
    let mut b = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 7);
    let mut c = OffsetGen::new(RwMode::RandRead, 100, &[region(1000)], 8);
    let xa: Vec<u64> = (0..50).map(|_| a.next_io().offset).collect();
    let xb: Vec<u64> = (0..50).map(|_| b.next_io().offset).collect();
    let xc: Vec<u64> = (0..50).map(|_| c.next_io().offset).collect();
    assert_eq!(xa, xb);
    assert_ne!(xa, xc);
}

#[test]
fn mix_follows_rwmixread() {
    let mut g = OffsetGen::new(RwMode::RandRw, 75, &[region(1 << 20)], 3);
    let reads = (0..100_000)
        .filter(|_| g.next_io().dir == Direction::Read)
        .count();
    assert!((74_000..76_000).contains(&reads), "{reads}");
}

#[test]
fn files_are_served_round_robin() {
    let mut g = OffsetGen::new(RwMode::Write, 0, &[region(4), region(4)], 1);
    let files: Vec<u32> = (0..4).map(|_| g.next_io().file).collect();
    assert_eq!(files, vec![0, 1, 0, 1]);
}

fn job(rw: RwMode) -> JobSpec {
    let mut spec = JobSpec::new("g");
    spec.rw = rw;
    spec
}

fn ios(spec: &JobSpec, regions: &[Region], n: usize) -> Vec<Target> {
    let mut g = OffsetGen::for_job(spec, regions, 1);
    assert!(!g.is_plain());
    (0..n)
        .map(|_| {
            let dir = g.direction();
            g.next_for(dir, u64::MAX)
        })
        .collect()
}

#[test]
fn a_plain_job_keeps_the_plain_path() {
    let g = OffsetGen::for_job(&job(RwMode::RandRead), &[region(8)], 1);
    assert!(g.is_plain());
}

#[test]
fn lfsr_touches_every_block_once_a_pass_even_without_the_random_map() {
    let mut spec = job(RwMode::RandRead);
    spec.random.norandommap = true;
    spec.random.generator = model::job::RandomGenerator::Lfsr;
    let mut g = OffsetGen::for_job(&spec, &[region(256)], 1);
    let next = |g: &mut OffsetGen| {
        let dir = g.direction();
        g.next_for(dir, u64::MAX).offset
    };
    let mut offs: Vec<u64> = (0..256).map(|_| next(&mut g)).collect();
    assert_ne!(offs, (0..256).map(|b| 4096 + b * 4096).collect::<Vec<_>>());
    offs.sort_unstable();
    offs.dedup();
    assert_eq!(offs.len(), 256, "a pass of lfsr repeated an offset");
    // tausworthe (fio's default) with norandommap may repeat: drawn with
    // replacement, 256 draws of 256 blocks leave about 94 untouched.
    spec.random.generator = model::job::RandomGenerator::Tausworthe;
    let mut g = OffsetGen::for_job(&spec, &[region(256)], 1);
    let mut offs: Vec<u64> = (0..256).map(|_| next(&mut g)).collect();
    offs.sort_unstable();
    offs.dedup();
    assert!(offs.len() < 256, "{}", offs.len());
}

/// fio's 32-bit tausworthe, named, on 2^40 one-byte blocks without the
/// random map reaches only 2^32 of them (every 256th here), so offsets
/// repeat far sooner than with tausworthe64, which fio picks on its own
/// there when no generator is named (fio's t/t64-switch.sh counts them).
#[test]
fn a_named_tausworthe_reaches_at_most_2_to_the_32_blocks() {
    let big = Region {
        base: 0,
        blocks: 1 << 40,
        block_bytes: 1,
    };
    let offsets = |named: Option<&str>| {
        let mut spec = job(RwMode::RandRead);
        spec.bs_bytes = 1;
        spec.random.norandommap = true;
        if let Some(g) = named {
            spec.random.generator = model::job::RandomGenerator::parse(g).unwrap();
            spec.options.push(("random_generator".into(), g.into()));
        }
        let mut g = OffsetGen::for_job(&spec, &[big], 3);
        (0..2000)
            .map(|_| {
                let dir = g.direction();
                g.next_for(dir, u64::MAX).offset
            })
            .collect::<Vec<u64>>()
    };
    let step = (1u64 << 40) >> 32;
    let narrow = offsets(Some("tausworthe"));
    assert!(narrow.iter().all(|o| o % step == 0), "{:?}", &narrow[..8]);
    for wide in [offsets(None), offsets(Some("tausworthe64"))] {
        assert!(wide.iter().any(|o| o % step != 0), "{:?}", &wide[..8]);
    }
}

#[test]
fn sequential_ranges_follow_on_and_wrap() {
    let mut spec = job(RwMode::Read);
    spec.block_sizes = Some(model::job::PerDir::both(BlockSizes::Range {
        min_bytes: 4096,
        max_bytes: 16384,
    }));
    spec.bs_bytes = 16384;
    let r = Region {
        base: 0,
        blocks: 4,
        block_bytes: 16384,
    };
    let list = ios(&spec, &[r], 200);
    let mut at = 0;
    for t in &list {
        if at + 4096 > 65536 {
            at = 0;
        }
        assert_eq!(t.offset, at);
        assert!(t.offset + t.len <= 65536 && t.len % 4096 == 0);
        at = t.offset + t.len;
    }
}

#[test]
fn percentage_random_zero_is_sequential() {
    let mut spec = job(RwMode::RandRead);
    spec.random.percentage_random = model::job::PerDir::both(0);
    let list = ios(&spec, &[region(10)], 12);
    let offs: Vec<u64> = list.iter().map(|t| t.offset / 4096 - 1).collect();
    assert_eq!(offs, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
}

#[test]
fn file_service_types() {
    // The file of each of the first 8 I/Os over `regions`.
    let files = |kind, switch_every, regions: &[Region]| -> Vec<u32> {
        let mut spec = job(RwMode::Read);
        spec.file_service = FileServiceSpec { kind, switch_every };
        ios(&spec, regions, 8).iter().map(|t| t.file).collect()
    };
    let sequential = files(FileService::Sequential, 1, &[region(3), region(3)]);
    assert_eq!(sequential, vec![0, 0, 0, 1, 1, 1, 0, 0]);
    let round_robin = files(FileService::RoundRobin, 3, &[region(9), region(9)]);
    assert_eq!(round_robin, vec![0, 0, 0, 1, 1, 1, 0, 0]);
}

/// Share of 100k I/Os each of 10 files gets under `kind`.
fn file_shares(kind: FileService) -> Vec<f64> {
    let mut spec = job(RwMode::RandRead);
    spec.file_service = FileServiceSpec {
        kind,
        switch_every: 1,
    };
    let mut counts = [0u32; 10];
    for t in ios(&spec, &[region(1000); 10], 100_000) {
        counts[t.file as usize] += 1;
    }
    counts.iter().map(|&c| f64::from(c) / 1e5).collect()
}

#[test]
fn zipf_file_service_follows_zipfs_law_over_the_files() {
    // File k gets (k+1)^-1.2 / H(10, 1.2): 43.3%, 18.8%, ... 2.7%.
    let shares = file_shares(FileService::Zipf { theta: 1.2 });
    let h: f64 = (1..=10).map(|k| f64::from(k).powf(-1.2)).sum();
    for (k, share) in shares.iter().enumerate() {
        let want = (k as f64 + 1.0).powf(-1.2) / h;
        assert!((share - want).abs() < 0.005, "file {k}: {share} vs {want}");
    }
    assert!(shares.windows(2).all(|w| w[0] > w[1]), "{shares:?}");
}

#[test]
fn pareto_file_service_puts_one_minus_h_on_the_first_h_of_the_files() {
    let shares = file_shares(FileService::Pareto { h: 0.2 });
    let first_two = shares[0] + shares[1];
    assert!((first_two - 0.8).abs() < 0.01, "{shares:?}");
    assert!(shares.windows(2).all(|w| w[0] > w[1]), "{shares:?}");
}

#[test]
fn normal_file_service_concentrates_on_the_middle_files() {
    // A deviation of 20% of 10 files is 2 files around 5: files 4 and 5
    // get 19.1% each, 3 to 6 together 68.3%, 0 and 9 2.15% each (1.66%
    // within 2.5 deviations, 0.49% wrapped round from beyond 3).
    let shares = file_shares(FileService::Normal { dev_pct: 20.0 });
    for k in [4, 5] {
        assert!((shares[k] - 0.191).abs() < 0.01, "{shares:?}");
    }
    let middle: f64 = shares[3..7].iter().sum();
    assert!((middle - 0.683).abs() < 0.01, "{shares:?}");
    for k in [0, 9] {
        assert!((shares[k] - 0.0215).abs() < 0.005, "{shares:?}");
    }
}

#[test]
fn skewed_file_service_with_fewer_files_open_serves_only_open_ones() {
    let mut spec = job(RwMode::RandRead);
    spec.file_service.kind = FileService::Zipf { theta: 1.2 };
    spec.file_options.openfiles = Some(2);
    let files: Vec<u32> = ios(&spec, &[region(4); 4], 6)
        .iter()
        .map(|t| t.file)
        .collect();
    assert!(files.iter().all(|&f| f < 2), "{files:?}");
}

#[test]
fn sizes_shrink_to_the_room_left() {
    let mut spec = job(RwMode::RandRead);
    spec.block_sizes = Some(model::job::PerDir::both(BlockSizes::Split(vec![
        model::job::BsShare {
            bytes: 65536,
            pct: 100,
        },
    ])));
    let mut g = OffsetGen::for_job(&spec, &[region(64)], 1);
    assert_eq!(g.next_for(Direction::Read, 8192).len, 65536);
    spec.block_sizes = Some(model::job::PerDir::both(BlockSizes::Range {
        min_bytes: 4096,
        max_bytes: 65536,
    }));
    let mut g = OffsetGen::for_job(&spec, &[region(64)], 1);
    for _ in 0..100 {
        assert!(g.next_for(Direction::Read, 8192).len <= 8192);
    }
}

proptest! {
    #[test]
    fn a_pass_visits_every_block_once(blocks in 1u64..3000, seed: u64) {
        let mut g = OffsetGen::new(RwMode::RandWrite, 0, &[region(blocks)], seed);
        let mut seen = vec![false; blocks as usize];
        for _ in 0..blocks {
            let t = g.next_io();
            let b = ((t.offset - 4096) / 4096) as usize;
            prop_assert!(!seen[b]);
            seen[b] = true;
        }
        prop_assert!(seen.iter().all(|&s| s));
    }
}
