//! The flags that several commands share, as clap reads them: the history
//! (`--db`, `--no-save`, `--label`, `--price-*`, `--volume`), what a run
//! may write (`--allow-overwrite`, ...), `--inject-fault`, repetition
//! (`--runs`, `--duration`, `--until-*`, `--ci`) and `--metrics-listen`.
//!
//! They sit in one module that uses nothing else of the binary, so the
//! modules that act on them (saving, the live writer, the soak loop, the
//! metrics server) each import them from here and none imports another
//! only for its flags: that is what kept six modules in one import loop.

use clap::Args;
use model::{Prices, RunKind, RunRecord, RunResult};
use soak::{Plan, PlanError, Until};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use store::Store;

/// Which history database to use.
#[derive(Args, Clone, Debug, Default)]
pub struct DbArgs {
    /// History database: a file, or a shared PostgreSQL one
    /// (postgresql://USER@HOST[:PORT]/DB[?sslmode=verify-full&sslrootcert=FILE])
    /// [default: $DISKBENCH_DB, else $XDG_DATA_HOME/diskbench/history.sqlite3,
    /// else ~/.local/share/diskbench/history.sqlite3]
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    /// Opens the history to save runs in: the file is created if needed,
    /// its directory only at the default place.
    pub fn open(&self) -> anyhow::Result<Store> {
        Ok(history::open(self.db.as_deref())?)
    }

    /// Opens the history to read or edit it: nothing is created.
    pub fn open_existing(&self) -> anyhow::Result<Store> {
        Ok(history::open_existing(self.db.as_deref())?)
    }
}

/// What the user says about a run: labels and prices.
#[derive(Args, Clone, Debug, Default)]
pub struct TagArgs {
    /// Label the run, e.g. --label provider=aws --label disk=gp2 (repeatable)
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Price per GiB-month of the storage, for the cost columns of `compare`
    #[arg(long, value_name = "PRICE", value_parser = parse_price, allow_negative_numbers = true)]
    pub price_gib_month: Option<f64>,
    /// Price per million I/O requests
    #[arg(long, value_name = "PRICE", value_parser = parse_price, allow_negative_numbers = true)]
    pub price_per_million_ios: Option<f64>,
    /// Flat monthly price (provisioned IOPS, a VPS plan)
    #[arg(long, value_name = "PRICE", value_parser = parse_price, allow_negative_numbers = true)]
    pub price_month: Option<f64>,
    /// The cloud volume under test, e.g. aws:gp2:100GiB, aws:gp3:500GiB:iops=6000:mbps=250,
    /// azure:P10, gcp:pd-ssd:200GB (`diskbench volumes` lists them): its published model is
    /// printed before the run and held against every figure after it
    #[arg(long, value_name = "PROVIDER:TYPE[:SIZE][:iops=N][:mbps=N]", value_parser = parse_volume)]
    pub volume: Option<model::volume::VolumeModel>,
}

impl TagArgs {
    pub fn labels(&self) -> BTreeMap<String, String> {
        self.labels.iter().cloned().collect()
    }

    pub fn prices(&self) -> Prices {
        Prices {
            per_gib_month: self.price_gib_month,
            per_million_ios: self.price_per_million_ios,
            per_month: self.price_month,
        }
    }

    pub fn record(&self, kind: RunKind, result: RunResult) -> RunRecord {
        self.keeping(None).record(kind, result)
    }

    /// Where runs go (`db`) with these labels and prices.
    pub fn keeping(&self, db: Option<PathBuf>) -> history::Keeping {
        history::Keeping {
            db,
            labels: self.labels(),
            prices: self.prices(),
        }
    }
}

/// `--explain`, for the commands that check their figures (run, sweep,
/// limit): each warning and check is said once on a short line, and this
/// adds under it each test's whole text (what it means, why, the fix).
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct ExplainArgs {
    /// Under each warning and check, each test's whole text: what it means, why, and the fix
    #[arg(long)]
    pub explain: bool,
}

