//! fio's pattern, pacing, limit and log options, run end to
//! end through `diskbench fio` on the null engine (no device noise) and
//! checked against what fio 3.33 does with the same options.

mod common;
use common::*;
use std::path::Path;

/// Runs `diskbench fio` with `args` (JSON out) in `dir`; the parsed output.
fn run_in(dir: &Path, args: &str) -> (bool, serde_json::Value, String) {
    let out = fio_in(dir, args);
    (out.status.success(), json_of(&out), stderr_of(&out))
}

fn run(args: &str) -> serde_json::Value {
    let dir = real_dir();
    let (ok, doc, err) = run_in(dir.path(), args);
    assert!(ok, "{args}: {err}");
    doc
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

fn within(value: f64, want: f64, tolerance: f64) -> bool {
    (value - want).abs() <= want * tolerance
}

#[test]
fn rate_iops_holds_its_rate() {
    // The schedule makes up for late wake-ups, so the count is exact
    // however busy the machine: 500/s over 3 s.
    let doc = run(
        "--name=r --ioengine=null --size=1g --rw=randread --rate_iops=500 --runtime=3 --time_based",
    );
    let iops = num(&doc["jobs"][0]["read"]["iops"]);
    assert!(within(iops, 500.0, 0.02), "{iops} IOPS");
}

#[test]
fn poisson_rate_has_the_same_mean() {
    let doc = run("--name=r --ioengine=null --size=1g --rw=randread --rate_iops=1000 --rate_process=poisson --runtime=3 --time_based");
    let iops = num(&doc["jobs"][0]["read"]["iops"]);
    // 3000 arrivals: a standard deviation of 1.8%.
    assert!(within(iops, 1000.0, 0.08), "{iops} IOPS");
}

#[test]
fn rates_apply_per_direction_and_skew_the_mix_as_in_fio() {
    // fio 3.33, same job: read 1048051 B/s, write 511744 B/s.
    let doc = run(
        "--name=r --ioengine=null --size=1g --rw=randrw --rate=1m,500k --runtime=2 --time_based",
    );
    let job = &doc["jobs"][0];
    let (r, w) = (
        num(&job["read"]["bw_bytes"]),
        num(&job["write"]["bw_bytes"]),
    );
    assert!(within(r, 1048576.0, 0.03), "read {r} B/s");
    assert!(within(w, 512000.0, 0.03), "write {w} B/s");
}

#[test]
fn rate_iops_counts_the_smallest_block_of_a_split() {
    // fio 3.33: bssplit=4k/50:64k/50 with rate_iops=100 moves 400 KiB/s.
    let doc = run("--name=r --ioengine=null --size=1g --rw=randread --bssplit=4k/50:64k/50 --rate_iops=100 --runtime=3 --time_based");
    let bw = num(&doc["jobs"][0]["read"]["bw_bytes"]);
    assert!(within(bw, 409600.0, 0.15), "{bw} B/s");
}

#[test]
fn rate_min_fails_the_job_when_missed() {
    let dir = real_dir();
    let (ok, doc, err) = run_in(
        dir.path(),
        "--name=slow --ioengine=null --size=1g --rw=randread --thinktime=10ms --rate_min=1m --runtime=3 --time_based",
    );
    assert!(!ok);
    assert!(
        err.contains("job 'slow': read rate_min=1048576B/s not met, got"),
        "{err}"
    );
    assert!(doc["error"].as_str().unwrap().contains("rate_min"), "{doc}");
}

#[test]
fn thinktime_stalls_after_each_block() {
    // 2 ms after every 2 I/Os. A stall can only make a run slower, so only
    // upper bounds, which a busy machine cannot break: at most 1000 IOPS
    // over the run (the null engine alone does millions), and at most 24
    // I/Os logged in any 20 ms of it (10 stalls apart: 11 pairs, plus the
    // pair before a stall, which is logged when reaped after it).
    let dir = real_dir();
    let (ok, doc, err) = run_in(
        dir.path(),
        "--name=t --ioengine=null --size=1g --rw=randread --thinktime=2ms --thinktime_blocks=2 \
         --runtime=2 --time_based --write_iops_log=t",
    );
    assert!(ok, "{err}");
    let iops = num(&doc["jobs"][0]["read"]["iops"]);
    assert!(iops <= 1010.0, "{iops} IOPS");
    let times = log_times(&dir.path().join("t_iops.1.log"));
    assert!(!times.is_empty());
    for (i, &t) in times.iter().enumerate() {
        let within_20ms = times[i..].iter().take_while(|&&u| u < t + 20).count();
        assert!(
            within_20ms <= 24,
            "{within_20ms} I/Os logged from {t} ms to {} ms",
            t + 20
        );
    }
}

#[test]
fn bssplit_gives_fios_mix_and_size_bounds_the_bytes() {
    // 75% 4k and 25% 64k: 19 KiB on average without the random map (55 000
    // I/Os: a standard deviation of 0.6%).
    let doc = run(
        "--name=s --ioengine=null --size=1g --rw=randread --bssplit=4k/75:64k/25 --norandommap",
    );
    let read = &doc["jobs"][0]["read"];
    let (bytes, ios) = (num(&read["io_bytes"]), num(&read["total_ios"]));
    // A size-based job moves exactly size bytes.
    assert_eq!(bytes, (1u64 << 30) as f64);
    let mean = bytes / ios;
    assert!(within(mean, 19456.0, 0.03), "{mean} bytes per I/O");
    // With the random map, I/Os stop at blocks the pass has done, as in
    // fio: fio 3.33 does 111 892 I/Os of 9596 bytes on average here.
    let doc = run("--name=s --ioengine=null --size=1g --rw=randread --bssplit=4k/75:64k/25");
    let read = &doc["jobs"][0]["read"];
    let mean = num(&read["io_bytes"]) / num(&read["total_ios"]);
    assert!(within(mean, 9596.0, 0.03), "{mean} bytes per I/O");
}

#[test]
fn io_size_and_number_ios_count_per_loop_as_in_fio() {
    // fio 3.33: 20 I/Os (10 per loop) and 50 (100k per loop of 4k).
    let doc = run("--name=n --ioengine=null --size=1m --rw=randread --number_ios=10 --loops=2");
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 20);
    let doc = run("--name=n --ioengine=null --size=1m --rw=randread --io_size=100k --loops=2");
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 50);
    let doc = run("--name=n --ioengine=null --size=1m --rw=randread --io_size=3m");
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 768);
}

