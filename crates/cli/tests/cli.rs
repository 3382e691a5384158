//! The `diskbench` command line: results, exit codes and error messages.

mod common;
use common::*;

#[test]
fn fio_null_job_prints_fio_shaped_json() {
    let out = diskbench()
        .args([
            "fio",
            "--name=t",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=64m",
        ])
        .args(["--iodepth=16", "--output-format=json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["fio version"], "fio-3.33");
    assert!(doc["diskbench"]["version"]
        .as_str()
        .unwrap()
        .starts_with("diskbench-"));
    let read = &doc["jobs"][0]["read"];
    assert_eq!(read["total_ios"], 16384);
    assert_eq!(read["io_bytes"], 64 << 20);
    assert!(read["iops"].as_f64().unwrap() > 0.0);
    assert!(read["clat_ns"]["percentile"]["50.000000"]
        .as_u64()
        .is_some());
    assert_eq!(doc["jobs"][0]["job options"]["rw"], "randread");
}

#[test]
fn fio_normal_output_is_the_default() {
    let out = diskbench()
        .args([
            "fio",
            "--name=n",
            "--ioengine=null",
            "--rw=write",
            "--size=8m",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("IOPS="), "{text}");
    assert!(text.contains("Run status group 0"), "{text}");
}

#[test]
fn unknown_option_is_a_usage_error_with_a_suggestion() {
    let out = diskbench()
        .args(["fio", "--name=t", "--iodpeth=4", "--size=1m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("iodpeth") && err.contains("iodepth"), "{err}");
}

#[test]
fn errors_still_give_parseable_json() {
    let out = diskbench()
        .args(["fio", "--name=t", "--bogus=1", "--output-format=json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    assert!(doc["error"].as_str().unwrap().contains("bogus"));
}

#[test]
fn missing_directory_is_a_usage_error() {
    let out = diskbench()
        .args(["fio", "--name=t", "--directory=/no/such/place", "--size=1m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("does not exist"));
}

#[test]
fn unaligned_direct_io_names_the_alignment_and_leaves_nothing() {
    let dir = real_dir();
    let out = diskbench()
        .args([
            "fio",
            "--name=t",
            "--rw=randread",
            "--bs=1000",
            "--size=1000000",
            "--direct=1",
        ])
        .arg(format!("--directory={}", dir.path().display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("multiple of 512"),
        "{}",
        stderr_of(&out)
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_size_larger_than_the_free_space_is_refused_before_writing() {
    let dir = real_dir();
    let out = diskbench()
        .args(["fio", "--name=t", "--rw=read", "--size=900t"])
        .arg(format!("--directory={}", dir.path().display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("free"), "{}", stderr_of(&out));
    assert!(entries(dir.path()).is_empty());
}

/// A zero, negative or malformed size or runtime is a usage error that
/// names the option as the command spells it, before anything is measured.
#[test]
fn zero_negative_or_malformed_sizes_and_runtimes_are_refused() {
    let dir = real_dir();
    let cases: [(&[&str], &[&str]); 9] = [
        (
            &["run", "--quick", "--engine", "foo"],
            &["--engine", "sync, psync", "--engine psync"],
        ),
        (
            &["run", "--quick", "--runtime", "0"],
            &["--runtime", "above 0", "--runtime 30s"],
        ),
        (
            &["run", "--quick", "--runtime", "-1"],
            &["--runtime", "not a duration"],
        ),
        (
            &["run", "--quick", "--size", "0"],
            &["--size", "0 bytes", "--size 1g"],
        ),
        (
            &["run", "--quick", "--size", "1gg"],
            &["--size", "'1gg' is not a size", "1g"],
        ),
        (
            &[
                "fio",
                "--name=t",
                "--size=1m",
                "--runtime=0",
                "--time_based",
            ],
            &["runtime=0", "never end"],
        ),
        (
            &["fio", "--name=t", "--size=0"],
            &["size=", "e.g. --size=1g"],
        ),
        (
            &["fio", "--name=t", "--size=1m", "--numjobs=0"],
            &["numjobs=0", "numjobs=1 or more"],
        ),
        (
            &["fio", "--name=t", "--size=1m", "--iodepth=0"],
            &["iodepth=0", "at least 1"],
        ),
    ];
    for (args, parts) in cases {
        let out = diskbench()
            .args(args)
            .arg("--no-save")
            .arg(match args[0] {
                "run" => dir.path().display().to_string(),
                _ => format!("--directory={}", dir.path().display()),
            })
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), refused_code(args[0]), "{args:?}: {err}");
        for part in parts {
            assert!(
                err.contains(part),
                "{args:?}: {err:?} should contain {part:?}"
            );
        }
        assert!(!err.contains("global options"), "{args:?}: {err}");
        assert!(entries(dir.path()).is_empty(), "{args:?} left files");
    }
}

#[test]
fn run_quick_prints_target_table_and_headline_and_cleans_up() {
    let dir = real_dir();
    let out = diskbench()
        .args(["run", "--quick", "--size", "32m"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "seq-read-1m-qd8",
        "mixed-4k-qd32",
        "rand-write-4k-qd1",
        "IOPS",
        "Read MB/s",
        "Write MB/s",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn run_json_has_one_job_per_test() {
    let dir = real_dir();
    let out = diskbench()
        .args(["run", "--quick", "--json", "--size", "16m"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 7);
    for j in jobs {
        let ios =
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
        assert!(ios > 0, "{}", j["jobname"]);
        assert_eq!(j["job options"]["direct"], "1");
        // Every option that ran is echoed: pasted into fio, the same job.
        assert_eq!(j["job options"]["time_based"], "1", "{}", j["jobname"]);
        // The stop once stable judged the slices: the interval the job
        // reached is kept beside them, as the text prints it.
        let st = &j["diskbench"]["stability"];
        assert!(st["slice_ios"].is_array(), "{}: {st}", j["jobname"]);
        let iv = &st["iops_interval"];
        assert!(
            iv.is_null() || iv["low"].as_f64() <= iv["high"].as_f64(),
            "{}: {st}",
            j["jobname"]
        );
        assert!(st.get("iops_interval").is_some(), "{}: {st}", j["jobname"]);
    }
}
