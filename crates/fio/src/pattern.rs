//! Values that shape the I/O pattern: fio's per-direction form
//! (`opt=READ,WRITE`), block-size ranges and splits, random distributions,
//! rates, time ranges, CPU lists and `file_service_type`.
//!
//! They are kept apart from `values` (one scalar each) because they share
//! fio's list grammar: ',' separates directions, ':' items, '/' an item's
//! two parts, '-' the ends of a range.

use crate::error::{FioError, Scope};
use crate::values;
use model::job::{
    BsShare, DelayRange, Distribution, FileService, FileServiceSpec, PerDir, RandomGenerator, Zone,
};
use model::units::format_size;
use std::time::Duration;

/// fio's longest `bssplit` and zone list, per direction.
const MAX_BSSPLIT: usize = 64;
const MAX_ZONES: usize = 256;

/// The parts of `READ,WRITE[,TRIM]`: `None` where a part is empty (fio's
/// default for that direction). A value without a comma applies to both
/// directions, as in fio; a third part (trims) is counted here and read by
/// `trim_opts` in a trim mode.
pub(crate) fn split_dirs<'a>(
    scope: &Scope,
    option: &str,
    text: &'a str,
) -> Result<PerDir<Option<&'a str>>, FioError> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(FioError::invalid(
            scope,
            option,
            text,
            "at most three comma-separated values (reads, writes, trims), e.g. 4k,64k",
        ));
    }
    let part = |i: usize| parts.get(i).copied().filter(|p| !p.is_empty());
    let read = part(0);
    let write = if parts.len() == 1 { read } else { part(1) };
    Ok(PerDir { read, write })
}

/// A per-direction value, each part read by `parse`, `default` where empty.
pub(crate) fn per_dir<T: Clone>(
    scope: &Scope,
    option: &str,
    text: &str,
    default: T,
    parse: impl Fn(&str) -> Result<T, FioError>,
) -> Result<PerDir<T>, FioError> {
    let parts = split_dirs(scope, option, text)?;
    let one = |p: Option<&str>| p.map_or(Ok(default.clone()), &parse);
    Ok(PerDir {
        read: one(parts.read)?,
        write: one(parts.write)?,
    })
}

/// `bsrange=4k-64k` (or `4k:64k`): the smallest and largest block size.
pub(crate) fn size_range(scope: &Scope, option: &str, text: &str) -> Result<(u64, u64), FioError> {
    let Some((lo, hi)) = text.split_once(['-', ':']) else {
        let one = values::block_size(scope, option, text)?;
        return Ok((one, one));
    };
    let (lo, hi) = (
        values::block_size(scope, option, lo)?,
        values::block_size(scope, option, hi)?,
    );
    if lo > hi {
        return Err(FioError::invalid(
            scope,
            option,
            text,
            format!(
                "the range goes down: give the smaller size first, e.g. {option}={}-{}",
                format_size(hi),
                format_size(lo)
            ),
        ));
    }
    Ok((lo, hi))
}

/// `bssplit=4k/60:64k/40` for one direction. Sizes without a percentage
/// share what is left evenly (fio: `4k/50:1k/:32k/` is 50, 25, 25); the
/// shares must add up to 100.
pub(crate) fn bssplit(scope: &Scope, text: &str) -> Result<Vec<BsShare>, FioError> {
    let bad = |problem: String| FioError::invalid(scope, "bssplit", text, problem);
    let mut given = Vec::new();
    let mut open = Vec::new();
    for item in text.split(':').map(str::trim).filter(|i| !i.is_empty()) {
        let (size, pct) = item.split_once('/').unwrap_or((item, ""));
        let bytes = values::block_size(scope, "bssplit", size)?;
        if pct.trim().is_empty() {
            open.push(bytes);
        } else {
            given.push(BsShare {
                bytes,
                pct: values::percent(scope, "bssplit", pct)?,
            });
        }
    }
    let count = given.len() + open.len();
    if count == 0 || count > MAX_BSSPLIT {
        return Err(bad(format!(
            "give 1 to {MAX_BSSPLIT} SIZE/PERCENT items separated by ':', e.g. 4k/60:64k/40"
        )));
    }
    let used: u32 = given.iter().map(|s| s.pct).sum();
    if used > 100 || (open.is_empty() && used != 100) {
        return Err(bad(format!(
            "the percentages add up to {used}, not 100: e.g. 4k/60:64k/40"
        )));
    }
    // What is left goes evenly to the open sizes, the rounding to the first.
    let left = 100 - used;
    for (i, bytes) in open.iter().enumerate() {
        let n = open.len() as u32;
        let pct = left / n + u32::from(i == 0) * (left % n);
        given.push(BsShare { bytes: *bytes, pct });
    }
    given.retain(|s| s.pct > 0);
    if given.is_empty() {
        return Err(bad(
            "every size has 0%: give one a share, e.g. 4k/100".into()
        ));
    }
    Ok(given)
}