#[test]
fn windowed_logs_are_in_fios_format() {
    let dir = real_dir();
    let (ok, doc, err) = run_in(
        dir.path(),
        "--name=a --ioengine=null --size=1g --rw=randrw --rate_iops=100 --write_iops_log=q \
         --write_bw_log --write_lat_log=q --log_avg_msec=500 --runtime=1200ms --time_based",
    );
    assert!(ok, "{err}");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    // fio: one line per direction per full window; bs and offset 0. Each
    // window's figure is per second (100, not the window's 50 I/Os), within
    // 25%: on a loaded machine the job can be late at a window's edge by
    // 100 ms or more, which moves 10 I/Os into the next window.
    let iops = read("q_iops.1.log");
    let lines: Vec<&str> = iops.lines().collect();
    assert_eq!(lines.len(), 4, "{iops}");
    for (line, (ms, dir)) in lines.iter().zip([(500, 0), (500, 1), (1000, 0), (1000, 1)]) {
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!(
            (f[0], f[2], f[3], f[4]),
            (&*ms.to_string(), &*dir.to_string(), "0", "0")
        );
        let v: f64 = f[1].parse().unwrap();
        assert!(within(v, 100.0, 0.25), "{line}");
    }
    assert_eq!(read("a_bw.1.log").lines().count(), 4);
    // Latency logs also get the last, partial window, stamped with the end
    // of the job (its runtime, 1200 ms and what a busy machine adds, to the
    // millisecond), not with the end of the window (1500 ms).
    let clat = read("q_clat.1.log");
    let last = clat.lines().last().unwrap();
    let end_ms: u64 = last.split(", ").next().unwrap().parse().unwrap();
    let runtime_ms = doc["jobs"][0]["diskbench"]["runtime_ns"].as_u64().unwrap() / 1_000_000;
    assert!(end_ms >= 1200, "{clat}");
    assert!(
        end_ms.abs_diff(runtime_ms) <= 1,
        "the job ran {runtime_ms} ms: {clat}"
    );
    assert!(dir.path().join("q_slat.1.log").exists());
}

#[test]
fn per_io_logs_carry_size_and_offset() {
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=a --ioengine=null --size=64k --rw=read --write_lat_log=l --log_offset=1",
    );
    assert!(ok, "{err}");
    let clat = std::fs::read_to_string(dir.path().join("l_clat.1.log")).unwrap();
    let offsets: Vec<&str> = clat
        .lines()
        .map(|l| l.split(", ").nth(4).unwrap())
        .collect();
    let want: Vec<String> = (0..16).map(|i| (i * 4096).to_string()).collect();
    assert_eq!(offsets, want);
    assert!(clat.lines().all(|l| l.split(", ").nth(3) == Some("4096")));
}

