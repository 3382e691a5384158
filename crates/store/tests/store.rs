//! The history database: what goes in comes out, filters, concurrent
//! writers (threads and processes), old and newer schemas, bad files.

mod common;
use common::*;
use diskbench_store::{Create, Filter, Store, StoreError, LATEST_VERSION};
use model::RunKind;
use std::path::Path;
use std::time::Duration;

fn db_in(dir: &tempfile::TempDir) -> std::path::PathBuf {
    dir.path().join("history.sqlite3")
}

/// Reading creates nothing; writing creates the file, and its directories
/// only when asked (the default place).
#[test]
fn what_opening_creates() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let err = Store::open_as(&db, Create::Nothing, Duration::from_secs(1))
        .err()
        .expect("refused");
    assert!(matches!(err, StoreError::NoHistory { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("no history at {}", db.display())),
        "{err}"
    );
    assert!(!db.exists());
    let nested = tmp.path().join("nested/dirs/history.sqlite3");
    let err = Store::open(&nested).err().expect("refused");
    assert!(matches!(err, StoreError::NoDir { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("does not exist") && text.contains("mkdir -p"),
        "{text}"
    );
    assert!(!tmp.path().join("nested").exists());
    drop(Store::open_as(&nested, Create::FileAndDirs, Duration::from_secs(1)).unwrap());
    assert!(nested.exists());
    drop(Store::open(&db).unwrap());
    let mut store = Store::open_as(&db, Create::Nothing, Duration::from_secs(1)).unwrap();
    store
        .save(&record(RunKind::Fio, &[], result("x", 1, 1)))
        .unwrap();
}

#[test]
fn a_run_comes_back_as_it_went_in() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(db_in(&tmp)).unwrap();
    let mut rec = record(
        RunKind::Suite,
        &[("provider", "aws"), ("disk", "gp2")],
        result("mixed-4k-qd32", 2000, 1_700_000_000_000),
    );
    rec.prices.per_gib_month = Some(0.1);
    rec.prices.per_million_ios = Some(0.05);
    rec.result.interrupted = true;
    let id = store.save(&rec).unwrap();
    let back = store.get(id).unwrap();
    rec.id = id;
    // The history gave the run its global id.
    assert_eq!(back.uuid.len(), 36, "{}", back.uuid);
    rec.uuid = back.uuid.clone();
    assert_eq!(back, rec);
    // The histograms survive: percentiles over runs can be computed from them.
    let clat = &back.result.jobs[0].read.clat;
    assert_eq!(clat.count(), 2000);
    assert_eq!(
        clat.percentile(99.0),
        rec.result.jobs[0].read.clat.percentile(99.0)
    );
    assert_eq!(store.count().unwrap(), 1);
}

/// A fio import saved without fio's own record (as diskbench saved them
/// before it kept one) reads back with its jobs marked as having rebuilt
/// histograms, so the reports mark what they derive from them; a saved
/// record and other kinds of runs come back as they went in.
#[test]
fn imports_saved_without_fios_record_read_back_marked_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(db_in(&tmp)).unwrap();
    let old_import = record(
        RunKind::ImportedFio,
        &[],
        result("randrw", 100, 1_700_000_000_000),
    );
    let measured = record(RunKind::Fio, &[], result("randrw", 100, 1_700_000_000_000));
    let mut kept = old_import.clone();
    kept.result.jobs[0].imported = Some(model::Imported::of(
        &serde_json::json!({"jobname": "randrw"}),
    ));
    let ids = store
        .save_all(&[old_import, measured, kept.clone()])
        .unwrap();
    let back: Vec<_> = ids.iter().map(|&id| store.get(id).unwrap()).collect();
    assert_eq!(
        back[0].result.jobs[0].imported,
        Some(model::Imported::default())
    );
    assert_eq!(back[1].result.jobs[0].imported, None);
    assert_eq!(
        back[2].result.jobs[0].imported,
        kept.result.jobs[0].imported
    );
}

