//! fio 3.42's `sprandom` end to end: a job with the options of fio's
//! `examples/sprandom.fio` (the job text is written here, fio's file is not
//! carried), shortened to a file of a few MiB, writes about the physical
//! capacity (the size times 1 + spr_op, in blocks) with every block of the file
//! written, and plans that cannot work are refused before any I/O.
//!
//! The write counts are compared with fio 3.42's, as
//! `bench/sprandom_fio_figures.py` recorded them (fio's default seed), and
//! with the fio at hand where it has `sprandom` (fio 3.42; `DISKBENCH_FIO`
//! names it, e.g. one built from a checkout; fio 3.33, Debian's and CI's,
//! has none: that comparison is then left out, saying so). fio picks the
//! blocks it rewrites at random, so its counts scatter around diskbench's
//! (which are their expected values) by about 1%.

mod common;
use common::*;
use std::collections::HashSet;
use std::path::Path;

/// fio's example job, with its options (`spr_op=0.15`,
/// `spr_num_regions=100`, no `spr_cs`), or others. They are in the job
/// file: fio lets a job file's options override the command line's.
fn example(op: f64, regions: u32, cache: &str) -> String {
    format!(
        "[global]\nioengine=libaio\nrw=randwrite\nbs=${{FIO_BS}}\nblockalign=${{FIO_BS}}\n\
         direct=1\nnorandommap=1\niodepth=64\n[preconditioning]\nsprandom=1\n\
         spr_op={op}\nspr_num_regions={regions}\nspr_cs={cache}\n"
    )
}

/// fio 3.42's writes for `mib` MiB of 4 KiB blocks, as recorded.
fn recorded_fio_writes(mib: u64, op: f64, regions: u32, cache: &str) -> u64 {
    let key = format!("{mib}m,4k,{op},{regions},{cache},ok,");
    let line = include_str!("../../runner/tests/fixtures/sprandom_fio_3_42.csv")
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("fio's figures for {key}"));
    let fields: Vec<&str> = line.split(',').collect();
    (fields[7].split(' ').chain(fields[8].split(' ')))
        .map(|n| n.parse::<u64>().expect("a count"))
        .sum()
}

/// diskbench's run of the `job` text with `args` in `dir` (FIO_BS=4096).
fn run(dir: &Path, job: &str, args: &[&str]) -> std::process::Output {
    let job = write_job(dir, job);
    diskbench()
        .current_dir(dir)
        .env("FIO_BS", "4096")
        .args(["fio", "--no-save", "--output-format=json"])
        .args(args)
        .arg(&job)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("diskbench runs")
}

fn write_job(dir: &Path, text: &str) -> std::path::PathBuf {
    let job = dir.join("sprandom.fio");
    std::fs::write(&job, text).expect("the job file");
    job
}

fn writes(doc: &serde_json::Value) -> u64 {
    doc["jobs"][0]["write"]["total_ios"]
        .as_u64()
        .expect("write.total_ios")
}

#[test]
fn the_example_shortened_writes_the_physical_capacity_over_every_block() {
    let dir = real_dir();
    let file = dir.path().join("device");
    let log = dir.path().join("writes.iolog");
    let out = run(
        dir.path(),
        &example(0.15, 100, "0"),
        &[
            "--size=16m",
            &format!("--filename={}", file.display()),
            &format!("--write_iolog={}", log.display()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let doc = json_of(&out);
    // 4096 blocks at 15% over-provisioning: 4710 physical blocks, 100
    // regions of 47 writes, the originals ending in a 101st: 4706 writes
    // (fio 3.42: 4703, as it draws its rewrites at random).
    let want = 4706;
    assert_eq!(writes(&doc), want);
    assert_eq!(
        doc["jobs"][0]["write"]["io_kbytes"].as_u64(),
        Some(want * 4)
    );
    assert_eq!(doc["jobs"][0]["read"]["total_ios"].as_u64(), Some(0));
    // The log: every 4 KiB block of the 16 MiB written, some more than once.
    let text = std::fs::read_to_string(&log).expect("the iolog");
    let offsets: Vec<u64> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5 && f[2] == "write").then(|| {
                assert_eq!(f[4], "4096", "{l}");
                f[3].parse().expect("an offset")
            })
        })
        .collect();
    assert_eq!(offsets.len() as u64, want);
    let blocks: HashSet<u64> = offsets.iter().map(|o| o / 4096).collect();
    assert_eq!(blocks.len(), 4096, "every block written");
    assert!(offsets.iter().all(|o| o % 4096 == 0 && *o < 16 << 20));
}