#[test]
fn zipf_hot_block_takes_its_share() {
    // Zipf's law over 16384 blocks at theta 1.2: the hottest block takes
    // 1/H(16384, 1.2) = 20.5% of the I/Os (fio 3.33: 20.9% in one pass).
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=z --ioengine=null --size=64m --rw=randread --random_distribution=zipf:1.2 \
         --write_iops_log=z --log_offset=1",
    );
    assert!(ok, "{err}");
    let log = std::fs::read_to_string(dir.path().join("z_iops.1.log")).unwrap();
    let mut hits = std::collections::HashMap::<&str, u32>::new();
    for line in log.lines() {
        *hits.entry(line.split(", ").nth(4).unwrap()).or_default() += 1;
    }
    let total: u32 = hits.values().sum();
    assert_eq!(total, 16384);
    let hottest = *hits.values().max().unwrap() as f64 / total as f64;
    assert!((0.19..0.22).contains(&hottest), "{hottest}");
}

/// The block offsets (in `bs` units) each job of a `write_iolog` (v3, with
/// times) read, in order.
fn iolog_blocks(log: &str, bs: u64) -> Vec<(String, u64)> {
    let mut blocks = Vec::new();
    for line in log.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [.., job, "read", offset, _] = w[..] {
            blocks.push((job.to_string(), offset.parse::<u64>().unwrap() / bs));
        }
    }
    blocks
}

#[test]
fn sequence_distribution_issues_the_howtos_blocks() {
    // sequence-distribution.fio (fio 3.42): HOWTO says sequence:2,0,1 reads
    // blocks 2 0 1 over and over, and with random_sequence_stride each round
    // moves on by the sequence's length. fio 3.42 logs the same.
    let dir = real_dir();
    let job = "[global]\nioengine=null\nrw=randread\nbs=4k\nsize=48k\nio_size=24k\n\
               [repeating_sequence]\nrandom_distribution=sequence:2,0,1\n\
               random_sequence_stride=0\n\
               [strided_sequence]\nstonewall\nrandom_distribution=sequence:2,0,1\n\
               random_sequence_stride=1\n";
    std::fs::write(dir.path().join("s.fio"), job).unwrap();
    let (ok, _, err) = run_in(dir.path(), "--write_iolog=s.log s.fio");
    assert!(ok, "{err}");
    let log = std::fs::read_to_string(dir.path().join("s.log")).unwrap();
    let seq = [2u64, 0, 1];
    let want = |job: &str, stride: bool| -> Vec<(String, u64)> {
        (0..6u64)
            .map(|k| {
                let round = if stride { k / 3 * 3 } else { 0 };
                (format!("{job}.0.0"), round + seq[(k % 3) as usize])
            })
            .collect()
    };
    let mut expected = want("repeating_sequence", false);
    expected.extend(want("strided_sequence", true));
    assert_eq!(iolog_blocks(&log, 4096), expected);
    // Past the end of the file fio ends the job; diskbench refuses it by name.
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=x --ioengine=null --rw=randread --size=20k --io_size=60k \
         --random_distribution=sequence:2,0,1 --random_sequence_stride=1",
    );
    assert!(!ok);
    assert!(
        err.contains("I/O 4 would go to block 5, past the 5 blocks"),
        "{err}"
    );
}

#[test]
fn startdelay_waits_outside_the_runtime_and_cpus_are_checked() {
    // The CPUs this test may use, in the kernel's list form (fio's too).
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    let doc = run(&format!(
        "--name=d --ioengine=null --size=1m --rw=read --startdelay=700ms --cpus_allowed={allowed}"
    ));
    // The run waited the delay (by its own start and end), outside the
    // job's clock.
    let run_ms =
        num(&doc["diskbench"]["finished_unix_ms"]) - num(&doc["diskbench"]["started_unix_ms"]);
    assert!(run_ms >= 700.0, "the run took {run_ms} ms");
    assert!(num(&doc["jobs"][0]["read"]["runtime"]) < 500.0);
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=d --ioengine=null --size=1m --cpus_allowed=4000",
    );
    assert!(!ok);
    assert!(err.contains("cpus_allowed"), "{err}");
}

