//! What `sweep` and `limit` share: one job (the template: fio options or a
//! job file) measured at several settings, each setting a run of its own
//! saved in the history with the label `sweep=ID`, so the points of one
//! sweep are found together again (`--label sweep=ID`) by `history`,
//! `compare`, `chart --kind curve` and `report`, with no new column in the
//! history.
//!
//! What a point is (a `sweep::Setting` on the template) is the `sweep`
//! crate's; this module holds the template's flags and measures and saves
//! the points.

use crate::args::SaveArgs;
use crate::soak_loop;
use clap::Args;
use model::{JobSpec, RunKind};
use report::curve::SweepPoint;
use std::path::PathBuf;
use sweep::Setting;

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
    #[command(flatten)]
    pub explain: crate::args::ExplainArgs,
}

fn parse_point_time(text: &str) -> Result<String, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(text.to_string()),
        Ok(_) => Err("each point needs a measured time above 0, e.g. --runtime 5s".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl TemplateArgs {
    /// The template as the sweep crate takes it.
    fn template(&self) -> sweep::Template {
        sweep::Template {
            target: self.target.clone(),
            job: self.job.clone(),
            rw: self.rw.clone(),
            runtime: self.runtime.clone(),
            ramp: self.ramp.clone(),
            size: self.size.clone(),
            engine: self.engine.clone(),
            fio: self.fio.clone(),
        }
    }

    /// The one job of `setting`, parsed and checked; a usage error otherwise.
    pub fn job(&self, setting: &Setting) -> Result<Vec<Vec<JobSpec>>, sweep::SweepError> {
        self.template().job(setting)
    }
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
    /// The warning kinds said at earlier points.
    said: Vec<String>,
}

/// One measured point: its figures, and whether the run went wrong.
pub struct Measured {
    pub point: Option<SweepPoint>,
    /// What the point's figures cannot be (`report::sanity`), each named
    /// by the point's setting (`QD8`).
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
            said: Vec::new(),
        })
    }

    /// Runs `groups` (one setting) as a run of its own and saves it.
    pub fn measure(&mut self, groups: &[Vec<JobSpec>], prefix: String) -> Measured {
        let allow_destructive = self.template.fio.iter().any(|a| a == "--allow-destructive");
        let progress = crate::progress::Settings::shown(true);
        let m = soak_loop::Measure {
            allow_destructive,
            safety: self.template.safety,
            ..soak_loop::Measure::plain(self.kind, groups, &self.save, progress)
        };
        let (outcome, written) =
            soak_loop::measure_once(&m, &self.stop, &mut self.ws, None, Some(prefix));
        // A warning is said at the first point it fires on; each point's
        // are kept with its run (`diskbench show ID`).
        let explain = self.template.explain.explain;
        let said = Some(&mut self.said);
        crate::outcome::report_findings(&outcome, &[], &[], explain, said);
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
        // Every point's job is the template's: a check names the point.
        let mut verdicts = report::sanity::verdicts(&outcome.result);
        if let Some(p) = &point {
            verdicts.iter_mut().for_each(|v| v.job = p.setting());
        }
        Measured {
            point,
            verdicts,
            failed: outcome.failure.is_some(),
            interrupted,
        }
    }
}

/// The checks of a sweep's or limit's points, each kind once on a line
/// naming the points it fires on (with `explain`, each point's whole text).
pub fn checks_text(verdicts: &[report::sanity::Verdict], explain: bool) -> String {
    let found = report::glance::of_checks(verdicts, usize::MAX);
    report::glance::render(&found, explain)
}
