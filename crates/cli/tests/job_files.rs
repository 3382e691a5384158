//! `diskbench fio JOBFILE...` runs fio job files
//! group by group, `--parse-only` prints the jobs without running them, and
//! errors name the `file:line`.

mod common;
use common::*;

const GROUPS: &str = "[global]\nioengine=null\nsize=4m\n\n[a]\n[b]\nrw=write\n\n\
                      [c]\nstonewall\nrw=randread\n";

#[test]
fn groups_run_in_order_with_fio_groupids() {
    let dir = real_dir();
    let file = dir.path().join("g.fio");
    std::fs::write(&file, GROUPS).unwrap();
    let out = diskbench()
        .args(["fio", "--output-format=json", "--no-save"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let jobs: Vec<(String, u64)> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [("a", 0), ("b", 0), ("c", 1)].map(|(n, g)| (n.to_string(), g));
    assert_eq!(jobs, want);
}

#[test]
fn parse_only_reads_standard_input_and_runs_nothing() {
    let out = diskbench()
        .args(["fio", "--parse-only", "--size=1m", "-"])
        .write_stdin(GROUPS)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[0], "# group 0");
    assert!(
        lines[1].starts_with("--name=a --rw=read --bs=4k --size=1m "),
        "{text}"
    );
    assert!(lines[2].starts_with("--name=b --rw=write"), "{text}");
    assert_eq!(lines[3], "# group 1");
    assert!(
        lines[4].starts_with("--name=c --stonewall --rw=randread"),
        "{text}"
    );
}

#[test]
fn errors_name_the_file_and_line_and_exit_1() {
    let dir = real_dir();
    let file = dir.path().join("bad.fio");
    std::fs::write(&file, "[a]\nioengine=null\nsize=1m\niodpeth=4\n").unwrap();
    let path = file.display().to_string();
    for extra in [&["--output-format=json"][..], &["--parse-only"][..]] {
        let out = diskbench()
            .arg("fio")
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = stderr_of(&out);
        let want = format!("{path}:4: unknown option 'iodpeth'; did you mean 'iodepth'?");
        assert!(err.contains(&want), "{err}");
    }
    let out = diskbench()
        .args(["fio", "--parse-only", "no-such.fio"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("job file 'no-such.fio'"));
}

#[test]
fn wait_for_warns_about_the_approximation() {
    let out = diskbench()
        .args(["fio", "--parse-only", "--diskbench-checks", "-"])
        .write_stdin("[global]\nioengine=null\nsize=1m\n[a]\n[x]\n[b]\nwait_for=a\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("warning: job 'b' has wait_for=a"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("# group")
            .count(),
        2
    );
}

/// fio's JSON lists a job file's `[global]` options under `global options`,
/// between `time` and `jobs`; without a `[global]` the key is absent.
#[test]
fn global_options_come_before_the_jobs_as_in_fio() {
    let dir = real_dir();
    let file = dir.path().join("g.fio");
    std::fs::write(
        &file,
        "[global]\nioengine=null\nsize=4m\nbs=8k\n\n[a]\nrw=randread\n",
    )
    .unwrap();
    let out = diskbench()
        .args(["fio", "--no-save", "--output-format=json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc = json_of(&out);
    assert_eq!(doc["global options"]["ioengine"], "null", "{doc}");
    assert_eq!(doc["global options"]["bs"], "8k");
    let (g, j) = (
        text.find("\"global options\"").unwrap(),
        text.find("\"jobs\"").unwrap(),
    );
    assert!(text.find("\"time\"").unwrap() < g && g < j, "{text}");
    let bare = diskbench()
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--name=b",
            "--ioengine=null",
            "--size=1m",
        ])
        .output()
        .unwrap();
    assert!(json_of(&bare).get("global options").is_none());
}
