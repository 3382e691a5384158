//! diskbench's plans against fio 3.42's own passes, as
//! `bench/sprandom_fio_figures.py` recorded them (fio's default seed, a grid
//! of sizes, block sizes, `spr_op`, `spr_num_regions` and `spr_cs`), so that
//! CI, whose fio has no `sprandom`, still compares them.
//!
//! fio's region length is a plain rounding and must be equal. Its rewrite
//! counts are random draws (each block of a region is picked with the
//! region's stale share as the chance, so they change with `randseed`):
//! diskbench's expected counts must lie within four standard deviations of
//! such a draw region by region (thousands of regions), and three in all
//! (the largest of fio's is 2.5), where fio's regions kept
//! their length (regions of a few blocks grow to hold their rewrites in
//! fio). A plan fio refuses, diskbench must refuse too.

use super::tests::spr;
use super::*;
use model::units::parse_size;

const FIGURES: &str = include_str!("../../../tests/fixtures/sprandom_fio_3_42.csv");

/// One configuration and what fio made of it.
struct Figures {
    case: String,
    user_blocks: u64,
    block_bytes: u64,
    spr: SpRandom,
    /// `None`: fio did not write (see `refused`).
    fio: Option<FioPass>,
    /// fio refused the options (rather than failing on its own limits,
    /// such as an LFSR of a few blocks, or dying).
    refused: bool,
}

struct FioPass {
    region_writes: u64,
    first_writes: Vec<u64>,
    rewrites: Vec<u64>,
}

impl FioPass {
    /// Whether one of fio's regions grew past its length: fio writes one
    /// original, then all the region's rewrites, then originals up to the
    /// length, so a region of a few blocks that drew more rewrites than
    /// it holds is longer. Only regions of a few blocks do.
    fn stretched(&self, regions: u32) -> bool {
        (self.first_writes.iter().zip(&self.rewrites))
            .take(regions as usize)
            .any(|(first, rewrites)| first + rewrites > self.region_writes)
    }
}

fn numbers(text: &str) -> Vec<u64> {
    text.split_whitespace()
        .map(|n| n.parse().expect("a count"))
        .collect()
}

fn figures() -> Vec<Figures> {
    let mut lines = FIGURES.lines();
    assert_eq!(
        lines.next(),
        Some("size,bs,spr_op,spr_num_regions,spr_cs,outcome,region_writes,first_writes,rewrites")
    );
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 9, "{line}");
            let size = |t: &str| parse_size(t).expect("a size");
            let block_bytes = size(f[1]);
            let fio = (f[5] == "ok").then(|| FioPass {
                region_writes: f[6].parse().expect("region_writes"),
                first_writes: numbers(f[7]),
                rewrites: numbers(f[8]),
            });
            Figures {
                case: line.to_string(),
                user_blocks: size(f[0]) / block_bytes,
                block_bytes,
                spr: spr(
                    f[2].parse().expect("spr_op"),
                    f[3].parse().expect("spr_num_regions"),
                    size(f[4]),
                ),
                fio,
                refused: f[5] == "refused",
            }
        })
        .collect()
}

/// The configurations fio wrote with, what it wrote, and diskbench's plan
/// (or why it has none).
fn fio_ran() -> impl Iterator<Item = (Figures, FioPass, Result<Plan, PlanError>)> {
    figures().into_iter().filter_map(|mut f| {
        let fio = f.fio.take()?;
        let plan = Plan::new(f.user_blocks, f.block_bytes, &f.spr);
        Some((f, fio, plan))
    })
}

/// The variance of a count of `n` draws whose chance is about what `ours`
/// and `fio` counted (their mean over `n`).
fn variance(ours: u64, fio: u64, n: u64) -> f64 {
    let p = ((ours + fio) as f64 / 2.0 / n.max(1) as f64).min(1.0);
    n as f64 * p * (1.0 - p)
}

fn within_deviations(ours: u64, fio: u64, variance: f64, deviations: f64) -> bool {
    (ours as f64 - fio as f64).abs() <= deviations * variance.sqrt() + 2.0
}

