//! fio's command line beyond the jobs, as scripts use it: `--minimal`,
//! `--version`, `--status-interval`, `--eta`, `--max-jobs`, `--showcmd`,
//! `--cmdhelp`, `--inflate-log`, the trigger, `--warnings-fatal`, and the
//! client/server options' pointer to diskbench's own way. Checked against
//! fio 3.33 where fio's output is the reference.

mod common;
use common::*;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");

fn dfio(dir: &Path, args: &[&str]) -> std::process::Output {
    diskbench()
        .current_dir(dir)
        .args(["fio", "--no-save"])
        .args(args)
        .output()
        .unwrap()
}

const JOB: &[&str] = &["--name=t", "--ioengine=null", "--size=1m", "--rw=randrw"];

#[test]
fn minimal_prints_fios_terse_line() {
    let dir = real_dir();
    let ours = dfio(dir.path(), &[&["--minimal"], JOB].concat());
    assert!(ours.status.success(), "{}", stderr_of(&ours));
    let Some(theirs) = real_fio_in(dir.path(), &[&["--minimal"], JOB].concat()) else {
        return;
    };
    let (ours, theirs) = (stdout_of(&ours), stdout_of(&theirs));
    let ours: Vec<&str> = ours.trim_end().split(';').collect();
    let theirs: Vec<&str> = theirs.trim_end().split(';').collect();
    assert_eq!(ours.len(), theirs.len(), "fields: {ours:?} vs {theirs:?}");
    // Version, job name, group, error, then the bytes read and written.
    for field in [0, 2, 3, 4] {
        assert_eq!(ours[field], theirs[field], "field {field}");
    }
    let kib = |f: &[&str], at: usize| f[at].parse::<u64>().unwrap();
    // rw=randrw splits 1 MiB between reads and writes; together the whole size.
    assert_eq!(kib(&ours, 5) + kib(&ours, 46), 1024);
    assert_eq!(kib(&theirs, 5) + kib(&theirs, 46), 1024);
    // --append-terse adds the line to the normal text; fio 3.33 prints it
    // before the normal results, after the lines before the run.
    let both = dfio(dir.path(), &[&["--append-terse"], JOB].concat());
    let text = stdout_of(&both);
    let terse = text.lines().position(|l| l.starts_with("3;")).expect(&text);
    let status = (text.lines()).position(|l| l.starts_with("Run status group 0"));
    assert!(status.expect(&text) > terse, "{text}");
    assert!(
        text.lines()
            .nth(terse - 1)
            .unwrap()
            .starts_with("Starting 1 process"),
        "{text}"
    );
}

/// `--version`, the JSON's `fio version` and the terse line's second field
/// are one string, fio 3.33's own: tools that match `fio-3` accept it.
/// diskbench's own version is in the JSON's `diskbench` block.
#[test]
fn version_is_fios_in_every_form() {
    let out = diskbench().args(["fio", "--version"]).output().unwrap();
    assert!(out.status.success());
    let line = stdout_of(&out);
    // fio's form, `fio-MAJOR.MINOR` and nothing after it.
    let shape = |l: &str| {
        let number = l.strip_prefix("fio-").and_then(|n| n.strip_suffix('\n'));
        number.is_some_and(|n| n.split('.').all(|p| p.parse::<u32>().is_ok()))
    };
    assert!(line.starts_with("fio-3") && shape(&line), "{line}");
    let dir = real_dir();
    let json = json_of(&dfio(
        dir.path(),
        &[&["--output-format=json"], JOB].concat(),
    ));
    let terse = stdout_of(&dfio(dir.path(), &[&["--minimal"], JOB].concat()));
    let field = terse.split(';').nth(1).unwrap_or_default().to_string();
    assert_eq!(json["fio version"].as_str(), Some(line.trim()));
    assert_eq!(field, line.trim(), "{terse}");
    let ours = format!("diskbench-{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(json["diskbench"]["version"].as_str(), Some(ours.as_str()));
    // fio's own line, where fio is installed: the same form.
    if let Some(fio) = real_fio_in(dir.path(), &["--version"]) {
        assert!(shape(&stdout_of(&fio)), "{}", stdout_of(&fio));
    }
}

/// Splits a stream of JSON documents printed one after another.
fn documents(text: &str) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .map(|d| d.expect("each document parses"))
        .collect()
}

