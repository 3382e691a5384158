//! What is imported is kept and given back as it was: fio's JSON (two fio
//! versions, `json` and `json+`), imported and exported as fio JSON again,
//! gives back every figure fio wrote, field by field; `show` prints fio's
//! figures, not ones re-derived from the histograms rebuilt on import; a
//! native run exported and imported back keeps its percentiles; and runs
//! imported before fio's record was kept show their re-derived figures
//! marked approximate.

mod common;
mod history_util;
use common::*;
use history_util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every value of `want` is in `got` at the same place, of the same JSON
/// type, equal (floats to fio's six printed decimals); `got` may have more.
fn assert_has_figures(path: &str, want: &Value, got: &Value) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let gv = g
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k}: missing (fio has {wv})"));
                assert_has_figures(&format!("{path}.{k}"), wv, gv);
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            assert_eq!(w.len(), g.len(), "{path}: length");
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                assert_has_figures(&format!("{path}[{i}]"), wv, gv);
            }
        }
        (Value::Number(w), Value::Number(g)) => {
            assert_eq!(
                w.is_f64(),
                g.is_f64(),
                "{path}: fio has {w}, export has {g}"
            );
            if w.is_f64() {
                let (w, g) = (w.as_f64().unwrap(), g.as_f64().unwrap());
                assert!(
                    (w - g).abs() <= 5e-7 * w.abs().max(1.0),
                    "{path}: fio has {w}, export has {g}"
                );
            } else {
                assert_eq!(w, g, "{path}");
            }
        }
        _ => assert_eq!(want, got, "{path}"),
    }
}

fn import(file: &Path, db: &Path) {
    let out = run_ok(&["import", &file.display().to_string()], db);
    assert!(stdout_of(&out).contains("imported"), "{}", stdout_of(&out));
}

#[test]
fn fio_json_of_two_fio_versions_round_trips_field_by_field() {
    let files = [
        "fio-3.33-randrw.json",
        "fio-3.33-jobfile-jsonplus.json",
        "fio-3.41-randread.json",
        "fio-3.41-randrw-percentiles-jsonplus.json",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    for (i, name) in files.iter().enumerate() {
        let file = fixture(name);
        import(&file, &db);
        let id = (i + 1).to_string();
        let back = json_of(&run_ok(&["export", &id, "--format", "fio-json"], &db));
        let fio = read_json(&file);
        assert_has_figures(name, &fio, &back);
        // The figures the issue named, spelled out.
        let job = &back["jobs"][0];
        assert_eq!(job["latency_us"], fio["jobs"][0]["latency_us"], "{name}");
        assert_eq!(
            job["read"]["clat_ns"]["percentile"], fio["jobs"][0]["read"]["clat_ns"]["percentile"],
            "{name}"
        );
    }
}

/// fio's `lat (usec)   : 250=8.85%, ...` line from its JSON's `latency_us`.
fn fio_latency_line(job: &Value, table: &str, unit: &str) -> String {
    let cells: Vec<String> = job[table]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.as_f64().unwrap() > 0.0)
        .map(|(k, v)| format!("{k}={:.2}%", v.as_f64().unwrap()))
        .take(5)
        .collect();
    format!("  lat ({unit})   : {}", cells.join(", "))
}

#[test]
fn show_prints_the_imported_figures_not_rebuilt_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = fixture("fio-3.33-randrw.json");
    import(&file, &db);
    let fio = read_json(&file);
    let job = &fio["jobs"][0];
    let text = stdout_of(&run_ok(&["show", "1"], &db));
    assert!(
        text.contains(&fio_latency_line(job, "latency_us", "usec")),
        "{text}"
    );
    // fio's own percentiles, in usec as fio prints them (rounded up).
    for (key, label) in [
        ("99.000000", "99.00th"),
        ("99.990000", "99.99th"),
        ("50.000000", "50.00th"),
    ] {
        let ns = job["read"]["clat_ns"]["percentile"][key].as_u64().unwrap();
        let want = format!("{label}=[{:>5}]", ns.div_ceil(1000));
        assert!(text.contains(&want), "{want} not in\n{text}");
    }
    let usr = job["usr_cpu"].as_f64().unwrap();
    assert!(
        text.contains(&format!("cpu          : usr={usr:.2}%")),
        "{text}"
    );
    let bw_min = job["read"]["bw_min"].as_u64().unwrap();
    assert!(
        text.contains(&format!("bw (  KiB/s): min={bw_min}")),
        "{text}"
    );
    assert!(!text.contains('~'), "nothing shown is approximate:\n{text}");
}