/// A float from `lo` to `hi` (both included unless `open`).
fn float_in(
    scope: &Scope,
    option: &str,
    value: &str,
    text: &str,
    range: (f64, f64),
    open: bool,
    what: &str,
) -> Result<f64, FioError> {
    let bad = || {
        let (lo, hi) = range;
        let between = match (open, hi < f64::MAX) {
            (true, true) => format!("greater than {lo} and less than {hi}"),
            (true, false) => format!("a number greater than {lo}"),
            (false, _) => format!("from {lo} to {hi}"),
        };
        FioError::invalid(scope, option, value, format!("{what} must be {between}"))
    };
    let x: f64 = text.trim().parse().map_err(|_| bad())?;
    let inside = match open {
        true => x > range.0 && x < range.1,
        false => x >= range.0 && x <= range.1,
    };
    match inside && x.is_finite() {
        true => Ok(x),
        false => Err(bad()),
    }
}

const DISTRIBUTIONS: &str = "random, zipf:THETA, pareto:H, normal:DEV, zoned:ACCESS/SIZE:..., \
     zoned_abs:ACCESS/BYTES:... or sequence:BLOCK,BLOCK,...";

/// fio's limit on the elements of a `sequence` distribution.
const MAX_SEQUENCE: usize = 64;

/// `sequence:2,0,1`: block indices (its commas are not fio's per-direction
/// commas: the one sequence serves both directions, as in fio 3.42).
fn sequence(scope: &Scope, whole: &str, list: &str) -> Result<Distribution, FioError> {
    let bad = |problem: String| FioError::invalid(scope, "random_distribution", whole, problem);
    let blocks = list
        .split(',')
        .map(|b| {
            b.trim().parse::<u64>().map_err(|_| {
                bad(format!(
                    "'{}' is not a block index: use e.g. sequence:2,0,1",
                    b.trim()
                ))
            })
        })
        .collect::<Result<Vec<u64>, FioError>>()?;
    if blocks.len() > MAX_SEQUENCE {
        return Err(bad(format!(
            "{} blocks: a sequence holds at most {MAX_SEQUENCE} (as in fio)",
            blocks.len()
        )));
    }
    Ok(Distribution::Sequence(blocks))
}

/// `random_distribution`, per direction: each part names its distribution;
/// after `zoned`/`zoned_abs`, a later part may give the zones alone.
pub(crate) fn random_distribution(
    scope: &Scope,
    text: &str,
) -> Result<PerDir<Distribution>, FioError> {
    if let Some(list) = text.trim().strip_prefix("sequence:") {
        let seq = sequence(scope, text, list)?;
        return Ok(PerDir {
            read: seq.clone(),
            write: seq,
        });
    }
    let parts = split_dirs(scope, "random_distribution", text)?;
    let first = parts.read.unwrap_or("random");
    let read = distribution(scope, text, first, None)?;
    let kind = first.split(':').next().unwrap_or("");
    // `zipf:1.2` applies to both directions; `zipf:1.2,` to reads only.
    let write = match parts.write {
        _ if !text.contains(',') => read.clone(),
        None => Distribution::Random,
        Some(p) => distribution(scope, text, p, Some(kind))?,
    };
    Ok(PerDir { read, write })
}