#[test]
fn filters_combine() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(db_in(&tmp)).unwrap();
    let t0 = 1_700_000_000_000;
    let runs = [
        (
            RunKind::Suite,
            vec![("provider", "aws"), ("disk", "gp2")],
            t0,
        ),
        (
            RunKind::Suite,
            vec![("provider", "aws"), ("disk", "io1")],
            t0 + 1000,
        ),
        (
            RunKind::Fio,
            vec![("provider", "gce"), ("disk", "pd-ssd")],
            t0 + 2000,
        ),
        (
            RunKind::ImportedGoBonnieGo,
            vec![("provider", "aws")],
            t0 + 3000,
        ),
    ];
    let mut ids = Vec::new();
    for (kind, labels, started) in &runs {
        ids.push(
            store
                .save(&record(*kind, labels, result("j", 10, *started)))
                .unwrap(),
        );
    }
    let ids_of =
        |f: Filter| -> Vec<i64> { store.list(&f).unwrap().into_iter().map(|r| r.id).collect() };
    assert_eq!(ids_of(Filter::default()), ids);
    let aws = || vec![("provider".to_string(), "aws".to_string())];
    assert_eq!(
        ids_of(Filter {
            labels: aws(),
            ..Filter::default()
        }),
        vec![ids[0], ids[1], ids[3]]
    );
    let mut both = aws();
    both.push(("disk".into(), "io1".into()));
    assert_eq!(
        ids_of(Filter {
            labels: both,
            ..Filter::default()
        }),
        vec![ids[1]]
    );
    assert_eq!(
        ids_of(Filter {
            since_unix_ms: Some(t0 + 1000),
            until_unix_ms: Some(t0 + 2000),
            ..Filter::default()
        }),
        vec![ids[1], ids[2]]
    );
    assert_eq!(
        ids_of(Filter {
            kind: Some(RunKind::Suite),
            labels: aws(),
            ..Filter::default()
        }),
        vec![ids[0], ids[1]]
    );
    assert!(ids_of(Filter {
        kind: Some(RunKind::ImportedFio),
        ..Filter::default()
    })
    .is_empty());
}

#[test]
fn remove_is_all_or_nothing_and_ids_are_never_reused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(db_in(&tmp)).unwrap();
    let a = store
        .save(&record(RunKind::Fio, &[("k", "v")], result("a", 1, 1)))
        .unwrap();
    let b = store
        .save(&record(RunKind::Fio, &[], result("b", 1, 2)))
        .unwrap();
    let err = store.remove(&[a, 999]).unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchRun { id: 999, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("see `diskbench history`"), "{err}");
    assert_eq!(store.count().unwrap(), 2);
    store.remove(&[b, b]).unwrap();
    assert!(matches!(store.get(b), Err(StoreError::NoSuchRun { .. })));
    let c = store
        .save(&record(RunKind::Fio, &[], result("c", 1, 3)))
        .unwrap();
    assert!(c > b, "ids are not reused: {c} after {b}");
    assert_eq!(store.get(a).unwrap().labels.len(), 1);
}

const PER_WRITER: usize = 10;

fn save_many(db: &Path, tag: &str) {
    let mut store = Store::open(db).unwrap();
    for i in 0..PER_WRITER {
        let rec = record(RunKind::Fio, &[("writer", tag)], result(tag, 50, i as u64));
        store.save(&rec).unwrap();
    }
}

#[test]
fn eight_threads_saving_at_once_lose_no_run() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    std::thread::scope(|s| {
        for t in 0..8 {
            let db = &db;
            s.spawn(move || save_many(db, &format!("t{t}")));
        }
    });
    let store = Store::open(&db).unwrap();
    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 8 * PER_WRITER);
    for t in 0..8 {
        let mine = runs
            .iter()
            .filter(|r| r.labels["writer"] == format!("t{t}"))
            .count();
        assert_eq!(mine, PER_WRITER);
    }
}

/// Run by [`eight_processes_saving_at_once_lose_no_run`] in child processes
/// (this test binary started again); does nothing in a normal test run.
#[test]
fn child_writer() {
    if let Some(db) = std::env::var_os("DISKBENCH_STORE_TEST_CHILD_DB") {
        let tag = std::env::var("DISKBENCH_STORE_TEST_CHILD_TAG").unwrap();
        save_many(Path::new(&db), &tag);
    }
}

