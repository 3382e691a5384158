//! From a declaration to the figures the provider promises for it: the
//! catalogue's rates applied to the size (or the tier the size falls in),
//! the provisioned figures checked against the type's limits and ratios,
//! the burst bucket, and the monthly list price by part.

use crate::catalogue::{BurstKind, Catalogue, ProviderFile, Tier, VolumeType};
use crate::{VolumeError, VolumeSpec};
use model::volume::{BurstModel, BurstUnit, VolumeModel, VolumePrice};

/// Bytes per second in one of the provider's throughput units.
pub fn unit_bytes(unit: &str) -> f64 {
    match unit {
        "MB/s" => 1e6,
        _ => 1_048_576.0,
    }
}

/// The figures of `spec` by `catalogue`, or why the declaration is wrong.
pub fn resolve(spec: &VolumeSpec, catalogue: &Catalogue) -> Result<VolumeModel, VolumeError> {
    let provider =
        catalogue
            .provider(&spec.provider)
            .ok_or_else(|| VolumeError::UnknownProvider {
                given: spec.provider.clone(),
                known: catalogue.provider_names().join(", "),
            })?;
    let (vt, named_tier) = find_type(provider, &spec.volume_type)?;
    let unit = unit_bytes(&provider.throughput_unit);
    let mut m = VolumeModel {
        spec: spec.text.clone(),
        provider: provider.provider.clone(),
        volume_type: vt.name.clone(),
        throughput_unit: provider.throughput_unit.clone(),
        source: vt.source.clone(),
        as_of: vt.as_of.clone(),
        io_accounting_bytes: vt.io_accounting_kib.map(|k| k << 10),
        io_counted_as_bytes: vt.io_counted_as_kib.map(|k| k << 10),
        io_accounting_source: vt.io_accounting_source.clone(),
        ..VolumeModel::default()
    };
    let (iops, throughput, price) = if vt.tiers.is_empty() {
        let size = size_of(spec, vt)?;
        m.size_gib = size;
        let (iops, throughput) = sized_figures(spec, vt, size, &provider.throughput_unit)?;
        m.burst = sized_burst(vt, size, iops, throughput, unit, spec.time_scale);
        let price = price_of(vt, size, iops, throughput, None);
        (iops, throughput, price)
    } else {
        refuse_provisioned(spec, vt)?;
        let tier = tier_of(spec, vt, named_tier)?;
        m.size_gib = spec.size_gib.unwrap_or(tier.size_gib);
        check_size(vt, m.size_gib)?;
        m.tier = Some(tier.name.clone());
        m.burst = tier_burst(vt, tier, spec.time_scale);
        let price = price_of(vt, m.size_gib, tier.iops, tier.throughput, Some(tier));
        (tier.iops, tier.throughput, price)
    };
    m.baseline_iops = iops;
    m.baseline_bytes_per_sec = throughput * unit;
    m.price = Some(VolumePrice {
        currency: provider.currency.clone(),
        region: provider.price_region.clone(),
        as_of: vt.as_of.clone(),
        source: "catalogue".into(),
        ..price
    });
    Ok(m)
}

/// The type (or the Azure tier) `name` names in `p`, or what `p` has.
pub(crate) fn find_type<'a>(
    p: &'a ProviderFile,
    name: &str,
) -> Result<(&'a VolumeType, Option<&'a Tier>), VolumeError> {
    let want = name.to_ascii_lowercase();
    if let Some(t) = p.types.iter().find(|t| {
        t.name.eq_ignore_ascii_case(&want)
            || t.aliases.iter().any(|a| a.eq_ignore_ascii_case(&want))
    }) {
        return Ok((t, None));
    }
    for t in &p.types {
        if let Some(tier) = t.tiers.iter().find(|x| x.name.eq_ignore_ascii_case(&want)) {
            return Ok((t, Some(tier)));
        }
    }
    let mut known: Vec<String> = p.types.iter().map(|t| t.name.clone()).collect();
    for t in p.types.iter().filter(|t| !t.tiers.is_empty()) {
        let first = &t.tiers[0].name;
        let last = &t.tiers[t.tiers.len() - 1].name;
        known.push(format!("{first}..{last}"));
    }
    Err(VolumeError::UnknownType {
        provider: p.provider.clone(),
        given: name.to_string(),
        known: known.join(", "),
    })
}

