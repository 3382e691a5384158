//! The job's buffers in the JSON (`diskbench.buffers`): a QD1 1 MiB job gets
//! huge pages as a deep one does, `--iomem=malloc` gets none (as fio's
//! buffers), and a bad `iomem` or an io_uring option with another engine is
//! refused before anything runs (exit 1, as fio exits).

mod common;
use common::*;
use serde_json::Value;

fn thp_available() -> bool {
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    match std::fs::read_to_string(path) {
        Ok(s) if !s.contains("[never]") => true,
        Ok(_) => {
            eprintln!("skipping: {path} is `never`");
            false
        }
        Err(e) => {
            eprintln!("skipping: cannot read {path}: {e}");
            false
        }
    }
}

/// The `diskbench.buffers` object of a small 1 MiB read job.
fn buffers(extra: &[&str]) -> Value {
    let dir = real_dir();
    let out = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--name=b",
            "--size=4m",
            "--bs=1m",
            "--rw=read",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{extra:?}: {}", stderr_of(&out));
    json_of(&out)["jobs"][0]["diskbench"]["buffers"].clone()
}

#[test]
fn a_qd1_one_mib_job_reports_huge_pages() {
    if !thp_available() {
        return;
    }
    for engine in ["psync", "io_uring"] {
        let b = buffers(&[&format!("--ioengine={engine}"), "--iodepth=1"]);
        assert_eq!(b["iomem"], "default", "{b}");
        assert!(b["huge_page_bytes"].as_u64().unwrap() > 0, "{engine}: {b}");
        assert!(b["huge_page_bytes"].as_u64() <= b["bytes"].as_u64(), "{b}");
    }
}

#[test]
fn iomem_malloc_reports_no_huge_pages() {
    let b = buffers(&["--iomem=malloc", "--ioengine=io_uring", "--iodepth=4"]);
    assert_eq!(b["iomem"], "malloc", "{b}");
    assert_eq!(b["memory"], "heap", "{b}");
    assert_eq!(b["bytes"], 4 << 20, "{b}");
    assert_eq!(b["huge_page_bytes"], 0, "{b}");
    let b = buffers(&["--mem=mmap"]);
    assert_eq!(b["huge_page_bytes"], 0, "{b}");
}

#[test]
fn io_uring_options_run() {
    let b = buffers(&[
        "--ioengine=io_uring",
        "--iodepth=2",
        "--fixedbufs=0",
        "--registerfiles=0",
        "--sqthread_poll",
    ]);
    assert_eq!(b["bytes"].as_u64().unwrap() % (2 << 20), 0, "{b}");
}

#[test]
fn bad_values_are_refused_with_exit_1() {
    let cases: [(&[&str], &str); 4] = [
        (&["--iomem=bogus"], "use one of malloc, shm, shmhuge, mmap"),
        (
            &["--iomem=mmap:/tmp/file"],
            "use iomem=mmap without the path",
        ),
        (
            &["--ioengine=libaio", "--hipri"],
            "hipri is an option of the io_uring engine",
        ),
        (
            &["--ioengine=io_uring", "--sqthread_poll_cpu=0"],
            "add sqthread_poll=1",
        ),
    ];
    for (args, want) in cases {
        let dir = real_dir();
        let out = diskbench()
            .current_dir(dir.path())
            .args(["fio", "--no-save", "--name=b", "--size=4m", "--bs=1m"])
            .args(args)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
