//! `verify_state_save` and `verify_state_load`: a write job with `verify=`
//! leaves a small file saying how many writes it completed, and a later
//! `verify_only` run of the same job (with `verify_state_load=1`) checks
//! only that many, so a write phase cut short (a crash, a power cut, a
//! `runtime`) is checked as far as it got and no further.
//!
//! The file is named as fio names its own: `local-JOB-N-verify.state`, N
//! the clone's thread number across the whole run, from 0 (fio 3.33 with
//! jobs a (numjobs=2), b, c (numjobs=2): a-0, a-1, b-2, c-3, c-4), in
//! `--aux-path` or else the current directory; fio 3.33 leaves one after every write job with `verify=`,
//! since `verify_state_save` is on by default. Its contents are
//! diskbench's, a few lines of text (fio's is a binary image of its own
//! structures): a state file fio wrote is refused by name, not misread.
//! `verify_policy=fsynced` saves the count at the job's last sync instead
//! of its last write: what a power cut could not have lost. A read job
//! with `verify_state_load` needs the state to be there, and checks every
//! block it reads on its own, as it does without one (its reads are not a
//! replay of the writes, so the count cannot limit them).

use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The first line of a state file diskbench wrote.
const MAGIC: &str = "diskbench verify state 1";

/// Why a saved state could not be loaded, each with the fix.
#[derive(Debug, Error)]
pub enum StateError {
    #[error(
        "verify_state_load: no saved state {path}: run the write job with verify= (and \
         verify_state_save on, fio's default) first, from this directory or with the same --aux-path"
    )]
    Missing { path: PathBuf },
    #[error("verify_state_load: could not read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error(
        "verify_state_load: {path} is not a state diskbench wrote (fio's own state files are \
         a binary image diskbench does not read): write it again with diskbench fio, or drop \
         verify_state_load"
    )]
    Foreign { path: PathBuf },
    #[error(
        "verify_state_load: {path} is the state of job '{found}', not '{job}': name the job \
         as the writing run did"
    )]
    OtherJob {
        path: PathBuf,
        found: String,
        job: String,
    },
}

/// The state file of job `job`'s clone that is thread `index` of the run
/// (from 0), in `dir` (or the current directory).
pub(crate) fn path(dir: Option<&str>, job: &str, index: u32) -> PathBuf {
    let name = format!("local-{job}-{index}-verify.state");
    match dir {
        Some(d) => Path::new(d).join(name),
        None => PathBuf::from(name),
    }
}

/// Saves that `writes` writes of `job` completed.
pub(crate) fn save(path: &Path, job: &str, clone: u32, writes: u64) -> io::Result<()> {
    let text = format!("{MAGIC}\njob {job}\nclone {clone}\nwrites {writes}\n");
    std::fs::write(path, text)
}

/// The writes the saved state of `job` says completed.
pub(crate) fn load(path: &Path, job: &str) -> Result<u64, StateError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StateError::Missing {
            path: path.to_path_buf(),
        },
        _ => StateError::Read {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let foreign = || StateError::Foreign {
        path: path.to_path_buf(),
    };
    let text = String::from_utf8(bytes).map_err(|_| foreign())?;
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(foreign());
    }
    let (mut found, mut writes) = (None, None);
    for line in lines {
        match line.split_once(' ') {
            Some(("job", v)) => found = Some(v.to_string()),
            Some(("writes", v)) => writes = v.parse::<u64>().ok(),
            _ => {}
        }
    }
    let (Some(found), Some(writes)) = (found, writes) else {
        return Err(foreign());
    };
    if found != job {
        return Err(StateError::OtherJob {
            path: path.to_path_buf(),
            found,
            job: job.to_string(),
        });
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_state_loads_back_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let p = path(Some(d), "w", 1);
        assert_eq!(p.file_name().unwrap(), "local-w-1-verify.state");
        assert!(matches!(load(&p, "w"), Err(StateError::Missing { .. })));
        save(&p, "w", 1, 77).unwrap();
        assert_eq!(load(&p, "w").unwrap(), 77);
        assert!(matches!(load(&p, "x"), Err(StateError::OtherJob { .. })));
        // fio's own: a binary image.
        std::fs::write(&p, [3u8, 0, 0, 0, 0xa8, 0, 0, 0]).unwrap();
        assert!(matches!(load(&p, "w"), Err(StateError::Foreign { .. })));
    }
}
