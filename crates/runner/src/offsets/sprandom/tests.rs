use super::*;

pub(super) fn spr(op: f64, regions: u32, cache_bytes: u64) -> SpRandom {
    SpRandom {
        enabled: true,
        over_provisioning: op,
        regions,
        cache_bytes,
    }
}

/// The blocks of one whole pass.
fn pass(user_blocks: u64, spr: &SpRandom, seed: u64) -> (Plan, Vec<u64>) {
    let plan = Plan::new(user_blocks, 4096, spr).expect("a plan");
    let mut w = Writer::new(plan.clone(), user_blocks, Rng::new(seed));
    let blocks = (0..plan.writes())
        .map(|i| {
            let (block, new_pass) = w.next_block();
            assert!(!new_pass, "write {i} began a new pass");
            block
        })
        .collect();
    (plan, blocks)
}

/// Where each region of `plan` starts in the pass, and where the pass ends.
fn region_starts(plan: &Plan) -> Vec<u64> {
    let mut starts = vec![0];
    for i in 0..plan.regions() {
        starts.push(starts[i] + plan.length(i));
    }
    starts
}

/// Per region, the share of its writes that are still the current copy of
/// their block at the end of the pass.
fn kept_shares(plan: &Plan, blocks: &[u64], user_blocks: u64) -> Vec<f64> {
    let mut last = vec![0; user_blocks as usize];
    for (at, &b) in blocks.iter().enumerate() {
        last[b as usize] = at as u64;
    }
    let starts = region_starts(plan);
    (0..plan.regions())
        .map(|i| {
            let (from, to) = (starts[i], starts[i + 1]);
            let kept = last.iter().filter(|&&at| (from..to).contains(&at)).count();
            kept as f64 / (to - from) as f64
        })
        .collect()
}

/// fio 3.42 cuts 4 MiB at 15% over-provisioning (1177 physical blocks of
/// 4 KiB, from its debug summary) into regions of 1177 / R blocks rounded
/// down (`region_write_count`: 294 for 4 regions). Region k rewrites
/// 294 (1 - kept) of region k - 1 (fio's kept shares 0.7521, 0.8270,
/// 0.9094: 72.9, 50.9, 26.6, rounded on the running total to 73, 51, 26;
/// fio drew 70, 47, 27), and the last ends when the originals run out: 1174
/// writes (fio 1168; 1145 to 1177 with randseed 1 to 40). With one region
/// nothing is rewritten. fio's own passes, for a grid of sizes, are in
/// `fio_figures`.
#[test]
fn regions_are_fios_length_and_the_pass_ends_with_the_originals() {
    let plan = Plan::new(1024, 4096, &spr(0.15, 4, 0)).expect("a plan");
    assert_eq!(plan.rewrites, [0, 73, 51, 26]);
    assert_eq!(plan.fresh, [294, 221, 243, 266]);
    assert_eq!(plan.writes(), 1174);
    let one = Plan::new(1024, 4096, &spr(0.15, 1, 0)).expect("a plan");
    assert_eq!(
        (one.fresh.as_slice(), one.rewrites.as_slice()),
        (&[1024][..], &[0][..])
    );
    // 16 blocks at 5%: 3 regions of 5 do not hold the originals, and a
    // fourth follows, up to the 16 physical blocks: one original is left
    // unwritten (fio, which drew no rewrite there, wrote 5 5 5 1).
    let short = Plan::new(16, 4096, &spr(0.05, 3, 0)).expect("a plan");
    assert_eq!(
        (short.fresh, short.rewrites),
        (vec![5, 5, 4, 1], vec![0, 0, 1, 0])
    );
}

