//! `atomic=1` (RWF_ATOMIC writes) refused before the first I/O where the
//! file or device lacks atomic writes of the job's size, naming what it
//! needs and the figures the device has; `--parse-only` takes the job.
//! This machine's virtio disk has none; where one has them, the job must
//! run instead.

mod common;
use common::*;

const JOB: &str = "--name=a --filename=f --size=1m --bs=4k --rw=randwrite --atomic=1 --direct=1";

#[test]
fn atomic_writes_need_a_device_that_has_them() {
    let dir = real_dir();
    for engine in ["libaio", "io_uring", "pvsync2"] {
        let args = format!("{JOB} --ioengine={engine}");
        let parsed = fio_in(dir.path(), &format!("--parse-only {args}"));
        assert!(parsed.status.success(), "{}", stderr_of(&parsed));
        assert!(stdout_of(&parsed).contains("--atomic=1"));
        let out = fio_in(dir.path(), &args);
        let err = stderr_of(&out);
        if out.status.success() {
            // A file with atomic writes: the job ran them.
            let doc = json_of(&out);
            assert_eq!(doc["jobs"][0]["write"]["io_kbytes"], 1024);
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{err}");
        for part in [
            "atomic=1 writes with RWF_ATOMIC",
            "atomic write support",
            "statx STATX_WRITE_ATOMIC gives atomic write units of 0 to 0 bytes",
            "drop atomic",
        ] {
            assert!(err.contains(part), "{part:?} in {err}");
        }
    }
    // Buffered, and an engine without the flag: refused by name.
    let out = fio_in(dir.path(), &format!("{JOB} --ioengine=libaio --direct=0"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("add direct=1"),
        "{}",
        stderr_of(&out)
    );
    let out = fio_in(dir.path(), &format!("{JOB} --ioengine=psync --parse-only"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("pvsync2, libaio and io_uring"));
}
