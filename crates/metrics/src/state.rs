//! The figures behind `/metrics`, kept up to date by the runner's live hook
//! and the soak loop, and printed at each scrape.
//!
//! Live figures are per job and direction, from each clone's last
//! finished second: IOPS and bytes per second summed over the clones, and
//! the latency quantiles of their merged histograms. A clone's second
//! older than [`FRESH`] no longer counts (the clone ended, or is stuck in
//! an I/O and completes nothing), and a job whose group is not running has
//! no live figures at all, so a dashboard never shows a finished job as
//! still running. Counters (`_total`, the summary's `_sum` and `_count`)
//! add up every finished second since diskbench started, across groups and
//! the runs of a soak, as Prometheus' `rate()` expects.
//!
//! Jobs are told apart by their group and name (`job_name`, not `job`,
//! which Prometheus sets to the scrape job's name); two jobs of one group
//! with the same name are shown as one, their figures added up.

use super::exposition::{Exposition, Kind, Labels, Sample};
use model::{DirStats, Direction, Histogram, JobSpec, RunResult, SeriesPoint};
use report::soak::JobVerdict;
use runner::LiveUpdate;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A clone's last second counts this long after it arrived: a second and a
/// half beyond the next one's due time.
pub const FRESH: Duration = Duration::from_millis(2500);

/// The latency quantiles shown, as Prometheus writes them.
const QUANTILES: [(f64, &str); 3] = [(50.0, "0.5"), (99.0, "0.99"), (99.9, "0.999")];

const DIRECTIONS: [Direction; 2] = [Direction::Read, Direction::Write];

/// What the figures are of: the command and the user's labels.
pub struct Identity {
    pub command: &'static str,
    /// `--label`s as valid label names (see `exposition::user_label_name`).
    pub labels: Labels,
}

pub struct State {
    identity: Identity,
    started_unix_s: f64,
    running: bool,
    soak: Option<String>,
    run: Option<u32>,
    planned_runs: Option<u32>,
    group: Option<u32>,
    jobs: Vec<JobLive>,
    /// The last finished run's figures, by job.
    last_run: Vec<JobFigures>,
    verdicts: Vec<JobVerdict>,
}

/// One job (group and name) as seen by the hook.
struct JobLive {
    group: u32,
    name: String,
    /// The directions its `rw` does: read, write.
    does: [bool; 2],
    /// Each clone's last second, by (the job's place in the group, clone).
    clones: BTreeMap<(u32, u32), CloneSecond>,
    totals: [Totals; 2],
}

#[derive(Default)]
struct CloneSecond {
    point: Option<(Instant, SeriesPoint)>,
    latency: Option<(Instant, [Histogram; 2])>,
}

#[derive(Default)]
struct Totals {
    ios: u64,
    bytes: u64,
    lat_count: u64,
    lat_sum_ns: u128,
}

/// A finished run's figures of one job (its clones merged).
struct JobFigures {
    group: u32,
    name: String,
    dirs: Vec<(Direction, DirStats)>,
}

impl State {
    pub fn new(identity: Identity, started_unix_s: f64) -> State {
        State {
            identity,
            started_unix_s,
            running: false,
            soak: None,
            run: None,
            planned_runs: None,
            group: None,
            jobs: Vec::new(),
            last_run: Vec::new(),
            verdicts: Vec::new(),
        }
    }

    /// A run (the `run`-th of the soak `soak`, if it is one) starts.
    pub fn run_started(&mut self, soak: Option<&str>, run: u32, planned: Option<u32>) {
        self.running = true;
        self.soak = soak.map(str::to_string);
        self.run = Some(run);
        self.planned_runs = planned;
        self.group = None;
    }

    /// A run ended: its whole figures and the soak's verdicts so far replace
    /// the live ones.
    pub fn run_finished(&mut self, result: &RunResult, verdicts: &[JobVerdict]) {
        self.running = false;
        self.group = None;
        for job in &mut self.jobs {
            job.clones.clear();
        }
        self.last_run = figures_of(result);
        self.verdicts = verdicts.to_vec();
    }

