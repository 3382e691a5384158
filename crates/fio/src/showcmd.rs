//! `--parse-only`: the jobs as diskbench understood them, one line per job in
//! fio's command-line form, group by group.
//!
//! fio's `--showcmd` echoes a job file's options as they were written; this
//! prints what diskbench will *run*, after defaults, overrides from the
//! command line, `${VAR}` and `$ncpus` expansion: every line is a valid
//! `diskbench fio` command line for that job, and the lines of all groups put
//! together give the same jobs and groups again (the first job of every group
//! after the first carries `--stonewall`). The core options are always
//! printed; the others only where they differ from fio's defaults.

use crate::spell::{format_duration, format_micros};
use model::job::{BlockSizes, Distribution, FileService, PerDir, RateProcess};
use model::units::format_size;
use model::{FileTarget, JobSpec, RwMode};
use std::fmt::Write;

/// One `# group N` line, then one line per job, for each group.
pub fn showcmd(groups: &[Vec<JobSpec>]) -> String {
    let mut out = String::new();
    for (gid, group) in groups.iter().enumerate() {
        let _ = writeln!(out, "# group {gid}");
        for (i, job) in group.iter().enumerate() {
            out.push_str(&job_line(job, gid > 0 && i == 0));
            out.push('\n');
        }
    }
    out
}

/// One job in command-line form.
pub fn job_line(job: &JobSpec, stonewall: bool) -> String {
    let defaults = JobSpec::new("");
    let mut opts: Vec<(&str, Option<String>)> = vec![("name", Some(job.name.clone()))];
    if stonewall {
        opts.push(("stonewall", None));
    }
    if job.new_group {
        opts.push(("new_group", None));
    }
    shape_opts(job, &mut opts);
    queue_opts(job, &defaults, &mut opts);
    time_and_report_opts(job, &defaults, &mut opts);
    pattern_opts(job, &defaults, &mut opts);
    pace_opts(job, &defaults, &mut opts);
    other_opts(job, &defaults, &mut opts);
    crate::fileopts::show(job, &mut opts);
    crate::verify_opts::show(job, &mut opts);
    crate::engine_opts::show(job, &mut opts);
    crate::cpuio_opts::show(job, &mut opts);
    crate::fileop_opts::show(job, &mut opts);
    crate::offset_opts::show(job, &mut opts);
    crate::control_opts::show(job, &mut opts);
    crate::data_opts::show(job, &mut opts);
    crate::error_opts::show(job, &mut opts);
    crate::iolog_opts::show(job, &mut opts);
    crate::latency_opts::show(job, &mut opts);
    crate::prio_opts::show(job, &mut opts);
    crate::numa_opts::show(job, &mut opts);
    crate::sprandom_opts::show(job, &mut opts);
    unit_opts(job, &mut opts);
    let words: Vec<String> = opts
        .into_iter()
        .map(|(name, value)| match value {
            Some(v) => format!("--{name}={}", quote(&v)),
            None => format!("--{name}"),
        })
        .collect();
    words.join(" ")
}

/// What the job does and where: rw, block sizes, size, offset, its files.
fn shape_opts(job: &JobSpec, opts: &mut Opts) {
    opts.push(("rw", Some(crate::offset_opts::rw_text(job))));
    if matches!(job.rw, RwMode::ReadWrite | RwMode::RandRw) {
        opts.push(("rwmixread", Some(job.rwmix_read_pct.to_string())));
    }
    block_size_opts(job, opts);
    if job.bs_unaligned {
        opts.push(("bs_unaligned", None));
    }
    if let Some(size) = job.size_bytes {
        opts.push(("size", Some(format_size(size))));
    }
    if job.offset_bytes > 0 {
        opts.push(("offset", Some(format_size(job.offset_bytes))));
    }
    match &job.target {
        FileTarget::Named(path) => {
            let all = std::iter::once(path).chain(&job.file_options.also_named);
            let names: Vec<String> = all
                .map(|p| escape_colons(&p.display().to_string()))
                .collect();
            opts.push(("filename", Some(names.join(":"))))
        }
        FileTarget::Generated {
            directory, nrfiles, ..
        } => {
            opts.push((
                "directory",
                Some(escape_colons(&directory.display().to_string())),
            ));
            if *nrfiles != 1 {
                opts.push(("nrfiles", Some(nrfiles.to_string())));
            }
        }
    }
}

