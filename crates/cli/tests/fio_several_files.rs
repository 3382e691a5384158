//! `filename=a:b:c` names several files for one job, as in fio: `size` is
//! split evenly among them, each is laid out, and the I/O goes round them,
//! so a write of 300 KiB over three files leaves three files of 100 KiB,
//! each written, and reports 300 KiB, as fio does with the same job.

mod common;
use common::*;

/// Three paths in `dir`, for one `filename=`.
fn three_files(dir: &std::path::Path) -> Vec<String> {
    ["a", "b", "c"]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .collect()
}

#[test]
fn a_job_writes_each_file_its_share_of_size() {
    let dir = real_dir();
    let names = three_files(dir.path());
    let filename = format!("--filename={}", names.join(":"));
    let job = [
        "--name=w",
        filename.as_str(),
        "--size=300k",
        "--bs=4k",
        "--rw=write",
        "--output-format=json",
    ];
    let out = diskbench()
        .args(["fio", "--no-save"])
        .args(job)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let written = doc["jobs"][0]["write"]["io_kbytes"].as_u64();
    assert_eq!(written, Some(300), "{doc}");
    for name in &names {
        let data = std::fs::read(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(data.len(), 100 << 10, "{name}");
        assert!(data.iter().any(|&b| b != 0), "{name} was written");
    }
    // The same job under fio writes as much.
    for name in &names {
        std::fs::remove_file(name).unwrap();
    }
    if let Some(fio) = real_fio_in(dir.path(), &job) {
        assert!(fio.status.success(), "{}", stderr_of(&fio));
        let doc = json_of(&fio);
        assert_eq!(doc["jobs"][0]["write"]["io_kbytes"].as_u64(), written);
    }
}

/// The file-operation engines take every named file too: filecreate makes
/// all three, as fio does, not only the first.
#[test]
fn filecreate_makes_every_named_file() {
    let dir = real_dir();
    let names = three_files(dir.path());
    let out = diskbench()
        .args(["fio", "--no-save", "--output-format=json", "--name=c"])
        .arg(format!("--filename={}", names.join(":")))
        .args(["--ioengine=filecreate", "--filesize=4k", "--rw=write"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(
        doc["jobs"][0]["write"]["total_ios"].as_u64(),
        Some(3),
        "{doc}"
    );
    for name in &names {
        assert!(std::path::Path::new(name).exists(), "{name} was made");
    }
}
