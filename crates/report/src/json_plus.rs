//! fio's `json+`: the `json` document plus a `bins` object mapping each
//! non-empty latency bucket to its count, so plotting tools can redraw the
//! whole distribution rather than a few percentiles.
//!
//! fio adds `bins` wherever it prints percentiles, and only there: to
//! `slat_ns` with `slat_percentiles=1`, `clat_ns` with `clat_percentiles=1`
//! (the default), `lat_ns` with `lat_percentiles=1`, the `sync` latencies
//! and each entry of `prios`; a latency with no samples has neither. So a
//! reader that finds percentiles in json+ can always rebuild them from the
//! bins beside them.
//!
//! fio 3.33 (see the root `fixtures/fio-3.33-jobfile-jsonplus.json`)
//! keys each bin by the bucket's value in ns, as a string. diskbench's
//! buckets are its own log-linear ones, not fio's: a key is the lowest
//! value of a diskbench bucket (exact below 128 ns, within 1/128 above, as
//! fio's), and the counts sum to `N`.

use crate::json;
use crate::stats::{self, Side, DIRECTIONS};
use crate::unified;
use model::{DirStats, Histogram, RunResult};
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

/// [`json::to_value`] with the `bins` added beside every `percentile`.
pub fn to_value(result: &RunResult) -> Value {
    let mut root = json::to_value(result);
    let Some(jobs) = root.get_mut("jobs").and_then(Value::as_array_mut) else {
        return root;
    };
    for (value, job) in jobs.iter_mut().zip(&result.jobs) {
        let sides = DIRECTIONS.map(Side::from).into_iter().chain([Side::Trim]);
        for side in sides {
            if let Some(obj) = value.get_mut(side_name(side)) {
                add_dir_bins(obj, stats::dir_stats(job, side));
            }
        }
        // unified_rw_reporting's sum (see `unified`).
        if let Some(obj) = value.get_mut("mixed") {
            add_dir_bins(obj, &unified::mixed_job(job).read);
        }
        if let Some(sync) = value.get_mut("sync") {
            add_bins(sync, "lat_ns", &job.sync);
        }
    }
    root
}

/// The bins of one direction's object, from its figures `d`.
fn add_dir_bins(obj: &mut Value, d: &DirStats) {
    if let Some(slat) = &d.slat {
        add_bins(obj, "slat_ns", slat);
    }
    add_bins(obj, "clat_ns", &d.clat);
    add_bins(obj, "lat_ns", &d.lat);
    add_prio_bins(obj, d);
}

fn side_name(side: Side) -> &'static str {
    match side.direction() {
        Some(dir) => stats::dir_name(dir),
        None => "trim",
    }
}

/// The bins of each `prios` entry: the json lists the priorities that did
/// I/O, in the order the direction keeps them.
fn add_prio_bins(dir: &mut Value, d: &DirStats) {
    let Some(entries) = dir.get_mut("prios").and_then(Value::as_array_mut) else {
        return;
    };
    let used = d.prios.iter().filter(|p| p.lat.count() > 0);
    for (entry, prio) in entries.iter_mut().zip(used) {
        for key in ["clat_ns", "lat_ns"] {
            add_bins(entry, key, &prio.lat);
        }
    }
}

/// `bins` in `dir[key]` when it has percentiles (fio's rule).
fn add_bins(dir: &mut Value, key: &str, h: &Histogram) {
    if let Some(Value::Object(lat)) = dir.get_mut(key) {
        if lat.contains_key("percentile") && !h.is_empty() {
            lat.insert("bins".into(), bins(h));
        }
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

    /// fio's rule: `bins` wherever there are percentiles, nowhere else.
    fn assert_bins_follow_percentiles(lat: &Value) {
        match lat.get("percentile") {
            Some(_) => assert_eq!(bin_sum(lat), lat["N"].as_u64().unwrap(), "{lat}"),
            None => assert!(lat.get("bins").is_none(), "{lat}"),
        }
    }

    #[test]
    fn slat_bins_with_slat_percentiles_and_none_without_clat_percentiles() {
        let mut result = testutil::sample_run();
        let spec = &mut result.jobs[0].spec;
        spec.slat_percentiles = true;
        spec.clat_percentiles = false;
        spec.lat_percentiles = false;
        let doc = to_value(&result);
        let read = &doc["jobs"][0]["read"];
        assert!(read["slat_ns"]["percentile"].is_object(), "{read}");
        assert!(read["slat_ns"]["bins"].is_object(), "{read}");
        for key in ["slat_ns", "clat_ns", "lat_ns"] {
            assert_bins_follow_percentiles(&read[key]);
        }
        assert!(read["clat_ns"].get("bins").is_none(), "{read}");
    }

    #[test]
    fn sync_bins_beside_sync_percentiles() {
        let mut result = testutil::sample_run();
        result.jobs[0].sync = testutil::hist(&[(30_000, 10), (90_000, 2)]);
        result.jobs[0].spec.fsync_every = 32;
        let doc = to_value(&result);
        let lat = &doc["jobs"][0]["sync"]["lat_ns"];
        assert!(lat["percentile"].is_object(), "{lat}");
        assert_eq!(bin_sum(lat), 12);
    }
}
