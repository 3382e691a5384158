//! fio's normal output starts before the results: a line per job (its
//! group, direction, block sizes, engine and depth), `fio-3.33`, how many
//! processes and threads start, a line per clone whose files are laid out,
//! a blank line; each job's result line ends with its pid and the date.
//! Scripts written for fio read these lines, so `diskbench fio` prints the
//! same ones, compared here with fio itself when it is installed.

mod common;
use common::*;

/// The lines of fio's normal output that are not figures: the header, the
/// job result lines (pid and date made alike), the group and disk titles.
fn skeleton(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('\t'))
        .filter(|l| !l.starts_with("note:") && !l.starts_with("Jobs:"))
        .map(|l| match l.find(": pid=") {
            Some(at) => format!("{}: pid=P: DATE", &l[..at]),
            None => l.to_string(),
        })
        .collect()
}

const JOBS: &str = "--name=a --rw=randrw --bsrange=4k-16k --size=1m --numjobs=3 \
    --name=b --rw=write --bssplit=4k/50:8k/50 --size=1m --thread \
    --name=c --stonewall --rw=read --bs=4k,8k --size=1m --nrfiles=2";

#[test]
fn the_normal_output_starts_with_fios_lines_before_the_run() {
    let dir = real_dir();
    let out = fio_text_in(dir.path(), JOBS);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stderr.is_empty(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines = skeleton(&text);
    let bs = |r: &str, w: &str| format!("bs=(R) {r}, (W) {w}, (T) {w}, ioengine=psync, iodepth=1");
    let expected_head = [
        format!(
            "a: (g=0): rw=randrw, {}",
            bs("4096B-16.0KiB", "4096B-16.0KiB")
        ),
        "...".to_string(),
        format!("b: (g=0): rw=write, {}", bs("4096B-8192B", "4096B-8192B")),
        format!("c: (g=1): rw=read, {}", bs("4096B-4096B", "8192B-8192B")),
        "fio-3.33".into(),
        "Starting 1 thread and 4 processes".into(),
        "a: Laying out IO file (1 file / 1MiB)".into(),
        "a: Laying out IO file (1 file / 1MiB)".into(),
        "a: Laying out IO file (1 file / 1MiB)".into(),
        "b: Laying out IO file (1 file / 1MiB)".into(),
        "c: Laying out IO files (2 files / total 1MiB)".into(),
        String::new(),
        "a: (groupid=0, jobs=1): err= 0: pid=P: DATE".into(),
    ];
    assert_eq!(lines[..expected_head.len()], expected_head, "{text}");
    let pid = format!(": pid={}: ", out_pid(&text));
    assert!(text.contains(&pid));
    // The files are there now: a second run lays out nothing.
    let again = stdout_of(&fio_text_in(dir.path(), JOBS));
    assert!(!again.contains("Laying out"), "{again}");
    assert!(
        again.contains("Starting 1 thread and 4 processes\n\n"),
        "{again}"
    );
    // fio prints the same lines for the same jobs, in a directory of its own.
    let theirs = real_dir();
    let args: Vec<&str> = JOBS.split_whitespace().collect();
    if let Some(real) = real_fio_in(theirs.path(), &args) {
        assert!(real.status.success());
        assert_eq!(skeleton(&stdout_of(&real)), lines);
    }
}

/// The pid in the first result line.
fn out_pid(text: &str) -> u32 {
    let at = text.find(": pid=").unwrap() + 6;
    text[at..].split(':').next().unwrap().parse().unwrap()
}

/// fio prints terse, then JSON, then the normal text whatever order
/// `--output-format` names them in, the header first; JSON and terse alone
/// have no header, and a JSON document ends at its closing brace's line.
#[test]
fn formats_come_in_fios_order_after_the_header() {
    let dir = real_dir();
    let job = "--name=j --rw=read --size=256k";
    let out = fio_text_in(
        dir.path(),
        &format!("{job} --output-format=json,terse,normal"),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("j: (g=0): rw=read, bs=(R) 4096B-4096B"));
    assert_eq!(lines[1..3], ["fio-3.33", "Starting 1 process"]);
    assert_eq!(lines[3], "j: Laying out IO file (1 file / 0MiB)");
    assert!(lines[4].starts_with("3;fio-3.33;j;"), "{text}");
    assert_eq!(lines[5], "{");
    let close = lines.iter().position(|l| *l == "}").unwrap();
    assert_eq!(lines[close + 1], "");
    assert!(lines[close + 2].starts_with("j: (groupid=0, jobs=1): err= 0: pid="));
    let json = stdout_of(&fio_text_in(
        dir.path(),
        &format!("{job} --output-format=json"),
    ));
    assert!(json.starts_with('{') && json.ends_with("}\n"), "{json}");
    let terse = stdout_of(&fio_text_in(dir.path(), &format!("{job} --minimal")));
    assert!(terse.starts_with("3;fio-3.33;j;"), "{terse}");
    let theirs = real_dir();
    if let Some(real) = real_fio_in(
        theirs.path(),
        &[
            "--name=j",
            "--rw=read",
            "--size=256k",
            "--output-format=json,terse,normal",
        ],
    ) {
        assert_eq!(skeleton(&stdout_of(&real))[..4], skeleton(&text)[..4]);
    }
}

/// With `--output=FILE` the header is the file's start, and stdout holds
/// nothing.
#[test]
fn the_header_goes_into_the_output_file() {
    let dir = real_dir();
    let out = fio_text_in(dir.path(), "--name=j --rw=read --size=256k --output=o.txt");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(dir.path().join("o.txt")).unwrap();
    assert!(text.starts_with("j: (g=0): "), "{text}");
    assert!(
        text.contains(
            "fio-3.33\nStarting 1 process\nj: Laying out IO file (1 file / 0MiB)\n\nj: (groupid=0"
        ),
        "{text}"
    );
}