/// The options of a measuring command.
#[derive(Args, Clone, Debug, Default)]
pub struct SaveArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Do not keep this run in the history
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub tags: TagArgs,
    /// Not a flag: the lines that only say where the run was kept ("saved
    /// as run N") are left out; failures to keep it are still said.
    /// `diskbench fio` sets it when its checks are not asked for and stderr
    /// is not a terminal, so a script sees fio's empty stderr.
    #[arg(skip)]
    pub quiet: bool,
}

impl SaveArgs {
    /// These options as a command line, for the other diskbench commands a
    /// profile runs, so their runs are kept (or not) where this one's are.
    pub fn to_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(db) = &self.db.db {
            out.push(format!("--db={}", db.display()));
        }
        if self.no_save {
            out.push("--no-save".into());
        }
        for (k, v) in &self.tags.labels {
            out.push(format!("--label={k}={v}"));
        }
        let t = &self.tags;
        for (flag, price) in [
            ("--price-gib-month", t.price_gib_month),
            ("--price-per-million-ios", t.price_per_million_ios),
            ("--price-month", t.price_month),
        ] {
            if let Some(p) = price {
                out.push(format!("{flag}={p}"));
            }
        }
        if let Some(v) = &t.volume {
            out.push(format!("--volume={}", v.spec));
        }
        out
    }
}

/// `key=value`, both sides non-empty.
pub fn parse_label(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.is_empty() => {
            Ok((k.trim().to_string(), v.to_string()))
        }
        _ => Err(format!(
            "'{text}' is not a label: use key=value, e.g. provider=aws"
        )),
    }
}

pub fn parse_price(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!(
            "'{text}' is not a price: use a number of at least 0, e.g. 0.10"
        )),
    }
}

/// What a measuring command may write beyond its own test files.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct SafetyArgs {
    /// Write to a regular file that diskbench did not create (its contents are lost)
    #[arg(long)]
    pub allow_overwrite: bool,
    /// With --allow-destructive: write to a mounted device (fio's allow_mounted_write)
    #[arg(long)]
    pub allow_mounted_write: bool,
    /// Refuse every job that writes (fio's --readonly)
    #[arg(long)]
    pub readonly: bool,
}

/// Faults to inject: for testing verification and error handling only.
#[derive(Args, Clone, Debug, Default)]
pub struct FaultArgs {
    /// For testing verification and error handling, never for a measurement: make the N-th
    /// read or write of every worker fail or lie (repeatable). KIND@DIR:N[/M], KIND@DIR one of
    /// bitflip@read, bitflip@write, drop@write, misdirect@write, short@read, eio@read,
    /// eio@write, enospc@write, erofs@write; /M hits every M-th I/O after N too
    #[arg(long = "inject-fault", value_name = "SPEC", value_parser = parse_fault)]
    pub faults: Vec<model::FaultRule>,
}

fn parse_fault(text: &str) -> Result<model::FaultRule, String> {
    model::FaultRule::parse(text).map_err(|e| e.to_string())
}

/// The repetition flags, one struct for `run` (clap) and `fio` (split out
/// of the fio options by `history::split_own_args`).
#[derive(Args, Clone, Debug, Default)]
pub struct RepeatArgs {
    /// Repeat the measurement N times (a soak): each run is saved as it finishes
    #[arg(long, value_name = "N", value_parser = parse_runs)]
    pub runs: Option<u32>,
    /// Keep repeating until this much time has passed, e.g. 3h, 90m (with --runs: whichever
    /// comes first)
    #[arg(long, value_name = "DURATION", value_parser = parse_span)]
    pub duration: Option<Duration>,
    /// Idle this long between the runs of a soak, e.g. 30s, 5m
    #[arg(long, value_name = "DURATION", value_parser = parse_pause)]
    pub pause: Option<Duration>,
    /// Repeat until a throttling cliff is confirmed (at most --max-duration, default 24h)
    #[arg(long, conflicts_with = "until_steady")]
    pub until_throttled: bool,
    /// Repeat until steady state (SNIA: 5 runs within 20% range, 10% slope; at most 25 runs)
    #[arg(long)]
    pub until_steady: bool,
    /// The longest --until-throttled or --until-steady may go on, e.g. 6h
    #[arg(long, value_name = "DURATION", value_parser = parse_span)]
    pub max_duration: Option<Duration>,
    /// After the runs, when a cliff was found: idle this long, run once more,
    /// and report how much came back, e.g. 10m
    #[arg(long, value_name = "DURATION", value_parser = parse_pause)]
    pub recovery_check: Option<Duration>,
    /// Repeat until every job's median IOPS is known within this, e.g. 3%: the half-width of
    /// its 95% interval (order statistics; at least 6 runs) under this share of the median
    #[arg(long, value_name = "PCT", value_parser = parse_ci, conflicts_with_all = ["until_throttled", "until_steady"])]
    pub ci: Option<f64>,
    /// The most runs --ci may take (default 20)
    #[arg(long, value_name = "N", value_parser = parse_runs, requires = "ci")]
    pub max_rounds: Option<u32>,
}