fn distribution(
    scope: &Scope,
    whole: &str,
    part: &str,
    zoned_kind: Option<&str>,
) -> Result<Distribution, FioError> {
    const OPT: &str = "random_distribution";
    let (name, rest) = part.split_once(':').unwrap_or((part, ""));
    let name = name.trim();
    let args: Vec<&str> = rest.split(':').filter(|a| !a.trim().is_empty()).collect();
    let center = |i: usize| -> Result<Option<f64>, FioError> {
        args.get(i)
            .map(|c| float_in(scope, OPT, whole, c, (0.0, 1.0), false, "the center"))
            .transpose()
    };
    let need = |what: &str, example: &str| -> Result<(), FioError> {
        match args.len() {
            1 | 2 => Ok(()),
            _ => Err(FioError::invalid(
                scope,
                OPT,
                whole,
                format!("{name} takes {what} and an optional center from 0 to 1, e.g. {example}"),
            )),
        }
    };
    Ok(match name {
        "random" if args.is_empty() => Distribution::Random,
        "zipf" => {
            need("a theta", "zipf:1.2")?;
            let theta = float_in(scope, OPT, whole, args[0], (0.0, f64::MAX), true, "theta")?;
            if theta == 1.0 {
                return Err(FioError::invalid(
                    scope,
                    OPT,
                    whole,
                    "zipf's theta must not be 1.0 (fio refuses it too): use e.g. 0.99 or 1.01",
                ));
            }
            Distribution::Zipf {
                theta,
                center: center(1)?,
            }
        }
        "pareto" => {
            need("a power h", "pareto:0.2")?;
            Distribution::Pareto {
                h: float_in(scope, OPT, whole, args[0], (0.0, 1.0), true, "h")?,
                center: center(1)?,
            }
        }
        "normal" => {
            need("a deviation in percent", "normal:10")?;
            Distribution::Normal {
                dev_pct: float_in(
                    scope,
                    OPT,
                    whole,
                    args[0],
                    (0.0, 100.0),
                    false,
                    "the deviation",
                )?,
                center: center(1)?,
            }
        }
        "zoned" => Distribution::Zoned(zones(scope, whole, rest, false)?),
        "zoned_abs" => Distribution::ZonedAbs(zones(scope, whole, rest, true)?),
        _ if zoned_kind == Some("zoned") && part.contains('/') => {
            Distribution::Zoned(zones(scope, whole, part, false)?)
        }
        _ if zoned_kind == Some("zoned_abs") && part.contains('/') => {
            Distribution::ZonedAbs(zones(scope, whole, part, true)?)
        }
        _ => {
            return Err(FioError::invalid(
                scope,
                OPT,
                whole,
                format!("use {DISTRIBUTIONS}"),
            ))
        }
    })
}

/// `60/10:30/20:...`: access percent / size (percent, or bytes when `absolute`).
fn zones(scope: &Scope, whole: &str, text: &str, absolute: bool) -> Result<Vec<Zone>, FioError> {
    const OPT: &str = "random_distribution";
    let bad = |problem: String| FioError::invalid(scope, OPT, whole, problem);
    let mut list = Vec::new();
    for item in text.split(':').map(str::trim).filter(|i| !i.is_empty()) {
        let Some((access, size)) = item.split_once('/') else {
            return Err(bad(format!(
                "'{item}' is not ACCESS/SIZE: use e.g. zoned:60/10:30/20:10/70"
            )));
        };
        let access_pct = float_in(
            scope,
            OPT,
            whole,
            access,
            (0.0, 100.0),
            false,
            "an access share",
        )?;
        // fio shares what the other zones leave among those with no size
        // (`zoned:50/5:30/15:20/` gives the last one 80%).
        let size = match absolute {
            false if size.trim().is_empty() => f64::NAN,
            true => values::size(scope, OPT, size)? as f64,
            false => float_in(scope, OPT, whole, size, (0.0, 100.0), false, "a zone size")?,
        };
        list.push(Zone { access_pct, size });
    }
    let missing = list.iter().filter(|z| z.size.is_nan()).count();
    if missing > 0 {
        let given: f64 = list.iter().map(|z| z.size).filter(|s| !s.is_nan()).sum();
        let share = (100.0 - given).max(0.0) / missing as f64;
        for zone in list.iter_mut().filter(|z| z.size.is_nan()) {
            zone.size = share;
        }
    }
    if list.is_empty() || list.len() > MAX_ZONES {
        return Err(bad(format!(
            "give 1 to {MAX_ZONES} zones, e.g. zoned:60/10:40/90"
        )));
    }
    let access: f64 = list.iter().map(|z| z.access_pct).sum();
    if (access - 100.0).abs() > 1e-6 {
        return Err(bad(format!(
            "the access shares add up to {access}, not 100"
        )));
    }
    let size: f64 = list.iter().map(|z| z.size).sum();
    if !absolute && size > 100.0 + 1e-6 {
        return Err(bad(format!(
            "the zone sizes add up to {size}%, more than 100"
        )));
    }
    if size <= 0.0 {
        return Err(bad("the zones have no size".into()));
    }
    Ok(list)
}

