//! Keeps a run in the history while it goes on: a soak of hours
//! killed by SIGKILL, a crash or a lost machine must lose seconds, not
//! hours. The store's side (one `runs` row made at the first write, a
//! `live_series` table, the row saved whole at the end) is described in
//! `store::live`; this is the writer.
//!
//! The runner hands over each worker's finished seconds on its own thread;
//! the hook here only copies them into a channel, and a writer thread
//! writes them in one transaction about once a second ([`FLUSH`]), so a
//! slow or locked database never delays a worker or the runner. The
//! writer opens its own connection. A database it cannot write costs only
//! the live copy: the caller's `trouble` hears it once (the binary says
//! it), the writer keeps what it has and tries again, and the run is still
//! saved whole at its end if the database allows it then.

use crate::Keeping;
use model::{JobResult, JobSpec, LivePoint, RunKind, RunRecord, RunResult, SoakRef};
use runner::{LiveFn, LiveUpdate};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use store::{Store, StoreError};

/// How often the writer commits: at most this much of a run (plus the
/// second being measured) is lost to a crash. Each commit is one small
/// fsync'd transaction, so a shorter period would add I/O of its own.
pub const FLUSH: Duration = Duration::from_secs(1);

/// What the hook passes to the writer.
struct Update {
    /// The run so far, with placeholders for the group now running, when
    /// the group changed (always in the first update).
    progress: Option<(RunResult, u32)>,
    points: Vec<LivePoint>,
}

/// What the writer leaves for the final save: the live row, if it made one,
/// and its open database.
pub struct Written {
    pub id: Option<i64>,
    pub store: Option<Store>,
    /// The run's global id, chosen before its first write.
    pub uuid: String,
}

impl Written {
    /// Nothing written yet: the run gets its global id now.
    pub fn none() -> Written {
        Written {
            id: None,
            store: None,
            uuid: store::new_uuid(),
        }
    }
}

pub struct LiveWriter {
    thread: JoinHandle<Written>,
    uuid: String,
}

impl LiveWriter {
    /// Starts the writer of one run; the hook goes into `RunOptions::live`.
    /// The writer ends when the hook is dropped (with the `RunOptions`).
    /// `trouble` hears the first failure to write, once.
    pub fn start(
        kind: RunKind,
        keeping: &Keeping,
        soak: Option<SoakRef>,
        trouble: impl Fn(&StoreError) + Send + 'static,
    ) -> (LiveWriter, LiveFn) {
        let (tx, rx) = channel::<Update>();
        let last_group = AtomicI64::new(-1);
        let hook: LiveFn = Box::new(move |u: &LiveUpdate| {
            let changed =
                last_group.swap(i64::from(u.group), Ordering::Relaxed) != i64::from(u.group);
            let progress = changed.then(|| (with_placeholders(u), u.group));
            // A writer that has gone (it never does before the hook) loses only the live copy.
            let _ = tx.send(Update {
                progress,
                points: u.points.to_vec(),
            });
        });
        let keeping = keeping.clone();
        let uuid = store::new_uuid();
        let for_thread = uuid.clone();
        let thread =
            std::thread::spawn(move || write_loop(&rx, kind, &keeping, soak, for_thread, &trouble));
        (LiveWriter { thread, uuid }, hook)
    }

    /// Waits for the writer to end (drop the hook first).
    pub fn finish(self) -> Written {
        let uuid = self.uuid;
        self.thread.join().unwrap_or(Written {
            id: None,
            store: None,
            uuid,
        })
    }
}

/// The run so far plus one empty job per job of the running group, which
/// the store fills from the series when the run is read before it ends.
fn with_placeholders(u: &LiveUpdate) -> RunResult {
    let mut result = u.result.clone();
    result.jobs.extend(
        u.jobs
            .iter()
            .zip(u.groupids)
            .map(|(spec, &g)| placeholder(g, spec)),
    );
    result
}

fn placeholder(group: u32, spec: &JobSpec) -> JobResult {
    JobResult::empty(spec, group, spec.numjobs.max(1))
}

/// Updates not yet in the database.
#[derive(Default)]
struct Pending {
    progress: Option<(RunResult, u32)>,
    points: Vec<LivePoint>,
}

struct Writer<'a> {
    kind: RunKind,
    keeping: &'a Keeping,
    trouble: &'a dyn Fn(&StoreError),
    soak: Option<SoakRef>,
    uuid: String,
    store: Option<Store>,
    id: Option<i64>,
    warned: bool,
}

fn write_loop(
    rx: &Receiver<Update>,
    kind: RunKind,
    keeping: &Keeping,
    soak: Option<SoakRef>,
    uuid: String,
    trouble: &dyn Fn(&StoreError),
) -> Written {
    let mut w = Writer {
        kind,
        keeping,
        trouble,
        soak,
        uuid,
        store: None,
        id: None,
        warned: false,
    };
    let mut pending = Pending::default();
    let mut last_flush: Option<Instant> = None;
    loop {
        let wait = match (last_flush, pending.points.is_empty()) {
            (_, true) | (None, _) => FLUSH,
            (Some(t), false) => FLUSH.saturating_sub(t.elapsed()),
        };
        match rx.recv_timeout(wait) {
            Ok(u) => {
                if u.progress.is_some() {
                    pending.progress = u.progress;
                }
                pending.points.extend(u.points);
            }
            Err(RecvTimeoutError::Timeout) => {}
            // The run ended: its whole result replaces anything pending.
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let due = last_flush.is_none_or(|t| t.elapsed() >= FLUSH);
        if due && !pending.points.is_empty() {
            if w.flush(&pending) {
                pending = Pending::default();
            }
            last_flush = Some(Instant::now());
        }
    }
    Written {
        id: w.id,
        store: w.store,
        uuid: w.uuid,
    }
}

impl Writer<'_> {
    /// Writes what is pending; false (told to `trouble` once) when it could not.
    fn flush(&mut self, pending: &Pending) -> bool {
        match self.try_flush(pending) {
            Ok(()) => true,
            Err(e) => {
                // A connection the server dropped is not used again: the
                // next flush opens a new one, so the run's live copy goes on
                // once the server is back.
                self.store = None;
                if !self.warned {
                    self.warned = true;
                    (self.trouble)(&e);
                }
                false
            }
        }
    }

    fn try_flush(&mut self, pending: &Pending) -> Result<(), StoreError> {
        if self.store.is_none() {
            self.store = Some(crate::open(self.keeping.db.as_deref())?);
        }
        let store = self.store.as_mut().expect("opened above");
        let record = |result: &RunResult| RunRecord {
            soak: self.soak.clone(),
            uuid: self.uuid.clone(),
            ..self.keeping.record(self.kind, result.clone())
        };
        match (self.id, &pending.progress) {
            (None, Some((result, group))) => {
                self.id = Some(store.begin_live(&record(result), *group, &pending.points)?);
            }
            // Never happens: the first update always carries the run so far.
            (None, None) => {}
            (Some(id), progress) => {
                let progress = progress.as_ref().map(|(r, g)| (record(r), *g));
                store.append_live(id, progress.as_ref().map(|(r, g)| (r, *g)), &pending.points)?;
            }
        }
        Ok(())
    }
}
