//! The history behaves the same in an SQLite file and in PostgreSQL: every
//! check here runs on both, the PostgreSQL one against a throwaway server
//! (`testbed::postgres`). Then what only PostgreSQL has: URLs, passwords,
//! TLS, the writer role.

mod common;
use common::*;
use diskbench_store::{Filter, Store, StoreError};
use model::{RunKind, RunRecord, RunState, SoakRef};
use testbed::postgres::{PgServer, PASSWORD};

/// Opens a fresh, empty history of each kind in turn and runs `check` on it.
struct Both {
    tmp: tempfile::TempDir,
    pg: PgServer,
    made: std::cell::Cell<u32>,
}

impl Both {
    fn new() -> Option<Both> {
        match PgServer::start(true) {
            Ok(pg) => Some(Both {
                tmp: tempfile::tempdir().unwrap(),
                pg,
                made: Default::default(),
            }),
            Err(why) => {
                testbed::skip(why);
                None
            }
        }
    }

    /// Two new histories: a file and a PostgreSQL database.
    fn locations(&self) -> [String; 2] {
        let n = self.made.get() + 1;
        self.made.set(n);
        let file = self.tmp.path().join(format!("h{n}.sqlite3"));
        let db = self.pg.create_db(&format!("h{n}")).unwrap();
        [file.display().to_string(), self.pg.url(&db)]
    }

    fn each(&self, check: impl Fn(&str)) {
        for location in self.locations() {
            check(&location);
        }
    }
}

fn roundtrip(at: &str) {
    let mut store = Store::open(at).unwrap();
    let mut rec = record(
        RunKind::Fio,
        &[("provider", "aws"), ("disk", "gp2")],
        result("mixed", 2000, 1_700_000_000_000),
    );
    rec.prices.per_gib_month = Some(0.1);
    rec.result.host.machine_id = Some("0123456789abcdef".into());
    let id = store.save(&rec).unwrap();
    let back = store.get(id).unwrap();
    assert_eq!(back.uuid.len(), 36, "{at}");
    rec.id = id;
    rec.uuid = back.uuid.clone();
    assert_eq!(back, rec, "{at}");
    assert_eq!(store.count().unwrap(), 1);
}

fn filters_and_remove(at: &str) {
    let mut store = Store::open(at).unwrap();
    let mut ids = Vec::new();
    for (provider, started) in [("aws", 1_000), ("gcp", 2_000), ("aws", 3_000)] {
        let r = record(
            RunKind::Fio,
            &[("provider", provider)],
            result("j", 10, started),
        );
        ids.push(store.save(&r).unwrap());
    }
    let ids_of = |store: &Store, f: Filter| -> Vec<i64> {
        store.list(&f).unwrap().into_iter().map(|r| r.id).collect()
    };
    let filter = Filter {
        labels: vec![("provider".into(), "aws".into())],
        since_unix_ms: Some(2_000),
        ..Filter::default()
    };
    assert_eq!(ids_of(&store, filter), [ids[2]], "{at}");
    assert!(matches!(
        store.remove(&[ids[0], 999_999]),
        Err(StoreError::NoSuchRun { id: 999_999, .. })
    ));
    assert_eq!(store.count().unwrap(), 3, "{at}: nothing removed");
    store.remove(&[ids[0]]).unwrap();
    assert_eq!(ids_of(&store, Filter::default()), ids[1..], "{at}");
}

