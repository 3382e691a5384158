//! `diskbench volumes [PROVIDER] [--type T] [--size S]`: the catalogue as
//! a table, or, with a type and a size, what that volume should deliver.
//! A type that only one provider has (gp3 is only AWS's, P10 only
//! Azure's) needs no provider: asking for one the user never needed to
//! type is a usage error with no reason.

use crate::catalogue::{Catalogue, ProviderFile, VolumeType};
use crate::figures::find_type;
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
    let providers: Vec<&ProviderFile> = match (provider, volume_type) {
        (None, Some(t)) => vec![provider_of_type(c, t)?],
        (None, None) => c.providers.iter().collect(),
        (Some(p), _) => vec![c.provider(p).ok_or_else(|| VolumeError::UnknownProvider {
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
        let vt = find_type(p, t)?.0;
        out.push_str(&format!("counts I/Os: {}\n", type_rule(vt)));
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
            out.push_str(&format!("  {:<20} counts I/Os: {}\n", "", type_rule(t)));
        }
    }
    out.push_str("\nFigures for one volume: diskbench volumes PROVIDER --type TYPE --size SIZE\n");
    Ok(out)
}

/// The one provider that has a volume type (or tier) named `t`.
fn provider_of_type<'a>(c: &'a Catalogue, t: &str) -> Result<&'a ProviderFile, VolumeError> {
    let having: Vec<&ProviderFile> = c
        .providers
        .iter()
        .filter(|p| find_type(p, t).is_ok())
        .collect();
    match having.as_slice() {
        [one] => Ok(one),
        [] => Err(VolumeError::TypeOfNoProvider {
            given: t.into(),
            known: c
                .providers
                .iter()
                .map(|p| {
                    let names: Vec<&str> = p.types.iter().map(|v| v.name.as_str()).collect();
                    format!("{} ({})", p.provider, names.join(", "))
                })
                .collect::<Vec<_>>()
                .join("; "),
        }),
        several => Err(VolumeError::TypeOfSeveralProviders {
            given: t.into(),
            providers: several
                .iter()
                .map(|p| p.provider.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            first: several[0].provider.clone(),
        }),
    }
}

/// How the type counts I/Os, with the source of the rule.
fn type_rule(t: &VolumeType) -> String {
    crate::counting::rule_words(
        t.io_accounting_kib.map(|k| k << 10),
        t.io_counted_as_kib.map(|k| k << 10),
        t.io_accounting_source.as_deref(),
    )
    .unwrap_or_else(|| "as issued (no I/O size rule in the catalogue)".into())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// gp3 is only AWS's and P10 only Azure's: the provider is found, and
    /// the figures are those of the provider named explicitly.
    #[test]
    fn a_type_of_one_provider_needs_no_provider() {
        let c = Catalogue::builtin();
        for (t, provider, size) in [
            ("gp3", "aws", Some("500GiB")),
            ("P10", "azure", None),
            ("pd-ssd", "gcp", Some("200GB")),
        ] {
            let alone = list_text(c, None, Some(t), size).unwrap();
            let named = list_text(c, Some(provider), Some(t), size).unwrap();
            assert_eq!(alone, named, "{t}");
        }
        let e = list_text(c, None, Some("gp5"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gp5") && e.contains("aws (gp2, gp3"), "{e}");
    }
}