/// How the I/O is issued: engine, depth, clones, syncs, loops, direct and the flags that differ from fio's defaults.
fn queue_opts(job: &JobSpec, defaults: &JobSpec, opts: &mut Opts) {
    opts.push(("ioengine", Some(job.engine.fio_name().to_string())));
    opts.push(("iodepth", Some(job.iodepth.to_string())));
    opts.push(("numjobs", Some(job.numjobs.to_string())));
    let numbers = [
        (
            "iodepth_batch_submit",
            job.iodepth_batch_submit,
            defaults.iodepth_batch_submit,
        ),
        ("fsync", job.fsync_every, defaults.fsync_every),
        ("fdatasync", job.fdatasync_every, defaults.fdatasync_every),
        ("loops", job.loops, defaults.loops),
    ];
    for (name, value, default) in numbers {
        if value != default {
            opts.push((name, Some(value.to_string())));
        }
    }
    opts.push(("direct", Some(u8::from(job.direct).to_string())));
    let flags = [
        ("invalidate", job.invalidate, defaults.invalidate),
        ("end_fsync", job.end_fsync, defaults.end_fsync),
        ("randrepeat", job.randrepeat, defaults.randrepeat),
        ("gtod_reduce", job.gtod_reduce, defaults.gtod_reduce),
        (
            "clat_percentiles",
            job.clat_percentiles,
            defaults.clat_percentiles,
        ),
        (
            "lat_percentiles",
            job.lat_percentiles,
            defaults.lat_percentiles,
        ),
    ];
    for (name, value, default) in flags {
        if value != default {
            opts.push((name, Some(u8::from(value).to_string())));
        }
    }
}

/// Caching hints, percentiles, seed, the time options and reporting.
fn time_and_report_opts(job: &JobSpec, defaults: &JobSpec, opts: &mut Opts) {
    if job.fadvise_hint != defaults.fadvise_hint {
        opts.push((
            "fadvise_hint",
            Some(job.fadvise_hint.fio_name().to_string()),
        ));
    }
    if job.percentile_list != defaults.percentile_list {
        let list: Vec<String> = job.percentile_list.iter().map(f64::to_string).collect();
        opts.push(("percentile_list", Some(list.join(":"))));
    }
    if let Some(desc) = &job.description {
        opts.push(("description", Some(desc.clone())));
    }
    let unified = match job.unified_rw {
        model::UnifiedRw::None => None,
        model::UnifiedRw::Mixed => Some("mixed"),
        model::UnifiedRw::Both => Some("both"),
    };
    if let Some(u) = unified {
        opts.push(("unified_rw_reporting", Some(u.to_string())));
    }
    if job.randseed != defaults.randseed {
        opts.push(("randseed", Some(job.randseed.to_string())));
    }
    if let Some(runtime) = job.runtime {
        opts.push(("runtime", Some(format_duration(runtime))));
    }
    if job.time_based {
        opts.push(("time_based", None));
    }
    if !job.ramp_time.is_zero() {
        opts.push(("ramp_time", Some(format_duration(job.ramp_time))));
    }
    if job.group_reporting {
        opts.push(("group_reporting", None));
    }
}