pub(crate) fn random_generator(scope: &Scope, text: &str) -> Result<RandomGenerator, FioError> {
    RandomGenerator::parse(text.trim()).ok_or_else(|| {
        FioError::invalid(
            scope,
            "random_generator",
            text,
            "use tausworthe, lfsr or tausworthe64",
        )
    })
}

/// A time that fio reads in microseconds when it has no unit (`thinktime`).
pub(crate) fn duration_us(scope: &Scope, option: &str, text: &str) -> Result<Duration, FioError> {
    let t = text.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return values::duration(scope, option, &format!("{t}us"));
    }
    values::duration(scope, option, t)
}

/// `startdelay=5`, `startdelay=1-10`, `startdelay=1s:10s`: seconds when bare.
pub(crate) fn delay_range(scope: &Scope, option: &str, text: &str) -> Result<DelayRange, FioError> {
    let (lo, hi) = text.split_once(['-', ':']).unwrap_or((text, text));
    let min = values::duration(scope, option, lo)?;
    let max = values::duration(scope, option, hi)?;
    if min > max {
        return Err(FioError::invalid(
            scope,
            option,
            text,
            "the range goes down: give the shorter time first, e.g. 1-10",
        ));
    }
    Ok(DelayRange { min, max })
}

/// `cpus_allowed=0-3,6`: CPU numbers and ranges, separated by ','.
pub(crate) fn cpu_list(scope: &Scope, text: &str) -> Result<Vec<u32>, FioError> {
    number_list(scope, "cpus_allowed", "CPU numbers", text)
}

/// Numbers and ranges separated by ',' (`0-3,6`, fio's CPU and NUMA node
/// lists), sorted, each once; `what` names them in the error.
pub(crate) fn number_list(
    scope: &Scope,
    option: &str,
    what: &str,
    text: &str,
) -> Result<Vec<u32>, FioError> {
    let bad = || {
        FioError::invalid(
            scope,
            option,
            text,
            format!("use {what} and ranges separated by ',', e.g. 0-3,6"),
        )
    };
    let mut cpus = Vec::new();
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (lo, hi) = item.split_once('-').unwrap_or((item, item));
        let lo: u32 = lo.trim().parse().map_err(|_| bad())?;
        let hi: u32 = hi.trim().parse().map_err(|_| bad())?;
        if lo > hi || hi >= 1 << 16 {
            return Err(bad());
        }
        cpus.extend(lo..=hi);
    }
    if cpus.is_empty() {
        return Err(bad());
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// `file_service_type=roundrobin|sequential|random[:N]`, or
/// `zipf[:THETA]`, `pareto[:H]`, `normal[:DEV[%]]` (`gauss` the same), whose
/// postfix is their parameter; without one, zipf takes 1.1 and pareto 0.2
/// (fio's defaults, as measured), normal 10%.
pub(crate) fn file_service(scope: &Scope, text: &str) -> Result<FileServiceSpec, FioError> {
    const OPT: &str = "file_service_type";
    let (kind, arg) = match text.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim())),
        None => (text.trim(), None),
    };
    // The parameter of a skewed kind, `default` without one, when `ok`.
    let skewed = |default: f64, ok: fn(f64) -> bool, problem: &str| {
        let Some(a) = arg else { return Ok(default) };
        let a = match kind {
            "normal" | "gauss" => a.strip_suffix('%').unwrap_or(a),
            _ => a,
        };
        match a.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && ok(x) => Ok(x),
            _ => Err(FioError::invalid(scope, OPT, text, problem)),
        }
    };
    let kind = match kind {
        "roundrobin" => FileService::RoundRobin,
        "sequential" => FileService::Sequential,
        "random" => FileService::Random,
        "zipf" if arg.is_some_and(|a| a.trim().parse() == Ok(1.0)) => {
            return Err(FioError::invalid(
                scope,
                OPT,
                text,
                "zipf's theta must not be 1.0 (fio refuses it too): use e.g. 0.99 or 1.01",
            ))
        }
        "zipf" => FileService::Zipf {
            theta: skewed(
                1.1,
                |t| t > 0.0,
                "zipf's theta must be greater than 0, e.g. zipf:1.2",
            )?,
        },
        "pareto" => FileService::Pareto {
            h: skewed(
                0.2,
                |h| h > 0.0 && h < 1.0,
                "pareto's h must be greater than 0 and less than 1, e.g. pareto:0.2",
            )?,
        },
        "normal" | "gauss" => FileService::Normal {
            dev_pct: skewed(
                10.0,
                |d| (0.0..100.0).contains(&d),
                "the deviation must be from 0 to less than 100 (percent of the files), \
                 e.g. normal:20%",
            )?,
        },
        _ => {
            return Err(FioError::invalid(
                scope,
                OPT,
                text,
                "use random, roundrobin or sequential, optionally with :N (I/Os per file), \
                 or zipf:THETA, pareto:H or normal:DEV%",
            ))
        }
    };
    let switch_every = match (kind.distribution(), arg) {
        (Some(_), _) => 1,
        (None, n) => values::at_least_one(scope, OPT, n.unwrap_or("1"), "give :N of 1 or more")?,
    };
    Ok(FileServiceSpec { kind, switch_every })
}