/// `--ci 3%` or `--ci 3`: a percentage above 0 and below 100.
pub fn parse_ci(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        _ => Err(format!(
            "'{text}' is not a precision: give the interval's half-width as a percentage of \
             the median, above 0 and below 100, e.g. --ci 3%"
        )),
    }
}

pub(crate) fn parse_runs(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a number of runs: use a whole number of at least 1, e.g. --runs 30"
        )),
    }
}

pub(crate) fn parse_span(text: &str) -> Result<Duration, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!(
            "'{text}' is too short: a soak lasts more than 0, e.g. 3h"
        )),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn parse_pause(text: &str) -> Result<Duration, String> {
    model::units::parse_duration(text).map_err(|e| e.to_string())
}

impl RepeatArgs {
    /// `None` for a single run; an error (a usage error) for flags that
    /// mean nothing without others (`--pause` alone, `--max-duration`
    /// without an `--until-*`).
    pub fn plan(&self) -> Result<Option<Plan>, PlanError> {
        let until = match (self.until_throttled, self.until_steady, self.ci) {
            (true, _, _) => Some(Until::Throttled),
            (_, true, _) => Some(Until::Steady),
            (_, _, Some(pct)) => Some(Until::Precise(pct)),
            _ => None,
        };
        if self.max_duration.is_some() && until.is_none() {
            return Err(PlanError::MaxDurationAlone);
        }
        if self.runs.is_none()
            && self.duration.is_none()
            && until.is_none()
            && self.recovery_check.is_none()
        {
            return match self.pause {
                Some(_) => Err(PlanError::PauseAlone),
                None => Ok(None),
            };
        }
        let mut plan = Plan {
            runs: self.runs,
            duration: self.duration.or(self.max_duration),
            pause: self.pause.unwrap_or_default(),
            until,
            recovery: self.recovery_check,
        };
        match until {
            Some(Until::Throttled) if plan.runs.is_none() && plan.duration.is_none() => {
                plan.duration = Some(soak::DEFAULT_MAX_THROTTLED)
            }
            Some(Until::Steady) if plan.runs.is_none() && plan.duration.is_none() => {
                plan.runs = Some(soak::DEFAULT_MAX_STEADY_RUNS)
            }
            Some(Until::Precise(_)) if plan.runs.is_none() => {
                plan.runs = Some(self.max_rounds.unwrap_or(soak::DEFAULT_MAX_CI_RUNS))
            }
            None if plan.runs.is_none() && plan.duration.is_none() => plan.runs = Some(1),
            _ => {}
        }
        Ok(Some(plan))
    }
}

/// The metrics flag of a measuring command.
#[derive(Args, Clone, Debug, Default)]
pub struct MetricsArgs {
    /// Serve the live figures for Prometheus at http://ADDR/metrics while the runs go on,
    /// e.g. 127.0.0.1:9464 (:9464 for every interface; port 0 picks a free one, said on stderr)
    #[arg(long, value_name = "ADDR", value_parser = metrics::parse_listen)]
    pub metrics_listen: Option<SocketAddr>,
}

impl MetricsArgs {
    /// Binds the address and serves from now on, for `command` (`run`,
    /// `fio`) labelled with `tags`' labels, and says where; `None` without
    /// the flag. The error is a usage error.
    pub fn start(
        &self,
        command: &'static str,
        tags: &TagArgs,
    ) -> Result<Option<metrics::Metrics>, metrics::MetricsError> {
        let Some(addr) = self.metrics_listen else {
            return Ok(None);
        };
        let m = metrics::Metrics::start(addr, command, &tags.labels())?;
        for w in m.warnings() {
            eprintln!("diskbench: warning: {w}");
        }
        eprintln!("diskbench: live metrics at http://{}/metrics", m.addr());
        Ok(Some(m))
    }
}

