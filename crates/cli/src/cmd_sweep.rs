//! `diskbench sweep [TARGET]`: one job measured at growing queue depth (and
//! at each `--jobs` count, block size and read mix asked), to draw its
//! saturation curve: IOPS, MB/s, p50, p99 and p99.9 per point, where the
//! curve bends (the knee) and whether it bent at all. Each point is a run
//! of its own in the history, labelled `sweep=ID` (see `crate::sweeper` and the `sweep` crate).
//!
//! `--json` prints one JSON document on stdout at the end (each curve's
//! points, its knee, peak and whether it saturated, the repeats of each
//! point under `--ci`, the checks), and the table goes to stderr as it
//! grows, so a script reads stdout whole and a person still sees progress.

use crate::args::SaveArgs;
use crate::outcome::Exit;
use crate::sweeper::{parse_count, Sweeper, TemplateArgs};
use clap::Args;
use sweep::{default_depths, Setting};

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    template: TemplateArgs,
    /// Queue depths, in order [default: 1,2,4,8,16,32,64,128,256]
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "N,...")]
    qd: Vec<u32>,
    /// Numbers of jobs (fio's numjobs), a curve each
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "N,...")]
    jobs: Vec<u32>,
    /// Block sizes, a curve each, e.g. 4k,64k
    #[arg(long, value_delimiter = ',', value_name = "SIZE,...")]
    bs: Vec<String>,
    /// Read percentages of a mixed job (fio's rwmixread), a curve each, e.g. 100,70,0
    #[arg(long, value_delimiter = ',', value_name = "PCT,...", value_parser = parse_mix)]
    rwmixread: Vec<u32>,
    /// Repeat each point until its median IOPS is known within this, e.g. 3% (95% interval
    /// half-width; 6 runs at least); the point is then its median run
    #[arg(long, value_name = "PCT", value_parser = crate::args::parse_ci)]
    ci: Option<f64>,
    /// The most runs of one point --ci may take (default 20)
    #[arg(long, value_name = "N", value_parser = parse_count, requires = "ci")]
    max_rounds: Option<u32>,
    /// Print the curves as one JSON document on stdout (the table goes to stderr)
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    save: SaveArgs,
}

fn parse_mix(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n <= 100 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a read percentage: use 0 to 100, e.g. --rwmixread 100,70"
        )),
    }
}

/// Every curve's settings: one list per (jobs, bs, mix), depth growing along it.
fn curves(args: &SweepArgs) -> Vec<Vec<Setting>> {
    let depths = match args.qd.is_empty() {
        true => default_depths(),
        false => args.qd.clone(),
    };
    sweep::curves(&depths, &args.jobs, &args.bs, &args.rwmixread)
}