    /// What the runner's live hook hands over.
    pub fn update(&mut self, u: &LiveUpdate, now: Instant) {
        if self.group != Some(u.group) {
            self.group = Some(u.group);
            for job in &mut self.jobs {
                job.clones.clear();
            }
        }
        let mut live_of: Vec<usize> = Vec::with_capacity(u.jobs.len());
        for spec in u.jobs {
            live_of.push(self.job_index(u.group, spec));
        }
        for p in u.points {
            let Some(&i) = live_of.get(p.job as usize) else {
                continue;
            };
            let job = &mut self.jobs[i];
            job.totals[0].ios += p.point.read_ios;
            job.totals[0].bytes += p.point.read_bytes;
            job.totals[1].ios += p.point.write_ios;
            job.totals[1].bytes += p.point.write_bytes;
            let clone = job.clones.entry((p.job, p.clone)).or_default();
            clone.point = Some((now, p.point));
        }
        for l in u.latencies {
            let Some(&i) = live_of.get(l.job as usize) else {
                continue;
            };
            let job = &mut self.jobs[i];
            for (t, h) in job.totals.iter_mut().zip(&l.lat) {
                t.lat_count += h.count();
                t.lat_sum_ns += h.sum();
            }
            let clone = job.clones.entry((l.job, l.clone)).or_default();
            clone.latency = Some((now, l.lat.clone()));
        }
    }

    /// The place of the job (group, name) in `jobs`, added if new.
    fn job_index(&mut self, group: u32, spec: &JobSpec) -> usize {
        let known = self
            .jobs
            .iter()
            .position(|j| j.group == group && j.name == spec.name);
        known.unwrap_or_else(|| {
            self.jobs.push(JobLive {
                group,
                name: spec.name.clone(),
                does: [spec.rw.reads(), spec.rw.writes()],
                clones: BTreeMap::new(),
                totals: Default::default(),
            });
            self.jobs.len() - 1
        })
    }

    /// The exposition text as of `now`.
    pub fn render(&self, now: Instant) -> String {
        let mut out = Exposition::default();
        self.render_process(&mut out);
        self.render_live(&mut out, now);
        self.render_totals(&mut out);
        self.render_last_run(&mut out);
        self.render_verdicts(&mut out);
        out.into_text()
    }

    /// `own` labels followed by the user's.
    fn labels(&self, own: &[(&str, &str)]) -> Labels {
        own.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain(self.identity.labels.iter().cloned())
            .collect()
    }

    fn job_labels(&self, group: u32, name: &str, dir: Option<Direction>) -> Labels {
        let group = group.to_string();
        let mut own = vec![("job_name", name), ("group", group.as_str())];
        if let Some(d) = dir {
            own.push(("direction", report::stats::dir_name(d)));
        }
        self.labels(&own)
    }

    fn render_process(&self, out: &mut Exposition) {
        let version = env!("CARGO_PKG_VERSION");
        let mut info = vec![("version", version), ("command", self.identity.command)];
        if let Some(soak) = &self.soak {
            info.push(("soak", soak.as_str()));
        }
        let one = |labels: Labels, value: f64| vec![Sample::new(labels, value)];
        out.family(
            "diskbench_info",
            "diskbench's version, the command measuring and the soak's id; always 1",
            Kind::Gauge,
            &one(self.labels(&info), 1.0),
        );
        out.family(
            "diskbench_start_time_seconds",
            "When this diskbench started, in seconds since the Unix epoch",
            Kind::Gauge,
            &one(self.labels(&[]), self.started_unix_s),
        );
        out.family(
            "diskbench_running",
            "1 while a run measures, 0 before it, between the runs of a soak and after",
            Kind::Gauge,
            &one(self.labels(&[]), f64::from(u8::from(self.running))),
        );
        if let Some(run) = self.run {
            out.family(
                "diskbench_soak_run",
                "The run under way (or the last one), from 1; a single run is run 1",
                Kind::Gauge,
                &one(self.labels(&[]), f64::from(run)),
            );
        }
        if let (Some(_), Some(planned)) = (&self.soak, self.planned_runs) {
            out.family(
                "diskbench_soak_planned_runs",
                "The number of runs --runs asked for",
                Kind::Gauge,
                &one(self.labels(&[]), f64::from(planned)),
            );
        }
    }

