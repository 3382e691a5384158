//! `sprandom`, `spr_op`, `spr_num_regions` and `spr_cs` (fio 3.42): one
//! pass that preconditions a drive for random writes (see
//! `model::job::SpRandom`; the sequence of writes is the runner's
//! `offsets::sprandom`).
//!
//! The pass picks every offset itself, so it is refused, naming the option
//! in the way, beside anything else that would pick offsets or bound the
//! job's I/O: it is one job writing one file or device (fio's own
//! requirements, with `rw=randwrite`, `norandommap=1` and the `lfsr`
//! generator), and it ends when the pass is written. The `spr_*` options
//! shape the pass and do nothing without `sprandom=1`, as in fio, so that
//! `--spr_op=0.21` on the command line can reach the one job of a file that
//! preconditions.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::job::{Distribution, PerDir, RandomGenerator};
use model::{FileTarget, JobSpec, RwMode};

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let spr = &mut spec.sprandom;
    match o.key {
        Key::SpRandom => spr.enabled = o.boolean()?,
        Key::SprOp => spr.over_provisioning = share(o)?,
        Key::SprNumRegions => {
            spr.regions = o.at_least_one(
                "sprandom needs at least one region: use spr_num_regions=1 or more (fio's \
                 default is 100)",
            )?
        }
        Key::SprCs => spr.cache_bytes = o.size()?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `spr_op`: a share strictly between 0 and 1.
fn share(o: &Given) -> Result<f64, FioError> {
    match o.text.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(o.invalid(
            "the over-provisioning is a share between 0 and 1 (exclusive), as the drive's \
             maker states it: e.g. spr_op=0.07, or 0.28",
        )),
    }
}

/// With `sprandom=1`, what the job must and must not have, once it is
/// complete. `norandommap` left out is set, as fio sets it; given as 0, it
/// is refused, as fio refuses it.
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    if !spec.sprandom.enabled {
        return Ok(());
    }
    let scope = Scope::Job(spec.name.clone());
    let refuse = |option: &str, value: String, why: &str| {
        Err(FioError::invalid(
            &scope,
            option,
            &value,
            format!("sprandom {why}"),
        ))
    };
    if spec.rw != RwMode::RandWrite {
        return refuse(
            "rw",
            spec.rw.fio_name().into(),
            "is a pass of random writes: use rw=randwrite (fio refuses other modes too)",
        );
    }
    let named = |name: &str| spec.options.iter().any(|(k, _)| k == name);
    let named_generator = named("random_generator");
    if !named("norandommap") {
        spec.random.norandommap = true;
    }
    if !spec.random.norandommap {
        return refuse(
            "norandommap",
            "0".into(),
            "rewrites blocks on purpose, which fio's random map forbids: add norandommap=1 \
             (fio requires it too)",
        );
    }
    if named_generator && spec.random.generator != RandomGenerator::Lfsr {
        return refuse(
            "random_generator",
            spec.random.generator.fio_name().into(),
            "uses the lfsr generator (fio refuses any other): use random_generator=lfsr, or \
             leave it out",
        );
    }
    if spec.numjobs > 1 {
        return refuse(
            "numjobs",
            spec.numjobs.to_string(),
            "is one pass by one job over the device: use numjobs=1",
        );
    }
    if let FileTarget::Generated { nrfiles, .. } = spec.target {
        if nrfiles > 1 {
            return refuse(
                "nrfiles",
                nrfiles.to_string(),
                "preconditions one device or file: use nrfiles=1, or name it with filename=",
            );
        }
    }
    if let Some((option, value)) = other_patterns(spec).into_iter().next() {
        return refuse(
            option,
            value,
            &format!("chooses every offset and length of its pass itself: drop {option}"),
        );
    }
    if let Some((option, value)) = other_bounds(spec).into_iter().next() {
        return refuse(
            option,
            value,
            &format!(
                "writes the physical capacity once (the size times 1+spr_op) and ends: drop \
                 {option} (fio ignores it there)"
            ),
        );
    }
    Ok(())
}

/// The options set that would choose offsets or lengths of their own.
fn other_patterns(spec: &JobSpec) -> Vec<(&'static str, String)> {
    let r = &spec.random;
    let given = |name: &str| {
        let value = spec.options.iter().rev().find(|(k, _)| k == name);
        value.map_or_else(String::new, |(_, v)| v.clone())
    };
    let mut found = Vec::new();
    if spec.block_sizes.is_some() {
        found.push(("bsrange/bssplit", "several sizes".to_string()));
    }
    let align = *spec.blockalign_bytes.get(model::Direction::Write);
    if align != 0 && align != spec.bs_bytes {
        found.push(("blockalign", align.to_string()));
    }
    if *r.distribution.get(model::Direction::Write) != Distribution::Random {
        found.push(("random_distribution", given("random_distribution")));
    }
    if r.percentage_random != PerDir::both(100) {
        found.push(("percentage_random", given("percentage_random")));
    }
    if spec.offset_steps.rw_step.is_some() {
        found.push(("the rw offset modifier", given("rw")));
    }
    if spec.offset_steps.strided.is_some() {
        found.push(("zonemode", "strided".to_string()));
    }
    if spec.iolog.replays() {
        found.push(("read_iolog", given("read_iolog")));
    }
    found
}

/// The options set that would bound the job's I/O otherwise than the pass.
fn other_bounds(spec: &JobSpec) -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    if spec.time_based {
        found.push(("time_based", "1".to_string()));
    }
    if let Some(bytes) = spec.io_size_bytes {
        found.push(("io_size", bytes.to_string()));
    }
    if spec.loops > 1 {
        found.push(("loops", spec.loops.to_string()));
    }
    found
}

/// What `--parse-only` shows of these: each one set away from fio's default.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let (spr, d) = (&job.sprandom, model::job::SpRandom::default());
    if !spr.enabled {
        return;
    }
    opts.push(("sprandom", Some("1".to_string())));
    if spr.over_provisioning != d.over_provisioning {
        opts.push(("spr_op", Some(spr.over_provisioning.to_string())));
    }
    if spr.regions != d.regions {
        opts.push(("spr_num_regions", Some(spr.regions.to_string())));
    }
    if spr.cache_bytes != d.cache_bytes {
        opts.push(("spr_cs", Some(spr.cache_bytes.to_string())));
    }
}