pub fn run(args: SweepArgs) -> anyhow::Result<Exit> {
    let curves = curves(&args);
    // Every point is checked before the first is measured: a bad block
    // size found after an hour of sweeping costs the hour.
    let mut planned = Vec::new();
    for curve in &curves {
        let mut jobs = Vec::new();
        for setting in curve {
            match args.template.job(setting) {
                Ok(groups) => jobs.push(groups),
                Err(e) => {
                    eprintln!("diskbench sweep: {e}");
                    return Ok(Exit::Usage);
                }
            }
        }
        planned.push(jobs);
    }
    let mut sweeper = Sweeper::new(model::RunKind::Sweep, &args.template, &args.save)?;
    let total: usize = planned.iter().map(Vec::len).sum();
    let mut done = 0;
    let mut checks = Vec::new();
    let mut out = Text::new(args.json);
    let mut curves_json = Vec::new();
    let mut interrupted_at = false;
    outln!(
        out,
        "sweep {} ({}; in the history as --label sweep={})",
        sweeper.id,
        report::format::count(total, "point"),
        sweeper.id
    );
    'curves: for jobs in &planned {
        let mut points = Vec::new();
        let mut header = false;
        for groups in jobs {
            done += 1;
            let job = &groups[0][0];
            let prefix = format!("point {done}/{total} QD{}", job.iodepth);
            let (point, repeats, stopped, found) =
                measure_point(&args, &mut sweeper, groups, &prefix);
            checks.extend(found);
            if let Some(p) = point {
                if !header {
                    outln!(out, "\n{}", p.shape);
                    out.put(&report::curve::table_header());
                    header = true;
                }
                out.put(&report::curve::table_row(&p));
                if let Some(s) = &repeats {
                    let short = match (s.half_width_pct(), args.ci) {
                        (Some(h), Some(pct)) if h <= pct => String::new(),
                        (_, Some(pct)) => format!(": not within {pct}% in {} runs", s.n),
                        _ => String::new(),
                    };
                    outln!(out, "{:>20} median IOPS {}{short}", "", s.text(0));
                }
                points.push((p, repeats));
            }
            if let Some(interrupted) = stopped {
                if !points.is_empty() {
                    curves_json.push(curve_json(&points, &mut out));
                }
                if interrupted {
                    eprintln!("diskbench sweep: interrupted; the points so far are saved");
                }
                interrupted_at = interrupted;
                break 'curves;
            }
        }
        curves_json.push(curve_json(&points, &mut out));
    }
    let checks_said = crate::sweeper::checks_text(&checks, args.template.explain.explain);
    out.put(&checks_said);
    let checks: Vec<&str> = checks.iter().map(|v| v.text.as_str()).collect();
    if args.json {
        let doc = serde_json::json!({
            "sweep": sweeper.id,
            "curves": curves_json,
            "checks": checks,
            "interrupted": interrupted_at,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    }
    Ok(sweeper.exit)
}

/// The text of a sweep: on stdout, or on stderr with `--json` (stdout then
/// holds the document alone). Flushed as it goes, so the table grows point
/// by point.
struct Text {
    to_stderr: bool,
}

impl Text {
    fn new(to_stderr: bool) -> Text {
        Text { to_stderr }
    }

    fn put(&mut self, text: &str) {
        use std::io::Write;
        // A closed stdout or stderr ends nothing here; the run's exit says it.
        let _ = match self.to_stderr {
            true => std::io::stderr().lock().write_all(text.as_bytes()),
            false => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).and_then(|()| out.flush())
            }
        };
    }
}

/// `println!` into a [`Text`].
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {
        $out.put(&format!("{}\n", format!($($arg)*)))
    };
}
use outln;

/// One curve's verdict, printed, and its JSON (`sweep::curve_json`).
fn curve_json(
    points: &[(report::curve::SweepPoint, Option<analysis::stats::Summary>)],
    out: &mut Text,
) -> serde_json::Value {
    let just: Vec<report::curve::SweepPoint> = points.iter().map(|(p, _)| p.clone()).collect();
    out.put(&report::curve::verdict_text(&just));
    sweep::curve_json(points)
}

/// One point, once or (with `--ci`) until its median IOPS is precise
/// enough: the point (its median run), the repeats' summary when there
/// were several, and `Some(interrupted)` when a run failed or was stopped.
fn measure_point(
    args: &SweepArgs,
    sweeper: &mut Sweeper,
    groups: &[Vec<model::JobSpec>],
    prefix: &str,
) -> (
    Option<report::curve::SweepPoint>,
    Option<analysis::stats::Summary>,
    Option<bool>,
    Vec<report::sanity::Verdict>,
) {
    let max = match args.ci {
        Some(_) => args.max_rounds.unwrap_or(soak::DEFAULT_MAX_CI_RUNS),
        None => 1,
    };
    let mut repeats = Vec::new();
    let mut checks = Vec::new();
    let mut stopped = None;
    for round in 1..=max {
        let prefix = match max {
            1 => prefix.to_string(),
            _ => format!("{prefix} round {round}"),
        };
        let measured = sweeper.measure(groups, prefix);
        checks.extend(measured.verdicts);
        repeats.extend(measured.point);
        if measured.failed {
            stopped = Some(measured.interrupted);
            break;
        }
        let iops: Vec<f64> = repeats.iter().map(|p| p.iops).collect();
        let precise = analysis::stats::Summary::of(&iops)
            .and_then(|s| s.half_width_pct())
            .zip(args.ci)
            .is_some_and(|(h, pct)| h <= pct);
        if precise {
            break;
        }
    }
    let summary = match repeats.len() > 1 {
        true => analysis::stats::Summary::of(&repeats.iter().map(|p| p.iops).collect::<Vec<_>>()),
        false => None,
    };
    repeats.sort_by(|a, b| a.iops.total_cmp(&b.iops));
    let point = report::curve::median_of_repeats(repeats).into_iter().next();
    (point, summary, stopped, checks)
}
