//! Sweeps (`diskbench sweep`, `limit`): one template job measured at
//! several settings. A setting changes the template by fio options
//! appended after its own (`--iodepth=8`, `--numjobs=2`, `--bs=64k`,
//! `--rwmixread=70`, `--rate_iops=N`), so each point is parsed and checked
//! by the same fio parser as `diskbench fio`, and its echoed options are
//! the job that ran.
//!
//! This crate plans the points (the settings of each curve, each point's
//! job), reads the points once measured (a curve's JSON, `limit`'s answer)
//! and runs nothing: the binary measures, prints and saves each point.

use model::{FileTarget, JobSpec};
use report::curve::SweepPoint;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A template that cannot give one job for a setting; a usage error that
/// says what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Fio(#[from] fio::FioError),
    #[error(
        "a sweep varies one job, and this template has {0}: keep one job in the file \
         (or pick one with --section NAME)"
    )]
    NotOneJob(usize),
    #[error("cannot read the job file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The test file a sweep of a directory lays out once and every point reads.
const SWEEP_FILE: &str = "diskbench-sweep.dat";

/// The job and the target a sweep or a limit search measures (the
/// command's flags, as plain values).
#[derive(Clone, Debug)]
pub struct Template {
    /// Directory (a test file is laid out in a fresh subdirectory), file or block device.
    pub target: Option<PathBuf>,
    /// A fio job file holding the one job to sweep.
    pub job: Option<PathBuf>,
    /// fio's `rw=` when no job file says.
    pub rw: String,
    pub runtime: String,
    pub ramp: String,
    /// Size of the test file in a directory.
    pub size: String,
    pub engine: String,
    /// More fio options for the job.
    pub fio: Vec<String>,
}

/// The fio options that make one point: appended after the template's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setting {
    pub iodepth: u32,
    pub numjobs: Option<u32>,
    pub bs: Option<String>,
    pub rwmixread: Option<u32>,
    pub rate_iops: Option<u64>,
}

impl Setting {
    fn options(&self) -> Vec<(String, String)> {
        let mut out = vec![("iodepth".to_string(), self.iodepth.to_string())];
        if let Some(n) = self.numjobs {
            out.push(("numjobs".into(), n.to_string()));
        }
        if let Some(bs) = &self.bs {
            out.push(("bs".into(), bs.clone()));
        }
        if let Some(m) = self.rwmixread {
            out.push(("rwmixread".into(), m.to_string()));
        }
        if let Some(r) = self.rate_iops {
            out.push(("rate_iops".into(), r.to_string()));
        }
        out
    }
}