#[test]
fn eight_processes_saving_at_once_lose_no_run() {
    let tmp = tempfile::tempdir().unwrap();
    // A fresh database: the processes also race to create the schema.
    let db = db_in(&tmp);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..8)
        .map(|p| {
            std::process::Command::new(&exe)
                .args(["--exact", "child_writer", "--test-threads=1"])
                .env("DISKBENCH_STORE_TEST_CHILD_DB", &db)
                .env("DISKBENCH_STORE_TEST_CHILD_TAG", format!("p{p}"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = Store::open(&db).unwrap();
    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 8 * PER_WRITER);
    for p in 0..8 {
        let tag = format!("p{p}");
        assert_eq!(
            runs.iter().filter(|r| r.labels["writer"] == tag).count(),
            PER_WRITER
        );
    }
}

/// The fixture was written by the schema-v1 code and is frozen: when a v2
/// comes, this proves that a v1 database upgrades with every run intact.
#[test]
fn a_version_1_database_opens_with_its_runs_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("v1.sqlite3");
    let sql = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-v1.sql"),
    )
    .unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();

    let mut store = Store::open(&db).unwrap();
    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 2);
    let (a, b) = (&runs[0], &runs[1]);
    assert_eq!(
        (a.id, a.kind, b.id, b.kind),
        (1, RunKind::Suite, 2, RunKind::Fio)
    );
    assert_eq!(a.labels["provider"], "aws");
    assert_eq!(a.labels["disk"], "gp2");
    assert_eq!(a.prices.per_gib_month, Some(0.1));
    assert_eq!(a.prices.per_million_ios, Some(0.05));
    assert_eq!(a.prices.per_month, None);
    assert!(b.labels.is_empty() && b.prices.is_empty());
    assert_eq!(a.result.started_unix_ms, 1_795_000_000_000);
    assert_eq!(a.result.host.hostname, "vm1");
    assert_eq!(a.result.targets[0].device.as_deref(), Some("vda"));
    let job = &a.result.jobs[0];
    assert_eq!((job.name.as_str(), job.read.ios), ("mixed-4k-qd32", 1000));
    assert_eq!(job.read.clat.count(), 1000);
    assert_eq!(job.read.clat.min(), 100_000);
    assert_eq!(job.read.clat.max(), 100_999);
    assert!((job.read.clat.percentile(50.0) as i64 - 100_500).abs() < 1000);
    assert_eq!(b.result.jobs[0].read.ios, 500);
    assert!(b.result.interrupted);

    // v2: the old runs belong to no soak and were saved whole.
    assert!(runs.iter().all(|r| r.soak.is_none() && r.state.is_saved()));
    // v3: each old run got a global id of its own, kept from then on.
    assert!(a.uuid.len() == 36 && b.uuid.len() == 36 && a.uuid != b.uuid);
    assert_eq!(store.get(1).unwrap().uuid, a.uuid);

    // The upgraded file is the current version and takes new runs, soaks
    // and runs written while they go on.
    let id = store
        .save(&record(RunKind::Fio, &[], result("new", 1, 5)))
        .unwrap();
    assert_eq!(id, 3);
    let mut soaked = record(RunKind::Fio, &[], result("soaked", 0, 6));
    soaked.soak = Some(model::SoakRef {
        id: "s1".into(),
        run: 2,
    });
    let point = model::LivePoint {
        point: model::SeriesPoint {
            duration_ms: 1000,
            read_ios: 7,
            ..Default::default()
        },
        ..Default::default()
    };
    let live = store.begin_live(&soaked, 0, &[point]).unwrap();
    let got = store.get(live).unwrap();
    assert_eq!(got.state, model::RunState::Running);
    assert_eq!(got.soak.as_ref().map(|s| s.run), Some(2));
    assert_eq!(got.result.jobs[0].read.ios, 7);
    assert_eq!(store.list(&Filter::default()).unwrap().len(), 4);
    assert_eq!(store.get(1).unwrap(), runs[0], "old runs unchanged");
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, LATEST_VERSION);
}

