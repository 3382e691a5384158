//! What an imported file said, kept as it was read.
//!
//! An import rebuilds latency histograms so that imported runs join the
//! comparisons beside measured ones, but a histogram rebuilt from fio's
//! percentiles (or from its `json+` bins) is an approximation: the
//! percentiles, bucket tables and means read back from it are diskbench's
//! re-derivations, not the source's figures. So the source's own record is
//! kept beside them, and the reports print the source's figures from it,
//! and mark whatever they still have to derive from a rebuilt histogram as
//! approximate (`report::source` decides which is which).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The source's own record of an imported run or job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Imported {
    /// As read: for a run, the source document without its `jobs`; for a
    /// job, its entry of the source's `jobs` (fio's keys, in fio's order,
    /// with fio's exact numbers). `None` for runs imported before diskbench
    /// kept it: everything shown of them is derived from rebuilt histograms.
    #[serde(default)]
    pub source: Option<Map<String, Value>>,
    /// The job's histograms are the measured ones, carried whole by the
    /// file (`diskbench.histograms` of diskbench's own export), not rebuilt:
    /// what is derived from them is as exact as for a measured run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact_histograms: bool,
}

impl Imported {
    /// A record of `source` (a JSON object; anything else keeps nothing).
    pub fn of(source: &Value) -> Imported {
        Imported {
            source: source.as_object().cloned(),
            exact_histograms: false,
        }
    }

    /// The source's value at `path` (keys from the record down), if it has one.
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        let mut v = self.source.as_ref()?.get(*first)?;
        for key in rest {
            v = v.get(key)?;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_reach_into_the_source() {
        let i = Imported::of(&json!({"read": {"clat_ns": {"percentile": {"99.000000": 7}}}}));
        assert_eq!(
            i.get(&["read", "clat_ns", "percentile", "99.000000"]),
            Some(&json!(7))
        );
        assert_eq!(i.get(&["write"]), None);
        assert_eq!(Imported::default().get(&["read"]), None);
        assert_eq!(Imported::of(&json!(5)).source, None);
    }

    #[test]
    fn a_record_without_source_survives_storage() {
        let none: Imported = serde_json::from_str(r#"{"source": null}"#).unwrap();
        assert_eq!(none, Imported::default());
        let text = serde_json::to_string(&Some(Imported::default())).unwrap();
        let back: Option<Imported> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Some(Imported::default()));
    }
}