#[test]
fn status_interval_prints_a_whole_json_document_each_second() {
    let dir = real_dir();
    let args = [
        "--status-interval=1",
        "--output-format=json",
        "--eta=never",
        "--max-jobs=4",
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--rate_iops=1000",
        "--time_based",
        "--runtime=3",
    ];
    let out = dfio(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let docs = documents(&stdout_of(&out));
    // One per finished second (at least two of the three arrive before the
    // end) and the final one.
    assert!((3..=4).contains(&docs.len()), "{} documents", docs.len());
    let ios: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap())
        .collect();
    assert!(ios.windows(2).all(|w| w[0] < w[1]), "cumulative: {ios:?}");
    // 1000 IOPS: about 1000 after the first second, 3000 at the end (fewer
    // when a loaded machine holds the job up at the second's edge: 800 is
    // 200 ms late; no more, as the pacing never runs ahead).
    assert!((800..=1100).contains(&ios[0]), "{ios:?}");
    assert!((2800..=3100).contains(ios.last().unwrap()), "{ios:?}");
}

#[test]
fn ndjson_streams_one_parseable_line_per_job_and_interval() {
    let dir = real_dir();
    let args = [
        "--status-interval=1",
        "--output-format=ndjson",
        "--ioengine=null",
        "--size=1m",
        "--rate_iops=500",
        "--time_based",
        "--runtime=2",
        "--name=a",
        "--name=b",
    ];
    let out = dfio(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    let finals: Vec<&str> = lines
        .iter()
        .filter(|l| l["status"] == "final")
        .map(|l| l["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(finals, ["a", "b"]);
    let intervals = lines.iter().filter(|l| l["status"] == "interval").count();
    assert!(intervals >= 2 && intervals % 2 == 0, "{text}");
}

/// fio shows its run state line only with its normal output: with
/// `--eta=always` and only JSON or terse on stdout it shows none, and
/// stdout and stderr hold only the document, as fio's do.
#[test]
fn eta_always_shows_nothing_without_the_normal_output_as_in_fio() {
    let dir = real_dir();
    let job = [
        "--name=e",
        "--ioengine=null",
        "--size=1g",
        "--rw=read",
        "--time_based",
        "--runtime=1500ms",
    ];
    for format in ["--output-format=json", "--minimal"] {
        let out = dfio(dir.path(), &[&["--eta=always", format], &job[..]].concat());
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(stderr_of(&out), "", "{format}");
        if let Some(real) = real_fio_in(dir.path(), &[&["--eta=always", format], &job[..]].concat())
        {
            assert!(real.stderr.is_empty());
            assert!(!stdout_of(&real).contains("Jobs:"), "fio, {format}");
        }
        assert!(!stdout_of(&out).contains("Jobs:"));
    }
}

#[test]
fn eta_options_are_checked_and_accepted() {
    let dir = real_dir();
    for eta in ["--eta=never", "--eta=always", "--eta=auto"] {
        let out = dfio(
            dir.path(),
            &[
                &[eta, "--eta-interval=500ms", "--eta-newline=1", "--minimal"],
                JOB,
            ]
            .concat(),
        );
        assert!(out.status.success(), "{eta}: {}", stderr_of(&out));
    }
    let bad = dfio(dir.path(), &[&["--eta=sometimes"], JOB].concat());
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr_of(&bad).contains("always, never or auto"));
    let short = dfio(dir.path(), &[&["--eta-interval=100ms"], JOB].concat());
    assert_eq!(short.status.code(), Some(1));
    assert!(stderr_of(&short).contains("250ms"), "{}", stderr_of(&short));
}

#[test]
fn client_server_options_point_to_diskbenchs_own_way() {
    let dir = real_dir();
    for opt in [
        "--server",
        "--client=host1",
        "--daemonize=/tmp/p",
        "--remote-config=j",
    ] {
        let out = dfio(dir.path(), &[&[opt], JOB].concat());
        assert_eq!(out.status.code(), Some(1), "{opt}");
        let err = stderr_of(&out);
        assert!(err.contains("--db postgresql://"), "{opt}: {err}");
        assert!(err.contains("diskbench kube run"), "{opt}: {err}");
    }
}

#[test]
fn showcmd_prints_a_command_line_fio_runs() {
    let dir = real_dir();
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n[b]\nstonewall\nrw=write\nbs=8k\n",
    )
    .unwrap();
    let out = dfio(dir.path(), &["--showcmd", job.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let line = stdout_of(&out);
    let args: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(args[0], "fio", "{line}");
    let Some(fio) = real_fio_in(dir.path(), &[&["--minimal"], &args[1..]].concat()) else {
        return;
    };
    assert!(fio.status.success(), "{line}: {}", stderr_of(&fio));
    let lines = stdout_of(&fio);
    let fields: Vec<Vec<&str>> = lines.lines().map(|l| l.split(';').collect()).collect();
    // Job a reads 1 MiB in group 0; job b writes it in group 1.
    assert_eq!(
        (fields[0][2], fields[0][3], fields[0][5]),
        ("a", "0", "1024")
    );
    assert_eq!(
        (fields[1][2], fields[1][3], fields[1][46]),
        ("b", "1", "1024")
    );
}

#[test]
fn cmdhelp_and_enghelp_answer_from_the_tables() {
    let out = diskbench()
        .args(["fio", "--cmdhelp=blocksize"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(stdout_of(&out).contains("bs: job option, carried out"));
    let out = diskbench().args(["fio", "--cmdhelp=bz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("did you mean 'bs'"));
    let out = diskbench().args(["fio", "--enghelp"]).output().unwrap();
    assert!(stdout_of(&out).contains("\tio_uring\n"));
    let out = diskbench().args(["fio", "--debug=?"]).output().unwrap();
    assert!(stdout_of(&out).contains("parse"));
}

#[test]
fn inflate_log_prints_fios_lines() {
    for name in ["fio-3.33-bw.log", "fio-3.33-lat-offset.log"] {
        let compressed = format!("{FIXTURES}/{name}.fz");
        let out = diskbench()
            .args(["fio", &format!("--inflate-log={compressed}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", stderr_of(&out));
        let want = std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
        assert_eq!(stdout_of(&out), want, "{name}");
    }
    let out = diskbench()
        .args(["fio", &format!("--inflate-log={FIXTURES}/fio-3.33-bw.log")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("not a log fio stored compressed"));
}

#[test]
fn trigger_stops_the_jobs_and_runs_the_command() {
    let dir = real_dir();
    let mark = dir.path().join("triggered");
    let command = format!("--trigger=touch {}", mark.display());
    let out = dfio(
        dir.path(),
        &[
            "--trigger-timeout=1",
            &command,
            "--minimal",
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=30",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(mark.exists(), "the trigger command ran");
    let terse = stdout_of(&out);
    assert!(terse.starts_with("3;"), "results printed");
    // The trigger stopped the job: it measured less than its 30 s runtime
    // (the read runtime in ms is the terse line's 9th field).
    let runtime: u64 = terse.split(';').nth(8).unwrap().parse().unwrap();
    assert!(runtime < 30_000, "the job ran {runtime} ms: {terse}");
}

#[test]
fn bandwidth_log_writes_the_aggregate_logs() {
    let dir = real_dir();
    let out = dfio(
        dir.path(),
        &[
            "--bandwidth-log",
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--rate=1m",
            "--time_based",
            "--runtime=2",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let read = std::fs::read_to_string(dir.path().join("agg-read_bw.log")).unwrap();
    let lines: Vec<(u64, u64)> = read
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect();
    // One line per second. A loaded machine ends the 2 s job a few ms
    // late, and that last partial second gets a line of its own (a few
    // ms hold one I/O or none, so its figure says nothing); the whole
    // seconds are the two at 1000 and 2000 ms, each at the 1 MiB/s asked.
    let whole: Vec<(u64, u64)> = lines.iter().copied().filter(|l| l.0 <= 2000).collect();
    assert_eq!(
        whole.iter().map(|l| l.0).collect::<Vec<_>>(),
        [1000, 2000],
        "{read}"
    );
    assert!(lines.len() <= 3, "{read}");
    assert!(whole.iter().all(|l| (900..=1100).contains(&l.1)), "{read}");
    assert!(dir.path().join("agg-write_bw.log").exists());
    assert!(dir.path().join("agg-trim_bw.log").exists());
}

#[test]
fn warnings_fatal_refuses_a_job_with_a_warning() {
    let dir = real_dir();
    let args = [&["--gtod_reduce=1"], JOB].concat();
    assert!(dfio(dir.path(), &args).status.success());
    let out = dfio(
        dir.path(),
        &[&["--warnings-fatal"], args.as_slice()].concat(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("--warnings-fatal"));
}

/// Where a direction's fields start in a terse line of `version`: after
/// the version, (from 3 on) fio's version, the job name, group and error;
/// each direction has 41 fields, 47 in version 5.
fn terse_dir_start(version: u32, dir: usize) -> usize {
    let head = if version == 2 { 4 } else { 5 };
    let per_dir = if version == 5 { 47 } else { 41 };
    head + dir * per_dir
}

#[test]
fn every_terse_version_has_fios_fields() {
    let job = [
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--filename=w.dat",
        "--ioengine=psync",
        "--description=a job",
    ];
    for version in [2, 3, 4, 5] {
        let flag = format!("--terse-version={version}");
        let args = [&["--minimal", flag.as_str()], job.as_slice()].concat();
        let (ours_dir, theirs_dir) = (real_dir(), real_dir());
        let ours = dfio(ours_dir.path(), &args);
        assert!(ours.status.success(), "{}", stderr_of(&ours));
        let Some(theirs) = real_fio_in(theirs_dir.path(), &args) else {
            return;
        };
        let (ours, theirs) = (stdout_of(&ours), stdout_of(&theirs));
        let lines = |text: &str| -> Vec<Vec<String>> {
            text.lines()
                .map(|l| l.split(';').map(str::to_string).collect())
                .collect()
        };
        let (ours, theirs) = (lines(&ours), lines(&theirs));
        assert_eq!(
            ours.len(),
            theirs.len(),
            "v{version}: {ours:?} vs {theirs:?}"
        );
        for (o, t) in ours.iter().zip(&theirs) {
            assert_eq!(o.len(), t.len(), "v{version} fields: {o:?} vs {t:?}");
        }
        let (o, t) = (&ours[0], &theirs[0]);
        assert_eq!(o[0], version.to_string());
        let name_at = if version == 2 { 1 } else { 2 };
        // Name, group and error; the KiB written, where the version puts them.
        for at in [
            name_at,
            name_at + 1,
            name_at + 2,
            terse_dir_start(version, 1),
        ] {
            assert_eq!(o[at], t[at], "v{version} field {at}: {o:?}");
        }
        assert_eq!(o[terse_dir_start(version, 1)], "1024");
        match version {
            // Version 2 puts the description on a line of its own.
            2 => assert_eq!(ours[1], ["", "a job"]),
            _ => assert_eq!(o.last().unwrap(), "a job"),
        }
    }
    // Versions 2, 4 and 5 add trims as a third direction (fio 3.33 cannot
    // trim a file, so diskbench's own count is checked: 1 MiB trimmed).
    for version in [2, 4, 5] {
        let flag = format!("--terse-version={version}");
        let dir = real_dir();
        let args = ["--minimal", &flag, "--name=t", "--rw=trim", "--size=1m"];
        let out = dfio(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr_of(&out));
        let line = stdout_of(&out);
        let fields: Vec<&str> = line.trim_end().split(';').collect();
        assert_eq!(
            fields[terse_dir_start(version, 2)],
            "1024",
            "v{version}: {line}"
        );
        assert_eq!(
            fields[terse_dir_start(version, 1)],
            "0",
            "v{version}: {line}"
        );
    }
    let out = dfio(
        real_dir().path(),
        &[&["--minimal", "--terse-version=6"], JOB].concat(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("2, 3, 4 and 5"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn status_interval_documents_go_to_the_output_file() {
    let dir = real_dir();
    let file = dir.path().join("out.json");
    let output = format!("--output={}", file.display());
    let args = [
        "--status-interval=1",
        "--output-format=json",
        &output,
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--rate_iops=500",
        "--time_based",
        "--runtime=3",
    ];
    let out = dfio(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "", "everything went to the file");
    let docs = documents(&std::fs::read_to_string(&file).unwrap());
    assert!((3..=4).contains(&docs.len()), "{} documents", docs.len());
}