#[test]
fn a_database_from_a_newer_diskbench_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("newer.sqlite3");
    let mut store = Store::open(&db).unwrap();
    store
        .save(&record(RunKind::Fio, &[], result("x", 1, 1)))
        .unwrap();
    drop(store);
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", LATEST_VERSION + 1)
            .unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::Newer { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains(&db.display().to_string()), "{text}");
    assert!(
        text.contains("newer diskbench") && text.contains("not changed"),
        "{text}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file was modified");
}

#[test]
fn a_file_that_is_not_a_database_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("notes.txt");
    let text = "these are my notes, not a database\n".repeat(50);
    std::fs::write(&db, &text).unwrap();
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains(&db.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(&db).unwrap(), text);
}

#[test]
fn a_damaged_database_gives_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("damaged.sqlite3");
    let mut store = Store::open(&db).unwrap();
    for i in 0..20 {
        store
            .save(&record(RunKind::Fio, &[], result("x", 200, i)))
            .unwrap();
    }
    drop(store);
    // Garbage over every page after the first: the header still says SQLite.
    let mut bytes = std::fs::read(&db).unwrap();
    for b in bytes.iter_mut().skip(4096) {
        *b = 0xA5;
    }
    std::fs::write(&db, bytes).unwrap();
    let err = match Store::open(&db) {
        Err(e) => e,
        Ok(store) => store.list(&Filter::default()).expect_err("an error"),
    };
    assert!(
        matches!(err, StoreError::NotADatabase { .. }),
        "{err:?}: {err}"
    );
    assert!(err.to_string().contains("damaged"), "{err}");
}

#[test]
fn an_unwritable_place_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(db) = unwritable_db_path(tmp.path()) else {
        return;
    };
    let err = Store::open(&db).err().expect("refused");
    let text = err.to_string();
    assert!(
        matches!(
            err,
            StoreError::CreateDir { .. } | StoreError::NoDir { .. } | StoreError::Open { .. }
        ),
        "{err:?}"
    );
    assert!(text.contains("--db"), "{text}");
    let dir = db.parent().unwrap().display().to_string();
    assert!(text.contains(&dir), "{text}");
}

#[test]
fn a_locked_database_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("locked.sqlite3");
    drop(Store::open(&db).unwrap());
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut store = Store::open_with_timeout(&db, Duration::from_millis(200)).unwrap();
    let err = store
        .save(&record(RunKind::Fio, &[], result("x", 1, 1)))
        .unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err:?}");
    assert!(err.to_string().contains("locked"), "{err}");
    holder.execute_batch("ROLLBACK").unwrap();
    store
        .save(&record(RunKind::Fio, &[], result("x", 1, 1)))
        .unwrap();
}

#[test]
fn another_programs_database_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("other.sqlite3");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE recipes (name TEXT)")
        .unwrap();
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert!(err.to_string().contains("recipes"), "{err}");
}

/// A row whose result JSON was damaged outside diskbench is named with its
/// id, the fix, and the decoder's own error kept as the source.
#[test]
fn a_damaged_row_says_which_and_keeps_the_decoders_error() {
    use std::error::Error as _;
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let mut store = Store::open(&db).unwrap();
    let id = store
        .save(&record(RunKind::Fio, &[], result("x", 1, 1)))
        .unwrap();
    drop(store);
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("UPDATE runs SET result_json = '{' WHERE id = ?1", [id])
        .unwrap();
    let err = Store::open(&db).unwrap().get(id).expect_err("refused");
    let StoreError::BadRecord { reason, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(
        matches!(reason, diskbench_store::RecordError::Json(_)),
        "{reason:?}"
    );
    assert!(err.source().and_then(|s| s.source()).is_some(), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&format!("run {id} in"))
            && text.contains("its result JSON does not decode: ")
            && text.contains(&format!("`diskbench rm {id}`")),
        "{text}"
    );
}
