//! The lines fio's normal output prints before any result, which scripts
//! written for fio read (the job's group, its block sizes, its engine, how
//! many processes started, whether the files were laid out or reused):
//!
//! ```text
//! j: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1
//! fio-3.33
//! Starting 1 process
//! j: Laying out IO file (1 file / 4MiB)
//!
//! j: (groupid=0, jobs=1): err= 0: pid=28233: Fri Nov 27 23:11:49 2026
//! ```
//!
//! fio 3.33's rules: one line per job, and for a job with `numjobs` above
//! one a single `...` line standing for its other clones (two separate jobs
//! with the same options each get their line); no line for an engine that
//! does no I/O (`cpuio`, whose clones each say their load as they start),
//! though its clones still get the `...`. Block sizes are printed as fio's `num2str` with 4
//! figures (`4096B`, `16.0KiB`, `1024KiB`), in KiB or in kB as `kb_base`
//! says; the trim sizes are the write ones (diskbench keeps no others). The
//! `Starting` line counts every clone, threads (`thread`) apart from
//! processes. A clone whose files were missing or short gets a `Laying out`
//! line with the files' whole length in whole MiB. The blank line ends the
//! header, and each job's result line carries the process id and the time
//! it was printed.

use crate::format::num2str;
use model::cpuio::CpuMode;
use model::job::PerDir;
use model::{Direction, EngineKind, JobSpec};

/// The job lines, then `fio-3.33` and the `Starting` line; `jobs` are every
/// job of the run in order, each with its `groupid`.
pub fn before_run(jobs: &[(&JobSpec, u32)]) -> String {
    let mut out = String::new();
    for &(spec, gid) in jobs {
        // An engine that does no I/O gets no line, but its clones do get
        // their `...`, as in fio.
        if spec.engine != EngineKind::Cpuio {
            out.push_str(&job_line(spec, gid));
        }
        if spec.numjobs > 1 {
            out.push_str("...\n");
        }
    }
    out.push_str(model::result::FIO_VERSION);
    out.push('\n');
    let count = |threads: bool| -> u32 {
        (jobs.iter())
            .filter(|(spec, _)| spec.thread == threads)
            .map(|(spec, _)| spec.numjobs.max(1))
            .sum()
    };
    let (threads, processes) = (count(true), count(false));
    let plural = |n: u32, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let mut started = Vec::new();
    if threads > 0 {
        started.push(plural(threads, "thread", "threads"));
    }
    if processes > 0 {
        started.push(plural(processes, "process", "processes"));
    }
    out.push_str(&format!("Starting {}\n", started.join(" and ")));
    out
}

/// `NAME: (g=N): rw=..., bs=(R) A-B, (W) C-D, (T) E-F, ioengine=E, iodepth=N`.
fn job_line(spec: &JobSpec, gid: u32) -> String {
    let pow2 = !spec.units.kb_base_1000;
    let sizes = |dir: Direction| {
        let sizes = spec.block_sizes_of(dir);
        (sizes.min_bytes(), sizes.max_bytes())
    };
    let (given, trims) = match &spec.bs_as_given {
        Some(given) => (given.sizes, given.trim),
        None => {
            let given = PerDir {
                read: sizes(Direction::Read),
                write: sizes(Direction::Write),
            };
            (given, given.write)
        }
    };
    let range = |(min, max): (u64, u64)| {
        format!(
            "{}-{}",
            num2str(min, 4, pow2, "B"),
            num2str(max, 4, pow2, "B")
        )
    };
    let (read, write) = (range(given.read), range(given.write));
    let bs = match spec.bs_is_seq_rand {
        true => format!("(R) {read}, (W) {write}, bs_is_seq_rand"),
        false => format!("(R) {read}, (W) {write}, (T) {}", range(trims)),
    };
    // `sync` runs as psync, and fio names it as it was given.
    let given = spec.options.iter().rev().find(|(k, _)| k == "ioengine");
    let engine = match given {
        Some((_, v)) if v == "sync" => "sync",
        _ => spec.engine.fio_name(),
    };
    format!(
        "{}: (g={gid}): rw={}, bs={bs}, ioengine={engine}, iodepth={}\n",
        spec.name,
        spec.rw.fio_name(),
        spec.iodepth
    )
}

