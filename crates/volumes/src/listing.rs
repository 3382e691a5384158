//! `diskbench volumes [PROVIDER] [--type T] [--size S]`: the catalogue as
//! a table, or, with a type and a size, what that volume should deliver.

use crate::catalogue::{Catalogue, ProviderFile, VolumeType};
use crate::predict::{grouped, headline, predict};
use crate::{resolve, VolumeError, VolumeSpec};

/// The listing for the given filters; an unknown provider or type is an
/// error that lists the known ones.
pub fn list_text(
    c: &Catalogue,
    provider: Option<&str>,
    volume_type: Option<&str>,
    size: Option<&str>,
) -> Result<String, VolumeError> {
    let providers: Vec<&ProviderFile> = match provider {
        None => c.providers.iter().collect(),
        Some(p) => vec![c.provider(p).ok_or_else(|| VolumeError::UnknownProvider {
            given: p.into(),
            known: c.provider_names().join(", "),
        })?],
    };
    if let (Some(t), [p]) = (volume_type, providers.as_slice()) {
        // One type: its figures at the size (or at its smallest size).
        let mut text = format!("{}:{t}", p.provider);
        if let Some(s) = size {
            text.push(':');
            text.push_str(s);
        }
        let mut spec = VolumeSpec::parse(&text)?;
        let probe = resolve(&spec, c);
        if let (Err(VolumeError::NoSize { .. }), None) = (&probe, size) {
            let vt = p
                .types
                .iter()
                .find(|v| v.name == t || v.aliases.iter().any(|a| a == t));
            spec.size_gib = vt.map(|v| v.size_gib.min.max(100.0).min(v.size_gib.max));
        }
        let m = resolve(&spec, c)?;
        let mut out = headline(&m, &predict(&m, None));
        out.push('\n');
        if let Some(price) = &m.price {
            out.push_str(&format!(
                "list price: {:.2} {} a month ({} capacity, {:.2} IOPS, {:.2} throughput){}, {} as of {}\n",
                price.monthly(),
                price.currency,
                format_args!("{:.2}", price.capacity_month),
                price.iops_month,
                price.throughput_month,
                price
                    .per_million_ios
                    .map(|p| format!(" + {p} per million I/Os"))
                    .unwrap_or_default(),
                price.region,
                price.as_of
            ));
        }
        return Ok(out);
    }
    if volume_type.is_some() {
        return Err(VolumeError::Syntax {
            given: volume_type.unwrap_or_default().into(),
            why: "--type needs a PROVIDER first".into(),
        });
    }
    let mut out = String::new();
    for p in providers {
        out.push_str(&format!(
            "{} ({}; prices {} in {})\n",
            p.provider, p.name, p.currency, p.price_region
        ));
        for t in &p.types {
            out.push_str(&format!("  {:<20} {}\n", t.name, t.description));
            out.push_str(&format!(
                "  {:<20} {} to {} GiB; {}; as of {}: {}\n",
                "",
                grouped(t.size_gib.min),
                grouped(t.size_gib.max),
                price_summary(t, &p.currency),
                t.as_of,
                t.source
            ));
        }
    }
    out.push_str("\nFigures for one volume: diskbench volumes PROVIDER --type TYPE --size SIZE\n");
    Ok(out)
}

fn price_summary(t: &VolumeType, currency: &str) -> String {
    let p = t.price;
    let mut parts = Vec::new();
    if let Some(g) = p.per_gib_month {
        parts.push(format!("{g} {currency}/GiB-month"));
    }
    if !t.tiers.is_empty() {
        parts.push(format!(
            "tiers {}..{} at {}..{} {currency}/month",
            t.tiers[0].name,
            t.tiers[t.tiers.len() - 1].name,
            t.tiers[0].price_month,
            t.tiers[t.tiers.len() - 1].price_month
        ));
    }
    if let Some(i) = p.per_iops_month {
        parts.push(format!("{i} per IOPS-month"));
    }
    if let Some(m) = p.per_throughput_month {
        parts.push(format!("{m} per MB/s-month"));
    }
    if let Some(m) = p.per_million_ios {
        parts.push(format!("{m} per million I/Os"));
    }
    parts.join(", ")
}
