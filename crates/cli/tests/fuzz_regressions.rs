//! Inputs the fuzz targets (`fuzz/`) found to panic, kept as tests through
//! the commands a user would run; each names the target that found it. The unit-level tests are in
//! `crates/model/tests/fuzz_regressions.rs`.

mod common;
mod history_util;
use history_util::*;

/// fuzz/import_json, minimised: a fio JSON latency object with a `min` and
/// no `max` imported fine, then `show` and `export --format fio-json`
/// panicked on its percentiles. (The date and the read counts were added
/// since: `import` refuses fio output without them.)
#[test]
fn imported_latency_with_min_above_max() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = tmp.path().join("fio.json");
    std::fs::write(
        &file,
        "{\"fio version\":\"6\", \"timestamp\": 1700000000,\n \"jobs\":[ {\"jobname\" : \"r\",\"read\":{\n\"io_bytes\": 4096, \"total_ios\": 1, \"runtime\": 1, \"clat_ns\": {\n  \"min\" :12, \"N\" :1 }}  }\n]}",
    )
    .unwrap();
    run_ok(&["import", file.to_str().unwrap()], &db);
    run_ok(&["show", "1"], &db);
    run_ok(&["export", "1", "--format", "fio-json"], &db);
}

/// fuzz/import_json, minimised: GoBonnieGo output with an absurd phase
/// length (`io_seconds` of 690 years) overflowed while the importer added up
/// the run's end time (`import/gobonniego.rs`). It imports now (with a
/// `start_time` added since: `import` refuses a run without a date).
const ABSURD_GOBONNIEGO: &str = r#"{"vr":2,"start_time":"2026-11-22T02:07:58Z","results":[{"write_megabytes_per_second":1057,"read_megabytes_per_second":1786,"iops":717105,"io_seconds":21812489642,"strtes":5302,"io_operations":1}]}"#;

#[test]
fn gobonniego_phase_lasting_centuries_imports() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = tmp.path().join("gbg.json");
    std::fs::write(&file, ABSURD_GOBONNIEGO).unwrap();
    run_ok(&["import", file.to_str().unwrap()], &db);
}

/// The same run, shown: the reports' arithmetic (`report/src/stats.rs`,
/// `runtime_ms`) saturates instead of overflowing on a runtime near u64::MAX.
#[test]
fn gobonniego_phase_lasting_centuries_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = tmp.path().join("gbg.json");
    std::fs::write(&file, ABSURD_GOBONNIEGO).unwrap();
    run_ok(&["import", file.to_str().unwrap()], &db);
    run_ok(&["show", "1"], &db);
}
