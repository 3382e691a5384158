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

use model::units::format_size;
use model::{FileTarget, JobSpec, RwMode};
use std::fmt::Write;
use std::time::Duration;

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
    opts.push(("rw", Some(job.rw.fio_name().to_string())));
    if matches!(job.rw, RwMode::ReadWrite | RwMode::RandRw) {
        opts.push(("rwmixread", Some(job.rwmix_read_pct.to_string())));
    }
    opts.push(("bs", Some(format_size(job.bs_bytes))));
    if let Some(size) = job.size_bytes {
        opts.push(("size", Some(format_size(size))));
    }
    if job.offset_bytes > 0 {
        opts.push(("offset", Some(format_size(job.offset_bytes))));
    }
    match &job.target {
        FileTarget::Named(path) => {
            opts.push(("filename", Some(escape_colons(&path.display().to_string()))))
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
    let words: Vec<String> = opts
        .into_iter()
        .map(|(name, value)| match value {
            Some(v) => format!("--{name}={}", quote(&v)),
            None => format!("--{name}"),
        })
        .collect();
    words.join(" ")
}

/// fio's time spelling, exact: whole seconds bare, else ms, us or ns.
fn format_duration(d: Duration) -> String {
    let nanos = d.subsec_nanos();
    let secs = d.as_secs();
    if nanos == 0 {
        secs.to_string()
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else if nanos.is_multiple_of(1_000) {
        format!("{}us", d.as_micros())
    } else {
        format!("{}ns", d.as_nanos())
    }
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

    #[test]
    fn durations_are_exact() {
        assert_eq!(format_duration(Duration::from_secs(300)), "300");
        assert_eq!(format_duration(Duration::from_millis(1200)), "1200ms");
        assert_eq!(format_duration(Duration::from_micros(1500)), "1500us");
        assert_eq!(format_duration(Duration::from_nanos(7)), "7ns");
    }

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
