//! `kb_base`, `unit_base`, `thinktime_iotime`, `bs_is_seq_rand` and
//! `bs_unaligned`, run end to end through `diskbench fio` on the null
//! engine and checked against what fio 3.33 printed or did for the same job
//! (the figures in the comments).

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

fn run_in(dir: &Path, format: &str, args: &str) -> std::process::Output {
    let out = diskbench()
        .current_dir(dir)
        .args(["fio", "--no-save", &format!("--output-format={format}")])
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args}: {}", stderr_of(&out));
    out
}

fn json(args: &str) -> Value {
    let dir = real_dir();
    json_of(&run_in(dir.path(), "json", args))
}

#[test]
fn kb_base_1000_and_unit_base_1_in_the_normal_output() {
    // fio 3.33, same job:
    //   read: IOPS=5333k, BW=171Gbit/s (159Gibit/s)(64.0MB/3msec)
    //   issued rwts: total=16000,0,0,0 ...
    //   READ: bw=171Gbit/s (159Gibit/s), 171Gbit/s-171Gbit/s (159Gibit/s-159Gibit/s), io=64.0MB (61.0MiB), run=3-3msec
    let job = "--name=j --kb_base=1000 --unit_base=1 --ioengine=null --size=64m --bs=4k --rw=read";
    let dir = real_dir();
    let text = stdout_of(&run_in(dir.path(), "normal", job));
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} in\n{text}"))
    };
    // SI bits first, IEC bits in brackets, the bytes moved in SI.
    let read = line("  read: IOPS=");
    let bw = read.split_once("BW=").unwrap().1;
    let (first, rest) = bw.split_once(" (").unwrap();
    assert!(
        first.ends_with("bit/s") && !first.contains("ibit"),
        "{read}"
    );
    assert!(rest.contains("ibit/s)(64.0MB/"), "{read}");
    assert!(
        text.contains("     issued rwts: total=16000,0,0,0 "),
        "{text}"
    );
    let group = line("   READ: bw=");
    let (first, rest) = group["   READ: bw=".len()..].split_once(" (").unwrap();
    assert!(
        first.ends_with("bit/s") && !first.contains("ibit"),
        "{group}"
    );
    assert!(
        rest.contains("ibit/s), ") && group.contains(", io=64.0MB (61.0MiB), run="),
        "{group}"
    );
    // JSON keeps its base units: 64 * 10^6 bytes in 4000-byte I/Os.
    let doc = json(job);
    assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 64_000_000);
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 16_000);
    assert_eq!(doc["jobs"][0]["job options"]["kb_base"], "1000");
}

#[test]
fn thinktime_iotime_stalls_after_each_spell_of_io() {
    // fio 3.33, same job: I/O until ~600 ms, none from ~650 to ~950, I/O
    // until ~1250, none to ~1550, 1803 I/Os in all (the rate catches up
    // after each stall): a 300 ms stall is due 600 ms (iotime + thinktime)
    // after the start of the one before, or of the job.
    //
    // Checked with bounds a busy machine cannot break, since it only makes
    // things later: the rate caps the I/Os; in the per-I/O log, the stalls
    // are the gaps of 300 ms or more between two I/Os, at least one and at
    // most one per 600 ms; and the k-th ends no sooner than 600 k + 300 ms
    // (a stall after every I/O, iotime ignored, would end the first at 300).
    let dir = real_dir();
    let out = run_in(
        dir.path(),
        "json",
        "--name=t --ioengine=null --size=1g --rw=randread --rate_iops=1000 --thinktime=300ms \
         --thinktime_iotime=300ms --runtime=2 --time_based --write_iops_log=t",
    );
    let ios = json_of(&out)["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap();
    assert!((1..=2001).contains(&ios), "{ios} I/Os");
    let times = log_times(&dir.path().join("t_iops.1.log"));
    assert_eq!(times.len() as u64, ios, "one log entry per I/O");
    let stall_ends: Vec<u64> = times
        .windows(2)
        .filter(|t| t[1].saturating_sub(t[0]) >= 300)
        .map(|t| t[1])
        .collect();
    assert!(
        (1..=3).contains(&stall_ends.len()),
        "stalls ending at {stall_ends:?} ms"
    );
    for (k, end) in (1..).zip(&stall_ends) {
        // 5 ms for the log's clock starting a little after the job's.
        assert!(
            *end + 5 >= 600 * k + 300,
            "stall {k} ended at {end} ms: {stall_ends:?}"
        );
    }
}

#[test]
fn bs_is_seq_rand_sizes_as_in_fio() {
    // fio 3.33 with bs=4k,64k and bs_is_seq_rand=1: write 4096 per I/O,
    // randread 64 KiB (64061 on average: its last I/Os are cut short).
    for (rw, dir, want) in [
        ("write", "write", 4096),
        ("read", "read", 4096),
        ("randread", "read", 65536),
        ("randrw", "write", 65536),
    ] {
        let doc = json(&format!(
            "--name=s --ioengine=null --size=64m --rw={rw} --bs=4k,64k --bs_is_seq_rand=1 --number_ios=100"
        ));
        let d = &doc["jobs"][0][dir];
        let per_io = d["io_bytes"].as_u64().unwrap() / d["total_ios"].as_u64().unwrap();
        assert_eq!(per_io, want, "{rw}");
    }
}

#[test]
fn bs_unaligned_draws_any_size_of_the_range() {
    let dir = real_dir();
    run_in(
        dir.path(),
        "json",
        "--name=u --ioengine=null --size=64m --rw=randread --bsrange=1000-4000 --bs_unaligned \
         --number_ios=20000 --norandommap --write_iops_log=u",
    );
    let log = std::fs::read_to_string(dir.path().join("u_iops.1.log")).unwrap();
    let sizes: Vec<u64> = log
        .lines()
        .map(|l| l.split(", ").nth(3).unwrap().parse().unwrap())
        .collect();
    assert_eq!(sizes.len(), 20_000);
    assert!(sizes.iter().all(|s| (1000..=4000).contains(s)));
    // fio 3.33, same job: 2983 sizes, 4965 I/Os of 4000, 7530 odd ones.
    let mut distinct = sizes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let at_max = sizes.iter().filter(|&&s| s == 4000).count() as i64;
    let odd = sizes.iter().filter(|&&s| s % 2 == 1).count() as i64;
    assert!(distinct.len() > 2900, "{} sizes", distinct.len());
    assert!((at_max - 4965).abs() < 400, "{at_max} at 4000");
    assert!((odd - 7530).abs() < 400, "{odd} odd");
}