/// The soak's plan and the metrics server, both before anything runs: a
/// flag that needs another or a port in use is a usage error.
pub fn plan_and_metrics(
    repeat: &RepeatArgs,
    metrics: &MetricsArgs,
    command: &'static str,
    tags: &TagArgs,
) -> anyhow::Result<(Option<Plan>, Option<metrics::Metrics>)> {
    let plan = repeat.plan()?;
    Ok((plan, metrics.start(command, tags)?))
}

/// What `--volume` takes: parsed and resolved here, so a bad declaration is
/// a usage error (exit 2) before anything runs.
pub fn parse_volume(text: &str) -> Result<model::volume::VolumeModel, String> {
    let spec = volumes::VolumeSpec::parse(text).map_err(|e| e.to_string())?;
    volumes::resolve(&spec, volumes::Catalogue::builtin()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Result<Option<Plan>, String> {
        #[derive(clap::Parser)]
        struct F {
            #[command(flatten)]
            r: RepeatArgs,
        }
        use clap::Parser;
        let f = F::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        f.r.plan().map_err(|e| e.to_string())
    }

    #[test]
    fn until_flags_have_bounds_and_need_each_other() {
        let day = Duration::from_secs(24 * 3600);
        let p = flags(&["--until-throttled"]).unwrap().unwrap();
        assert_eq!(
            (p.until, p.duration, p.runs),
            (Some(Until::Throttled), Some(day), None)
        );
        let p = flags(&["--until-throttled", "--max-duration", "2h"])
            .unwrap()
            .unwrap();
        assert_eq!(p.duration, Some(Duration::from_secs(7200)));
        let p = flags(&["--until-steady"]).unwrap().unwrap();
        assert_eq!((p.until, p.runs), (Some(Until::Steady), Some(25)));
        assert!(flags(&["--max-duration", "1h"])
            .unwrap_err()
            .contains("--until-throttled"));
        assert!(flags(&["--until-steady", "--until-throttled"]).is_err());
        let p = flags(&["--ci", "3%"]).unwrap().unwrap();
        assert_eq!((p.until, p.runs), (Some(Until::Precise(3.0)), Some(20)));
        let p = flags(&["--ci", "2", "--max-rounds", "9"]).unwrap().unwrap();
        assert_eq!((p.until, p.runs), (Some(Until::Precise(2.0)), Some(9)));
        assert!(
            flags(&["--max-rounds", "9"]).is_err(),
            "--max-rounds needs --ci"
        );
        assert!(flags(&["--ci", "0%"]).is_err() && flags(&["--ci", "x"]).is_err());
        assert!(flags(&["--ci", "3%", "--until-steady"]).is_err());
        // A recovery check alone is one run, then the check.
        let p = flags(&["--recovery-check", "30s"]).unwrap().unwrap();
        assert_eq!(
            (p.runs, p.recovery),
            (Some(1), Some(Duration::from_secs(30)))
        );
    }

    #[test]
    fn bad_repetition_flags_are_usage_errors() {
        assert!(parse_runs("0").unwrap_err().contains("at least 1"));
        assert!(parse_runs("-2").is_err() && parse_runs("x").is_err());
        assert!(parse_span("0s").unwrap_err().contains("more than 0"));
        assert!(parse_span("3 hours")
            .unwrap_err()
            .contains("not a duration"));
        assert_eq!(parse_span("3h"), Ok(Duration::from_secs(3 * 3600)));
        assert_eq!(parse_pause("0"), Ok(Duration::ZERO));
        let pause_alone = RepeatArgs {
            pause: Some(Duration::from_secs(1)),
            ..RepeatArgs::default()
        };
        assert!(pause_alone
            .plan()
            .unwrap_err()
            .to_string()
            .contains("--runs"));
        assert_eq!(RepeatArgs::default().plan(), Ok(None));
    }
}
