//! The catalogue: what each provider publishes about its volume types, as
//! data (`crates/volumes/catalogue/*.toml`, one file per provider, built
//! into the binary). The structs here are its schema: unknown keys are
//! refused, and [`Catalogue::validate`] checks what types cannot (a source
//! that is a URL, a date, ranges the right way round, a burst with a
//! bucket). Keeping figures out of the code means a price change is a
//! one-line edit of a dated entry, and the tests hold the figures against
//! the providers' published examples, not against themselves.

use serde::Deserialize;

/// The provider files, as built in.
const FILES: [(&str, &str); 4] = [
    ("aws.toml", include_str!("../catalogue/aws.toml")),
    ("azure.toml", include_str!("../catalogue/azure.toml")),
    ("gcp.toml", include_str!("../catalogue/gcp.toml")),
    (
        "digitalocean.toml",
        include_str!("../catalogue/digitalocean.toml"),
    ),
];
const INSTANCES: &str = include_str!("../catalogue/instances.toml");

/// One provider's file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderFile {
    /// The name `--volume` uses (`aws`).
    pub provider: String,
    /// What people call it (`Amazon EBS`).
    pub name: String,
    pub currency: String,
    pub price_region: String,
    /// How the provider states throughput: `MiB/s` or `MB/s`.
    pub throughput_unit: String,
    #[serde(rename = "type")]
    pub types: Vec<VolumeType>,
}

/// One volume type.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeType {
    pub name: String,
    /// Other names for it (Azure's API names, `Premium_LRS`).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub description: String,
    /// The documentation page the figures come from.
    pub source: String,
    pub price_source: String,
    /// When the figures were read (YYYY-MM-DD).
    pub as_of: String,
    pub size_gib: SizeRange,
    /// Baseline IOPS as a function of size (for types not provisioned or tiered).
    pub iops: Option<Rate>,
    /// Write IOPS where they differ from reads (GCE pd-standard).
    pub write_iops: Option<Rate>,
    /// Baseline throughput as a function of size, in the provider's unit.
    pub throughput: Option<Rate>,
    /// Throughput by size: the first step whose `up_to_gib` holds the
    /// size wins; above every step, `throughput` applies.
    #[serde(default)]
    pub throughput_steps: Vec<Step>,
    /// What the user chooses (`iops=`, `mbps=`), and within which limits.
    pub provisioned: Option<Provisioned>,
    pub burst: Option<Burst>,
    /// Fixed sizes (Azure): a disk performs and bills as the smallest tier that holds it.
    #[serde(default)]
    pub tiers: Vec<Tier>,
    /// I/Os up to this size count as one; larger as several.
    pub io_accounting_kib: Option<u64>,
    /// Every I/O counts as this size, however small (st1, sc1).
    pub io_counted_as_kib: Option<u64>,
    /// The page that states the counting rule of the two above: a
    /// verdict on IOPS names the rule it counted by, and where it is from.
    pub io_accounting_source: Option<String>,
    pub price: Price,
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeRange {
    pub min: f64,
    pub max: f64,
}

/// `clamp(base + per_gib x size, min, max)`.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    #[serde(default)]
    pub base: f64,
    #[serde(default)]
    pub per_gib: f64,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Rate {
    pub fn at(&self, size_gib: f64) -> f64 {
        let v = self.base + self.per_gib * size_gib;
        let v = self.min.map_or(v, |m| v.max(m));
        self.max.map_or(v, |m| v.min(m))
    }
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub up_to_gib: f64,
    pub value: f64,
}

/// What may be provisioned. `*_default` applies when the user gives no
/// figure (absent: the figure must be given); `*_included` is what the
/// capacity price already pays for.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provisioned {
    pub iops_default: Option<f64>,
    pub iops_included: Option<f64>,
    pub iops_min: Option<f64>,
    pub iops_max: Option<f64>,
    pub iops_per_gib_max: Option<f64>,
    pub throughput_default: Option<f64>,
    pub throughput_included: Option<f64>,
    pub throughput_min: Option<f64>,
    pub throughput_max: Option<f64>,
    /// Most throughput per provisioned IOPS the user may choose.
    pub throughput_per_iops_max: Option<f64>,
    /// Throughput that follows from the IOPS (io1, io2): not chosen.
    pub throughput_per_iops: Option<f64>,
}

