//! `diskbench chart`: the report's charts as files, SVG or PNG by the
//! output's extension, for blog posts and issues. Always one file, at the
//! path asked: kinds that make one chart per group or per job (timeline,
//! series) put them one above the other ([`charts::column`]).

use crate::args::DbArgs;
use crate::outcome::Exit;
use crate::selection::{load_or_exit, Selection};
use anyhow::Context;
use clap::{Args, ValueEnum};
use report::charts;
use report::compare::{self, Metric};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kind {
    /// One metric across groups, with error bars
    Bar,
    /// Run-by-run figures per group of two runs or more: where a throttling cliff shows
    Timeline,
    /// Latency percentile curves per group, log axis
    Percentiles,
    /// Saturation curves of sweeps: p99 against IOPS, log axes, a line per sweep (or --by group)
    Curve,
    /// Per-second IOPS and MB/s of each job of each run
    Series,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MetricArg {
    Iops,
    Read,
    Write,
    P99,
}

#[derive(Args)]
pub struct ChartArgs {
    #[arg(long, value_enum, default_value = "bar")]
    kind: Kind,
    /// The metric of a bar chart
    #[arg(long, value_enum, default_value = "iops")]
    metric: MetricArg,
    /// Log scale (bar charts)
    #[arg(long)]
    log: bool,
    /// Output file: .svg or .png
    #[arg(short, long)]
    output: PathBuf,
    /// Group runs by these labels (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "LABEL,...")]
    by: Vec<String>,
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: ChartArgs) -> anyhow::Result<Exit> {
    let png = match args.output.extension().and_then(|e| e.to_str()) {
        Some("svg") => false,
        Some("png") => true,
        _ => {
            eprintln!(
                "diskbench chart: {} must end in .svg or .png: that says which format to write",
                args.output.display()
            );
            return Ok(Exit::Usage);
        }
    };
    let example = if png { "chart.png" } else { "chart.svg" };
    if let Some(problem) = crate::cmd_report::output_path_problem(&args.output, example) {
        eprintln!("diskbench chart: {problem}");
        return Ok(Exit::Usage);
    }
    let store = crate::save::open(&args.db)?;
    let runs = match load_or_exit("chart", &args.selection, &store) {
        Ok(runs) => runs,
        Err(exit) => return exit,
    };
    if let Some(problem) = crate::cmd_compare::unknown_by_label(&runs, &args.by) {
        eprintln!("diskbench chart: {problem}");
        return Ok(Exit::Usage);
    }
    let svgs: Vec<String> = match args.kind {
        Kind::Bar => {
            let metric = match args.metric {
                MetricArg::Iops => Metric::Iops,
                MetricArg::Read => Metric::ReadMbPerS,
                MetricArg::Write => Metric::WriteMbPerS,
                MetricArg::P99 => Metric::P99LatencyUs,
            };
            vec![charts::bar_chart(
                &compare::compare(&runs, &args.by),
                metric,
                args.log,
            )]
        }
        Kind::Timeline => {
            let single = charts::one_run_groups(&runs, &args.by);
            let charts = charts::timeline_charts(&runs, &args.by);
            if charts.is_empty() {
                eprintln!(
                    "diskbench chart: a timeline shows a group's runs one after another, and each \
                     selected group has one run: `diskbench compare` gives their figures, or group \
                     more runs together (fewer --by labels, or save more runs with --runs N)"
                );
                return Ok(Exit::Usage);
            }
            if !single.is_empty() {
                let names: Vec<&str> = single.iter().map(|(name, _)| name.as_str()).collect();
                eprintln!(
                    "diskbench chart: left out the groups of one run, which have no timeline: {}",
                    names.join(", ")
                );
            }
            charts.into_iter().map(|(_, s)| s).collect()
        }
        Kind::Percentiles => vec![charts::percentile_chart(&runs, &args.by)],
        Kind::Curve => match charts::curve_chart(&runs, &args.by) {
            Some(svg) => vec![svg],
            None => {
                eprintln!(
                    "diskbench chart: a curve is drawn from the points of a sweep, and none of the                      selected runs is one: run `diskbench sweep` first, or select its runs with                      --label sweep=ID"
                );
                return Ok(Exit::Usage);
            }
        },
        Kind::Series => runs
            .iter()
            .flat_map(charts::series_charts)
            .map(|(_, s)| s)
            .collect(),
    };
    if svgs.is_empty() {
        eprintln!("diskbench chart: the selected runs have nothing to draw for this kind");
        return Ok(Exit::Usage);
    }
    let svg = charts::column(&svgs);
    let bytes = if png {
        charts::svg_to_png(&svg).map_err(|e| anyhow::anyhow!("{e}"))?
    } else {
        svg.into_bytes()
    };
    let path = &args.output;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    match svgs.len() {
        1 => eprintln!("wrote {}", path.display()),
        n => eprintln!("wrote {} ({n} charts, one above the other)", path.display()),
    }
    Ok(Exit::Ok)
}
