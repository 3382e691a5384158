//! The warnings a job's figures earn once it has run: a worker that was
//! CPU-bound (the benchmark, not the disk, was the limit), buffered I/O on
//! a data set the page cache can hold, a synchronous engine asked for a
//! depth it cannot keep, an asynchronous one that did not keep its depth
//! (Little's law: IOPS x mean latency), and a run too short to trust.

use crate::worker::WorkerOutcome;
use model::{EngineKind, JobSpec, Warning};

/// A worker busier than this share of its wall time was CPU-bound.
const CPU_BOUND_PCT: f64 = 90.0;

/// A queue kept below this share of `iodepth` gets a warning. The ends of a
/// job (filling the queue, draining it) cost a few percent on short runs.
const DEPTH_KEPT_SHARE: f64 = 0.9;

/// Adds the warnings of `spec`, run by `engine` in `outcomes` (its clones).
pub(crate) fn add(
    spec: &JobSpec,
    engine: EngineKind,
    outcomes: &[&WorkerOutcome],
    host: &model::HostInfo,
    warnings: &mut Vec<Warning>,
) {
    // create_only: no I/O was asked for, so nothing to warn about.
    // The file-operation engines move no data: cache, depth and CPU
    // warnings about I/O do not apply.
    if spec.engine == EngineKind::Null || spec.engine.is_file_op() || spec.file_options.create_only
    {
        return;
    }
    let busiest = outcomes
        .iter()
        .filter(|o| o.runtime_ns > 0)
        .map(|o| (o.cpu.user_ns + o.cpu.system_ns) as f64 * 100.0 / o.runtime_ns as f64)
        .fold(0.0, f64::max);
    if busiest > CPU_BOUND_PCT {
        warnings.push(Warning::CpuBound {
            job: spec.name.clone(),
            cpu_pct: busiest.min(100.0),
        });
    }
    let data = spec.footprint_bytes();
    // Writes that each wait for their sync (fsync=1, fdatasync=1, sync=)
    // and no reads: the cache cannot hold what the job measures.
    let every_write_synced = spec.fsync_every == 1
        || spec.fdatasync_every == 1
        || spec.file_options.sync != model::fileopts::SyncWrites::None;
    let cache_serves = spec.rw.reads() || !every_write_synced;
    if !spec.direct && cache_serves && host.mem_bytes > 0 && data < 2 * host.mem_bytes {
        warnings.push(Warning::DataSetFitsInCache {
            job: spec.name.clone(),
            data_bytes: data,
            ram_bytes: host.mem_bytes,
        });
    }
    if matches!(engine, EngineKind::Sync | EngineKind::Mmap) && spec.iodepth > 1 {
        warnings.push(Warning::DepthCapped {
            job: spec.name.clone(),
            engine: engine.fio_name().to_string(),
            iodepth: spec.iodepth,
        });
    }
    // The depth is kept on purpose only by an asynchronous engine running
    // flat out: a rate, a thinktime, iodepth_low or a latency target (whose
    // search sets the depth) keep it lower by design.
    let flat_out =
        !spec.rate.caps() && spec.thinktime.think.is_zero() && !spec.latency_target.is_on();
    let asynchronous = engine.is_asynchronous();
    if asynchronous && flat_out && spec.iodepth > 1 && spec.iodepth_low.is_none() {
        let mut depth = model::DepthStats::default();
        outcomes.iter().for_each(|o| depth.add(&o.depth));
        let kept = depth.mean().unwrap_or(spec.iodepth as f64);
        if kept < DEPTH_KEPT_SHARE * spec.iodepth as f64 {
            warnings.push(Warning::DepthNotKept {
                job: spec.name.clone(),
                mean_depth: kept,
                iodepth: spec.iodepth,
            });
        }
    }
    let runtime_ms = outcomes.iter().map(|o| o.runtime_ns).max().unwrap_or(0) / 1_000_000;
    if runtime_ms < 500 {
        warnings.push(Warning::ShortRun {
            job: spec.name.clone(),
            runtime_ms,
        });
    }
}
