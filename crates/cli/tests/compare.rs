//! `diskbench compare`, `report` and `chart` on a real history made by real
//! (null-engine) runs: the figures must equal those of the stored runs.

mod common;
use common::*;

fn save(db: &std::path::Path, disk: &str) {
    let out = diskbench()
        .args([
            "fio",
            "--name=t",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=32m",
        ])
        .arg(format!("--db={}", db.display()))
        .args([
            "--label",
            &format!("disk={disk}"),
            "--price-month=10",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

fn iops_of_run(db: &std::path::Path, id: u64) -> f64 {
    let out = diskbench()
        .args(["export", &id.to_string(), "--format", "fio-json"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json_of(&out)["jobs"][0]["read"]["iops"].as_f64().unwrap()
}

#[test]
fn compare_means_and_deviations_equal_the_stored_runs() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    for disk in ["a", "a", "a", "b", "b"] {
        save(&db, disk);
    }
    let out = diskbench()
        .args(["compare", "--by", "disk", "--format", "json"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    for (g, ids) in groups.iter().zip([vec![1, 2, 3], vec![4, 5]]) {
        let xs: Vec<f64> = ids.iter().map(|&id| iops_of_run(&db, id)).collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        assert_eq!(g["runs"], ids.len());
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
        assert!(close(g["iops"]["mean"].as_f64().unwrap(), mean), "{g}");
        assert!(close(g["iops"]["stddev"].as_f64().unwrap(), sd), "{g}");
        assert!(g["iops"]["ci95_low"].as_f64().unwrap() <= mean);
        assert!(close(g["monthly_cost"].as_f64().unwrap(), 10.0), "{g}");
    }
    let table = diskbench()
        .args(["compare", "--by", "disk"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&table.stdout).contains('±'));
}

#[test]
fn report_and_charts_are_written() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save(&db, "a");
    save(&db, "b");
    let html = dir.path().join("r.html");
    let out = diskbench()
        .args(["report", "--by", "disk", "-o"])
        .arg(&html)
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains("<svg") && !text.contains("https://"));
    for file in ["iops.svg", "iops.png"] {
        let path = dir.path().join(file);
        let out = diskbench()
            .args(["chart", "--kind", "bar", "--metric", "iops", "-o"])
            .arg(&path)
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let bytes = std::fs::read(&path).unwrap();
        if file.ends_with(".png") {
            assert_eq!(&bytes[..4], b"\x89PNG");
        } else {
            assert!(String::from_utf8_lossy(&bytes).starts_with("<svg"));
        }
    }
}

#[test]
fn an_empty_selection_is_a_usage_error() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    // A history to select from (reading one that is not there is another error).
    save(&db, "a");
    let out = diskbench()
        .args(["compare", "--label", "disk=none"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("no runs"), "{}", stderr_of(&out));
    let out = diskbench()
        .args(["chart", "-o", "x.gif"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Grouping by a label no run has would put every run in one row: refused,
/// naming the labels the runs have.
#[test]
fn grouping_by_a_label_no_run_has_is_a_usage_error() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save(&db, "a");
    save(&db, "b");
    // The report and a chart group the same way, so they refuse it too.
    let html = dir.path().join("r.html");
    let svg = dir.path().join("c.svg");
    let commands: [Vec<&std::ffi::OsStr>; 3] = [
        vec!["compare".as_ref()],
        vec!["report".as_ref(), "-o".as_ref(), html.as_os_str()],
        vec!["chart".as_ref(), "-o".as_ref(), svg.as_os_str()],
    ];
    for command in commands {
        let out = diskbench()
            .args(&command)
            .args(["--by", "nosuchlabel"])
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{command:?}: {}",
            stdout_of(&out)
        );
        let err = stderr_of(&out);
        assert!(
            err.contains("'nosuchlabel'") && err.contains("the selected runs have: disk"),
            "{command:?}: {err}"
        );
    }
    assert!(!html.exists() && !svg.exists());
}

/// A run of several jobs gives one series chart per job, all in the one
/// file asked for (not NAME-1.svg, NAME-2.svg, ... beside it).
#[test]
fn a_series_chart_of_several_jobs_is_one_file_at_the_path_asked() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    let out = diskbench()
        .args(["fio", "--ioengine=null", "--size=4m", "--time_based"])
        .args([
            "--runtime=2200ms",
            "--rate_iops=500",
            "--name=a",
            "--name=b",
        ])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    for file in ["s.svg", "s.png"] {
        let path = dir.path().join(file);
        let out = diskbench()
            .args(["chart", "--kind", "series", "1", "-o"])
            .arg(&path)
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        if file.ends_with(".svg") {
            let svg = String::from_utf8_lossy(&bytes);
            for job in ["job a", "job b"] {
                assert!(svg.contains(job), "{file} lacks {job}");
            }
        } else {
            assert_eq!(&bytes[..4], b"\x89PNG");
        }
        assert!(stderr_of(&out).contains("2 charts"), "{}", stderr_of(&out));
    }
    let names: Vec<String> = entries(dir.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("s"))
        .collect();
    assert_eq!(names.len(), 2, "only s.svg and s.png: {names:?}");
}

/// One run: `compare` shows its figures without a `± 0`, and `report`
/// says "1 run", not "1 runs".
#[test]
fn one_run_has_no_spread_and_is_one_run() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save(&db, "a");
    let out = diskbench()
        .args(["compare", "--by", "disk"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!table.contains('±'), "{table}");
    let html = dir.path().join("r.html");
    let out = diskbench()
        .args(["report", "-o"])
        .arg(&html)
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains(" (1 run)"), "{}", stderr_of(&out));
}

/// A timeline of one run is one dot per panel: `chart --kind timeline`
/// refuses it by saying why and what gives the figures, and leaves such
/// groups out (naming them) when other groups have several runs.
#[test]
fn a_timeline_needs_a_group_of_two_runs() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save(&db, "a");
    let svg = dir.path().join("t.svg");
    let chart = || {
        diskbench()
            .args(["chart", "--kind", "timeline", "--by", "disk", "-o"])
            .arg(&svg)
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap()
    };
    let out = chart();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("each selected group has one run") && err.contains("diskbench compare"),
        "{err}"
    );
    assert!(!svg.exists());
    save(&db, "b");
    save(&db, "b");
    let out = chart();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("left out the groups of one run, which have no timeline: a"));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("b: run by run (2 runs)") && !text.contains("a: run by run"),
        "{text}"
    );
}