fn live_then_whole(at: &str) {
    let mut store = Store::open(at).unwrap();
    let mut start = record(RunKind::Fio, &[("disk", "gp2")], result("t", 0, 1_000));
    start.soak = Some(SoakRef {
        id: "20261124-020000-ab12".into(),
        run: 1,
    });
    let id = store.begin_live(&start, 0, &[point(0, 0, 0, 10)]).unwrap();
    store.append_live(id, None, &[point(0, 0, 1, 20)]).unwrap();
    let live = store.get(id).unwrap();
    assert_eq!(live.state, RunState::Running, "{at}");
    let ios: Vec<u64> = live.result.jobs[0]
        .series
        .iter()
        .map(|p| p.read_ios)
        .collect();
    assert_eq!(ios, [10, 20], "{at}");
    let done = RunRecord {
        soak: start.soak.clone(),
        ..record(RunKind::Fio, &[("disk", "gp2")], result("t", 30, 1_000))
    };
    assert_eq!(store.finish_live(id, &done).unwrap(), id);
    let runs = store.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 1, "{at}");
    assert_eq!(runs[0].state, RunState::Saved);
    assert_eq!(runs[0].result, done.result);
    assert_eq!(runs[0].uuid, live.uuid, "{at}: the run keeps its global id");
}

fn merge_is_exactly_once(at: &str, from: &str) {
    let mut source = Store::open(from).unwrap();
    source
        .save_all(&[
            record(RunKind::Fio, &[("host", "a")], result("x", 5, 1)),
            record(RunKind::Fio, &[("host", "b")], result("y", 6, 2)),
        ])
        .unwrap();
    let runs = source.list(&Filter::default()).unwrap();
    let mut store = Store::open(at).unwrap();
    let first = store.merge(&runs).unwrap();
    assert_eq!((first.added, first.present), (2, 0), "{at}");
    let again = store.merge(&runs).unwrap();
    assert_eq!((again.added, again.present), (0, 2), "{at}");
    let missing = source.missing_from(&store.run_uuids().unwrap()).unwrap();
    assert!(missing.is_empty(), "{at}");
    let mut uuids: Vec<String> = store
        .list(&Filter::default())
        .unwrap()
        .into_iter()
        .map(|r| r.uuid)
        .collect();
    uuids.sort();
    let mut want: Vec<String> = runs.into_iter().map(|r| r.uuid).collect();
    want.sort();
    assert_eq!(uuids, want, "{at}");
}

