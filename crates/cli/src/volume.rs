//! `--volume` on `run`, `fio` and soaks: the declared volume's model, held
//! against what the machine says (DMI, the device's model and size), the
//! prediction printed before the first run, and after each run the
//! verdicts that go into its result (`RunResult::volume`), so the JSON and
//! the history keep the model, the prediction and the verdict together.
//!
//! Everything here is printed on stderr, prefixed `volume:`: stdout is
//! fio's format or diskbench's JSON, which must stay parseable.

use model::volume::{CliffVerdict, DetectedVolume, VolumeModel, VolumeReport};
use model::{JobResult, RunResult};
use report::cliff::CliffReport;
use volumes::detect;
use volumes::predict::{self, FoundCliff, Measured};

/// For the commands that measure in their own terms (ping, meta,
/// fileserver, gobonniego): the declared model is kept with the run, but
/// their figures are not fio jobs' and are not judged; said once.
pub fn declared_only(
    model: Option<&VolumeModel>,
    kind: Option<model::RunKind>,
) -> Option<VolumeReport> {
    let m = model?;
    let why = format!(
        "{} measures in its own terms: its figures are kept with the volume's model but not held against it (use run or fio for verdicts)",
        kind.map_or("this command", |k| k.name())
    );
    eprintln!("volume: {why}");
    Some(VolumeReport {
        model: Some(m.clone()),
        warnings: vec![why],
        ..VolumeReport::default()
    })
}

/// The declared volume (or the detected machine) for the runs of one command.
pub struct VolumeContext {
    model: Option<VolumeModel>,
    /// DMI only: the device is known once a run has probed its targets.
    machine: DetectedVolume,
    /// Said once: the device's contradictions or the request to declare.
    said_device: std::cell::Cell<bool>,
}

impl VolumeContext {
    /// Detects the machine, completes the model with the instance's limits
    /// and prints the prediction.
    pub fn start(declared: Option<&VolumeModel>, groups: &[Vec<model::JobSpec>]) -> VolumeContext {
        let root = detect::sysfs_root();
        let machine = detect::detect(&root, None);
        let mut model = declared.cloned();
        if let Some(vm) = model.as_mut() {
            vm.instance = predict::instance_limit(
                volumes::Catalogue::builtin(),
                &machine,
                &vm.volume_type,
                detect::vcpus(&root),
            );
            for problem in detect::contradictions(vm, &machine, None) {
                eprintln!("volume: warning: {problem}");
            }
            let p = predict::predict(vm, predict::job_rate(groups, vm));
            eprintln!("volume: {}", predict::headline(vm, &p));
        }
        VolumeContext {
            model,
            machine,
            said_device: std::cell::Cell::new(false),
        }
    }

    /// Puts the volume's report into a finished run and prints its verdicts.
    /// `later_run`: a soak's run after its first, which starts with whatever
    /// the runs before left in the bucket, so its own cliff is not held
    /// against a full bucket's (the soak's verdict over all runs is).
    pub fn annotate(&self, result: &mut RunResult, later_run: bool) {
        let device = result.targets.first().and_then(|t| t.device.clone());
        let mut detected = detect::detect(&detect::sysfs_root(), device.as_deref());
        if detected.device_bytes.is_none() {
            detected.device_bytes = result.targets.first().and_then(|t| t.device_bytes);
        }
        let first = !self.said_device.replace(true);
        let Some(m) = &self.model else {
            if let Some(note) = detect::undeclared_note(&detected).filter(|_| first) {
                eprintln!("volume: {note}");
            }
            return;
        };
        let mut report = VolumeReport {
            model: Some(m.clone()),
            prediction: Some(predict::predict(m, None)),
            warnings: detect::contradictions(m, &detected, device.as_deref()),
            ..VolumeReport::default()
        };
        if first {
            for w in report.warnings.iter().filter(|w| !w.contains("(DMI)")) {
                eprintln!("volume: warning: {w}");
            }
        }
        for job in &result.jobs {
            report
                .verdicts
                .extend(predict::judge(m, &job.name, Measured::of(job)));
        }
        if !later_run {
            report.cliff = judge_jobs(m, &result.jobs);
        }
        for v in &report.verdicts {
            eprintln!("volume: {}: {}", v.job, v.sentence);
        }
        if let Some(c) = &report.cliff {
            eprintln!("volume: {}: {}", c.job, c.sentence);
        }
        report.detected = Some(DetectedVolume {
            provider: self.machine.provider.clone(),
            instance_type: self.machine.instance_type.clone(),
            ..detected
        });
        result.volume = Some(report);
    }

    /// For a soak: each job's cliff across the runs against the model.
    pub fn soak_cliffs(
        &self,
        verdicts: &[report::soak::JobVerdict],
        elapsed_s: f64,
    ) -> Vec<CliffVerdict> {
        let Some(m) = &self.model else {
            return Vec::new();
        };
        verdicts
            .iter()
            .filter_map(|v| {
                let mut c = predict::judge_cliff(m, found(m, &v.cliff), elapsed_s)?;
                c.job = v.name.clone();
                Some(c)
            })
            .collect()
    }
}

/// A cliff report in the bucket's unit, counted as the provider counts.
fn found(m: &VolumeModel, c: &CliffReport) -> Option<FoundCliff> {
    if !c.detected {
        return None;
    }
    FoundCliff::of(
        m,
        c.at_seconds,
        Measured {
            iops: c.before_iops,
            bytes_per_sec: c.before_bytes_per_sec,
        },
        Measured {
            iops: c.after_iops,
            bytes_per_sec: c.after_bytes_per_sec,
        },
        c.burst_ios,
    )
}

/// The run's cliff verdict: the first job whose series has a cliff, else
/// the longest job (a run long enough for the predicted cliff that has
/// none is a verdict too).
fn judge_jobs(m: &VolumeModel, jobs: &[JobResult]) -> Option<CliffVerdict> {
    let with_cliff = jobs
        .iter()
        .map(|j| (j, report::cliff::within_run(j)))
        .find(|(_, c)| c.detected);
    let (job, cliff) = match with_cliff {
        Some((j, c)) => (j, c),
        None => {
            let j = jobs.iter().max_by_key(|j| j.runtime_ns)?;
            (j, CliffReport::default())
        }
    };
    let mut v = predict::judge_cliff(m, found(m, &cliff), job.runtime_ns as f64 / 1e9)?;
    v.job = job.name.clone();
    Some(v)
}