fn check_size(vt: &VolumeType, size: f64) -> Result<(), VolumeError> {
    if size < vt.size_gib.min || size > vt.size_gib.max {
        return Err(VolumeError::SizeOutOfRange {
            volume_type: vt.name.clone(),
            size,
            min: vt.size_gib.min,
            max: vt.size_gib.max,
        });
    }
    Ok(())
}

fn size_of(spec: &VolumeSpec, vt: &VolumeType) -> Result<f64, VolumeError> {
    let size = spec.size_gib.ok_or_else(|| VolumeError::NoSize {
        volume_type: vt.name.clone(),
        example: format!("{}:{}:100GiB", "PROVIDER", vt.name),
    })?;
    check_size(vt, size)?;
    Ok(size)
}

fn refuse_provisioned(spec: &VolumeSpec, vt: &VolumeType) -> Result<(), VolumeError> {
    let refuse = |what: &str, option: &str| VolumeError::NotProvisioned {
        volume_type: vt.name.clone(),
        what: what.into(),
        option: option.into(),
    };
    if spec.iops.is_some() {
        return Err(refuse("its IOPS", "iops="));
    }
    if spec.throughput.is_some() {
        return Err(refuse("its throughput", "mbps="));
    }
    Ok(())
}

/// Baseline IOPS and throughput (provider's unit) of a type sized by rates
/// or provisioned figures.
fn sized_figures(
    spec: &VolumeSpec,
    vt: &VolumeType,
    size: f64,
    unit: &str,
) -> Result<(f64, f64), VolumeError> {
    let Some(p) = vt.provisioned else {
        refuse_provisioned(spec, vt)?;
        let iops = vt.iops.map_or(0.0, |r| r.at(size));
        let stepped = vt.throughput_steps.iter().find(|s| size <= s.up_to_gib);
        let throughput = match stepped {
            Some(s) => s.value,
            None => vt.throughput.map_or(0.0, |r| r.at(size)),
        };
        return Ok((iops, throughput));
    };
    let name = &vt.name;
    let iops = match (spec.iops, p.iops_default) {
        (Some(i), _) => i,
        (None, Some(d)) => d,
        (None, None) => {
            return Err(VolumeError::MissingFigure {
                volume_type: name.clone(),
                what: "its provisioned IOPS".into(),
                example: format!("{}:{}:{}GiB:iops=3000", spec.provider, name, size),
            })
        }
    };
    let (lo, hi) = (p.iops_min.unwrap_or(0.0), p.iops_max.unwrap_or(f64::MAX));
    if spec.iops.is_some() && (iops < lo || iops > hi) {
        return Err(VolumeError::OutOfRange {
            volume_type: name.clone(),
            what: "iops".into(),
            given: iops,
            min: lo,
            max: hi,
        });
    }
    if let (Some(ratio), Some(_)) = (p.iops_per_gib_max, spec.iops) {
        let most = (ratio * size).max(p.iops_included.unwrap_or(0.0)).min(hi);
        if iops > most {
            return Err(VolumeError::AboveRatio {
                volume_type: name.clone(),
                given: iops,
                size,
                ratio,
                most,
            });
        }
    }
    let throughput = if let Some(per) = p.throughput_per_iops {
        if spec.throughput.is_some() {
            return Err(VolumeError::NotProvisioned {
                volume_type: name.clone(),
                what: "its throughput (it follows from the IOPS)".into(),
                option: "mbps=".into(),
            });
        }
        let t = iops * per;
        p.throughput_max.map_or(t, |m| t.min(m))
    } else {
        let by_iops = p.throughput_per_iops_max.map(|r| r * iops);
        let t = match (spec.throughput, p.throughput_default) {
            (Some(t), _) => t,
            (None, Some(d)) if d > 0.0 => d,
            _ => by_iops
                .or(vt.throughput.map(|r| r.at(size)))
                .unwrap_or(0.0)
                .min(p.throughput_max.unwrap_or(f64::MAX)),
        };
        if let Some(given) = spec.throughput {
            let (lo, hi) = (
                p.throughput_min.unwrap_or(0.0),
                p.throughput_max.unwrap_or(f64::MAX),
            );
            if given < lo || given > hi {
                return Err(VolumeError::OutOfRange {
                    volume_type: name.clone(),
                    what: format!("throughput ({unit})"),
                    given,
                    min: lo,
                    max: hi,
                });
            }
            if let (Some(ratio), Some(most)) = (p.throughput_per_iops_max, by_iops) {
                let most = most.max(p.throughput_included.unwrap_or(0.0));
                if given > most {
                    return Err(VolumeError::ThroughputAboveRatio {
                        volume_type: name.clone(),
                        given,
                        unit: unit.into(),
                        ratio,
                        iops,
                        most,
                    });
                }
            }
        }
        t
    };
    Ok((iops, throughput))
}