#[test]
fn every_block_is_written_once_as_an_original_and_rewrites_fill_the_rest() {
    for (blocks, op, regions) in [
        (1024, 0.15, 4),
        (1000, 0.28, 7),
        (5000, 0.07, 100),
        (3, 0.5, 2),
    ] {
        let (plan, writes) = pass(blocks, &spr(op, regions, 0), 1);
        let mut times = vec![0u32; blocks as usize];
        for &b in &writes {
            times[b as usize] += 1;
        }
        assert!(times.iter().all(|&t| t >= 1), "a block never written");
        let rewrites: u64 = times.iter().map(|&t| u64::from(t) - 1).sum();
        assert_eq!(rewrites, plan.rewrites.iter().sum::<u64>());
        assert_eq!(writes.len() as u64, blocks + rewrites);
    }
}

#[test]
fn each_region_rewrites_only_blocks_whose_copy_is_in_the_region_before() {
    let (plan, writes) = pass(2048, &spr(0.2, 8, 0), 3);
    let starts = region_starts(&plan);
    let region_of = |at: u64| starts.iter().rposition(|&s| s <= at).unwrap();
    let mut latest: Vec<Option<u64>> = vec![None; 2048];
    let mut counted = vec![0; plan.regions()];
    for (at, &b) in writes.iter().enumerate() {
        let here = region_of(at as u64);
        if let Some(before) = latest[b as usize] {
            assert_eq!(region_of(before), here - 1, "write {at} of block {b}");
            counted[here] += 1;
        }
        latest[b as usize] = Some(at as u64);
    }
    assert_eq!(counted, plan.rewrites);
}

#[test]
fn older_regions_keep_fewer_valid_blocks_as_the_model_says() {
    let (plan, writes) = pass(20_000, &spr(0.15, 10, 0), 5);
    let kept = kept_shares(&plan, &writes, 20_000);
    assert_eq!(*kept.last().unwrap(), 1.0, "the newest region is all valid");
    for w in kept.windows(2) {
        assert!(w[0] < w[1], "older regions keep less: {kept:?}");
    }
    for (i, share) in kept.iter().enumerate() {
        let model = plan.kept_share_of(i);
        // Rounding: one block of a region of 2300.
        assert!(
            (share - model).abs() < 1e-3,
            "region {i}: {share} vs {model}"
        );
    }
}

#[test]
fn four_regions_keep_what_fio_reports() {
    // fio 3.42 --debug=sprandom, 4m, 4 regions: "Invalidation[k]" gives
    // the stale share it aims at in region k - 1, to four places.
    for (op, stale) in [
        (0.15, [0.2479, 0.1730, 0.0906]),
        (0.05, [0.0935, 0.0633, 0.0322]),
        (0.9, [0.7965, 0.6450, 0.4449]),
    ] {
        let plan = Plan::new(1024, 4096, &spr(op, 4, 0)).unwrap();
        let shares: Vec<f64> = (0..4).map(|i| plan.kept_share_of(i)).collect();
        for (ours, fio) in shares
            .iter()
            .zip(stale.iter().map(|s| 1.0 - s).chain([1.0]))
        {
            assert!((ours - fio).abs() < 6e-5, "op {op}: {shares:?}");
        }
    }
}

#[test]
fn the_oldest_keeps_about_the_steady_state_share() {
    // fio's fraction is within 0.005 of the exact share up to op = 0.5,
    // and 0.03 at 0.9.
    for (op, within) in [
        (0.07, 0.005),
        (0.15, 0.005),
        (0.28, 0.005),
        (0.5, 0.006),
        (0.9, 0.03),
    ] {
        // x = e^(-(1 + op)(1 - x)), the share a reclaimed block holds.
        let mut x: f64 = 0.0;
        for _ in 0..200 {
            x = (-(1.0 + op) * (1.0 - x)).exp();
        }
        let plan = Plan::new(1 << 20, 4096, &spr(op, 2000, 0)).unwrap();
        let oldest = plan.kept_share_of(0);
        assert!((oldest - x).abs() < within, "op {op}: {oldest} vs {x}");
    }
}

