//! `diskbench limit --p99 2ms [TARGET]`: the most IOPS the disk gives with
//! its p99 latency at or under a target. It walks the queue depth up
//! (1, 2, 4, ...) until p99 passes the target; the last depth under it is
//! the answer, unless the depth that passed gave clearly more IOPS (5% or
//! more): then a rate between the two (fio's `rate_iops`, at the deeper
//! queue) is searched by halving for the most IOPS still under the target.
//! A target below what one I/O at a time takes (p99 at QD1) cannot be met
//! by any depth or rate, and is reported as unreachable, not as a number.
//! Every point walked is saved, labelled as a sweep (see `crate::sweeper` and the `sweep` crate).

use crate::args::SaveArgs;
use crate::outcome::Exit;
use crate::sweeper::{parse_count, Sweeper, TemplateArgs};
use clap::Args;
use report::curve::SweepPoint;
use sweep::{default_depths, Setting};

/// Halvings of the rate interval: each costs a point's time, and after
/// four the rate is known to within 1/16 of the gap between two depths.
const RATE_STEPS: u32 = 4;

#[derive(Args)]
pub struct LimitArgs {
    /// The p99 latency target, e.g. 2ms, 500us
    #[arg(long, value_name = "LATENCY", value_parser = parse_target)]
    p99: std::time::Duration,
    #[command(flatten)]
    template: TemplateArgs,
    /// Queue depths to walk, in order [default: 1,2,4,...,256]
    #[arg(long, value_delimiter = ',', value_parser = parse_count, value_name = "N,...")]
    qd: Vec<u32>,
    #[command(flatten)]
    save: SaveArgs,
}

fn parse_target(text: &str) -> Result<std::time::Duration, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err("a latency target above 0 is needed, e.g. --p99 2ms".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// What the walk found.
enum Answer {
    /// The best point under the target, and how it was reached.
    Met(SweepPoint, String),
    /// Even QD1's p99 is over the target.
    Unreachable(SweepPoint),
    /// Every depth tried stayed under the target.
    NotReached(SweepPoint),
}

pub fn run(args: LimitArgs) -> anyhow::Result<Exit> {
    let target_us = args.p99.as_secs_f64() * 1e6;
    let depths = match args.qd.is_empty() {
        true => default_depths(),
        false => args.qd.clone(),
    };
    let setting = |iodepth: u32, rate_iops: Option<u64>| Setting {
        iodepth,
        rate_iops,
        ..Setting::default()
    };
    let mut plans = Vec::new();
    for &d in &depths {
        match args.template.job(&setting(d, None)) {
            Ok(g) => plans.push(g),
            Err(e) => {
                eprintln!("diskbench limit: {e}");
                return Ok(Exit::Usage);
            }
        }
    }
    let mut sweeper = Sweeper::new(model::RunKind::Limit, &args.template, &args.save)?;
    println!(
        "limit: the most IOPS with p99 <= {} (walk saved as --label sweep={})\n",
        latency_text(target_us),
        sweeper.id
    );
    print!("{}", report::curve::table_header());
    let mut walked: Vec<SweepPoint> = Vec::new();
    let mut checks = Vec::new();
    let mut over: Option<SweepPoint> = None;
    for (i, groups) in plans.iter().enumerate() {
        let measured = sweeper.measure(groups, format!("QD{}", depths[i]));
        checks.extend(measured.verdicts.iter().cloned());
        let Some(p) = measured.point else {
            // Nothing measured: the run's own error was said on stderr.
            return Ok(match sweeper.exit {
                Exit::Ok => Exit::Runtime,
                exit => exit,
            });
        };
        print!("{}", report::curve::table_row(&p));
        std::io::Write::flush(&mut std::io::stdout())?;
        walked.push(p.clone());
        if measured.failed {
            return Ok(sweeper.exit);
        }
        if p.p99_us > target_us {
            over = Some(p);
            break;
        }
    }
    let best = sweep::deepest_near_best(&walked, target_us);
    let answer = match (best, over) {
        (None, _) => Answer::Unreachable(walked[0].clone()),
        (Some(best), None) => Answer::NotReached(best),
        (Some(best), Some(over)) if over.iops < best.iops * 1.05 => Answer::Met(
            best.clone(),
            format!(
                "{} went over the target ({}) and gave under 5% more IOPS",
                over.setting(),
                latency_text(over.p99_us)
            ),
        ),
        (Some(best), Some(over)) => {
            // The deeper queue gives more IOPS at too much latency: a rate
            // between the two may give some of them under the target.
            let (mut lo, mut hi) = (best.iops, over.iops);
            let mut found = best.clone();
            for _ in 0..RATE_STEPS {
                let rate = ((lo + hi) / 2.0).round() as u64;
                let groups = match args.template.job(&setting(over.iodepth, Some(rate))) {
                    Ok(g) => g,
                    Err(e) => {
                        eprintln!("diskbench limit: {e}");
                        return Ok(Exit::Usage);
                    }
                };
                let measured =
                    sweeper.measure(&groups, format!("QD{} at {rate} IOPS", over.iodepth));
                checks.extend(measured.verdicts.iter().cloned());
                let Some(p) = measured.point else { break };
                print!("{}", report::curve::table_row(&p));
                if measured.failed {
                    break;
                }
                if p.p99_us <= target_us {
                    lo = rate as f64;
                    if p.iops > found.iops {
                        found = p;
                    }
                } else {
                    hi = rate as f64;
                }
            }
            let how = match found.rate_iops.is_some() {
                true => format!("a rate between {} and {}", best.setting(), over.setting()),
                false => format!(
                    "{} went over the target ({}); no rate at its depth gave more under it",
                    over.setting(),
                    latency_text(over.p99_us)
                ),
            };
            Answer::Met(found, how)
        }
    };
    println!();
    match answer {
        Answer::Met(p, how) => println!(
            "limit: {:.0} IOPS at {} with p99 {} <= {} ({how})",
            p.iops,
            p.setting(),
            latency_text(p.p99_us),
            latency_text(target_us)
        ),
        Answer::Unreachable(qd1) => println!(
            "limit: unreachable: p99 at {} is already {}, over the target {}; no depth or rate \
             goes below one I/O at a time: the target needs a faster device",
            qd1.setting(),
            latency_text(qd1.p99_us),
            latency_text(target_us)
        ),
        Answer::NotReached(p) => println!(
            "limit: at least {:.0} IOPS at {} with p99 {} <= {}: every depth tried stayed under \
             the target; try more depth (--qd) or jobs",
            p.iops,
            p.setting(),
            latency_text(p.p99_us),
            latency_text(target_us)
        ),
    }
    print!(
        "{}",
        crate::sweeper::checks_text(&checks, args.template.explain.explain)
    );
    Ok(sweeper.exit)
}

/// `1.234 ms` or `850 us`.
fn latency_text(us: f64) -> String {
    match us >= 1000.0 {
        true => format!("{:.3} ms", us / 1e3),
        false => format!("{us:.0} us"),
    }
}