/// The credit bucket. For IOPS: a fixed `ceiling` and `bucket` (gp2), or
/// per tier with `burst_seconds` of bursting in a full bucket (Azure).
/// For throughput (st1, sc1): ceiling and bucket per GiB of size.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Burst {
    pub unit: BurstKind,
    pub ceiling: Option<f64>,
    pub ceiling_per_gib: Option<f64>,
    pub ceiling_max: Option<f64>,
    /// Credits in a full bucket (I/Os, or the throughput unit x seconds).
    pub bucket: Option<f64>,
    pub bucket_per_gib: Option<f64>,
    /// A full bucket lasts this long at the ceiling (net of the refill).
    pub burst_seconds: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstKind {
    Iops,
    Throughput,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tier {
    pub name: String,
    pub size_gib: f64,
    pub iops: f64,
    pub throughput: f64,
    pub burst_iops: Option<f64>,
    pub burst_throughput: Option<f64>,
    pub price_month: f64,
}

/// List prices, in the file's currency. IOPS and throughput prices apply
/// to what is provisioned above the included figures.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub per_gib_month: Option<f64>,
    pub per_iops_month: Option<f64>,
    pub per_throughput_month: Option<f64>,
    pub per_million_ios: Option<f64>,
}

/// `instances.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceFile {
    pub aws: Vec<AwsInstance>,
    pub gcp_vcpu: Vec<GcpVcpuCap>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AwsInstance {
    pub instance_type: String,
    pub baseline_mbit_s: f64,
    pub baseline_iops: f64,
    pub burst_mbit_s: f64,
    pub burst_iops: f64,
    pub burst_minutes_per_day: f64,
    pub source: String,
    pub as_of: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcpVcpuCap {
    pub disk_type: String,
    pub vcpus_from: u32,
    pub vcpus_to: u32,
    pub iops: f64,
    pub throughput_mib_s: f64,
    pub machine_series: String,
    pub source: String,
    pub as_of: String,
}

/// Every provider and the instance table.
#[derive(Clone, Debug)]
pub struct Catalogue {
    pub providers: Vec<ProviderFile>,
    pub instances: InstanceFile,
}

/// A file that does not follow the schema, or an entry that breaks a rule.
#[derive(Debug, thiserror::Error)]
#[error("catalogue {file}: {problem}")]
pub struct CatalogueError {
    pub file: String,
    pub problem: String,
}

impl Catalogue {
    /// The built-in catalogue. Its files are checked by the test suite, so
    /// a failure here is a build that skipped the tests.
    pub fn builtin() -> &'static Catalogue {
        static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
        CATALOGUE.get_or_init(|| match Catalogue::parse_builtin() {
            Ok(c) => c,
            Err(e) => panic!("the built-in volume catalogue is broken: {e}"),
        })
    }

    /// Parses and validates the built-in files.
    pub fn parse_builtin() -> Result<Catalogue, CatalogueError> {
        let texts: Vec<(&str, &str)> = FILES.to_vec();
        Catalogue::parse(&texts, INSTANCES)
    }

    /// Parses provider files (name, text) and the instance table, then validates them.
    pub fn parse(files: &[(&str, &str)], instances: &str) -> Result<Catalogue, CatalogueError> {
        let mut providers = Vec::new();
        for (file, text) in files {
            let p: ProviderFile = toml::from_str(text).map_err(|e| CatalogueError {
                file: file.to_string(),
                problem: e.to_string(),
            })?;
            providers.push(p);
        }
        let instances: InstanceFile = toml::from_str(instances).map_err(|e| CatalogueError {
            file: "instances.toml".into(),
            problem: e.to_string(),
        })?;
        let c = Catalogue {
            providers,
            instances,
        };
        c.validate()?;
        Ok(c)
    }

    pub fn provider(&self, name: &str) -> Option<&ProviderFile> {
        let name = name.to_ascii_lowercase();
        self.providers.iter().find(|p| {
            p.provider == name
                || (name == "gce" && p.provider == "gcp")
                || (name == "do" && p.provider == "digitalocean")
        })
    }

    pub fn provider_names(&self) -> Vec<&str> {
        self.providers.iter().map(|p| p.provider.as_str()).collect()
    }

    /// The rules the schema's types cannot hold.
    pub fn validate(&self) -> Result<(), CatalogueError> {
        for p in &self.providers {
            let fail = |problem: String| CatalogueError {
                file: format!("{}.toml", p.provider),
                problem,
            };
            if !["MiB/s", "MB/s"].contains(&p.throughput_unit.as_str()) {
                return Err(fail(format!(
                    "throughput_unit '{}' is neither MiB/s nor MB/s",
                    p.throughput_unit
                )));
            }
            if p.types.is_empty() {
                return Err(fail("no [[type]]".into()));
            }
            for t in &p.types {
                validate_type(t).map_err(|why| fail(format!("type {}: {why}", t.name)))?;
            }
        }
        for i in &self.instances.aws {
            check_source(&i.source, &i.as_of).map_err(|why| CatalogueError {
                file: "instances.toml".into(),
                problem: format!("{}: {why}", i.instance_type),
            })?;
        }
        for g in &self.instances.gcp_vcpu {
            check_source(&g.source, &g.as_of).map_err(|why| CatalogueError {
                file: "instances.toml".into(),
                problem: format!(
                    "{} {}-{} vCPUs: {why}",
                    g.disk_type, g.vcpus_from, g.vcpus_to
                ),
            })?;
        }
        Ok(())
    }
}

