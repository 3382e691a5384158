//! One clone's plan, made before its group starts: its files laid out
//! (or none, for cpuio, and the null engine's sizes without data), its
//! engine opened (or the fallback said), and the blocks it will issue.
//! The worker then only does I/O.

use crate::files::{self, prepare_clone, CloneFiles};
use crate::offsets::{self, Region};
use crate::worker::WorkerPlan;
use crate::{atomic, distribution, fileset, one_file, opfiles};
use crate::{RunError, RunOptions, Workspace};
use engine::{open_with_fallback, EngineConfig};
use model::{EngineKind, JobSpec, Warning};
use std::sync::Arc;

pub(crate) fn plan_clone(
    spec: &Arc<JobSpec>,
    clone: u32,
    ws: &mut Workspace,
    opts: &RunOptions,
    warnings: &mut Vec<Warning>,
) -> Result<WorkerPlan, RunError> {
    let files = if spec.engine == EngineKind::Cpuio {
        // No file: one region the worker never finishes (the job is time-bound).
        CloneFiles {
            paths: Vec::new(),
            files: Vec::new(),
            regions: vec![Region {
                base: 0,
                blocks: u64::MAX / spec.bs_bytes.max(1),
                block_bytes: spec.bs_bytes,
            }],
            mem_align: 64,
            set: None,
        }
    } else if spec.engine == EngineKind::Null {
        // fio sizes the files by filesize= when size= is not given.
        let size = spec
            .size_bytes
            .or(spec.file_options.filesize.map(|f| f.max_bytes))
            .ok_or_else(|| {
                RunError::Usage(format!(
                    "job '{}': the null engine needs size= or filesize=",
                    spec.name
                ))
            })?;
        // Every read of a verify pass would "find" a wrong block.
        if spec.verify.is_some() {
            return Err(RunError::Usage(format!(
                "job '{}': ioengine=null keeps no data, so there is nothing to verify: drop \
                 verify=, or use psync, libaio or io_uring",
                spec.name
            )));
        }
        CloneFiles {
            paths: Vec::new(),
            files: Vec::new(),
            regions: null_regions(spec, clone, size),
            mem_align: 64,
            set: None,
        }
    } else if spec.engine.is_file_op() {
        opfiles::prepare(spec, clone, ws, &opts.stop, opts.allow_overwrite)?
    } else {
        prepare_clone(
            spec,
            clone,
            ws,
            files::Allow {
                destructive: opts.allow_destructive,
                mounted_write: opts.allow_mounted_write,
                overwrite: opts.allow_overwrite,
            },
            &opts.stop,
            warnings,
        )?
    };
    atomic::check(spec, &files.paths)?;
    let cfg = EngineConfig {
        files: files.files.into(),
        paths: files.paths.into(),
        depth: spec.iodepth.max(1),
        block_bytes: spec.bs_bytes as usize,
        align: files.mem_align,
        iomem: spec.iomem,
        uring: spec.uring,
        advice: one_file::advice_for(spec),
    };
    let (engine, fallback) = match spec.cpuio {
        Some(load) if spec.engine == EngineKind::Cpuio => {
            engine::CpuEngine::new(&cfg, load).map(|e| (engine::AnyEngine::Cpu(e), None))
        }
        _ => open_with_fallback(spec.engine, &cfg),
    }
    .map_err(|e| RunError::in_job(&spec.name, e))?;
    let engine = match engine {
        engine::AnyEngine::FileOp(e) => engine::AnyEngine::FileOp(e.with_stat(spec.stat_type)),
        other => other,
    };
    let engine = engine.with_faults(&opts.faults);
    if let Some(f) = fallback.as_ref().filter(|f| f.used == EngineKind::Sync) {
        // psync has no per-I/O priority: the job would measure without them.
        if spec.prio.per_io() {
            return Err(RunError::in_job(
                &spec.name,
                RunError::Other(format!(
                    "cmdprio_* gives I/Os priorities of their own, which only libaio and \
                     io_uring carry, and this machine refused {} ({}): enable io_uring or \
                     libaio, or use prio/prioclass for the whole job",
                    f.wanted.fio_name(),
                    f.reason
                )),
            ));
        }
    }
    if let Some(f) = fallback {
        let w = Warning::EngineFallback {
            job: spec.name.clone(),
            wanted: f.wanted.fio_name().to_string(),
            used: f.used.fio_name().to_string(),
            reason: f.reason,
        };
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    let per_pass = offsets::gapped_pass_blocks(spec, &files.regions)
        .unwrap_or_else(|| files.regions.iter().map(|r| r.blocks).sum());
    let per_pass = fileset::pass_blocks(spec, per_pass);
    let sprandom = offsets::SpRandomPlan::for_job(spec, &files.regions)
        .map_err(|why| RunError::Usage(format!("job '{}': {why}", spec.name)))?;
    // sprandom's pass is the job's whole I/O.
    let io_budget = match &sprandom {
        Some(plan) => Some(plan.writes()),
        None => fileset::io_budget(
            spec,
            per_pass,
            engine::Engine::capabilities(&engine).asynchronous,
        ),
    };
    distribution::check_sequence(spec, &files.regions, io_budget)?;
    Ok(WorkerPlan {
        spec: Arc::clone(spec),
        place: (0, 0),
        clone,
        regions: files.regions,
        engine,
        engine_cfg: cfg,
        io_budget,
        sprandom,
        thread_number: 0,
        job_stop: None,
        group_exit: None,
        flow: None,
        file_set: files.set,
        stable_stop: opts.stable_stop.filter(|_| spec.time_based),
        dedupe: None,
    })
}

/// The null engine's "files": fio lays out `nrfiles` of them (each `size`
/// split evenly, or `filesize`) and does I/O in whole blocks of each, even
/// with no data behind them, so `size=1m nrfiles=3` reads 3 x 340 KiB
/// (1020 KiB) and `nrfiles=3 filesize=128k` reads 384 KiB, as with real files.
fn null_regions(spec: &JobSpec, clone: u32, size: u64) -> Vec<Region> {
    let nrfiles = spec.files_per_clone().max(1) as usize;
    let lengths = match spec.file_options.filesize {
        Some(_) => fileset::lengths(spec, clone, nrfiles),
        None => vec![(0, size / nrfiles as u64); nrfiles],
    };
    lengths
        .into_iter()
        .map(|(_, io_bytes)| Region {
            base: spec.offset_bytes,
            blocks: (io_bytes / spec.bs_bytes).max(1),
            block_bytes: spec.bs_bytes,
        })
        .collect()
}