/// What fio's `cpuio` engine says as each clone starts: `NAME (noop):
/// ioengine=cpuio, cpuload=10, cpucycle=50000` (its burst in µs).
pub fn cpuio_lines(jobs: &[&JobSpec]) -> String {
    let mut out = String::new();
    for spec in jobs {
        let Some(load) = spec
            .cpuio
            .as_ref()
            .filter(|_| spec.engine == EngineKind::Cpuio)
        else {
            continue;
        };
        for _ in 0..spec.numjobs.max(1) {
            out.push_str(&format!(
                "{} ({}): ioengine=cpuio, cpuload={}, cpucycle={}\n",
                spec.name,
                match load.mode {
                    CpuMode::Noop => "noop",
                    CpuMode::Qsort => "qsort",
                },
                load.load_pct,
                load.chunk.as_micros()
            ));
        }
    }
    out
}

/// `NAME: Laying out IO file (1 file / 4MiB)`, or `IO files (3 files /
/// total 12MiB)`: `bytes` is the files' whole length together.
pub fn laying_out(job: &str, files: u32, bytes: u64) -> String {
    let mib = bytes >> 20;
    match files {
        1 => format!("{job}: Laying out IO file (1 file / {mib}MiB)\n"),
        n => format!("{job}: Laying out IO files ({n} files / total {mib}MiB)\n"),
    }
}

/// What a job's result line ends with after `err= N`: `: pid=P: DATE`, in
/// C's `ctime` layout (UTC here).
pub fn stamp(pid: u32, unix_secs: u64) -> String {
    format!(": pid={pid}: {}", dates::ctime_utc(unix_secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::job::BlockSizes;
    use model::RwMode;

    fn job(name: &str) -> JobSpec {
        JobSpec {
            rw: RwMode::RandRead,
            ..JobSpec::new(name)
        }
    }

    /// fio 3.33's own lines for the same jobs (`fio --name=j --rw=randread`,
    /// then a randrw job with bsrange=4k-16k and numjobs=3, a write job with
    /// bssplit=4k/50:8k/50 and thread, and a read job after a stonewall).
    #[test]
    fn the_lines_before_the_run_are_fios() {
        let one = job("j");
        assert_eq!(
            before_run(&[(&one, 0)]),
            "j: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
             ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n"
        );
        let range = BlockSizes::Range {
            min_bytes: 4096,
            max_bytes: 16384,
        };
        let a = JobSpec {
            rw: RwMode::RandRw,
            numjobs: 3,
            block_sizes: Some(PerDir::both(range)),
            ..JobSpec::new("a")
        };
        let split = BlockSizes::Range {
            min_bytes: 4096,
            max_bytes: 8192,
        };
        let b = JobSpec {
            rw: RwMode::Write,
            thread: true,
            block_sizes: Some(PerDir::both(split)),
            ..JobSpec::new("b")
        };
        let c = JobSpec::new("c");
        let text = before_run(&[(&a, 0), (&b, 0), (&c, 1)]);
        assert_eq!(
            text,
            "a: (g=0): rw=randrw, bs=(R) 4096B-16.0KiB, (W) 4096B-16.0KiB, (T) 4096B-16.0KiB, \
             ioengine=psync, iodepth=1\n...\n\
             b: (g=0): rw=write, bs=(R) 4096B-8192B, (W) 4096B-8192B, (T) 4096B-8192B, \
             ioengine=psync, iodepth=1\n\
             c: (g=1): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
             ioengine=psync, iodepth=1\n\
             fio-3.33\nStarting 1 thread and 4 processes\n"
        );
    }

    #[test]
    fn laying_out_counts_files_and_whole_mebibytes_as_fio_does() {
        assert_eq!(
            laying_out("j", 1, 4 << 20),
            "j: Laying out IO file (1 file / 4MiB)\n"
        );
        assert_eq!(
            laying_out("j", 3, 3 << 20),
            "j: Laying out IO files (3 files / total 3MiB)\n"
        );
        assert_eq!(
            laying_out("j", 2, 64 << 10),
            "j: Laying out IO files (2 files / total 0MiB)\n"
        );
    }

    #[test]
    fn the_stamp_is_the_pid_and_cs_ctime() {
        assert_eq!(
            stamp(28233, 1_795_313_286),
            ": pid=28233: Sun Nov 22 02:08:06 2026"
        );
    }
}