type Opts = Vec<(&'static str, Option<String>)>;

/// `bs` when every I/O has one size, else `bsrange` (and `bssplit` where a
/// direction has one; an empty part leaves that direction to `bsrange`).
fn block_size_opts(job: &JobSpec, opts: &mut Opts) {
    let Some(sizes) = &job.block_sizes else {
        opts.push(("bs", Some(format_size(job.bs_bytes))));
        return;
    };
    let range = |s: &BlockSizes| match s {
        BlockSizes::Range {
            min_bytes,
            max_bytes,
        } => format!("{}-{}", format_size(*min_bytes), format_size(*max_bytes)),
        // The range under a split is the default one, as fio's is.
        BlockSizes::Split(_) => "4k-4k".to_string(),
    };
    let is_split = |s: &BlockSizes| matches!(s, BlockSizes::Split(_));
    if !(is_split(&sizes.read) && is_split(&sizes.write)) {
        opts.push(("bsrange", Some(dirs(sizes, range))));
    }
    let split = |s: &BlockSizes| match s {
        BlockSizes::Split(shares) => {
            let items: Vec<String> = shares
                .iter()
                .map(|s| format!("{}/{}", format_size(s.bytes), s.pct))
                .collect();
            items.join(":")
        }
        BlockSizes::Range { .. } => String::new(),
    };
    if is_split(&sizes.read) || is_split(&sizes.write) {
        opts.push(("bssplit", Some(dirs(sizes, split))));
    }
}

/// fio's `READ,WRITE` form: one value when both are the same.
fn dirs<T: PartialEq>(p: &PerDir<T>, show: impl Fn(&T) -> String) -> String {
    match p.read == p.write {
        true => show(&p.read),
        false => format!("{},{}", show(&p.read), show(&p.write)),
    }
}

/// A size where 0 means "not set": an empty part.
fn size_or_empty(bytes: &u64) -> String {
    match bytes {
        0 => String::new(),
        b => format_size(*b),
    }
}

fn count_or_empty(n: &u64) -> String {
    match n {
        0 => String::new(),
        n => n.to_string(),
    }
}

fn push_if(opts: &mut Opts, name: &'static str, differs: bool, value: impl FnOnce() -> String) {
    if differs {
        opts.push((name, Some(value())));
    }
}

fn distribution(d: &Distribution) -> String {
    let center = |c: &Option<f64>| c.map_or(String::new(), |c| format!(":{c}"));
    let zones = |name: &str, z: &[model::job::Zone], abs: bool| {
        let items: Vec<String> = z
            .iter()
            .map(|z| match abs {
                true => format!("{}/{}", z.access_pct, format_size(z.size as u64)),
                false => format!("{}/{}", z.access_pct, z.size),
            })
            .collect();
        format!("{name}:{}", items.join(":"))
    };
    match d {
        Distribution::Random => "random".to_string(),
        Distribution::Zipf { theta, center: c } => format!("zipf:{theta}{}", center(c)),
        Distribution::Pareto { h, center: c } => format!("pareto:{h}{}", center(c)),
        Distribution::Normal { dev_pct, center: c } => format!("normal:{dev_pct}{}", center(c)),
        Distribution::Zoned(z) => zones("zoned", z, false),
        Distribution::ZonedAbs(z) => zones("zoned_abs", z, true),
        Distribution::Sequence(blocks) => {
            let list: Vec<String> = blocks.iter().map(u64::to_string).collect();
            format!("sequence:{}", list.join(","))
        }
    }
}

/// Offsets: alignment, distribution, random map, files.
fn pattern_opts(job: &JobSpec, defaults: &JobSpec, opts: &mut Opts) {
    let r = &job.random;
    let dr = &defaults.random;
    push_if(
        opts,
        "blockalign",
        job.blockalign_bytes != defaults.blockalign_bytes,
        || dirs(&job.blockalign_bytes, size_or_empty),
    );
    push_if(
        opts,
        "random_distribution",
        r.distribution != dr.distribution,
        || dirs(&r.distribution, distribution),
    );
    if r.norandommap {
        opts.push(("norandommap", None));
    }
    if r.sequence_stride {
        opts.push(("random_sequence_stride", None));
    }
    push_if(
        opts,
        "random_generator",
        r.generator != dr.generator,
        || r.generator.fio_name().to_string(),
    );
    push_if(
        opts,
        "percentage_random",
        r.percentage_random != dr.percentage_random,
        || dirs(&r.percentage_random, u32::to_string),
    );
    let fs = job.file_service;
    push_if(
        opts,
        "file_service_type",
        fs != defaults.file_service,
        || {
            let kind = match fs.kind {
                FileService::RoundRobin => "roundrobin",
                FileService::Sequential => "sequential",
                FileService::Random => "random",
                FileService::Zipf { theta } => return format!("zipf:{theta}"),
                FileService::Pareto { h } => return format!("pareto:{h}"),
                FileService::Normal { dev_pct } => return format!("normal:{dev_pct}"),
            };
            format!("{kind}:{}", fs.switch_every)
        },
    );
}

/// Rates and thinktime.
fn pace_opts(job: &JobSpec, defaults: &JobSpec, opts: &mut Opts) {
    let (r, d) = (&job.rate, &defaults.rate);
    push_if(opts, "rate", r.bytes_per_sec != d.bytes_per_sec, || {
        dirs(&r.bytes_per_sec, size_or_empty)
    });
    push_if(opts, "rate_iops", r.iops != d.iops, || {
        dirs(&r.iops, count_or_empty)
    });
    push_if(
        opts,
        "rate_min",
        r.min_bytes_per_sec != d.min_bytes_per_sec,
        || dirs(&r.min_bytes_per_sec, size_or_empty),
    );
    push_if(opts, "rate_iops_min", r.min_iops != d.min_iops, || {
        dirs(&r.min_iops, count_or_empty)
    });
    push_if(opts, "rate_process", r.process != d.process, || {
        match r.process {
            RateProcess::Linear => "linear".to_string(),
            RateProcess::Poisson => "poisson".to_string(),
        }
    });
    push_if(opts, "rate_cycle", r.cycle_ms != d.cycle_ms, || {
        r.cycle_ms.to_string()
    });
    push_if(opts, "rate_ignore_thinktime", r.ignore_thinktime, || {
        "1".to_string()
    });
    let (t, dt) = (&job.thinktime, &defaults.thinktime);
    push_if(opts, "thinktime", t.think != dt.think, || {
        format_micros(t.think)
    });
    push_if(opts, "thinktime_spin", t.spin != dt.spin, || {
        format_micros(t.spin)
    });
    // thinktime_iotime alone counts no blocks: the parser says so again.
    let by_time_only = !t.iotime.is_zero() && t.blocks == u32::MAX;
    push_if(
        opts,
        "thinktime_blocks",
        t.blocks != dt.blocks && !by_time_only,
        || t.blocks.to_string(),
    );
    push_if(opts, "thinktime_iotime", t.iotime != dt.iotime, || {
        format_duration(t.iotime)
    });
    push_if(opts, "thinktime_blocks_type", t.on_issue, || {
        "issue".to_string()
    });
}

/// Limits, start, CPUs, queue handling, reporting and logs.
fn other_opts(job: &JobSpec, defaults: &JobSpec, opts: &mut Opts) {
    if let Some(bytes) = job.io_size_bytes {
        opts.push(("io_size", Some(format_size(bytes))));
    }
    if let Some(n) = job.number_ios {
        opts.push(("number_ios", Some(n.to_string())));
    }
    let delay = job.startdelay;
    push_if(
        opts,
        "startdelay",
        delay != defaults.startdelay,
        || match delay.min == delay.max {
            true => format_duration(delay.min),
            false => format!(
                "{}-{}",
                format_duration(delay.min),
                format_duration(delay.max)
            ),
        },
    );
    if let Some(cpus) = &job.cpus_allowed {
        opts.push(("cpus_allowed", Some(cpu_list(cpus))));
    }
    if job.cpus_split {
        opts.push(("cpus_allowed_policy", Some("split".to_string())));
    }
    push_if(opts, "fsync_on_close", job.fsync_on_close, || {
        "1".to_string()
    });
    let numbers = [
        (
            "iodepth_batch_complete_min",
            job.iodepth_batch_complete_min,
            defaults.iodepth_batch_complete_min,
        ),
        (
            "iodepth_batch_complete_max",
            job.iodepth_batch_complete_max,
            defaults.iodepth_batch_complete_max,
        ),
    ];
    for (name, value, default) in numbers {
        push_if(opts, name, value != default, || value.to_string());
    }
    if let Some(low) = job.iodepth_low {
        opts.push(("iodepth_low", Some(low.to_string())));
    }
    push_if(opts, "slat_percentiles", job.slat_percentiles, || {
        "1".to_string()
    });
    let logs = &job.logs;
    for (name, prefix) in [
        ("write_bw_log", &logs.bw),
        ("write_iops_log", &logs.iops),
        ("write_lat_log", &logs.lat),
        ("write_hist_log", &logs.hist),
    ] {
        if let Some(prefix) = prefix {
            opts.push((name, Some(prefix.clone())));
        }
    }
    push_if(opts, "log_avg_msec", logs.avg_msec != 0, || {
        logs.avg_msec.to_string()
    });
    push_if(opts, "log_offset", logs.offset, || "1".to_string());
    push_if(opts, "log_hist_msec", logs.hist_msec != 0, || {
        logs.hist_msec.to_string()
    });
    push_if(
        opts,
        "log_hist_coarseness",
        logs.hist_coarseness != 0,
        || logs.hist_coarseness.to_string(),
    );
    push_if(opts, "log_max_value", logs.max_value, || "1".to_string());
    push_if(opts, "log_window_value", logs.both_values, || {
        "both".to_string()
    });
    push_if(opts, "log_issue_time", logs.issue_time, || "1".to_string());
    push_if(opts, "per_job_logs", logs.shared, || "0".to_string());
    push_if(opts, "log_compression", logs.compression != 0, || {
        logs.compression.to_string()
    });
    push_if(opts, "log_store_compressed", logs.store_compressed, || {
        "1".to_string()
    });
}

/// `unit_base` and `kb_base` come last: the sizes above are printed in
/// powers of two (`4k` = 4096), and the command line is read in order, so
/// `--kb_base=1000` after them changes the output's units only.
fn unit_opts(job: &JobSpec, opts: &mut Opts) {
    push_if(opts, "unit_base", job.units.bits, || "1".to_string());
    push_if(opts, "kb_base", job.units.kb_base_1000, || {
        "1000".to_string()
    });
}

/// `0-3,6`: runs of CPUs as ranges.
fn cpu_list(cpus: &[u32]) -> String {
    model::numa::ranges_text(cpus)
}

/// fio separates several files with ':'; one inside a name is written `\:`.
fn escape_colons(path: &str) -> String {
    path.replace(':', "\\:")
}

/// Single-quotes a value the shell would split or expand.
fn quote(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./,:+@%=\\".contains(c));
    if plain {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    #[test]
    fn values_are_quoted_for_the_shell() {
        assert_eq!(quote("/tmp/x"), "/tmp/x");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(escape_colons("/dev/dsk/a:c"), "/dev/dsk/a\\:c");
    }

    #[test]
    fn defaults_are_left_out_and_core_options_kept() {
        let mut job = JobSpec::new("j");
        job.size_bytes = Some(16 << 20);
        job.target = FileTarget::Named(PathBuf::from("/tmp/f"));
        assert_eq!(
            job_line(&job, false),
            "--name=j --rw=read --bs=4k --size=16m --filename=/tmp/f --ioengine=psync \
             --iodepth=1 --numjobs=1 --direct=0"
        );
        job.time_based = true;
        job.runtime = Some(Duration::from_secs(1));
        job.rw = RwMode::RandRw;
        let line = job_line(&job, true);
        assert!(
            line.starts_with("--name=j --stonewall --rw=randrw --rwmixread=50"),
            "{line}"
        );
        assert!(line.ends_with("--runtime=1 --time_based"), "{line}");
    }
}
