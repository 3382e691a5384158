//! `--volume PROVIDER:TYPE[:SIZE][:KEY=VALUE...]`, e.g. `aws:gp2:100GiB`,
//! `aws:gp3:500GiB:iops=6000:mbps=250`, `azure:P10`, `gcp:pd-ssd:200GB`.
//!
//! Sizes: clouds size and bill disks in binary units even where their
//! pages write GB (GCE, DigitalOcean), so `G`, `GB` and `GiB` all mean
//! GiB here, and `T`, `TB`, `TiB` mean TiB. `time-scale=N` makes the
//! bucket N times smaller, for a testbed that plays a volume in minutes.

use crate::VolumeError;

/// A parsed declaration, not yet checked against the catalogue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VolumeSpec {
    /// As given.
    pub text: String,
    pub provider: String,
    /// A type name, an alias or a tier name (`P10`).
    pub volume_type: String,
    pub size_gib: Option<f64>,
    pub iops: Option<f64>,
    pub throughput: Option<f64>,
    pub time_scale: f64,
}

/// The `KEY=VALUE` options a declaration takes.
pub const OPTIONS: [&str; 3] = ["iops", "mbps", "time-scale"];

impl VolumeSpec {
    pub fn parse(text: &str) -> Result<VolumeSpec, VolumeError> {
        let usage = |why: String| VolumeError::Syntax {
            given: text.to_string(),
            why,
        };
        let mut parts = text.split(':');
        let provider = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let volume_type = parts.next().unwrap_or("").trim().to_string();
        if provider.is_empty() || volume_type.is_empty() {
            return Err(usage("give at least PROVIDER:TYPE".into()));
        }
        let mut spec = VolumeSpec {
            text: text.to_string(),
            provider,
            volume_type,
            time_scale: 1.0,
            ..VolumeSpec::default()
        };
        for part in parts {
            let part = part.trim();
            match part.split_once('=') {
                None if spec.size_gib.is_none() => spec.size_gib = Some(parse_size_gib(part)?),
                None => return Err(usage(format!("'{part}': the size is given twice"))),
                Some((key, value)) => {
                    let number = value.trim().parse::<f64>().ok().filter(|v| v.is_finite());
                    let Some(number) = number.filter(|&v| v > 0.0) else {
                        return Err(usage(format!("{key}={value}: give a number above 0")));
                    };
                    match key.trim().to_ascii_lowercase().as_str() {
                        "iops" => spec.iops = Some(number),
                        "mbps" | "throughput" => spec.throughput = Some(number),
                        "time-scale" | "timescale" | "time_scale" => spec.time_scale = number,
                        other => {
                            return Err(usage(format!(
                                "unknown option '{other}': the options are {}",
                                OPTIONS.join(", ")
                            )))
                        }
                    }
                }
            }
        }
        Ok(spec)
    }
}

/// `100GiB`, `200GB`, `1.5TiB`, `2T` as GiB.
pub fn parse_size_gib(text: &str) -> Result<f64, VolumeError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let bad = || VolumeError::BadSize {
        given: text.to_string(),
    };
    let n: f64 = number.parse().map_err(|_| bad())?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "g" | "gb" | "gib" => 1.0,
        "t" | "tb" | "tib" => 1024.0,
        "m" | "mb" | "mib" => 1.0 / 1024.0,
        _ => return Err(bad()),
    };
    if !(n > 0.0 && n.is_finite()) {
        return Err(bad());
    }
    Ok(n * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_of_the_issue_parse() {
        let s = VolumeSpec::parse("aws:gp3:500GiB:iops=6000:mbps=250").unwrap();
        assert_eq!(
            (s.provider.as_str(), s.volume_type.as_str()),
            ("aws", "gp3")
        );
        assert_eq!(
            (s.size_gib, s.iops, s.throughput),
            (Some(500.0), Some(6000.0), Some(250.0))
        );
        let s = VolumeSpec::parse("azure:P10").unwrap();
        assert_eq!((s.volume_type.as_str(), s.size_gib), ("P10", None));
        assert_eq!(
            VolumeSpec::parse("gcp:pd-ssd:200GB").unwrap().size_gib,
            Some(200.0)
        );
        assert_eq!(
            VolumeSpec::parse("aws:st1:2TiB").unwrap().size_gib,
            Some(2048.0)
        );
        let s = VolumeSpec::parse("aws:gp2:100GiB:time-scale=40").unwrap();
        assert_eq!(s.time_scale, 40.0);
    }

    #[test]
    fn bad_forms_say_what_is_wrong() {
        for (bad, says) in [
            ("aws", "PROVIDER:TYPE"),
            ("aws:gp2:100GiB:iops=-3", "above 0"),
            ("aws:gp2:100GiB:speed=3", "unknown option 'speed'"),
            ("aws:gp2:100GiB:200GiB", "twice"),
            ("aws:gp2:lots", "not a size"),
        ] {
            let e = VolumeSpec::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