#[test]
fn rewrites_spread_through_the_region_or_wait_for_the_fresh_writes_with_a_cache() {
    let blocks = 4096;
    for cache in [0, 16 * 4096] {
        let (plan, writes) = pass(blocks, &spr(0.15, 4, cache), 9);
        let starts = region_starts(&plan);
        let mut seen = vec![false; blocks as usize];
        for &b in &writes[..starts[1] as usize] {
            assert!(
                !std::mem::replace(&mut seen[b as usize], true),
                "the first region rewrote"
            );
        }
        for i in 1..plan.regions() {
            let span = starts[i]..starts[i + 1];
            let rewrite_at: Vec<u64> = span
                .clone()
                .filter(|&at| std::mem::replace(&mut seen[writes[at as usize] as usize], true))
                .map(|at| at - starts[i])
                .collect();
            let first = *rewrite_at.first().unwrap();
            match cache {
                0 => {
                    let gap = plan.length(i) / plan.rewrites[i] + 1;
                    assert!(first <= gap, "region {i}: first rewrite at {first}");
                    for w in rewrite_at.windows(2) {
                        assert!(w[1] - w[0] <= gap, "region {i}: {w:?}");
                    }
                }
                _ => assert_eq!(first, plan.fresh[i], "region {i}"),
            }
            assert_eq!(rewrite_at.len() as u64, plan.rewrites[i], "region {i}");
        }
    }
}

#[test]
fn after_the_pass_a_new_one_begins() {
    let plan = Plan::new(100, 4096, &spr(0.15, 3, 0)).unwrap();
    let mut w = Writer::new(plan.clone(), 100, Rng::new(2));
    for _ in 0..plan.writes() {
        assert!(!w.next_block().1);
    }
    let (first, new_pass) = w.next_block();
    assert!(new_pass);
    let mut seen = [false; 100];
    seen[first as usize] = true;
    for _ in 1..plan.writes() {
        let (b, new_pass) = w.next_block();
        assert!(!new_pass);
        seen[b as usize] = true;
    }
    assert!(seen.iter().all(|&s| s), "the second pass missed a block");
    assert!(w.next_block().1);
}

#[test]
fn the_same_seed_gives_the_same_pass() {
    let s = spr(0.15, 5, 0);
    assert_eq!(pass(500, &s, 7).1, pass(500, &s, 7).1);
    assert_ne!(pass(500, &s, 7).1, pass(500, &s, 8).1);
}

#[test]
fn plans_that_cannot_work_are_refused_with_the_fix() {
    let refused = |blocks, s: SpRandom| Plan::new(blocks, 4096, &s).unwrap_err().to_string();
    assert!(refused(100, spr(1.0, 4, 0)).contains("spr_op=1"));
    assert!(refused(100, spr(0.0, 4, 0)).contains("between 0 and 1"));
    assert!(refused(100, spr(0.15, 0, 0)).contains("from 1 to 115 regions"));
    assert!(refused(100, spr(0.15, 116, 0)).contains("from 1 to 115 regions"));
    assert!(Plan::new(100, 4096, &spr(0.15, 115, 0)).is_ok());
    // 4 MiB in 4 regions of 1177 KiB (294.25 blocks): a larger cache is
    // refused whatever the fresh writes, as fio does.
    let err = refused(1024, spr(0.15, 4, 1205248 + 1));
    assert!(err.contains("larger than a region (1205248 bytes"), "{err}");
    // 1024 blocks in 4 regions of 294: the shortest run of fresh writes
    // between originals and their rewrites is 221 blocks (884 KiB).
    let err = refused(1024, spr(0.15, 4, (884 << 10) + 1));
    assert!(err.contains("(905216 bytes in the shortest"), "{err}");
    assert!(err.contains("give fewer regions"), "{err}");
    assert!(Plan::new(1024, 4096, &spr(0.15, 4, 884 << 10)).is_ok());
    assert!(Plan::new(1024, 4096, &spr(0.15, 2, 1 << 20)).is_ok());
}
