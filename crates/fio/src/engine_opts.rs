//! `iomem`/`mem` (where the I/O buffers come from) and fio's io_uring
//! options (`fixedbufs`, `registerfiles`, `sqthread_poll`,
//! `sqthread_poll_cpu`, `hipri`), and `uncached` and `atomic`, the per-I/O
//! flags, parsed into `JobSpec::iomem` and `JobSpec::uring`. Whether the
//! device takes atomic writes of the job's size is known only at run time
//! (the runner's `atomic` asks statx).
//!
//! fio knows its io_uring options only once `ioengine=io_uring` is set, and
//! with any other engine says "unrecognized option" (fio 3.33). diskbench
//! checks once the job is complete, so the order of the options does not
//! matter, and refuses them by name with another engine rather than ignore
//! them: a job that asks for polled completions and silently gets
//! interrupts measures something else.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::{EngineKind, IoMem, JobSpec};

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let uring = &mut spec.uring;
    match o.key {
        Key::IoMem => spec.iomem = iomem(o.scope, o.name, o.text)?,
        Key::FixedBufs => uring.fixedbufs = Some(o.flag()?),
        Key::RegisterFiles => uring.registerfiles = Some(o.flag()?),
        Key::SqThreadPoll => uring.sqthread_poll = Some(o.flag()?),
        Key::SqThreadPollCpu => uring.sqthread_poll_cpu = Some(o.int_u32()?),
        Key::HiPri => uring.hipri = Some(o.flag()?),
        Key::Uncached => uring.uncached = Some(o.boolean()?),
        Key::Atomic => uring.atomic = Some(o.boolean()?),
        _ => return Ok(false),
    }
    Ok(true)
}

fn iomem(scope: &Scope, name: &str, text: &str) -> Result<IoMem, FioError> {
    let t = text.trim();
    if let Some(kind) = IoMem::parse(t) {
        return Ok(kind);
    }
    let problem = match t.split_once(':') {
        Some((kind @ ("mmap" | "mmaphuge" | "mmapshared"), _)) => format!(
            "a buffer mapped from a file is not carried out, diskbench maps anonymous memory \
             only: use iomem={kind} without the path{}",
            match kind {
                "mmaphuge" =>
                    " (its huge pages come from /proc/sys/vm/nr_hugepages, no \
                               hugetlbfs mount needed)",
                _ => "",
            }
        ),
        _ if t == "cudamalloc" => {
            "GPU memory needs fio's rdma engine, which diskbench does not have: use one of \
             malloc, shm, shmhuge, mmap, mmaphuge, mmapshared"
                .to_string()
        }
        _ => format!("use one of {}", IoMem::FIO_NAMES.join(", ")),
    };
    Err(FioError::invalid(scope, name, text, problem))
}

