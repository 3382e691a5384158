//! `ioengine=cpuio` and its options (`cpuload`, `cpuchunks`, `cpumode`,
//! `exit_on_io_done`), read into `JobSpec::cpuio`.
//!
//! fio runs cpuio as an engine whose every I/O is a burst of CPU and sets
//! the job's thinktime so the bursts make `cpuload` percent of one CPU;
//! diskbench does the same (the thinktime is set here, as fio's engine sets
//! it, and replaces one the job gave). The job moves no data, so it is
//! bound by time: it needs `runtime` or `exit_on_io_done=1`, or it would
//! never end. The options with another engine are refused by name.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::cpuio::{CpuLoad, CpuMode};
use model::{EngineKind, JobSpec};
use std::time::Duration;

fn load(spec: &mut JobSpec) -> &mut CpuLoad {
    spec.cpuio.get_or_insert(CpuLoad {
        load_pct: 0,
        chunk: CpuLoad::DEFAULT_CHUNK,
        mode: CpuMode::Noop,
        exit_on_io_done: false,
    })
}

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    match o.key {
        // fio takes any number and caps it at 100.
        Key::CpuLoad => load(spec).load_pct = o.int_u32()?.min(100),
        Key::CpuChunks => {
            let us = o.int_u32()?;
            if us == 0 {
                return Err(FioError::invalid(
                    o.scope,
                    o.name,
                    o.text,
                    "a burst of 0 µs burns nothing: give microseconds, e.g. cpuchunks=50000",
                ));
            }
            load(spec).chunk = Duration::from_micros(u64::from(us));
        }
        Key::CpuMode => {
            load(spec).mode = match o.text.trim() {
                "noop" => CpuMode::Noop,
                "qsort" => CpuMode::Qsort,
                _ => {
                    return Err(FioError::invalid(
                        o.scope,
                        o.name,
                        o.text,
                        "cpumode is noop (a busy loop) or qsort (sorting)",
                    ))
                }
            }
        }
        Key::ExitOnIoDone => load(spec).exit_on_io_done = o.flag()?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Once the job is complete: checks the options against the engine and
/// makes a cpuio job what fio makes of it (its thinktime, time-bound).
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    let scope = Scope::Job(spec.name.clone());
    let given = |spec: &JobSpec, name: &str| {
        spec.options
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map_or("1".to_string(), |(_, v)| v.clone())
    };
    let Some(cpu) = spec.cpuio else {
        if spec.engine == EngineKind::Cpuio {
            return Err(FioError::invalid(
                &scope,
                "ioengine",
                "cpuio",
                "cpuio needs the CPU share to burn: add cpuload=PERCENT (fio refuses it \
                 without one too)",
            ));
        }
        return Ok(());
    };
    if spec.engine != EngineKind::Cpuio {
        let name = ["cpuload", "cpuchunks", "cpumode", "exit_on_io_done"]
            .into_iter()
            .find(|n| spec.options.iter().any(|(k, _)| k == n))
            .unwrap_or("cpuload");
        return Err(FioError::invalid(
            &scope,
            name,
            &given(spec, name),
            format!(
                "{name} is an option of the cpuio engine, and this job's ioengine is {}: use \
                 ioengine=cpuio, or drop {name}",
                spec.engine.fio_name()
            ),
        ));
    }
    if cpu.load_pct == 0 {
        return Err(FioError::invalid(
            &scope,
            "cpuload",
            &given(spec, "cpuload"),
            "cpuio needs a CPU share above 0: give cpuload=1 to 100",
        ));
    }
    if spec.runtime.is_none() && !cpu.exit_on_io_done {
        return Err(FioError::invalid(
            &scope,
            "ioengine",
            "cpuio",
            "a cpuio job moves no data, so only time ends it: give runtime=, or \
             exit_on_io_done=1 to end with the I/O jobs beside it",
        ));
    }
    if spec.verify.is_some() {
        return Err(FioError::invalid(
            &scope,
            "verify",
            &given(spec, "verify"),
            "a cpuio job moves no data, so there is nothing to verify: drop verify",
        ));
    }
    spec.time_based = true;
    spec.thinktime = model::job::ThinkTime {
        think: cpu.idle(),
        ..model::job::ThinkTime::default()
    };
    Ok(())
}

/// The options that differ from fio's defaults, for `--parse-only`.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let Some(c) = &job.cpuio else { return };
    opts.push(("cpuload", Some(c.load_pct.to_string())));
    if c.chunk != CpuLoad::DEFAULT_CHUNK {
        opts.push(("cpuchunks", Some(c.chunk.as_micros().to_string())));
    }
    if c.mode == CpuMode::Qsort {
        opts.push(("cpumode", Some("qsort".to_string())));
    }
    if c.exit_on_io_done {
        opts.push(("exit_on_io_done", Some("1".to_string())));
    }
}
