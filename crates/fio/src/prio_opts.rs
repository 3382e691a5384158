//! I/O priorities (see `model::prio`): the job's `prio`, `prioclass` and
//! `priohint`, and the libaio and io_uring engines' per-I/O
//! `cmdprio_percentage`, `cmdprio_bssplit`, `cmdprio_class`, `cmdprio`
//! and `cmdprio_hint` (each `READ,WRITE`). `log_prio` is a log option
//! (`output_opts`).
//!
//! fio's bounds are kept: classes 1 to 3 (`prioclass=0` is no class),
//! levels 0 to 7, percentages 0 to 100, and one more: hints 0 to 1023,
//! the kernel's ten bits (fio 3.42 lets a larger hint spill into the
//! class bits). `prio` without `prioclass` is in the best-effort class and
//! `cmdprio_class` defaults to the real-time class, as in fio.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::pattern;
use crate::values::{self, Given};
use model::prio::{CmdPrioShare, IoPrio, CLASS_BE, CLASS_RT};
use model::{EngineKind, JobSpec};

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let (scope, name, text) = (o.scope, o.name, o.text);
    let cmd = &mut spec.prio.cmd;
    match o.key {
        Key::Prio => job(spec).level = bounded(o, 0, 7)? as u8,
        Key::PrioClass => job(spec).class = bounded(o, 0, 3)? as u8,
        Key::PrioHint => job(spec).hint = bounded(o, 0, 1023)? as u16,
        Key::CmdPrioPercentage => {
            let pct = pattern::per_dir(scope, name, text, 0, |p| in_range(scope, name, p, 0, 100))?;
            (cmd.read.percentage, cmd.write.percentage) = (pct.read as u32, pct.write as u32);
        }
        Key::CmdPrioClass => {
            let c = pattern::per_dir(scope, name, text, 0, |p| in_range(scope, name, p, 1, 3))?;
            (cmd.read.prio.class, cmd.write.prio.class) = (c.read as u8, c.write as u8);
        }
        Key::CmdPrio => {
            let l = pattern::per_dir(scope, name, text, 0, |p| in_range(scope, name, p, 0, 7))?;
            (cmd.read.prio.level, cmd.write.prio.level) = (l.read as u8, l.write as u8);
        }
        Key::CmdPrioHint => {
            let h = pattern::per_dir(scope, name, text, 0, |p| in_range(scope, name, p, 0, 1023))?;
            (cmd.read.prio.hint, cmd.write.prio.hint) = (h.read as u16, h.write as u16);
        }
        Key::CmdPrioBsSplit => {
            let split = pattern::per_dir(scope, name, text, Vec::new(), |p| bssplit(scope, p))?;
            (cmd.read.bssplit, cmd.write.bssplit) = (split.read, split.write);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The job's own priority, made on its first option.
fn job(spec: &mut JobSpec) -> &mut IoPrio {
    spec.prio.job.get_or_insert_with(IoPrio::default)
}

fn bounded(o: &Given, lo: u64, hi: u64) -> Result<u64, FioError> {
    in_range(o.scope, o.name, o.text, lo, hi)
}

fn in_range(scope: &Scope, name: &str, text: &str, lo: u64, hi: u64) -> Result<u64, FioError> {
    let n = values::int(scope, name, text)?;
    if !(lo..=hi).contains(&n) {
        return Err(FioError::invalid(
            scope,
            name,
            text,
            format!("use a value from {lo} to {hi}, as fio does"),
        ));
    }
    Ok(n)
}

/// One direction of `cmdprio_bssplit`: `SIZE/PERCENT[/CLASS/LEVEL[/HINT]]`
/// entries separated by `:`; the entries of one size add up to at most 100.
fn bssplit(scope: &Scope, text: &str) -> Result<Vec<CmdPrioShare>, FioError> {
    const NAME: &str = "cmdprio_bssplit";
    let bad = |problem: String| FioError::invalid(scope, NAME, text, problem);
    let mut shares: Vec<CmdPrioShare> = Vec::new();
    for item in text.split(':').map(str::trim).filter(|i| !i.is_empty()) {
        let fields: Vec<&str> = item.split('/').map(str::trim).collect();
        let num = |i: usize, lo, hi| in_range(scope, NAME, fields[i], lo, hi);
        let prio = match fields.len() {
            2 => None,
            4 | 5 => Some(IoPrio {
                class: num(2, 1, 3)? as u8,
                level: num(3, 0, 7)? as u8,
                hint: match fields.len() {
                    5 => num(4, 0, 1023)? as u16,
                    _ => 0,
                },
            }),
            _ => {
                return Err(bad(format!(
                    "'{item}' is not SIZE/PERCENT, SIZE/PERCENT/CLASS/LEVEL or \
                     SIZE/PERCENT/CLASS/LEVEL/HINT: e.g. 64k/25 or 64k/25/1/0"
                )))
            }
        };
        shares.push(CmdPrioShare {
            bytes: values::block_size(scope, NAME, fields[0])?,
            pct: num(1, 0, 100)? as u32,
            prio,
        });
    }
    for s in &shares {
        let total: u32 = shares
            .iter()
            .filter(|o| o.bytes == s.bytes)
            .map(|o| o.pct)
            .sum();
        if total > 100 {
            return Err(bad(format!(
                "the entries of {} bytes add up to {total}%, more than 100 (fio refuses it too)",
                s.bytes
            )));
        }
    }
    Ok(shares)
}

/// Once the job is complete: fio's defaults of the classes, and the
/// per-I/O options only where fio has them.
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    if let Some(job) = &mut spec.prio.job {
        if job.class == 0 {
            job.class = CLASS_BE;
        }
    }
    let first = spec.options.iter().find(|(k, _)| k.starts_with("cmdprio"));
    let Some((first, value)) = first.cloned() else {
        return Ok(());
    };
    let scope = Scope::Job(spec.name.clone());
    if !matches!(spec.engine, EngineKind::Libaio | EngineKind::IoUring) {
        return Err(FioError::invalid(
            &scope,
            &first,
            &value,
            format!(
                "{first} is an option of the libaio and io_uring engines, which carry a \
                 priority with each I/O, and this job's ioengine is {} (fio does not know it \
                 there either): use ioengine=libaio or io_uring, or prio/prioclass for the \
                 whole job",
                spec.engine.fio_name()
            ),
        ));
    }
    let cmd = &mut spec.prio.cmd;
    for dir in [&mut cmd.read, &mut cmd.write] {
        if dir.prio.class == 0 {
            dir.prio.class = CLASS_RT;
        }
        if dir.percentage > 0 && !dir.bssplit.is_empty() {
            return Err(FioError::invalid(
                &scope,
                "cmdprio_bssplit",
                &value,
                "cmdprio_percentage and cmdprio_bssplit both say which I/Os get the \
                 priority, and fio refuses the two together: keep one",
            ));
        }
    }
    Ok(())
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let p = &job.prio;
    if let Some(j) = p.job {
        opts.push(("prioclass", Some(j.class.to_string())));
        opts.push(("prio", Some(j.level.to_string())));
        if j.hint > 0 {
            opts.push(("priohint", Some(j.hint.to_string())));
        }
    }
    let (r, w) = (&p.cmd.read, &p.cmd.write);
    if p.per_io() {
        let shown = |name, f: &dyn Fn(&model::prio::CmdPrioDir) -> u32, default| {
            let (a, b) = (f(r), f(w));
            ((a, b) != (default, default)).then(|| (name, Some(format!("{a},{b}"))))
        };
        let rows = [
            shown("cmdprio_percentage", &|d| d.percentage, 0),
            shown(
                "cmdprio_class",
                &|d| u32::from(d.prio.class),
                u32::from(CLASS_RT),
            ),
            shown("cmdprio", &|d| u32::from(d.prio.level), 0),
            shown("cmdprio_hint", &|d| u32::from(d.prio.hint), 0),
        ];
        opts.extend(rows.into_iter().flatten());
        let split = |d: &model::prio::CmdPrioDir| {
            let items: Vec<String> = d
                .bssplit
                .iter()
                .map(|s| match s.prio {
                    Some(q) => format!("{}/{}/{}/{}/{}", s.bytes, s.pct, q.class, q.level, q.hint),
                    None => format!("{}/{}", s.bytes, s.pct),
                })
                .collect();
            items.join(":")
        };
        if !r.bssplit.is_empty() || !w.bssplit.is_empty() {
            opts.push((
                "cmdprio_bssplit",
                Some(format!("{},{}", split(r), split(w))),
            ));
        }
    }
    if job.logs.prio {
        opts.push(("log_prio", Some("1".to_string())));
    }
}
