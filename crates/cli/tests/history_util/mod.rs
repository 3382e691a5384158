//! Helpers of the history tests (`history.rs`, `import.rs`).
#![allow(dead_code)]

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

pub const NULL_JOB: [&str; 4] = ["fio", "--name=t", "--ioengine=null", "--size=4m"];

pub fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("history.sqlite3")
}

/// Runs `check` on a fresh SQLite history, then on a fresh PostgreSQL one
/// (a database of a throwaway server, `testbed::postgres`): the history
/// commands must pass the same checks on both.
pub fn on_both(check: impl Fn(&Path)) {
    let tmp = tempfile::tempdir().unwrap();
    check(&db_in(&tmp));
    match testbed::postgres::PgServer::shared() {
        Ok(pg) => check(Path::new(&pg.fresh_db().unwrap())),
        Err(why) => testbed::skip(why),
    }
}

pub fn db_arg(db: &Path) -> [String; 2] {
    ["--db".to_string(), db.display().to_string()]
}

/// `diskbench ARGS --db DB`, whatever its outcome.
pub fn run_with(args: &[&str], db: &Path) -> Output {
    diskbench().args(args).args(db_arg(db)).output().unwrap()
}

pub fn run_ok(args: &[&str], db: &Path) -> Output {
    let out = run_with(args, db);
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    out
}

pub fn history_json(db: &Path, filter: &[&str]) -> Vec<serde_json::Value> {
    let out = run_ok(&[&["history", "--format", "json"], filter].concat(), db);
    json_of(&out).as_array().unwrap().clone()
}
