//! `diskbench compare`: the table of Brian Cunnie's 2018 benchmark of cloud disks. A row per group of runs (by
//! label), IOPS, Read MB/s, Write MB/s and p99 latency as mean ± sd over
//! the runs, and the costs when prices were given. Which job feeds which
//! column is `report::compare`'s rule, defined once there. A column whose
//! runs measured unlike jobs (another rw, bs, iodepth, numjobs, direct or
//! engine) is not averaged but marked `mixed`, and a `--by` label no run
//! has is an error ([`unknown_by_label`], which `report` and `chart` share):
//! grouping by it would silently put every run in one row. Under the
//! table: each group's median with a distribution-free 95% interval,
//! whether each pair of groups differs beyond its noise (a rank test), and
//! the knee of each sweep among the runs.

use crate::args::DbArgs;
use crate::outcome::Exit;
use crate::selection::{load_or_exit, Selection};
use clap::{Args, ValueEnum};
use model::RunRecord;
use report::compare;
use report::volume_cost;

/// Prices that replace the volume catalogue's for the volume cost table.
#[derive(Args)]
pub struct VolumePriceArgs {
    /// For runs saved with --volume: price per GiB-month instead of the catalogue's
    #[arg(long, value_name = "PRICE", value_parser = crate::args::parse_price)]
    price_gib_month: Option<f64>,
    /// For runs saved with --volume: price per provisioned IOPS-month instead of the catalogue's
    #[arg(long, value_name = "PRICE", value_parser = crate::args::parse_price)]
    price_iops_month: Option<f64>,
    /// For runs saved with --volume: price per provisioned MB/s-month (the provider's unit)
    #[arg(long, value_name = "PRICE", value_parser = crate::args::parse_price)]
    price_mbps_month: Option<f64>,
}

impl VolumePriceArgs {
    fn overrides(&self) -> volume_cost::PriceOverrides {
        volume_cost::PriceOverrides {
            per_gib_month: self.price_gib_month,
            per_iops_month: self.price_iops_month,
            per_throughput_month: self.price_mbps_month,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// Aligned columns for the terminal, mean ± sd
    Table,
    /// The same as a Markdown table, for blog posts and issues
    Markdown,
    /// One row per group, every statistic in its own column (95% interval too)
    Csv,
    /// The groups with mean, stddev and 95% interval per metric, for programs
    Json,
}

#[derive(Args)]
pub struct CompareArgs {
    /// Group runs by these labels (comma-separated; `host` is the machine a run ran on unless a
    /// label says otherwise); default: runs with the same labels group together
    #[arg(long, value_delimiter = ',', value_name = "LABEL,...")]
    by: Vec<String>,
    /// How to print the comparison
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    #[command(flatten)]
    volume_prices: VolumePriceArgs,
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    db: DbArgs,
}

/// A `--by` label no selected run has, named with the labels there are:
/// grouping by it would silently put every run in one group. `compare`,
/// `report` and `chart` all refuse it.
pub fn unknown_by_label(runs: &[RunRecord], by: &[String]) -> Option<String> {
    let known: std::collections::BTreeSet<&String> =
        runs.iter().flat_map(|r| r.labels.keys()).collect();
    // Every run has a host (see `compare::host_of`).
    let missing = by
        .iter()
        .find(|k| !known.contains(k) && *k != compare::HOST)?;
    let list: Vec<&str> = known.iter().map(|k| k.as_str()).collect();
    let have = match list.is_empty() {
        true => "the selected runs have no labels (save runs with --label KEY=VALUE)".into(),
        false => format!("the selected runs have: {}", list.join(", ")),
    };
    Some(format!(
        "no selected run has the label '{missing}' to group --by: {have}"
    ))
}

pub fn run(args: CompareArgs) -> anyhow::Result<Exit> {
    let store = crate::save::open(&args.db)?;
    let runs = match load_or_exit("compare", &args.selection, &store) {
        Ok(runs) => runs,
        Err(exit) => return exit,
    };
    if let Some(problem) = unknown_by_label(&runs, &args.by) {
        eprintln!("diskbench compare: {problem}");
        return Ok(Exit::Usage);
    }
    let c = compare::compare(&runs, &args.by);
    let text = match args.format {
        Format::Table => compare::render_table(&c),
        Format::Markdown => compare::render_markdown(&c),
        Format::Csv => compare::render_csv(&c),
        Format::Json => compare::render_json(&c),
    };
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    // Runs saved with --volume: burst and sustained cost, under the table.
    if matches!(args.format, Format::Table | Format::Markdown) {
        let rows = volume_cost::volume_costs(&runs, &args.by, &args.volume_prices.overrides());
        print!("{}", volume_cost::render(&rows));
    }
    if matches!(args.format, Format::Table) {
        // Whether the groups differ beyond their noise, and the knees of
        // any sweeps: sentences the reader would otherwise work out.
        print!("{}", compare::noise::noise_text(&runs, &args.by));
        print!("{}", report::curve::knees_text(&runs, &args.by));
    }
    Ok(Exit::Ok)
}