fn writers_at_once(at: &str) {
    Store::open(at).unwrap();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let at = at.to_string();
            std::thread::spawn(move || {
                let mut store = Store::open(&at).unwrap();
                for i in 0..10 {
                    let r = record(RunKind::Fio, &[("t", &t.to_string())], result("w", i, i));
                    store.save(&r).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(Store::open(at).unwrap().count().unwrap(), 80, "{at}");
}

#[test]
fn every_history_operation_behaves_alike_on_sqlite_and_postgresql() {
    let Some(both) = Both::new() else { return };
    both.each(roundtrip);
    both.each(filters_and_remove);
    both.each(live_then_whole);
    both.each(writers_at_once);
    let [file, pg] = both.locations();
    merge_is_exactly_once(&pg, &file);
    let [file, pg] = both.locations();
    merge_is_exactly_once(&file, &pg);
}

#[test]
fn postgresql_problems_are_named_with_their_fix_and_never_the_password() {
    let Some(both) = Both::new() else { return };
    let pg = &both.pg;
    let db = pg.create_db("bad").unwrap();
    let said = |url: &str| match Store::open(url) {
        Ok(_) => panic!("{url} opened"),
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains(PASSWORD), "{text}");
            assert!(!text.contains("wrong-pass"), "{text}");
            text
        }
    };
    let wrong = format!(
        "postgresql://postgres:wrong-pass@127.0.0.1:{}/{db}?sslmode=disable",
        pg.port
    );
    let text = said(&wrong);
    assert!(
        text.contains("refused the password") && text.contains("PGPASSWORD"),
        "{text}"
    );
    let text = said(&format!(
        "postgresql://postgres:{PASSWORD}@127.0.0.1:1/{db}"
    ));
    assert!(
        text.contains("cannot reach") && text.contains("start the server"),
        "{text}"
    );
    let text = said(&format!(
        "postgresql://postgres:{PASSWORD}@127.0.0.1:notaport/{db}"
    ));
    assert!(
        text.contains("not a port") && text.contains("postgresql://USER@HOST"),
        "{text}"
    );
    let text = said(&format!("{}&sslfoo=1", pg.url(&db)));
    assert!(text.contains("sslfoo"), "{text}");
    let text = said(&format!(
        "{}?sslmode=verify-full",
        pg.bare_url("postgres", &db)
    ));
    assert!(text.contains("sslrootcert"), "{text}");

    // TLS, verified against the certificate the server was made with.
    let cert = pg.cert.as_ref().unwrap().display().to_string();
    let tls = format!(
        "postgresql://postgres:{PASSWORD}@localhost:{}/{db}?sslmode=verify-full&sslrootcert={cert}",
        pg.port
    );
    let store = Store::open(&tls).unwrap();
    assert!(!store.path().display().to_string().contains(PASSWORD));
    drop(store);
    let used = pg
        .psql(&db, "SELECT count(*) FROM pg_stat_ssl WHERE ssl")
        .unwrap();
    assert_ne!(used, "", "pg_stat_ssl answers");
    // The name in the certificate is localhost and 127.0.0.1, not 127.0.0.2.
    let wrong_name = tls.replace("localhost", "127.0.0.2");
    let Ok(other) = std::net::TcpStream::connect(("127.0.0.2", pg.port)) else {
        return;
    };
    drop(other);
    let text = said(&wrong_name);
    assert!(text.contains("TLS"), "{text}");

    // A password from PGPASSWORD, then from a password file.
    std::env::set_var("PGPASSWORD", PASSWORD);
    let url = format!("{}?sslmode=disable", pg.bare_url("postgres", &db));
    Store::open(&url).unwrap();
    std::env::remove_var("PGPASSWORD");
    let pgpass = both.tmp.path().join("pgpass");
    std::fs::write(&pgpass, format!("127.0.0.1:*:*:postgres:{PASSWORD}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::env::set_var("PGPASSFILE", &pgpass);
    Store::open(&url).unwrap();
    // A file others may read is passed over, as libpq does, and the refusal
    // says which file and how to mend it (the store prints nothing itself).
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let text = said(&url);
    assert!(
        text.contains("refused the password")
            && text.contains(&format!("{} is readable by others", pgpass.display()))
            && text.contains("chmod 600"),
        "{text}"
    );
    std::env::remove_var("PGPASSFILE");

    // A database from a newer diskbench is refused and left alone.
    pg.psql(&db, "UPDATE diskbench_schema SET version = 99")
        .unwrap();
    let text = said(&pg.url(&db));
    assert!(
        text.contains("version 99") && text.contains("upgrade diskbench"),
        "{text}"
    );
    assert_eq!(
        pg.psql(&db, "SELECT version FROM diskbench_schema")
            .unwrap(),
        "99"
    );
}

#[test]
fn verify_full_against_a_server_without_tls_is_refused() {
    let pg = match PgServer::start(false) {
        Ok(pg) => pg,
        Err(why) => return testbed::skip(why),
    };
    let db = pg.create_db("plain").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ca = tmp.path().join("ca.pem");
    // Any CA will do: the server never offers TLS.
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=ca", "-keyout"])
        .arg(tmp.path().join("ca.key"))
        .arg("-out")
        .arg(&ca)
        .output()
        .unwrap();
    assert!(made.status.success());
    let url = format!(
        "postgresql://postgres:{PASSWORD}@localhost:{}/{db}?sslmode=verify-full&sslrootcert={}",
        pg.port,
        ca.display()
    );
    let text = Store::open(&url).err().expect("refused").to_string();
    assert!(text.contains("TLS") && text.contains("ssl = on"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
}

#[test]
fn a_writer_role_saves_but_cannot_read_or_remove() {
    let Some(both) = Both::new() else { return };
    let pg = &both.pg;
    let db = pg.create_db("fleet").unwrap();
    let owner_url = pg.url(&db);
    let mut owner = Store::open(&owner_url).unwrap();
    let theirs = owner
        .save(&record(
            RunKind::Fio,
            &[("who", "owner")],
            result("o", 3, 1),
        ))
        .unwrap();
    owner.grant_writer("bench_writer").unwrap_err(); // no such role yet
    pg.psql(&db, "CREATE ROLE bench_writer LOGIN PASSWORD 'w-pass'")
        .unwrap();
    owner.grant_writer("bench_writer").unwrap();
    let writer_url = format!(
        "postgresql://bench_writer:w-pass@127.0.0.1:{}/{db}?sslmode=disable",
        pg.port
    );
    let mut writer = Store::open(&writer_url).unwrap();
    let mine = writer
        .save(&record(
            RunKind::Fio,
            &[("who", "writer")],
            result("w", 3, 2),
        ))
        .unwrap();
    let id = writer
        .begin_live(
            &record(RunKind::Fio, &[], result("l", 0, 3)),
            0,
            &[point(0, 0, 0, 1)],
        )
        .unwrap();
    writer.append_live(id, None, &[point(0, 0, 1, 2)]).unwrap();
    writer
        .finish_live(id, &record(RunKind::Fio, &[], result("l", 9, 3)))
        .unwrap();
    assert!(matches!(writer.get(theirs), Err(StoreError::Denied { .. })));
    assert!(matches!(
        writer.remove(&[theirs]),
        Err(StoreError::Denied { .. })
    ));
    assert_eq!(owner.count().unwrap(), 3);
    assert_eq!(owner.get(mine).unwrap().labels["who"], "writer");
    assert_eq!(owner.get(id).unwrap().state, RunState::Saved);
}

/// Fifty connections saving at once into one PostgreSQL history: every run
/// there once; the time each save took is printed (not asserted: a shared
/// machine is too noisy for a threshold).
#[test]
fn fifty_concurrent_writers_into_postgresql() {
    let Some(both) = Both::new() else { return };
    let db = both.pg.create_db("fifty").unwrap();
    let url = both.pg.url(&db);
    Store::open(&url).unwrap();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(50));
    let threads: Vec<_> = (0..50)
        .map(|t| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut store = Store::open(&url).unwrap();
                barrier.wait();
                (0..4)
                    .map(|i| {
                        let r = record(RunKind::Fio, &[("w", &t.to_string())], result("w", 500, i));
                        let started = std::time::Instant::now();
                        store.save(&r).unwrap();
                        started.elapsed()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut times: Vec<std::time::Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    times.sort();
    let mean = times.iter().sum::<std::time::Duration>() / times.len() as u32;
    eprintln!(
        "time per saved run, 50 writers at once: mean {mean:?}, median {:?}, max {:?}",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    let store = Store::open(&url).unwrap();
    assert_eq!(store.count().unwrap(), 200);
    let uuids = store.run_uuids().unwrap();
    assert_eq!(uuids.len(), 200);
}

/// Two hosts opening a new PostgreSQL history at the same moment: while
/// the first creates the tables (here, psql in its place, holding the
/// upgrade lock), the second waits for it and then finds them; it must not
/// look at the catalog as it was before it waited and take the new tables
/// for another program's.
#[test]
fn a_history_created_while_waiting_for_the_lock_is_found() {
    let Some(both) = Both::new() else { return };
    let db = both.pg.create_db("first").unwrap();
    let url = both.pg.url(&db);
    let creator = {
        let pg_db = db.clone();
        let sql = format!(
            "SELECT pg_advisory_lock({id}); BEGIN; \
             CREATE TABLE runs (id BIGINT); \
             CREATE TABLE diskbench_schema (version BIGINT NOT NULL, application_id BIGINT NOT NULL); \
             INSERT INTO diskbench_schema VALUES ({latest}, {id}); \
             SELECT pg_advisory_xact_lock({id}); SELECT pg_sleep(2); COMMIT;",
            id = diskbench_store::APPLICATION_ID,
            latest = diskbench_store::LATEST_VERSION
        );
        let pg = both.pg.psql_handle();
        std::thread::spawn(move || pg.psql(&pg_db, &sql))
    };
    std::thread::sleep(std::time::Duration::from_millis(700));
    let opened = Store::open(&url).map(|_| ()).map_err(|e| e.to_string());
    creator.join().unwrap().unwrap();
    opened.unwrap();
}