/// A size per direction where 0 means "none" (`rate=1m,500k`).
pub(crate) fn rate_bytes(scope: &Scope, option: &str, text: &str) -> Result<PerDir<u64>, FioError> {
    per_dir(scope, option, text, 0, |p| values::size(scope, option, p))
}

/// A count per direction where 0 means "none" (`rate_iops=500,100`).
pub(crate) fn rate_count(scope: &Scope, option: &str, text: &str) -> Result<PerDir<u64>, FioError> {
    per_dir(scope, option, text, 0, |p| values::int(scope, option, p))
}

/// A percent per direction (`percentage_random=90,50`).
pub(crate) fn percent_dirs(
    scope: &Scope,
    option: &str,
    text: &str,
    default: u32,
) -> Result<PerDir<u32>, FioError> {
    per_dir(scope, option, text, default, |p| {
        values::percent(scope, option, p)
    })
}

/// A size per direction (`blockalign=4k`).
pub(crate) fn size_dirs(scope: &Scope, option: &str, text: &str) -> Result<PerDir<u64>, FioError> {
    per_dir(scope, option, text, 0, |p| {
        values::block_size(scope, option, p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: &Scope = &Scope::Global;

    #[test]
    fn directions_follow_fios_comma_rules() {
        let d = |t| split_dirs(G, "bs", t).unwrap();
        assert_eq!(
            d("8k"),
            PerDir {
                read: Some("8k"),
                write: Some("8k")
            }
        );
        assert_eq!(
            d("8k,32k"),
            PerDir {
                read: Some("8k"),
                write: Some("32k")
            }
        );
        assert_eq!(
            d("8k,"),
            PerDir {
                read: Some("8k"),
                write: None
            }
        );
        assert_eq!(
            d(",8k"),
            PerDir {
                read: None,
                write: Some("8k")
            }
        );
        assert_eq!(d("8k,32k,64k").write, Some("32k"));
        assert!(split_dirs(G, "bs", "1,2,3,4").is_err());
    }

    #[test]
    fn bssplit_fills_open_shares_and_checks_the_sum() {
        let s = bssplit(G, "4k/50:1k/:32k/").unwrap();
        let pairs: Vec<(u64, u32)> = s.iter().map(|s| (s.bytes, s.pct)).collect();
        assert_eq!(pairs, vec![(4096, 50), (1024, 25), (32768, 25)]);
        let s = bssplit(G, "4k/10:64k/50:32k/40").unwrap();
        assert_eq!(s.iter().map(|s| s.pct).sum::<u32>(), 100);
        let msg = bssplit(G, "4k/60:64k/60").unwrap_err().to_string();
        assert!(msg.contains("add up to 120"), "{msg}");
        assert!(bssplit(G, "4k/50:64k/40").is_err());
        assert!(bssplit(G, "4x/100").is_err());
        assert_eq!(bssplit(G, "4k/:8k/:16k/").unwrap()[0].pct, 34);
    }

    #[test]
    fn ranges() {
        assert_eq!(size_range(G, "bsrange", "4k-64k"), Ok((4096, 65536)));
        assert_eq!(size_range(G, "bsrange", "1k:4k"), Ok((1024, 4096)));
        assert!(size_range(G, "bsrange", "64k-4k").is_err());
        let d = delay_range(G, "startdelay", "1-3").unwrap();
        assert_eq!(
            (d.min, d.max),
            (Duration::from_secs(1), Duration::from_secs(3))
        );
        assert_eq!(
            duration_us(G, "thinktime", "250"),
            Ok(Duration::from_micros(250))
        );
        assert_eq!(
            duration_us(G, "thinktime", "2ms"),
            Ok(Duration::from_millis(2))
        );
    }

    #[test]
    fn distributions() {
        let d = random_distribution(G, "zipf:1.2").unwrap();
        assert_eq!(
            d.read,
            Distribution::Zipf {
                theta: 1.2,
                center: None
            }
        );
        assert_eq!(d.write, d.read);
        let d = random_distribution(G, "pareto:0.2:0.25,normal:5").unwrap();
        assert_eq!(
            d.read,
            Distribution::Pareto {
                h: 0.2,
                center: Some(0.25)
            }
        );
        assert_eq!(
            d.write,
            Distribution::Normal {
                dev_pct: 5.0,
                center: None
            }
        );
        let d = random_distribution(G, "zoned:60/10:40/90,80/20:20/80").unwrap();
        assert!(matches!(&d.write, Distribution::Zoned(z) if z[0].access_pct == 80.0));
        let d = random_distribution(G, "zoned_abs:60/20g:40/100g").unwrap();
        assert!(matches!(&d.read, Distribution::ZonedAbs(z) if z[0].size == (20u64 << 30) as f64));
        let d = random_distribution(G, "zipf:0.8,").unwrap();
        assert_eq!(d.write, Distribution::Random);
        for bad in [
            "zipf",
            "zipf:1",
            "zipf:1.2:2",
            "pareto:1.5",
            "zoned:60/10:30/20",
            "gauss:3",
        ] {
            assert!(random_distribution(G, bad).is_err(), "{bad}");
        }
        let msg = random_distribution(G, "zipf:-2").unwrap_err().to_string();
        assert!(
            msg.contains("theta must be a number greater than 0"),
            "{msg}"
        );
        assert!(msg.len() < 200, "an unbounded range is not printed: {msg}");
    }

    #[test]
    fn cpus_and_file_service() {
        assert_eq!(cpu_list(G, "0-2,5,1"), Ok(vec![0, 1, 2, 5]));
        assert!(cpu_list(G, "3-1").is_err());
        let f = file_service(G, "random:4").unwrap();
        assert_eq!((f.kind, f.switch_every), (FileService::Random, 4));
        let f = file_service(G, "zipf:1.2").unwrap();
        assert_eq!(f.kind, FileService::Zipf { theta: 1.2 });
        assert_eq!(f.switch_every, 1);
        let kind = |t| file_service(G, t).unwrap().kind;
        assert_eq!(kind("zipf"), FileService::Zipf { theta: 1.1 });
        assert_eq!(kind("pareto:0.3"), FileService::Pareto { h: 0.3 });
        assert_eq!(kind("pareto"), FileService::Pareto { h: 0.2 });
        assert_eq!(kind("normal:20%"), FileService::Normal { dev_pct: 20.0 });
        assert_eq!(kind("gauss:5"), FileService::Normal { dev_pct: 5.0 });
        assert_eq!(kind("gauss"), FileService::Normal { dev_pct: 10.0 });
        for (bad, says) in [
            ("zipf:0", "theta must be greater than 0, e.g. zipf:1.2"),
            ("zipf:1", "must not be 1.0"),
            ("zipf:x", "theta"),
            ("zipf:1.2%", "theta"),
            ("pareto:1", "h must be greater than 0 and less than 1"),
            ("pareto:0", "h must be"),
            ("normal:200%", "deviation must be from 0 to less than 100"),
            ("normal:100", "less than 100"),
            ("gauss:-1", "deviation"),
            ("normal:inf", "deviation"),
            ("uniform", "zipf:THETA"),
        ] {
            let msg = file_service(G, bad).unwrap_err().to_string();
            assert!(msg.contains(says), "{bad}: {msg}");
            assert!(!msg.contains("not supported yet"), "{bad}: {msg}");
        }
    }
}