impl Template {
    fn target(&self) -> PathBuf {
        self.target.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// The one job of `setting`, parsed and checked; a usage error otherwise.
    pub fn job(&self, setting: &Setting) -> Result<Vec<Vec<JobSpec>>, SweepError> {
        let target = self.target();
        let is_dir = target.is_dir();
        let parsed = match &self.job {
            Some(file) => self.parse_job_file(file, setting, &target, is_dir)?,
            None => {
                let mut args: Vec<String> = vec![
                    "--name=sweep".into(),
                    format!("--rw={}", self.rw),
                    "--bs=4k".into(),
                    "--direct=1".into(),
                    format!("--ioengine={}", self.engine),
                    "--time_based=1".into(),
                    format!("--runtime={}", self.runtime),
                    format!("--ramp_time={}", self.ramp),
                ];
                if is_dir {
                    args.push(format!("--size={}", self.size));
                } else {
                    args.push(format!("--filename={}", target.display()));
                }
                args.extend(self.fio.iter().cloned());
                args.extend(setting.options().iter().map(|(k, v)| format!("--{k}={v}")));
                fio::parse_args(args)?
            }
        };
        if parsed.jobs.len() != 1 {
            return Err(SweepError::NotOneJob(parsed.jobs.len()));
        }
        let mut job = parsed
            .jobs
            .into_iter()
            .next()
            .unwrap_or_else(|| JobSpec::new("sweep"));
        if is_dir && self.job.is_none() {
            job.target = FileTarget::Generated {
                directory: target,
                nrfiles: 1,
                shared: Some(SWEEP_FILE.to_string()),
            };
        }
        Ok(vec![vec![job]])
    }

    /// A job file with the setting's options appended to its one job
    /// (written to a temporary file beside nothing else, removed at once).
    fn parse_job_file(
        &self,
        file: &Path,
        setting: &Setting,
        target: &Path,
        is_dir: bool,
    ) -> Result<fio::FioArgs, SweepError> {
        let text = std::fs::read_to_string(file).map_err(|source| SweepError::Read {
            path: file.to_path_buf(),
            source,
        })?;
        let mut lines = vec![text, String::new()];
        if self.target.is_some() {
            match is_dir {
                true => lines.push(format!("directory={}", target.display())),
                false => lines.push(format!("filename={}", target.display())),
            }
        }
        lines.extend(setting.options().iter().map(|(k, v)| format!("{k}={v}")));
        let tmp = tempfile_path();
        std::fs::write(&tmp, lines.join("\n")).map_err(|source| SweepError::Write {
            path: tmp.clone(),
            source,
        })?;
        let mut args = vec![tmp.display().to_string()];
        args.extend(self.fio.iter().cloned());
        let parsed = fio::parse_args(args);
        let _ = std::fs::remove_file(&tmp);
        Ok(parsed?)
    }
}

fn tempfile_path() -> PathBuf {
    std::env::temp_dir().join(format!("diskbench-sweep-{}.fio", std::process::id()))
}

/// `1,2,4,8,...,256`: the depths a sweep tries unless told.
pub fn default_depths() -> Vec<u32> {
    (0..=8).map(|i| 1 << i).collect()
}

/// Every curve's settings: one list per (numjobs, bs, read mix) asked
/// (none asked: the template's own), `depths` along each.
pub fn curves(depths: &[u32], jobs: &[u32], bs: &[String], mixes: &[u32]) -> Vec<Vec<Setting>> {
    let opt = |v: &[u32]| -> Vec<Option<u32>> {
        match v.is_empty() {
            true => vec![None],
            false => v.iter().copied().map(Some).collect(),
        }
    };
    let sizes: Vec<Option<String>> = match bs.is_empty() {
        true => vec![None],
        false => bs.iter().cloned().map(Some).collect(),
    };
    let mut out = Vec::new();
    for numjobs in opt(jobs) {
        for bs in &sizes {
            for rwmixread in opt(mixes) {
                out.push(
                    depths
                        .iter()
                        .map(|&iodepth| Setting {
                            iodepth,
                            numjobs,
                            bs: bs.clone(),
                            rwmixread,
                            rate_iops: None,
                        })
                        .collect(),
                );
            }
        }
    }
    out
}

/// IOPS within this share of each other are the same figure, as for the knee.
const SAME_IOPS: f64 = 0.05;

/// The answer of the depth walk: of the points under the target, the
/// deepest whose IOPS is within 5% of the most any gave. On a device at
/// its limit from QD1 every depth gives the same IOPS but for noise, and
/// the answer is the deepest depth the target allows, not whichever depth
/// the noise favoured.
pub fn deepest_near_best(walked: &[SweepPoint], target_us: f64) -> Option<SweepPoint> {
    let under: Vec<&SweepPoint> = walked.iter().filter(|p| p.p99_us <= target_us).collect();
    let most = under.iter().map(|p| p.iops).fold(0.0, f64::max);
    under
        .into_iter()
        .filter(|p| p.iops >= most * (1.0 - SAME_IOPS))
        .max_by_key(|p| p.in_flight())
        .cloned()
}

/// One curve's JSON: the points (each with its repeats' summary under
/// `--ci`), the knee and peak (indexes into the points and their
/// settings), and whether it saturated.
pub fn curve_json(points: &[(SweepPoint, Option<analysis::stats::Summary>)]) -> Value {
    let just: Vec<SweepPoint> = points.iter().map(|(p, _)| p.clone()).collect();
    let verdict = report::curve::verdict(&just);
    let setting = |i: Option<usize>| i.map(|i| just[i].setting());
    json!({
        "shape": just.first().map(|p| p.shape.clone()),
        "points": points.iter().map(|(p, repeats)| json!({
            "iodepth": p.iodepth,
            "numjobs": p.numjobs,
            "setting": p.setting(),
            "iops": p.iops,
            "mb_per_sec": p.mb_per_sec,
            "mean_us": p.mean_us,
            "p50_us": p.p50_us,
            "p99_us": p.p99_us,
            "p999_us": p.p999_us,
            "depth_kept": p.depth_kept(),
            "run_id": p.run_id,
            "repeats": repeats,
        })).collect::<Vec<_>>(),
        "knee": verdict.and_then(|v| v.knee),
        "knee_setting": setting(verdict.and_then(|v| v.knee)),
        "peak": verdict.map(|v| v.peak),
        "peak_setting": setting(verdict.map(|v| v.peak)),
        "saturated": verdict.map(|v| v.saturated()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(iodepth: u32, iops: f64, p99_us: f64) -> SweepPoint {
        SweepPoint {
            iodepth,
            numjobs: 1,
            shape: "randread 4k".into(),
            iops,
            mb_per_sec: 0.0,
            p50_us: 0.0,
            p99_us,
            p999_us: 0.0,
            mean_us: 0.0,
            rate_iops: None,
            run_id: 0,
        }
    }

    #[test]
    fn the_answer_is_the_deepest_depth_under_the_target_that_noise_cannot_tell_from_the_best() {
        // Flat at 4000: QD1 won by noise, QD2 is the deepest under 20 ms.
        let flat = [
            point(1, 4000.0, 118.0),
            point(2, 3992.0, 1806.0),
            point(4, 4001.0, 67_000.0),
        ];
        assert_eq!(deepest_near_best(&flat, 20_000.0).unwrap().iodepth, 2);
        // A deeper queue that loses IOPS is not the answer.
        let worse = [point(1, 4000.0, 100.0), point(2, 3000.0, 200.0)];
        assert_eq!(deepest_near_best(&worse, 20_000.0).unwrap().iodepth, 1);
        assert!(deepest_near_best(&flat, 50.0).is_none());
    }
}