/// fio's run of the `job` text with `args`; `None`, saying why, when the
/// fio at hand has no `sprandom`.
fn fio_writes(dir: &Path, job: &str, args: &[&str]) -> Option<u64> {
    let job = write_job(dir, job);
    let out = std::process::Command::new(fio_binary())
        .current_dir(dir)
        .env("FIO_BS", "4096")
        .arg("--output-format=json")
        .args(args)
        .arg(&job)
        .output();
    let Ok(out) = out else {
        testbed::skip(format!(
            "{} is not installed: not compared with fio",
            fio_binary()
        ));
        return None;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let said = format!("{text}{}", stderr_of(&out));
        assert!(said.contains("spr"), "fio {args:?} failed: {said}");
        eprintln!(
            "{} has no sprandom (fio 3.42 or later; set DISKBENCH_FIO): not compared \
             with fio ({})",
            fio_binary(),
            said.lines().next().unwrap_or_default()
        );
        return None;
    }
    let doc: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("fio's JSON ({e}): {text}"));
    Some(writes(&doc))
}

#[test]
fn write_counts_follow_the_size_op_and_regions_as_fios_do() {
    // (MiB, spr_op, regions, spr_cs, diskbench's writes): fio 3.42 wrote
    // 1168, 5307 and 4706.
    for (mib, op, regions, cache, want) in [
        (4, 0.15, 4, "0", 1174),
        (16, 0.3, 10, "0", 5312),
        (16, 0.15, 10, "64k", 4705),
    ] {
        let dir = real_dir();
        let job = example(op, regions, cache);
        let size = format!("--size={mib}m");
        let file = format!("--filename={}", dir.path().join("device").display());
        let case = format!("{size} spr_op={op} spr_num_regions={regions} spr_cs={cache}");
        let out = run(dir.path(), &job, &[&size, &file]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", stderr_of(&out));
        let ours = writes(&json_of(&out));
        assert_eq!(ours, want, "{case}");
        let recorded = recorded_fio_writes(mib, op, regions, cache);
        let off = (ours as f64 - recorded as f64).abs() / recorded as f64;
        assert!(off < 0.015, "{case}: diskbench {ours}, fio 3.42 {recorded}");
        let Some(fio) = fio_writes(dir.path(), &job, &[&size, &file]) else {
            continue;
        };
        eprintln!("{case}: diskbench {ours} writes, fio {fio}");
        let off = (ours as f64 - fio as f64).abs() / fio as f64;
        assert!(off < 0.015, "{case}: diskbench {ours}, fio {fio}");
    }
}

#[test]
fn plans_that_cannot_work_are_refused_before_any_io() {
    let dir = real_dir();
    let file = format!("--filename={}", dir.path().join("device").display());
    for (job, size, extra, says) in [
        // 4 MiB in 4 regions: about 880 KiB of fresh writes between a
        // region's originals and their rewrites, less than a 1 MiB cache.
        (example(0.15, 4, "1m"), "4m", None, "give fewer regions"),
        // 400 KiB: 115 writes, fewer than the regions asked.
        (
            example(0.15, 200, "0"),
            "400k",
            None,
            "from 1 to 115 regions",
        ),
        (
            example(0.15, 4, "0"),
            "4m",
            Some("--numjobs=2"),
            "use numjobs=1",
        ),
    ] {
        let size = format!("--size={size}");
        let args: Vec<&str> = [size.as_str(), &file].into_iter().chain(extra).collect();
        let out = run(dir.path(), &job, &args);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