    fn render_live(&self, out: &mut Exposition, now: Instant) {
        let mut iops = Vec::new();
        let mut bandwidth = Vec::new();
        let mut latency = Vec::new();
        // Only the running group's jobs have clones: the others' are cleared.
        for job in &self.jobs {
            let fresh = |at: &Instant| now.saturating_duration_since(*at) <= FRESH;
            let points: Vec<&SeriesPoint> = job
                .clones
                .values()
                .filter_map(|c| c.point.as_ref().filter(|(at, _)| fresh(at)))
                .map(|(_, p)| p)
                .collect();
            let latencies: Vec<&[Histogram; 2]> = job
                .clones
                .values()
                .filter_map(|c| c.latency.as_ref().filter(|(at, _)| fresh(at)))
                .map(|(_, l)| l)
                .collect();
            for (d, dir) in DIRECTIONS.into_iter().enumerate() {
                if !job.does[d] {
                    continue;
                }
                let labels = self.job_labels(job.group, &job.name, Some(dir));
                if !points.is_empty() {
                    let (ios, bytes) = per_second(&points, dir);
                    iops.push(Sample::new(labels.clone(), ios));
                    bandwidth.push(Sample::new(labels.clone(), bytes));
                }
                let mut merged = Histogram::new();
                latencies.iter().for_each(|l| merged.merge(&l[d]));
                if !merged.is_empty() {
                    latency.extend(quantiles(&labels, &merged));
                }
                let t = &job.totals[d];
                if t.lat_count > 0 {
                    latency.push(Sample {
                        suffix: "_sum",
                        labels: labels.clone(),
                        value: t.lat_sum_ns as f64 / 1e9,
                    });
                    latency.push(Sample {
                        suffix: "_count",
                        labels,
                        value: t.lat_count as f64,
                    });
                }
            }
        }
        out.family(
            "diskbench_iops",
            "I/Os per second of the job's last finished second, all its clones",
            Kind::Gauge,
            &iops,
        );
        out.family(
            "diskbench_bytes_per_second",
            "Bytes per second of the job's last finished second, all its clones",
            Kind::Gauge,
            &bandwidth,
        );
        out.family(
            "diskbench_latency_seconds",
            "Total latency (submission to completion, fio's lat): quantiles of the I/Os \
             completed in the job's last finished second; sum and count since diskbench started",
            Kind::Summary,
            &latency,
        );
    }

    fn render_totals(&self, out: &mut Exposition) {
        let mut ios = Vec::new();
        let mut bytes = Vec::new();
        for job in &self.jobs {
            for (d, dir) in DIRECTIONS.into_iter().enumerate() {
                if job.does[d] {
                    let labels = self.job_labels(job.group, &job.name, Some(dir));
                    ios.push(Sample::new(labels.clone(), job.totals[d].ios as f64));
                    bytes.push(Sample::new(labels, job.totals[d].bytes as f64));
                }
            }
        }
        out.family(
            "diskbench_ios_total",
            "I/Os completed in the job's finished seconds (ramp included; each run's last, \
             partial second not) since diskbench started",
            Kind::Counter,
            &ios,
        );
        out.family(
            "diskbench_bytes_total",
            "Bytes moved in the job's finished seconds (as diskbench_ios_total) since diskbench \
             started",
            Kind::Counter,
            &bytes,
        );
    }

    fn render_last_run(&self, out: &mut Exposition) {
        let mut iops = Vec::new();
        let mut bandwidth = Vec::new();
        let mut latency = Vec::new();
        for job in &self.last_run {
            for (dir, stats) in &job.dirs {
                let labels = self.job_labels(job.group, &job.name, Some(*dir));
                iops.push(Sample::new(labels.clone(), stats.iops()));
                bandwidth.push(Sample::new(labels.clone(), stats.bytes_per_sec()));
                let h = if stats.lat.is_empty() {
                    &stats.clat
                } else {
                    &stats.lat
                };
                if !h.is_empty() {
                    latency.extend(quantiles(&labels, h));
                }
            }
        }
        out.family(
            "diskbench_last_run_iops",
            "I/Os per second of the job over the last finished run, as its report gives them",
            Kind::Gauge,
            &iops,
        );
        out.family(
            "diskbench_last_run_bytes_per_second",
            "Bytes per second of the job over the last finished run",
            Kind::Gauge,
            &bandwidth,
        );
        out.family(
            "diskbench_last_run_latency_seconds",
            "Total latency quantiles of the job over the last finished run",
            Kind::Gauge,
            &latency,
        );
    }

