//! fio 3.42's latency criteria of `steadystate`: `lat` (every measurement's
//! mean completion latency within the limit of the window's mean) and
//! `lat_slope`. The null engine's latency is a few hundred nanoseconds
//! with jitter of the same order, so a loose limit is met by its first
//! window: the job stops long before its runtime, and the JSON carries
//! the latencies judged as fio 3.42's does (`lat_mean`, `lat_ns`).

mod common;
use common::*;

#[test]
fn a_latency_criterion_stops_a_flat_job_and_is_recorded() {
    let dir = real_dir();
    for (criterion, check_interval) in [("lat:300%", 1), ("lat_slope:300%", 2)] {
        let doc = fio_ok_in(
            dir.path(),
            &format!(
                "--name=s --ioengine=null --size=64m --rate_iops=2000 --time_based \
                 --runtime=30 --ss={criterion} --ss_dur=4 --ss_interval={check_interval}"
            ),
        );
        let job = &doc["jobs"][0];
        let ss = &job["steadystate"];
        assert_eq!(ss["attained"], 1, "{ss}");
        assert_eq!(
            ss["ss"],
            format!("{}.000000%", criterion.trim_end_matches('%'))
        );
        let data = &ss["data"];
        let keys: Vec<&str> = data
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["bw_mean", "iops_mean", "lat_mean", "lat_ns", "iops", "bw"]
        );
        // One mean latency per measurement of ss_interval seconds.
        let lat = data["lat_ns"].as_array().unwrap();
        assert_eq!(lat.len(), 4 / check_interval, "{ss}");
        assert!(lat.iter().all(|l| l.as_u64().unwrap() > 0), "{ss}");
        let mean: f64 = lat.iter().map(|l| l.as_f64().unwrap()).sum::<f64>() / lat.len() as f64;
        assert!(
            (data["lat_mean"].as_f64().unwrap() - mean).abs() <= 1.0,
            "{ss}"
        );
        let runtime_ms = job["job_runtime"].as_f64().unwrap();
        // Stopped because it was steady: before the 30 s runtime it had.
        assert!(
            runtime_ms < 30_000.0,
            "stopped at steady state, not at 30 s: {runtime_ms} ms"
        );
    }
    // The throughput criteria keep fio 3.33's object, without latencies.
    let doc = fio_ok_in(
        dir.path(),
        "--name=s --ioengine=null --size=64m --rate_iops=2000 --time_based --runtime=10 \
         --ss=iops:50% --ss_dur=2",
    );
    assert!(doc["jobs"][0]["steadystate"]["data"]
        .get("lat_ns")
        .is_none());
}

/// `--debug=parse` with `--parse-only` and options but no job: fio checks
/// the options, traces them on stdout (what it set each steady-state
/// criterion to, in its words) and exits 0; so does diskbench. The lines
/// are fio 3.33's for the same arguments.
#[test]
fn debug_parse_traces_the_steady_state_criterion_without_a_job() {
    for (ss, says) in [
        ("iops:10", "set steady state IOPS threshold to 10.000000"),
        ("iops:.1%", "set steady state threshold to 0.100000%"),
        ("bw:10%", "set steady state threshold to 10.000000%"),
        ("bw:12", "set steady state BW threshold to 12"),
    ] {
        let out = diskbench()
            .args(["fio", "--parse-only", "--debug=parse", "--ss_dur=10s"])
            .arg(format!("--ss={ss}"))
            .arg("--ss_ramp=5")
            .output()
            .unwrap();
        assert!(out.status.success(), "{ss}: {}", stderr_of(&out));
        let stdout = stdout_of(&out);
        assert!(stdout.contains(says), "{ss}: {stdout}");
        assert!(
            stdout.contains("handle_option=steadystate_ramp_time, ptr=5"),
            "{stdout}"
        );
    }
    // Without --parse-only, no job is still an error, as in fio.
    let out = diskbench().args(["fio", "--ss=iops:10"]).output().unwrap();
    assert!(!out.status.success());
}