/// What is wrong with one entry of the catalogue; [`CatalogueError`] names
/// the file and the entry before it.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum EntryProblem {
    #[error("source '{0}' is not an https URL")]
    Source(String),
    #[error("as_of '{0}' is not a date (YYYY-MM-DD)")]
    Date(String),
    #[error("size_gib min {min} and max {max} are not a range")]
    SizeRange { min: f64, max: f64 },
    #[error("no IOPS figure: give iops, provisioned or tiers")]
    NoIops,
    #[error("no throughput figure")]
    NoThroughput,
    #[error("tiers {0} and {1} are not in size order")]
    TierOrder(String, String),
    #[error(
        "a burst needs a ceiling and a bucket (fixed, per GiB, or per tier with burst_seconds)"
    )]
    Burst,
    #[error("provisioned iops_min {lo} above iops_max {hi}")]
    ProvisionedRange { lo: f64, hi: f64 },
    #[error("io_accounting_kib and io_counted_as_kib need io_accounting_source, the page that states how the provider counts I/Os")]
    AccountingSource,
}

fn validate_type(t: &VolumeType) -> Result<(), EntryProblem> {
    check_source(&t.source, &t.as_of)?;
    check_source(&t.price_source, &t.as_of)?;
    match &t.io_accounting_source {
        Some(source) => check_source(source, &t.as_of)?,
        None if t.io_accounting_kib.is_some() || t.io_counted_as_kib.is_some() => {
            return Err(EntryProblem::AccountingSource)
        }
        None => {}
    }
    if !(t.size_gib.min > 0.0 && t.size_gib.min <= t.size_gib.max) {
        return Err(EntryProblem::SizeRange {
            min: t.size_gib.min,
            max: t.size_gib.max,
        });
    }
    let figures = [
        t.iops.is_some(),
        t.provisioned.is_some(),
        !t.tiers.is_empty(),
    ];
    if !figures.iter().any(|&f| f) {
        return Err(EntryProblem::NoIops);
    }
    if t.tiers.is_empty()
        && t.throughput.is_none()
        && t.provisioned.is_none_or(|p| {
            p.throughput_default.is_none()
                && p.throughput_per_iops.is_none()
                && p.throughput_per_iops_max.is_none()
        })
    {
        return Err(EntryProblem::NoThroughput);
    }
    for w in t.tiers.windows(2) {
        if w[0].size_gib >= w[1].size_gib {
            return Err(EntryProblem::TierOrder(
                w[0].name.clone(),
                w[1].name.clone(),
            ));
        }
    }
    if let Some(b) = t.burst {
        let fixed = b.ceiling.is_some() && b.bucket.is_some();
        let per_gib = b.ceiling_per_gib.is_some() && b.bucket_per_gib.is_some();
        let tiered = b.burst_seconds.is_some() && t.tiers.iter().any(|x| x.burst_iops.is_some());
        if !(fixed || per_gib || tiered) {
            return Err(EntryProblem::Burst);
        }
    }
    if let Some(p) = t.provisioned {
        if let (Some(lo), Some(hi)) = (p.iops_min, p.iops_max) {
            if lo > hi {
                return Err(EntryProblem::ProvisionedRange { lo, hi });
            }
        }
    }
    Ok(())
}

/// A source is an https URL; a date is YYYY-MM-DD.
fn check_source(source: &str, as_of: &str) -> Result<(), EntryProblem> {
    if !source.starts_with("https://") || source.contains(' ') {
        return Err(EntryProblem::Source(source.to_string()));
    }
    let parts: Vec<&str> = as_of.split('-').collect();
    let ok = parts.len() == 3
        && parts[0].len() == 4
        && parts[1].len() == 2
        && parts[2].len() == 2
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()))
        && (1..=12).contains(&parts[1].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&parts[2].parse::<u32>().unwrap_or(0));
    if !ok {
        return Err(EntryProblem::Date(as_of.to_string()));
    }
    Ok(())
}