fn sized_burst(
    vt: &VolumeType,
    size: f64,
    iops: f64,
    throughput: f64,
    unit: f64,
    time_scale: f64,
) -> Option<BurstModel> {
    let b = vt.burst?;
    let (ceiling, bucket, baseline) = match b.unit {
        BurstKind::Iops => (b.ceiling?, b.bucket?, iops),
        BurstKind::Throughput => {
            let ceiling = b.ceiling_per_gib? * size;
            let ceiling = b.ceiling_max.map_or(ceiling, |m| ceiling.min(m));
            (
                ceiling * unit,
                b.bucket_per_gib? * size * unit,
                throughput * unit,
            )
        }
    };
    (ceiling > baseline).then_some(BurstModel {
        unit: match b.unit {
            BurstKind::Iops => BurstUnit::Iops,
            BurstKind::Throughput => BurstUnit::Bytes,
        },
        ceiling,
        bucket: bucket / time_scale,
        refill_per_sec: baseline,
        time_scale,
    })
}

fn tier_burst(vt: &VolumeType, tier: &Tier, time_scale: f64) -> Option<BurstModel> {
    let b = vt.burst?;
    let ceiling = tier.burst_iops?;
    let seconds = b.burst_seconds?;
    (ceiling > tier.iops).then_some(BurstModel {
        unit: BurstUnit::Iops,
        ceiling,
        bucket: (ceiling - tier.iops) * seconds / time_scale,
        refill_per_sec: tier.iops,
        time_scale,
    })
}

fn tier_of<'a>(
    spec: &VolumeSpec,
    vt: &'a VolumeType,
    named: Option<&'a Tier>,
) -> Result<&'a Tier, VolumeError> {
    let by_size = |size: f64| vt.tiers.iter().find(|t| t.size_gib >= size);
    match (named, spec.size_gib) {
        (Some(tier), None) => Ok(tier),
        (Some(tier), Some(size)) => match by_size(size) {
            Some(t) if t.name == tier.name => Ok(tier),
            _ => Err(VolumeError::TierSizeMismatch {
                tier: tier.name.clone(),
                tier_size: tier.size_gib,
                size,
            }),
        },
        (None, Some(size)) => {
            check_size(vt, size)?;
            by_size(size).ok_or(VolumeError::SizeOutOfRange {
                volume_type: vt.name.clone(),
                size,
                min: vt.size_gib.min,
                max: vt.size_gib.max,
            })
        }
        (None, None) => Err(VolumeError::NoSize {
            volume_type: vt.name.clone(),
            example: format!("{} or a tier name ({})", "128GiB", vt.tiers[0].name),
        }),
    }
}

fn price_of(
    vt: &VolumeType,
    size: f64,
    iops: f64,
    throughput: f64,
    tier: Option<&Tier>,
) -> VolumePrice {
    let p = vt.price;
    let prov = vt.provisioned.unwrap_or_default();
    let above = |v: f64, included: Option<f64>| (v - included.unwrap_or(0.0)).max(0.0);
    VolumePrice {
        capacity_month: match tier {
            Some(t) => t.price_month,
            None => p.per_gib_month.unwrap_or(0.0) * size,
        },
        iops_month: p.per_iops_month.unwrap_or(0.0) * above(iops, prov.iops_included),
        throughput_month: p.per_throughput_month.unwrap_or(0.0)
            * above(throughput, prov.throughput_included),
        billed_iops: if p.per_iops_month.is_some() {
            above(iops, prov.iops_included)
        } else {
            0.0
        },
        billed_throughput: if p.per_throughput_month.is_some() {
            above(throughput, prov.throughput_included)
        } else {
            0.0
        },
        per_million_ios: p.per_million_ios,
        ..VolumePrice::default()
    }
}