    fn render_verdicts(&self, out: &mut Exposition) {
        let mut detected = Vec::new();
        let mut at_run = Vec::new();
        let mut drop = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        for v in &self.verdicts {
            let labels = self.labels(&[("job_name", v.name.as_str())]);
            let c = &v.cliff;
            detected.push(Sample::new(labels.clone(), f64::from(u8::from(c.detected))));
            if !c.detected {
                continue;
            }
            if let Some(run) = c.at_run {
                at_run.push(Sample::new(labels.clone(), f64::from(run)));
            }
            drop.push(Sample::new(labels.clone(), c.drop_pct / 100.0));
            before.push(Sample::new(labels.clone(), c.before_iops));
            after.push(Sample::new(labels, c.after_iops));
        }
        out.family(
            "diskbench_cliff_detected",
            "1 once a throttling cliff was found in the job's runs so far, else 0",
            Kind::Gauge,
            &detected,
        );
        out.family(
            "diskbench_cliff_run",
            "The run of the soak in which the cliff came, from 1",
            Kind::Gauge,
            &at_run,
        );
        out.family(
            "diskbench_cliff_drop_ratio",
            "How much of its IOPS the job lost at the cliff, 0 to 1",
            Kind::Gauge,
            &drop,
        );
        out.family(
            "diskbench_cliff_iops_before",
            "The job's median IOPS before the cliff",
            Kind::Gauge,
            &before,
        );
        out.family(
            "diskbench_cliff_iops_after",
            "The job's median IOPS after the cliff",
            Kind::Gauge,
            &after,
        );
    }
}

/// The clones' seconds in `dir`, added up as rates (each over its own length).
fn per_second(points: &[&SeriesPoint], dir: Direction) -> (f64, f64) {
    points.iter().fold((0.0, 0.0), |(ios, bytes), p| {
        let secs = p.duration_ms.max(1) as f64 / 1000.0;
        let (i, b) = match dir {
            Direction::Read => (p.read_ios, p.read_bytes),
            Direction::Write => (p.write_ios, p.write_bytes),
        };
        (ios + i as f64 / secs, bytes + b as f64 / secs)
    })
}

/// The summary's quantile lines of `h`, in seconds.
fn quantiles(labels: &Labels, h: &Histogram) -> Vec<Sample> {
    QUANTILES
        .iter()
        .map(|(pct, q)| {
            let mut labels = labels.clone();
            labels.push(("quantile".into(), q.to_string()));
            Sample::new(labels, h.percentile(*pct) as f64 / 1e9)
        })
        .collect()
}

/// A run's jobs, clones merged by group and name, with the directions each did.
fn figures_of(result: &RunResult) -> Vec<JobFigures> {
    let mut out: Vec<JobFigures> = Vec::new();
    for job in &result.jobs {
        let i = match out
            .iter()
            .position(|f| f.group == job.groupid && f.name == job.name)
        {
            Some(i) => i,
            None => {
                out.push(JobFigures {
                    group: job.groupid,
                    name: job.name.clone(),
                    dirs: Vec::new(),
                });
                out.len() - 1
            }
        };
        for dir in DIRECTIONS {
            let stats = report::stats::dir_stats(job, dir);
            let meant = match dir {
                Direction::Read => job.spec.rw.reads(),
                Direction::Write => job.spec.rw.writes(),
            };
            if stats.ios == 0 && !meant {
                continue;
            }
            let dirs = &mut out[i].dirs;
            match dirs.iter_mut().find(|(d, _)| *d == dir) {
                Some((_, merged)) => merged.merge(stats),
                None => dirs.push((dir, stats.clone())),
            }
        }
    }
    out
}