/// Once the job is complete: the io_uring options need the io_uring engine,
/// and a polling thread's CPU needs the polling thread.
pub(crate) fn finish(spec: &JobSpec) -> Result<(), FioError> {
    let scope = Scope::Job(spec.name.clone());
    let given = |name: &str| {
        spec.options
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map_or("1".to_string(), |(_, v)| v.clone())
    };
    // pvsync2 has two of them, as flags of each I/O.
    let u = &spec.uring;
    let pvsync2_only = u.uncached.is_some() && spec.engine != EngineKind::Pvsync2;
    let for_pvsync2 = spec.engine == EngineKind::Pvsync2 && {
        let mut rest = *u;
        (rest.hipri, rest.uncached) = (None, None);
        rest.first_given().is_none()
    };
    let atomic_engines = [EngineKind::Pvsync2, EngineKind::Libaio, EngineKind::IoUring];
    if u.atomic() && !atomic_engines.contains(&spec.engine) {
        return Err(FioError::invalid(
            &scope,
            "atomic",
            &given("atomic"),
            format!(
                "atomic=1 writes with RWF_ATOMIC, which ioengine=pvsync2, libaio and io_uring \
                 carry out, and this job's ioengine is {} (fio: \"engine does not support \
                 atomic writes\"): use one of those, or drop atomic",
                spec.engine.fio_name()
            ),
        ));
    }
    if pvsync2_only {
        return Err(FioError::invalid(
            &scope,
            "uncached",
            &given("uncached"),
            format!(
                "uncached (RWF_DONTCACHE) is carried out with ioengine=pvsync2, and this job's \
                 ioengine is {}: use ioengine=pvsync2, or drop uncached",
                spec.engine.fio_name()
            ),
        ));
    }
    if let Some(name) = spec.uring.first_given().filter(|_| !for_pvsync2) {
        if spec.engine != EngineKind::IoUring {
            return Err(FioError::invalid(
                &scope,
                name,
                &given(name),
                format!(
                    "{name} is an option of the io_uring engine, and this job's ioengine is {} \
                     (fio does not know it there either): use ioengine=io_uring, or drop {name}",
                    spec.engine.fio_name()
                ),
            ));
        }
    }
    if spec.engine == EngineKind::Ftruncate && spec.rw.reads() {
        return Err(FioError::invalid(
            &scope,
            "rw",
            spec.rw.fio_name(),
            "the ftruncate engine sets a file's length at each write's offset and has no \
             reads (as in fio): use rw=write or rw=randwrite",
        ));
    }
    if spec.engine == EngineKind::Mmap {
        mmap_block_size(spec, &scope)?;
    }
    if spec.uring.sqthread_poll_cpu.is_some() && !spec.uring.sqpoll() {
        return Err(FioError::invalid(
            &scope,
            "sqthread_poll_cpu",
            &given("sqthread_poll_cpu"),
            "it places the polling thread of sqthread_poll, which this job does not have: add \
             sqthread_poll=1, or drop sqthread_poll_cpu",
        ));
    }
    Ok(())
}

/// The mmap engine syncs whole pages (msync), so a job that asks for
/// direct=1 (each I/O's pages msynced) or fsync=/fdatasync= needs blocks of
/// whole pages, as fio checks ("mmap options dictate a minimum block size").
/// The page size is x86_64's and most arm64 kernels' 4 KiB.
fn mmap_block_size(spec: &JobSpec, scope: &Scope) -> Result<(), FioError> {
    const PAGE: u64 = 4096;
    let syncs = [
        ("direct", spec.direct as u32),
        ("fsync", spec.fsync_every),
        ("fdatasync", spec.fdatasync_every),
    ];
    let Some((option, value)) = syncs.into_iter().find(|s| s.1 > 0) else {
        return Ok(());
    };
    let smallest = [model::Direction::Read, model::Direction::Write]
        .into_iter()
        .map(|d| spec.block_sizes_of(d).min_bytes())
        .min()
        .unwrap_or(spec.bs_bytes);
    if smallest % PAGE == 0 {
        return Ok(());
    }
    Err(FioError::invalid(
        scope,
        option,
        &value.to_string(),
        format!(
            "with ioengine=mmap, {option}= syncs the mapping's pages (msync), so blocks must be \
             whole pages of {PAGE} bytes and this job's smallest is {smallest} (fio refuses it \
             too): use bs=4k or a multiple, or drop {option}"
        ),
    ))
}

/// The options that differ from diskbench's defaults, for `--parse-only`.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    if job.iomem != IoMem::Default {
        opts.push(("iomem", Some(job.iomem.fio_name().to_string())));
    }
    let u = &job.uring;
    let flags = [
        ("fixedbufs", u.fixedbufs),
        ("registerfiles", u.registerfiles),
        ("sqthread_poll", u.sqthread_poll),
        ("hipri", u.hipri),
        ("uncached", u.uncached),
        ("atomic", u.atomic),
    ];
    for (name, value) in flags {
        if let Some(v) = value {
            opts.push((name, Some(u8::from(v).to_string())));
        }
    }
    if let Some(cpu) = u.sqthread_poll_cpu {
        opts.push(("sqthread_poll_cpu", Some(cpu.to_string())));
    }
}
