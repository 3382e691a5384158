//! fio's `json+`: the `json` document plus, in each direction's `clat_ns`
//! (and `lat_ns` when the job asked for `lat_percentiles`), a `bins` object
//! mapping each non-empty latency bucket to its count, so plotting tools can
//! redraw the whole distribution rather than a few percentiles.
//!
//! fio 3.33 (see the root `fixtures/fio-3.33-jobfile-jsonplus.json`)
//! keys each bin by the bucket's value in ns, as a string, and leaves `bins`
//! out of a direction that did no I/O. diskbench's buckets are its own
//! log-linear ones, not fio's: a key is the lowest value of a diskbench
//! bucket (exact below 64 ns, within 1% above), and the counts sum to `N`.

use crate::json;
use crate::stats::{self, DIRECTIONS};
use model::{Histogram, RunResult};
use serde_json::{json, Map, Value};

/// The run as fio's json+, pretty-printed, ending in a newline.
pub fn render(result: &RunResult) -> String {
    match serde_json::to_string_pretty(&to_value(result)) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(e) => json::error_json(
            &model::Failure::runtime(format!("could not write the JSON output: {e}")),
            &result.tool_version,
        ),
    }
}

/// [`json::to_value`] with the `bins` added.
pub fn to_value(result: &RunResult) -> Value {
    let mut root = json::to_value(result);
    let Some(jobs) = root.get_mut("jobs").and_then(Value::as_array_mut) else {
        return root;
    };
    for (value, job) in jobs.iter_mut().zip(&result.jobs) {
        for dir in DIRECTIONS {
            let d = stats::dir_stats(job, dir);
            let Some(obj) = value.get_mut(stats::dir_name(dir)) else {
                continue;
            };
            add_bins(obj, "clat_ns", &d.clat);
            if job.spec.lat_percentiles {
                add_bins(obj, "lat_ns", &d.lat);
            }
        }
    }
    root
}

fn add_bins(dir: &mut Value, key: &str, h: &Histogram) {
    if h.is_empty() {
        return;
    }
    if let Some(Value::Object(lat)) = dir.get_mut(key) {
        lat.insert("bins".into(), bins(h));
    }
}

/// `{"<bucket value ns>": count, ...}`, in increasing value.
pub fn bins(h: &Histogram) -> Value {
    let m: Map<String, Value> = h
        .buckets()
        .map(|(ns, count)| (ns.to_string(), json!(count)))
        .collect();
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;

    fn bin_sum(lat: &Value) -> u64 {
        lat["bins"]
            .as_object()
            .expect("bins")
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum()
    }

    #[test]
    fn bins_sum_to_n_and_parse() {
        let result = testutil::sample_run();
        let text = render(&result);
        let doc: Value = serde_json::from_str(&text).expect("json+ parses");
        let mut seen = 0;
        for job in doc["jobs"].as_array().unwrap() {
            for dir in ["read", "write"] {
                let clat = &job[dir]["clat_ns"];
                let n = clat["N"].as_u64().unwrap();
                if n == 0 {
                    assert!(clat.get("bins").is_none(), "{clat}");
                    continue;
                }
                assert_eq!(bin_sum(clat), n, "{clat}");
                for key in clat["bins"].as_object().unwrap().keys() {
                    key.parse::<u64>().expect("bin keys are ns values");
                }
                assert!(job[dir]["lat_ns"].get("bins").is_none());
                seen += 1;
            }
        }
        assert!(seen > 0);
        // Everything json has is still there.
        let plain = json::to_value(&result);
        assert_eq!(doc["jobs"][0]["jobname"], plain["jobs"][0]["jobname"]);
    }

    #[test]
    fn lat_bins_with_lat_percentiles() {
        let mut result = testutil::sample_run();
        result.jobs[0].spec.lat_percentiles = true;
        let doc = to_value(&result);
        let lat = &doc["jobs"][0]["read"]["lat_ns"];
        assert_eq!(bin_sum(lat), lat["N"].as_u64().unwrap());
        assert!(lat["percentile"].is_object(), "{lat}");
    }
}
