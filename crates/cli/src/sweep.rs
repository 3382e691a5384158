//! What `sweep` and `limit` share: one job (the template: fio options or a
//! job file) measured at several settings, each setting a run of its own
//! saved in the history with the label `sweep=ID`, so the points of one
//! sweep are found together again (`--label sweep=ID`) by `history`,
//! `compare`, `chart --kind curve` and `report`, with no new column in the
//! history.
//!
//! The settings change the template by fio options appended after its own
//! (`--iodepth=8`, `--numjobs=2`, `--bs=64k`, `--rwmixread=70`,
//! `--rate_iops=N`), so each point is parsed and checked by the same fio
//! parser as `diskbench fio`, and its echoed options are the job that ran.

use crate::args::SaveArgs;
use crate::soak_loop;
use clap::Args;
use model::{FileTarget, JobSpec, RunKind};
use report::curve::SweepPoint;
use std::path::{Path, PathBuf};

/// The test file a sweep of a directory lays out once and every point reads.
const SWEEP_FILE: &str = "diskbench-sweep.dat";

/// The job and the target a sweep or a limit search measures.
#[derive(Args, Clone, Debug)]
pub struct TemplateArgs {
    /// Directory (a test file is laid out in a fresh subdirectory), file or block device
    pub target: Option<PathBuf>,
    /// A fio job file holding the one job to sweep (its settings are overridden point by point)
    #[arg(long, value_name = "FILE")]
    pub job: Option<PathBuf>,
    /// The I/O pattern, when no --job says (fio's rw=)
    #[arg(long, default_value = "randread")]
    pub rw: String,
    /// Each point's measured time, e.g. 2s, 30s
    #[arg(long, default_value = "5s", value_parser = parse_point_time)]
    pub runtime: String,
    /// Time before each point's clock starts, so the queue is full when it does
    #[arg(long, default_value = "1s")]
    pub ramp: String,
    /// Size of the test file in a directory
    #[arg(long, default_value = "1g")]
    pub size: String,
    /// I/O engine
    #[arg(long, default_value = "io_uring")]
    pub engine: String,
    #[command(flatten)]
    pub safety: crate::args::SafetyArgs,
    /// More fio options for the job, after `--`: `-- --rw=randwrite --allow-destructive`
    #[arg(last = true, value_name = "FIO OPTIONS")]
    pub fio: Vec<String>,
}

fn parse_point_time(text: &str) -> Result<String, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(text.to_string()),
        Ok(_) => Err("each point needs a measured time above 0, e.g. --runtime 5s".into()),
        Err(e) => Err(e.to_string()),
    }
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

impl TemplateArgs {
    fn target(&self) -> PathBuf {
        self.target.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// The one job of `setting`, parsed and checked; a usage error (text) otherwise.
    pub fn job(&self, setting: &Setting) -> Result<Vec<Vec<JobSpec>>, String> {
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
                fio::parse_args(args).map_err(|e| e.to_string())?
            }
        };
        if parsed.jobs.len() != 1 {
            return Err(format!(
                "a sweep varies one job, and this template has {}: keep one job in the file \
                 (or pick one with --section NAME)",
                parsed.jobs.len()
            ));
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
    ) -> Result<fio::FioArgs, String> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read the job file {}: {e}", file.display()))?;
        let mut lines = vec![text, String::new()];
        if self.target.is_some() {
            match is_dir {
                true => lines.push(format!("directory={}", target.display())),
                false => lines.push(format!("filename={}", target.display())),
            }
        }
        lines.extend(setting.options().iter().map(|(k, v)| format!("{k}={v}")));
        let tmp = tempfile_path();
        std::fs::write(&tmp, lines.join("\n"))
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        let mut args = vec![tmp.display().to_string()];
        args.extend(self.fio.iter().cloned());
        let parsed = fio::parse_args(args);
        let _ = std::fs::remove_file(&tmp);
        parsed.map_err(|e| e.to_string())
    }
}

fn tempfile_path() -> PathBuf {
    std::env::temp_dir().join(format!("diskbench-sweep-{}.fio", std::process::id()))
}

/// `1,2,4,8,...,256`: the depths a sweep tries unless told.
pub fn default_depths() -> Vec<u32> {
    (0..=8).map(|i| 1 << i).collect()
}

/// A whole number of at least 1, for `--qd` and `--jobs`.
pub fn parse_count(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a count: use whole numbers of at least 1, e.g. --qd 1,2,4,8"
        )),
    }
}

/// Measures points one after another, saving each with the sweep's label.
pub struct Sweeper<'a> {
    /// Which command walks the points (`sweep` or `limit`), as the history
    /// keeps each point.
    kind: RunKind,
    pub template: &'a TemplateArgs,
    pub save: SaveArgs,
    pub id: String,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ws: runner::Workspace,
    pub exit: crate::outcome::Exit,
}

/// One measured point: its figures, and whether the run went wrong.
pub struct Measured {
    pub point: Option<SweepPoint>,
    /// What the point's figures cannot be (`report::sanity`).
    pub verdicts: Vec<report::sanity::Verdict>,
    pub failed: bool,
    pub interrupted: bool,
}

impl<'a> Sweeper<'a> {
    pub fn new(
        kind: RunKind,
        template: &'a TemplateArgs,
        save: &SaveArgs,
    ) -> anyhow::Result<Sweeper<'a>> {
        let id = soak::new_soak_id();
        let mut save = save.clone();
        save.tags
            .labels
            .push((report::curve::SWEEP_LABEL.to_string(), id.clone()));
        Ok(Sweeper {
            kind,
            template,
            save,
            id,
            stop: crate::outcome::stop_on_signals()?,
            ws: runner::Workspace::default(),
            exit: crate::outcome::Exit::Ok,
        })
    }

    /// Runs `groups` (one setting) as a run of its own and saves it.
    pub fn measure(&mut self, groups: &[Vec<JobSpec>], prefix: String) -> Measured {
        let allow_destructive = self.template.fio.iter().any(|a| a == "--allow-destructive");
        let m = soak_loop::Measure {
            kind: self.kind,
            groups,
            allow_destructive,
            safety: self.template.safety,
            faults: &[],
            global_options: &[],
            progress: crate::progress::Settings::shown(true),
            watch: None,
            save: &self.save,
            metrics: None,
            stable_stop: None,
        };
        let (outcome, written) =
            soak_loop::measure_once(&m, &self.stop, &mut self.ws, None, Some(prefix));
        crate::outcome::report_problems(&outcome);
        let exit = crate::outcome::Exit::of(&outcome.failure);
        let (exit, id) =
            crate::save::save_run(self.kind, &outcome.result, None, written, &self.save, exit);
        if self.exit == crate::outcome::Exit::Ok {
            self.exit = exit;
        }
        let mut point = SweepPoint::of(&outcome.result);
        if let (Some(p), Some(id)) = (&mut point, id) {
            p.run_id = id;
        }
        let interrupted = outcome
            .failure
            .as_ref()
            .is_some_and(runner::RunError::is_interrupted);
        Measured {
            point,
            verdicts: report::sanity::verdicts(&outcome.result),
            failed: outcome.failure.is_some(),
            interrupted,
        }
    }
}