#[test]
fn parse_only_and_json_show_the_options() {
    let out = diskbench()
        .args([
            "fio",
            "--parse-only",
            "--name=p",
            "--size=1m",
            "--rate_iops=500",
            "--bssplit=4k/50:8k/50",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--bssplit=4k/50:8k/50") && text.contains("--rate_iops=500"),
        "{text}"
    );
    let doc = run(
        "--name=p --ioengine=null --size=1m --rw=randread --bssplit=4k/50:8k/50 --rate_iops=5000",
    );
    let opts = &doc["jobs"][0]["job options"];
    assert_eq!(opts["bssplit"], "4k/50:8k/50");
    assert_eq!(opts["rate_iops"], "5000");
}

#[test]
fn slat_percentiles_are_reported() {
    let doc = run("--name=p --ioengine=null --size=4m --rw=randread --iodepth=4 --slat_percentiles=1 --percentile_list=50:99");
    let slat = &doc["jobs"][0]["read"]["slat_ns"]["percentile"];
    assert!(
        slat["50.000000"].is_u64() && slat["99.000000"].is_u64(),
        "{slat}"
    );
}

#[test]
fn queue_options_keep_the_count_exact() {
    // iodepth_low, a polling reap (min 0) and a capped one (max 2) change
    // when I/Os are issued and reaped, never how many.
    for engine in ["null", "io_uring"] {
        let doc = run(&format!(
            "--name=q --ioengine={engine} --size=4m --rw=randread --iodepth=16 --iodepth_low=4 \
             --iodepth_batch_complete_min=0 --iodepth_batch_complete_max=2 --filename=q.dat"
        ));
        assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1024, "{engine}");
    }
    let doc = run(
        "--name=q --ioengine=null --size=4m --rw=randread --bssplit=4k/50:8k/50 --number_ios=10",
    );
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 10);
}

#[test]
fn percentage_random_mixes_in_sequential_ios() {
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=p --ioengine=null --size=64m --rw=randread --percentage_random=25 \
         --write_iops_log=p --log_offset=1",
    );
    assert!(ok, "{err}");
    let log = std::fs::read_to_string(dir.path().join("p_iops.1.log")).unwrap();
    let offsets: Vec<u64> = log
        .lines()
        .map(|l| l.split(", ").nth(4).unwrap().parse().unwrap())
        .collect();
    // 75% continue from the previous I/O (a random one lands there by
    // chance only 1 in 16384 times).
    let follow = offsets.windows(2).filter(|w| w[1] == w[0] + 4096).count();
    let share = follow as f64 / (offsets.len() - 1) as f64;
    assert!((0.73..0.77).contains(&share), "{share}");
}

/// fio's `steadystate`. A rate-limited job is flat, so it stops
/// once its first window (after the ramp) is within the limit, long before
/// its runtime; fio's JSON object comes with it. Without `ss_dur` it is off,
/// as in fio; a criterion fio does not know is refused by name.
#[test]
fn steadystate_stops_a_flat_job_and_reports_fios_object() {
    let doc = run(
        "--name=s --ioengine=null --size=64m --rate_iops=2000 --time_based \
                   --runtime=20 --ss=iops:10% --ss_dur=3 --ss_ramp=1",
    );
    let job = &doc["jobs"][0];
    let ss = &job["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss}");
    assert_eq!(ss["ss"], "iops:10.000000%");
    assert_eq!(ss["duration"], 3);
    assert_eq!(ss["data"]["iops"].as_array().unwrap().len(), 3);
    assert!(within(num(&ss["data"]["iops_mean"]), 2000.0, 0.1), "{ss}");
    // 4 s on a quiet machine; a loaded one's late seconds (1800 then 2200)
    // can put off the three seconds within 10% for a while, but not past
    // the runtime: the job stopped because it was steady.
    let runtime_ms = num(&job["job_runtime"]);
    assert!(
        runtime_ms < 20_000.0,
        "stopped at steady state, not at 20 s: {runtime_ms} ms"
    );

    let doc = run("--name=s --ioengine=null --size=8m --ss=iops:10%");
    assert!(
        doc["jobs"][0].get("steadystate").is_none(),
        "ss_dur=0 turns it off"
    );

    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=s --ioengine=null --size=8m --ss=latency:1 --ss_dur=3",
    );
    assert!(
        !ok && err.contains("steadystate") && err.contains("iops_slope"),
        "{err}"
    );
}