#[test]
fn the_recorded_grid_is_wide_and_fio_ran_most_of_it() {
    let all = figures();
    let ran = all.iter().filter(|f| f.fio.is_some()).count();
    assert!(all.len() >= 500, "{} configurations", all.len());
    assert!(ran * 2 > all.len(), "fio ran {ran} of {}", all.len());
}

#[test]
fn regions_are_as_long_as_fios_and_the_pass_ends_where_it_should() {
    for (f, fio, plan) in fio_ran() {
        let Ok(plan) = plan else {
            continue;
        };
        let case = &f.case;
        let n = plan.regions();
        let asked = f.spr.regions as usize;
        assert!(n <= asked + 1, "{case}: {n} regions");
        // Every region but the last is fio's length, or one original and
        // its rewrites when they are more (only regions of a few blocks).
        for i in 0..n - 1 {
            let length = fio.region_writes.max(plan.rewrites[i] + 1);
            assert_eq!(plan.length(i), length, "{case}: region {i}");
        }
        // The pass ends with the originals, at the physical capacity, or
        // after one region past the asked ones.
        let originals: u64 = plan.fresh.iter().sum();
        let physical = physical_blocks(f.user_blocks, f.spr.over_provisioning);
        assert!(originals <= f.user_blocks, "{case}");
        match originals == f.user_blocks {
            true => assert!(plan.writes() <= physical, "{case}"),
            // Originals left: the extra region was full, or the pass
            // reached the physical capacity.
            false => assert!(
                (n > asked && plan.fresh[n - 1] == fio.region_writes) || plan.writes() == physical,
                "{case}: {plan:?}"
            ),
        }
        if n > asked {
            assert_eq!(plan.rewrites[asked], 0, "{case}");
        }
    }
}

#[test]
fn rewrites_are_those_fio_draws_on_average() {
    let (mut compared, mut stretched) = (0, 0);
    for (f, fio, plan) in fio_ran() {
        let Ok(plan) = plan else {
            continue;
        };
        let case = &f.case;
        let length = fio.region_writes;
        if fio.stretched(f.spr.regions) {
            stretched += 1;
            continue;
        }
        let mut spread = 0.0;
        for (i, &ours) in plan.rewrites.iter().enumerate() {
            let drawn = fio.rewrites.get(i).copied().unwrap_or(0);
            let v = variance(ours, drawn, length);
            spread += v;
            assert!(
                within_deviations(ours, drawn, v, 4.0),
                "{case}: region {i} rewrites {ours}, fio {drawn}"
            );
        }
        let fio_writes: u64 = fio.first_writes.iter().chain(&fio.rewrites).sum();
        assert!(
            within_deviations(plan.writes(), fio_writes, spread, 3.0),
            "{case}: {} writes, fio {fio_writes}",
            plan.writes()
        );
        compared += 1;
    }
    assert!(compared > 200, "only {compared} configurations compared");
    assert!(
        stretched < compared / 4,
        "{stretched} of fio's passes stretched"
    );
}

#[test]
fn what_fio_refuses_diskbench_refuses() {
    for f in figures().iter().filter(|f| f.refused) {
        let said = Plan::new(f.user_blocks, f.block_bytes, &f.spr)
            .expect_err(&f.case)
            .to_string();
        assert!(said.contains("spr_"), "{}: {said}", f.case);
    }
}

/// diskbench refuses a few plans fio runs: more regions than writes (fio
/// then writes one block per region, or dies), and caches larger than the
/// fresh writes of a region (fio only asks for no more than a region).
#[test]
fn diskbench_refuses_only_empty_regions_and_caches_past_the_fresh_writes() {
    for (f, fio, plan) in fio_ran() {
        let Err(said) = plan.map_err(|e| e.to_string()) else {
            continue;
        };
        match fio.region_writes == 0 {
            true => assert!(said.contains("spr_num_regions"), "{}: {said}", f.case),
            false => assert!(said.contains("spr_cs"), "{}: {said}", f.case),
        }
    }
}
