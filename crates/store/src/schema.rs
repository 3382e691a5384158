//! The database layout and how it grows. The version lives in SQLite's
//! `PRAGMA user_version` (read and upgraded by `sqlite.rs`, in the table
//! `diskbench_schema` on PostgreSQL); [`MIGRATIONS`] holds one SQL step per version, in
//! order, and a database is brought from its version to the newest inside
//! one transaction, so an upgrade either happens whole or not at all and no
//! run is ever lost to it. A database from a newer diskbench (a version past
//! the last step) is refused before anything in it is touched.
//!
//! Rules for a new version: append a step, never edit an old one (old
//! databases and `tests/fixtures/schema-v1.sql` were made by it), and keep
//! the fixture test passing: it opens a v1 database and checks every run.

use crate::backend::Tx;
use crate::error::StoreError;

/// `PRAGMA application_id`: "disk" in ASCII, so `file(1)` and diskbench can
/// tell a diskbench history from any other SQLite file.
pub const APPLICATION_ID: i64 = 0x6469_736b;

/// Schema version 1. Host facts and the first target's facts are columns so
/// that runs can be filtered and grouped in SQL; the whole result (with the
/// merged latency histograms of every job) is the JSON of `model::RunResult`.
const V1: &str = "
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    finished_unix_ms INTEGER NOT NULL,
    saved_unix_ms INTEGER NOT NULL,
    command_line TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    interrupted INTEGER NOT NULL,
    error TEXT,
    result_json TEXT NOT NULL,
    host_name TEXT NOT NULL,
    host_kernel TEXT NOT NULL,
    host_cpu_model TEXT NOT NULL,
    host_cpus INTEGER NOT NULL,
    host_mem_bytes INTEGER NOT NULL,
    target_path TEXT,
    target_filesystem TEXT,
    target_mount_source TEXT,
    target_mount_options TEXT,
    target_device TEXT,
    target_model TEXT,
    target_device_bytes INTEGER,
    target_rotational INTEGER,
    target_scheduler TEXT,
    target_logical_block_bytes INTEGER,
    price_per_gib_month REAL,
    price_per_million_ios REAL,
    price_per_month REAL
);
CREATE INDEX runs_started ON runs (started_unix_ms);
CREATE INDEX runs_kind ON runs (kind);
CREATE TABLE labels (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
CREATE INDEX labels_key_value ON labels (key, value);
";

/// Schema version 2 (performance over time): the soak a run
/// belongs to, and runs written while they go on. A row whose `live_host`
/// is set has not been saved whole yet: its `result_json` holds the groups
/// that ended plus one placeholder job per job of group `live_group`, whose
/// per-second series are the `live_series` rows. Saving the run whole
/// replaces the row's columns and deletes its `live_series` rows in one
/// transaction, so a reader sees the run once, live or saved. The owner
/// (host, pid and the pid's start time, against pid reuse) and the time of
/// its last write tell a run still going on from one whose process died.
const V2: &str = "
ALTER TABLE runs ADD COLUMN soak_id TEXT;
ALTER TABLE runs ADD COLUMN soak_run INTEGER;
ALTER TABLE runs ADD COLUMN live_host TEXT;
ALTER TABLE runs ADD COLUMN live_pid INTEGER;
ALTER TABLE runs ADD COLUMN live_pid_start INTEGER;
ALTER TABLE runs ADD COLUMN live_heartbeat_unix_ms INTEGER;
ALTER TABLE runs ADD COLUMN live_group INTEGER;
CREATE INDEX runs_soak ON runs (soak_id, soak_run);
CREATE TABLE live_series (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    grp INTEGER NOT NULL,
    job INTEGER NOT NULL,
    clone INTEGER NOT NULL,
    start_ms INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    read_ios INTEGER NOT NULL,
    read_bytes INTEGER NOT NULL,
    write_ios INTEGER NOT NULL,
    write_bytes INTEGER NOT NULL,
    PRIMARY KEY (run_id, grp, job, clone, start_ms)
) WITHOUT ROWID;
";

/// Schema version 3 (one history for many machines): a global id per run
/// (`run_uuid`, a UUID, so a run copied between histories by `diskbench
/// sync` is never saved twice), the host's machine id and firmware vendor
/// and product (two hosts named alike stay two hosts), and the runs kept
/// here because the PostgreSQL history they were meant for was unreachable
/// (`pending_sync`: sent, and forgotten, by the next save that reaches it).
/// Older runs get their UUIDs in the same transaction ([`fill_run_uuids`]).
///
/// Written as its own step so that it can be renumbered when another
/// change adds a step before it is merged.
const V3_MANY_HOSTS: &str = "
ALTER TABLE runs ADD COLUMN run_uuid TEXT;
ALTER TABLE runs ADD COLUMN host_machine_id TEXT;
ALTER TABLE runs ADD COLUMN host_vendor TEXT;
ALTER TABLE runs ADD COLUMN host_product TEXT;
CREATE UNIQUE INDEX runs_uuid ON runs (run_uuid);
CREATE INDEX runs_host ON runs (host_machine_id, host_name);
CREATE TABLE pending_sync (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    server TEXT NOT NULL
);
";

/// One step per schema version: `MIGRATIONS[n]` takes version n to n + 1.
pub(crate) const MIGRATIONS: &[&str] = &[V1, V2, V3_MANY_HOSTS];

/// What a step needs beyond its SQL, run after all steps in the same
/// transaction: every run without a global id gets one.
pub(crate) fn fill_run_uuids(tx: &mut dyn Tx) -> Result<(), StoreError> {
    let ids = tx.query("SELECT id FROM runs WHERE run_uuid IS NULL", &[])?;
    for row in ids {
        tx.execute(
            "UPDATE runs SET run_uuid = ?1 WHERE id = ?2",
            &[crate::record::new_uuid().into(), row[0].clone()],
        )?;
    }
    Ok(())
}

/// The version this diskbench writes.
pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;
