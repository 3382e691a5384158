//! Runs written while they go on, so a soak of hours killed with SIGKILL,
//! a crash or a lost machine loses seconds, not hours.
//!
//! Design (schema v2, see [`crate::schema`]): the first write of a run
//! creates its `runs` row at once, marked live by its owner columns
//! (`live_host`, `live_pid`, `live_pid_start`). Its `result_json` holds what
//! is complete (host, targets, the groups that ended, histograms and all)
//! plus one placeholder job per job of the group running now; the finished
//! seconds of that group go to `live_series`, one row per worker-second,
//! appended in one small transaction every second or so. When the run ends,
//! [`Store::finish_live`] overwrites the same row with the whole result and
//! deletes its `live_series` rows in one transaction: the run keeps its id,
//! and a reader sees it once, live or saved, never both.
//!
//! Nothing is ever changed on reading. A reader rebuilds a live row's
//! placeholder jobs from its series and decides whether the owner still
//! runs: on this host, the pid must exist with the same start time (so a
//! reused pid is not taken for it); on another host (a shared file system)
//! only the time of the last write can tell, so a run silent for
//! [`crate::FOREIGN_SILENCE_MS`] counts as killed. A wrong guess costs a label,
//! never data: the owner, if alive, still saves the run whole at its end.

use crate::backend::Tx;
use crate::dialect::Cell;
use crate::live_row::{now_unix_ms, LiveColumns, Owner};
use crate::record::{to_i64, Row};
use crate::{Result, Store};
use model::{LivePoint, RunRecord, SeriesPoint};

/// The per-second points written so far for live run `id`.
pub(crate) fn points_of(tx: &mut dyn Tx, id: i64) -> Result<Vec<LivePoint>> {
    let rows = tx.query(
        "SELECT grp, job, clone, start_ms, duration_ms, read_ios, read_bytes, write_ios, write_bytes
         FROM live_series WHERE run_id = ?1 ORDER BY grp, job, start_ms, clone",
        &[id.into()],
    )?;
    let u = |c: &Cell| c.int().unwrap_or(0).max(0) as u64;
    let small = |c: &Cell| c.int().unwrap_or(0).clamp(0, u32::MAX as i64) as u32;
    Ok(rows
        .iter()
        .map(|r| LivePoint {
            group: small(&r[0]),
            job: small(&r[1]),
            clone: small(&r[2]),
            point: SeriesPoint {
                start_ms: u(&r[3]),
                duration_ms: u(&r[4]),
                read_ios: u(&r[5]),
                read_bytes: u(&r[6]),
                write_ios: u(&r[7]),
                write_bytes: u(&r[8]),
                // The live table keeps reads and writes; trims arrive with the run.
                ..SeriesPoint::default()
            },
        })
        .collect())
}

fn insert_points(tx: &mut dyn Tx, id: i64, points: &[LivePoint]) -> Result<()> {
    // A second written again (never expected) keeps its last value.
    const UPSERT: &str = "INSERT INTO live_series (run_id, grp, job, clone, start_ms, duration_ms,
            read_ios, read_bytes, write_ios, write_bytes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (run_id, grp, job, clone, start_ms) DO UPDATE SET
            duration_ms = excluded.duration_ms, read_ios = excluded.read_ios,
            read_bytes = excluded.read_bytes, write_ios = excluded.write_ios,
            write_bytes = excluded.write_bytes";
    for p in points {
        let s = &p.point;
        tx.execute(
            UPSERT,
            &[
                id.into(),
                p.group.into(),
                p.job.into(),
                p.clone.into(),
                to_i64(s.start_ms).into(),
                to_i64(s.duration_ms).into(),
                to_i64(s.read_ios).into(),
                to_i64(s.read_bytes).into(),
                to_i64(s.write_ios).into(),
                to_i64(s.write_bytes).into(),
            ],
        )?;
    }
    Ok(())
}

impl Store {
    /// Creates the row of a run that is still being measured, with its
    /// first seconds; returns its id, which the run keeps when saved whole.
    ///
    /// `record.result` holds what is complete plus one placeholder job per
    /// job of `group` (the group running), in job order; `points` name
    /// their job by its position in that group.
    pub fn begin_live(
        &mut self,
        record: &RunRecord,
        group: u32,
        points: &[LivePoint],
    ) -> Result<i64> {
        let row = Row::of(record)?;
        let live = LiveColumns {
            owner: Owner::current(),
            heartbeat_unix_ms: now_unix_ms(),
            group,
        };
        self.transaction(true, |tx| {
            let id = row.insert(tx, Some(&live))?;
            crate::record::insert_labels(tx, id, &record.labels)?;
            insert_points(tx, id, points)?;
            Ok(id)
        })
    }

    /// Adds the seconds measured since the last write to live run `id`, in
    /// one transaction. `progress` replaces the run's result when a group
    /// ended since (the same shape as for [`Store::begin_live`]).
    pub fn append_live(
        &mut self,
        id: i64,
        progress: Option<(&RunRecord, u32)>,
        points: &[LivePoint],
    ) -> Result<()> {
        let row = progress
            .map(|(r, g)| Row::of(r).map(|row| (row, g)))
            .transpose()?;
        let path = self.path.clone();
        self.transaction(true, |tx| {
            let now = to_i64(now_unix_ms());
            let found = match &row {
                Some((row, group)) => {
                    let live = LiveColumns {
                        owner: Owner::current(),
                        heartbeat_unix_ms: now as u64,
                        group: *group,
                    };
                    row.update(tx, id, Some(&live))?
                }
                None => {
                    tx.execute(
                        "UPDATE runs SET live_heartbeat_unix_ms = ?1 WHERE id = ?2 AND live_host IS NOT NULL",
                        &[now.into(), id.into()],
                    )? > 0
                }
            };
            if !found {
                // Removed meanwhile (`diskbench rm`): the points have no run to join.
                return Err(crate::StoreError::NoSuchRun { id, path });
            }
            insert_points(tx, id, points)
        })
    }

    /// Saves live run `id` whole: its row takes `record` and its live
    /// series go, in one transaction. Returns the run's id: `id`, or a new
    /// one when the row was removed meanwhile.
    pub fn finish_live(&mut self, id: i64, record: &RunRecord) -> Result<i64> {
        let row = Row::of(record)?;
        self.transaction(true, |tx| finish_row(tx, id, &row, record))
    }
}

/// Saves `record` whole into the live row `id` (its series and labels
/// replaced), or as a new row when there is no row `id` any more.
pub(crate) fn finish_row(tx: &mut dyn Tx, id: i64, row: &Row, record: &RunRecord) -> Result<i64> {
    tx.execute("DELETE FROM live_series WHERE run_id = ?1", &[id.into()])?;
    let id = if row.update(tx, id, None)? {
        tx.execute("DELETE FROM labels WHERE run_id = ?1", &[id.into()])?;
        id
    } else {
        row.insert(tx, None)?
    };
    crate::record::insert_labels(tx, id, &record.labels)?;
    Ok(id)
}
