//! fio's `--debug=io` prints a line per completed I/O on stdout
//! (`io       PID complete: io_u 0x0: off=0x3000,len=0x1000,ddir=1,file=NAME`),
//! and scripts read the offsets from it: fio's own t/t64-switch.sh cuts
//! the text between the first `=` and the next `,` and counts the offsets
//! that repeat. Here a random write of 16 blocks must print 16 such lines,
//! one per block (the random map visits each once), with nothing on stderr.

mod common;
use common::*;

#[test]
fn debug_io_prints_fios_line_for_each_completed_io() {
    let dir = real_dir();
    let file = dir.path().join("traced");
    let (size, bs) = (64u64 << 10, 4096u64);
    let out = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--no-save",
            "--debug=io",
            "--name=t",
            "--ioengine=psync",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--output-format=json",
            "--output=out.json",
        ])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "stderr stays empty, as fio's");
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" complete: ")).collect();
    assert_eq!(lines.len() as u64, size / bs, "{text}");
    let mut offsets: Vec<u64> = lines
        .iter()
        .map(|l| {
            assert!(l.starts_with("io "), "{l}");
            assert!(
                l.ends_with(&format!(",ddir=1,file={}", file.display())),
                "{l}"
            );
            assert!(l.contains(&format!(",len={bs:#x},")), "{l}");
            // As the script cuts it: after the first '=', up to the comma.
            let off = l.split('=').nth(1).unwrap().split(',').next().unwrap();
            u64::from_str_radix(off.trim_start_matches("0x"), 16).unwrap()
        })
        .collect();
    offsets.sort_unstable();
    let every: Vec<u64> = (0..size / bs).map(|b| b * bs).collect();
    assert_eq!(offsets, every);
}

/// The null engine has no files; fio names them in the trace all the same
/// (`JOB.CLONE.FILE`), and so must diskbench.
#[test]
fn debug_io_names_the_null_engines_files_as_fio_does() {
    let out = diskbench()
        .args([
            "fio",
            "--no-save",
            "--debug=io",
            "--name=nul",
            "--ioengine=null",
            "--filesize=16k",
            "--bs=4k",
            "--rw=randread",
            "--output-format=json",
            "--output=/dev/null",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" complete: ")).collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines.iter().all(|l| l.ends_with(",ddir=0,file=nul.0.0")),
        "{text}"
    );
}

/// fio says each category it was given (`fio: set debug option file`) on
/// stdout and nothing on stderr; diskbench, with no trace of its own for
/// most categories, says the same and keeps stderr empty too (what it
/// cannot trace is a note in the JSON's `diskbench.warnings`).
#[test]
fn debug_categories_are_set_on_stdout_and_stderr_stays_empty_as_in_fio() {
    let dir = real_dir();
    let args = [
        "--debug=file,process",
        "--name=t",
        "--ioengine=null",
        "--rw=read",
        "--size=64k",
    ];
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--no-save"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
    let text = stdout_of(&out);
    let set: Vec<&str> = text.lines().filter(|l| l.contains("set debug")).collect();
    assert_eq!(
        set,
        [
            "fio: set debug option file",
            "fio: set debug option process"
        ]
    );
    let json = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--output=o.json",
        ])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(stderr_of(&json), "");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("o.json")).unwrap()).unwrap();
    let warnings = doc["diskbench"]["warnings"].to_string();
    assert!(warnings.contains("file,process"), "{warnings}");
    if let Some(real) = real_fio_in(dir.path(), &args) {
        assert!(real.stderr.is_empty());
        let theirs = stdout_of(&real);
        let theirs: Vec<&str> = theirs.lines().filter(|l| l.contains("set debug")).collect();
        assert_eq!(theirs, set);
    }
}
