//! Runs written while they go on: seen once, live or saved; a
//! dead owner makes them killed; soaks tie runs together.

mod common;
use common::*;
use diskbench_store::{Filter, Store};
use model::{LivePoint, RunKind, RunRecord, RunState, SoakRef};

/// The record a live run starts with: its job as a placeholder (no I/O yet).
fn placeholder(name: &str, soak_run: u32) -> RunRecord {
    let mut r = record(RunKind::Fio, &[("disk", "gp2")], result(name, 0, 1_000));
    r.soak = Some(SoakRef {
        id: "20261122-143000-ab12".into(),
        run: soak_run,
    });
    r
}

fn live_rows(db: &std::path::Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM live_series", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_live_run_is_seen_once_live_then_saved_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("h.sqlite3");
    let mut store = Store::open(&db).unwrap();
    let first = [point(0, 0, 0, 10), point(0, 1, 0, 5), point(0, 0, 1, 20)];
    let id = store.begin_live(&placeholder("t", 1), 0, &first).unwrap();
    store.append_live(id, None, &[point(0, 1, 1, 7)]).unwrap();

    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    let live = &runs[0];
    assert_eq!((live.id, live.state), (id, RunState::Running));
    assert_eq!(live.labels["disk"], "gp2");
    let job = &live.result.jobs[0];
    let ios: Vec<u64> = job.series.iter().map(|p| p.read_ios).collect();
    assert_eq!(ios, [15, 27], "clones are summed per second");
    assert_eq!(job.read.ios, 42);
    assert_eq!(job.runtime_ns, 2_000_000_000);
    assert!(live
        .result
        .error
        .as_deref()
        .unwrap()
        .contains("still running"));

    let done = record(RunKind::Fio, &[("disk", "gp2")], result("t", 1000, 1_000));
    let done = RunRecord {
        soak: live.soak.clone(),
        ..done
    };
    assert_eq!(store.finish_live(id, &done).unwrap(), id);
    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 1, "a finished live run is not seen twice");
    assert_eq!(runs[0].state, RunState::Saved);
    assert_eq!(runs[0].result, done.result);
    assert_eq!(runs[0].soak, done.soak);
    assert_eq!(runs[0].labels.len(), 1);
    assert_eq!(live_rows(&db), 0);
    assert_eq!(store.count().unwrap(), 1);
}

#[test]
fn a_run_whose_owner_died_is_killed_and_keeps_its_series() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("h.sqlite3");
    let mut store = Store::open(&db).unwrap();
    let id = store
        .begin_live(&placeholder("t", 3), 0, &[point(0, 0, 0, 9)])
        .unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let set = |sql: &str| conn.execute(sql, [id]).unwrap();
    let state = |store: &Store| store.get(id).unwrap().state;

    // A pid reused by another process has another start time.
    set("UPDATE runs SET live_pid_start = live_pid_start + 1 WHERE id = ?1");
    assert_eq!(state(&store), RunState::Killed);
    let killed = store.get(id).unwrap();
    assert_eq!(killed.result.jobs[0].series.len(), 1);
    assert!(killed.result.error.unwrap().contains("killed or crashed"));

    // A process that exited.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    conn.execute(
        "UPDATE runs SET live_pid = ?1 WHERE id = ?2",
        rusqlite::params![dead, id],
    )
    .unwrap();
    assert_eq!(state(&store), RunState::Killed);

    // Another host: only the time of its last write tells.
    set("UPDATE runs SET live_host = 'elsewhere', live_heartbeat_unix_ms = 0 WHERE id = ?1");
    assert_eq!(state(&store), RunState::Killed);
    conn.execute(
        "UPDATE runs SET live_heartbeat_unix_ms = ?1 WHERE id = ?2",
        rusqlite::params![now_ms() as i64, id],
    )
    .unwrap();
    assert_eq!(state(&store), RunState::Running);

    // Removing it removes its series too.
    store.remove(&[id]).unwrap();
    assert_eq!(live_rows(&db), 0);
}

#[test]
fn a_group_that_ended_stays_whole_while_the_next_one_is_live() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(tmp.path().join("h.sqlite3")).unwrap();
    let mut rec = placeholder("first", 1);
    rec.result.jobs[0].read.ios = 1000; // ended: histograms and all
    let mut second = result("second", 0, 1_000).jobs.remove(0);
    second.groupid = 1;
    rec.result.jobs.push(second);
    let id = store.begin_live(&rec, 0, &[point(0, 0, 0, 3)]).unwrap();
    let p = LivePoint {
        group: 1,
        ..point(0, 0, 0, 4)
    };
    store.append_live(id, Some((&rec, 1)), &[p]).unwrap();
    let got = store.get(id).unwrap();
    assert_eq!(
        got.result.jobs[0].read.ios, 1000,
        "the ended group is as saved"
    );
    assert_eq!(got.result.jobs[0].read.clat.count(), 0);
    assert_eq!(got.result.jobs[1].read.ios, 4);
    assert_eq!(got.result.jobs[1].series.len(), 1);
}

#[test]
fn a_removed_live_run_is_saved_anew_and_appending_to_it_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(tmp.path().join("h.sqlite3")).unwrap();
    let id = store
        .begin_live(&placeholder("t", 1), 0, &[point(0, 0, 0, 1)])
        .unwrap();
    store.remove(&[id]).unwrap();
    assert!(store.append_live(id, None, &[point(0, 0, 1, 1)]).is_err());
    let new = store
        .finish_live(id, &record(RunKind::Fio, &[], result("t", 5, 1)))
        .unwrap();
    assert_ne!(new, id);
    assert_eq!(store.count().unwrap(), 1);
}

#[test]
fn the_runs_of_a_soak_are_found_by_its_id() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(tmp.path().join("h.sqlite3")).unwrap();
    let mut recs: Vec<RunRecord> = (1..=3)
        .map(|k| {
            let mut r = placeholder("t", k);
            r.result.jobs[0].read.ios = k as u64;
            r
        })
        .collect();
    recs.push(record(RunKind::Fio, &[("disk", "gp2")], result("t", 1, 1)));
    store.save_all(&recs).unwrap();
    let soak = store
        .list(&Filter {
            soak: Some("20261122-143000-ab12".into()),
            ..Filter::default()
        })
        .unwrap();
    let runs: Vec<u32> = soak.iter().map(|r| r.soak.as_ref().unwrap().run).collect();
    assert_eq!(runs, [1, 2, 3]);
    assert!(store.get(4).unwrap().soak.is_none());
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}