#[test]
fn a_native_run_exported_and_imported_back_keeps_its_percentiles() {
    let tmp = real_dir();
    let db = tmp.path().join("history.sqlite3");
    let target = tmp.path().join("f");
    // io_uring at depth 4: submission and total latency differ from completion latency.
    let out = run_ok(
        &[
            "fio",
            "--name=x",
            "--rw=randread",
            "--bs=4k",
            "--size=16m",
            "--runtime=1",
            "--time_based",
            "--ioengine=io_uring",
            "--iodepth=4",
            &format!("--filename={}", target.display()),
            "--output-format=json",
            "--label=copy=native",
        ],
        &db,
    );
    let printed = json_of(&out);
    let exported = run_ok(&["export", "1", "--format", "fio-json"], &db);
    let file = tmp.path().join("exported.json");
    std::fs::write(&file, &exported.stdout).unwrap();
    run_ok(
        &[
            "import",
            "--label=copy=imported",
            &file.display().to_string(),
        ],
        &db,
    );
    let first = json_of(&exported);
    let again = json_of(&run_ok(&["export", "2", "--format", "fio-json"], &db));
    let pcts = |v: &Value| v["jobs"][0]["read"]["clat_ns"]["percentile"].clone();
    assert!(
        pcts(&first).as_object().is_some_and(|m| m.len() >= 10),
        "{first}"
    );
    assert_eq!(pcts(&printed), pcts(&first));
    assert_eq!(
        pcts(&again),
        pcts(&first),
        "the percentiles came back changed"
    );
    assert_has_figures("export", &first["jobs"], &again["jobs"]);

    // `show` prints the same percentile lines for both.
    let block = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.contains("clat percentiles"))
            .take_while(|l| l.contains("percentiles") || l.trim_start().starts_with('|'))
            .map(String::from)
            .collect()
    };
    let (shown, reshown) = (
        stdout_of(&run_ok(&["show", "1"], &db)),
        stdout_of(&run_ok(&["show", "2"], &db)),
    );
    assert!(block(&shown).len() > 2, "{shown}");
    assert_eq!(block(&shown), block(&reshown), "{shown}\n{reshown}");
    assert!(!reshown.contains('~'), "{reshown}");

    // The export carries the measured histograms, so every percentile read
    // from them (any p, total latency too) is the native run's.
    let record = |id: &str| -> model::RunRecord {
        serde_json::from_slice(&run_ok(&["export", id, "--format", "json"], &db).stdout).unwrap()
    };
    let (native, back) = (record("1"), record("2"));
    let (n, b) = (&native.result.jobs[0].read, &back.result.jobs[0].read);
    for p in [50.0, 90.0, 99.0, 99.9, 99.99] {
        assert_eq!(b.clat.percentile(p), n.clat.percentile(p), "clat p{p}");
        assert_eq!(b.lat.percentile(p), n.lat.percentile(p), "lat p{p}");
    }
    // compare's p99 (of the total latency) is the same for both, unmarked.
    let c = json_of(&run_ok(
        &["compare", "--by", "copy", "--format", "json"],
        &db,
    ));
    let p99 = |i: usize| c["groups"][i]["p99_latency_us"]["mean"].as_f64().unwrap();
    assert_eq!(p99(0), p99(1), "{c}");
    for g in c["groups"].as_array().unwrap() {
        assert_eq!(
            g["p99_latency_us_approximate_runs"],
            serde_json::json!([]),
            "{c}"
        );
    }
}

/// fio's own JSON has no histograms: the one rebuilt from its percentiles
/// gives each of them back within its bucket resolution (1/128), and what
/// compare reads from it is marked approximate.
#[test]
fn a_histogram_rebuilt_from_fios_percentiles_is_within_its_resolution_and_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = fixture("fio-3.41-randread.json");
    import(&file, &db);
    let fio = read_json(&file);
    let record: model::RunRecord =
        serde_json::from_slice(&run_ok(&["export", "1", "--format", "json"], &db).stdout).unwrap();
    let clat = &record.result.jobs[0].read.clat;
    let listed = fio["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap();
    for (key, v) in listed {
        let (p, want) = (key.parse::<f64>().unwrap(), v.as_u64().unwrap() as f64);
        let got = clat.percentile(p) as f64;
        assert!(
            (got - want).abs() <= want / 128.0 + 1.0,
            "p{p}: {got} vs {want}"
        );
    }
    let table = stdout_of(&run_ok(&["compare"], &db));
    assert!(
        table.contains("~ p99 latency is approximate: run(s) 1"),
        "{table}"
    );
    let csv = stdout_of(&run_ok(&["export", "1", "--format", "csv"], &db));
    assert!(
        csv.lines().nth(1).unwrap().ends_with(",approximate"),
        "{csv}"
    );
}

/// A history made by diskbench before fio's record was kept (main at
/// 1c9d1d4, `diskbench import fixtures/fio-3.33-randrw.json`, dumped with
/// `sqlite3 .dump`): its figures are derived from rebuilt histograms and
/// must say so.
#[test]
fn runs_imported_before_the_record_was_kept_mark_what_is_approximate() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let sql = std::fs::read_to_string(fixture("history-v2-imported-fio.sql")).unwrap();
    let status = std::process::Command::new("sqlite3")
        .arg(&db)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(sql.as_bytes())?;
            child.wait()
        });
    let Ok(status) = status else {
        testbed::skip("the sqlite3 command is not installed");
        return;
    };
    assert!(status.success());
    let text = stdout_of(&run_ok(&["show", "1"], &db));
    assert!(text.contains("   ~clat percentiles (usec):\n"), "{text}");
    assert!(text.contains(" ~lat (usec)   : "), "{text}");
    assert!(
        text.contains("~ approximate: re-derived by diskbench"),
        "{text}"
    );
    let back = json_of(&run_ok(&["export", "1", "--format", "fio-json"], &db));
    let approximate = &back["jobs"][0]["diskbench"]["approximate"];
    for path in [
        "read.clat_ns.percentile",
        "write.clat_ns.percentile",
        "latency_us",
    ] {
        assert!(
            approximate.get(path).is_some(),
            "{path} not marked: {approximate}"
        );
    }
    // fio's exact statistics were kept then too.
    let fio = read_json(&fixture("fio-3.33-randrw.json"));
    assert_eq!(
        back["jobs"][0]["read"]["clat_ns"]["N"],
        fio["jobs"][0]["read"]["clat_ns"]["N"]
    );
}