/// `cpus_allowed_policy=split`: each thread is pinned to one CPU of
/// `cpus_allowed`, the run's Nth thread the Nth CPU, round robin (fio 3.33
/// pins three threads on CPUs 0-1 to 0, 1 and 0); `shared`, the default,
/// pins each to the whole set. Read from the sched_setaffinity calls.
#[test]
fn cpus_allowed_policy_split_gives_each_thread_one_cpu() {
    if std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_err()
    {
        testbed::skip("needs strace (apt-get install strace)");
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        testbed::skip("needs two CPUs");
        return;
    }
    let dir = real_dir();
    let masks = |policy: &str| -> Vec<String> {
        let trace = dir.path().join(format!("trace-{policy}"));
        let out = std::process::Command::new("strace")
            .args(["-f", "-e", "trace=sched_setaffinity", "-o"])
            .arg(&trace)
            .arg(assert_cmd::cargo::cargo_bin("diskbench"))
            .env("DISKBENCH_DB", TEST_DB)
            .current_dir(dir.path())
            .args([
                "fio",
                "--no-save",
                "--name=c",
                "--ioengine=null",
                "--size=1m",
            ])
            .args(["--numjobs=3", "--cpus_allowed=0-1"])
            .arg(format!("--cpus_allowed_policy={policy}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{policy}: {}", stderr_of(&out));
        let mut masks: Vec<String> = std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .filter_map(|l| {
                l.split_once("sched_setaffinity(")?
                    .1
                    .split_once('[')?
                    .1
                    .split_once(']')
            })
            .map(|(mask, _)| mask.to_string())
            .collect();
        masks.sort();
        masks
    };
    assert_eq!(masks("split"), ["0", "0", "1"]);
    assert_eq!(masks("shared"), ["0 1", "0 1", "0 1"]);
}

/// The comma-separated numbers of each line of a log.
fn log_fields(path: &Path) -> Vec<Vec<u64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            l.split(", ")
                .map(|f| f.parse().unwrap_or(u64::MAX))
                .collect()
        })
        .collect()
}

/// `log_issue_time=1` (newer fio's): a last column, the issue time in ns
/// from the job's start, in the clat and slat logs, 0 in the total
/// latency's; issued before the line's completion time.
#[test]
fn log_issue_time_ends_each_line_with_the_issue_time() {
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=j --ioengine=libaio --iodepth=2 --size=64k --bs=4k --rw=write \
         --write_lat_log=l --log_offset=1 --log_issue_time=1",
    );
    assert!(ok, "{err}");
    for (log, issue_given) in [
        ("l_clat.1.log", true),
        ("l_slat.1.log", true),
        ("l_lat.1.log", false),
    ] {
        let lines = log_fields(&dir.path().join(log));
        assert_eq!(lines.len(), 16, "{log}");
        for l in &lines {
            // time, value, dir, bs, offset, prio, issue time.
            assert_eq!(l.len(), 7, "{log}: {l:?}");
            match issue_given {
                true => assert!(
                    l[6] <= (l[0] + 1) * 1_000_000,
                    "{log}: issued after it ended: {l:?}"
                ),
                false => assert_eq!(l[6], 0, "{log}: {l:?}"),
            }
        }
        if issue_given {
            assert!(lines.iter().any(|l| l[6] > 0), "{log}: {lines:?}");
        }
    }
}

/// `log_window_value=both` (newer fio's; `log_max_value` is its alias):
/// windowed lines give the mean and then the largest value; a bandwidth or
/// IOPS line its one value twice.
#[test]
fn log_window_value_both_gives_the_mean_and_the_largest() {
    let dir = real_dir();
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=j --ioengine=null --size=1m --rw=read --time_based --runtime=1 \
         --write_lat_log=l --write_iops_log=l --log_avg_msec=100 --log_window_value=both",
    );
    assert!(ok, "{err}");
    let clat = log_fields(&dir.path().join("l_clat.1.log"));
    assert!(clat.len() >= 5, "{clat:?}");
    for l in &clat {
        // time, mean, largest, dir, bs 0, prio.
        assert_eq!(l.len(), 6, "{l:?}");
        assert!(l[2] >= l[1] && l[4] == 0, "{l:?}");
    }
    for l in log_fields(&dir.path().join("l_iops.1.log")) {
        assert_eq!((l.len(), l[1]), (6, l[2]), "{l:?}");
    }
    let (ok, _, err) = run_in(
        dir.path(),
        "--name=j --ioengine=null --size=1m --log_window_value=most",
    );
    assert!(
        !ok && err.contains("avg (the default), max or both"),
        "{err}"
    );
}
