//! I/O priorities end to end: `cmdprio_percentage` gives its share of the
//! I/Os the command priority, `cmdprio_bssplit` gives each block size its
//! priorities, and the logs' priority column (`log_prio`) holds the same
//! values fio 3.33 writes for the same job. Per-I/O priorities need
//! `direct=1` on a real filesystem, and the real-time class root.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each `(direction, block size)`'s priorities seen in a latency log.
type Seen = BTreeMap<(u32, u64), BTreeSet<String>>;

/// A latency log's priorities per direction and block size, and how many
/// lines had each priority.
fn prios(log: &Path) -> (Seen, BTreeMap<String, u64>) {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let (mut seen, mut count) = (BTreeMap::new(), BTreeMap::new());
    for line in text.lines() {
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!(f.len(), 5, "time, value, dir, bs, prio: {line:?}");
        let key = (f[2].parse().unwrap(), f[3].parse().unwrap());
        seen.entry(key)
            .or_insert_with(BTreeSet::new)
            .insert(f[4].to_string());
        *count.entry(f[4].to_string()).or_insert(0) += 1;
    }
    (seen, count)
}

fn root_or_skip() -> bool {
    if !is_root() {
        testbed::skip("the real-time I/O priority class needs root");
    }
    is_root()
}

#[test]
fn cmdprio_percentage_gives_its_share_of_the_ios_the_high_priority() {
    if !root_or_skip() {
        return;
    }
    let dir = real_dir();
    let args = "--name=p --filename=f --size=8m --bs=4k --rw=randread --direct=1 \
                --ioengine=libaio --iodepth=4 --prioclass=3 --cmdprio_percentage=30 \
                --write_lat_log=p --log_prio=1";
    fio_ok_in(dir.path(), args);
    let (seen, count) = prios(&dir.path().join("p_clat.1.log"));
    let total: u64 = count.values().sum();
    assert_eq!(total, 2048, "{count:?}");
    // 30% real-time (0x2000), the rest the job's idle class (0x6000).
    let high = count.get("0x2000").copied().unwrap_or(0) as f64 / total as f64;
    assert!((0.26..=0.34).contains(&high), "{high} of {count:?}");
    assert_eq!(
        seen.values().flatten().collect::<BTreeSet<_>>().len(),
        2,
        "{seen:?}"
    );
    // Without log_prio the column says whether the class is real-time.
    let dir = real_dir();
    fio_ok_in(dir.path(), &args.replace(" --log_prio=1", ""));
    let (_, count) = prios(&dir.path().join("p_clat.1.log"));
    assert_eq!(count.keys().collect::<Vec<_>>(), ["0", "1"], "{count:?}");
}

#[test]
fn io_uring_carries_the_priorities_too() {
    if !root_or_skip() {
        return;
    }
    let dir = real_dir();
    fio_ok_in(
        dir.path(),
        "--name=u --filename=f --size=4m --bs=4k --rw=randwrite --direct=1 \
         --ioengine=io_uring --cmdprio_percentage=50 --cmdprio_class=2 --cmdprio=5 \
         --write_lat_log=u --log_prio=1",
    );
    let (_, count) = prios(&dir.path().join("u_clat.1.log"));
    assert_eq!(
        count.keys().collect::<Vec<_>>(),
        ["0x0000", "0x4005"],
        "{count:?}"
    );
}

/// fio 3.33 and diskbench, the same job: each direction and block size
/// goes with the same priorities (which ones are drawn differs).
#[test]
fn the_logged_priorities_are_fios() {
    if !root_or_skip() {
        return;
    }
    let job = "--name=b --filename=f --size=16m --rw=randrw --direct=1 --ioengine=libaio \
               --iodepth=8 --bssplit=4k/50:8k/50,16k/100 \
               --cmdprio_bssplit=4k/40/1/1:4k/30/3/2:8k/0,16k/50 --prioclass=2 --prio=7 \
               --write_lat_log=b --log_prio=1";
    let theirs = real_dir();
    if real_fio_json_in(theirs.path(), job).is_none() {
        return;
    }
    let ours = real_dir();
    fio_ok_in(ours.path(), job);
    let (fio_seen, _) = prios(&theirs.path().join("b_clat.1.log"));
    let (our_seen, _) = prios(&ours.path().join("b_clat.1.log"));
    assert_eq!(our_seen, fio_seen);
    let want: BTreeSet<String> = ["0x2001", "0x4007", "0x6002"].map(String::from).into();
    assert_eq!(our_seen[&(0, 4096)], want);
    assert_eq!(
        our_seen[&(1, 16384)],
        ["0x2000", "0x4007"].map(String::from).into()
    );
}

/// The `prios` of a direction of fio's JSON: each entry's class, level,
/// keys, and the I/Os it counts.
fn prio_entries(doc: &serde_json::Value, dir: &str) -> Vec<(u64, u64, Vec<String>, u64)> {
    let Some(prios) = doc["jobs"][0][dir]["prios"].as_array() else {
        return Vec::new();
    };
    prios
        .iter()
        .map(|p| {
            let keys = p.as_object().expect("an entry").keys().cloned().collect();
            let lat = p.get("clat_ns").or(p.get("lat_ns")).expect("a latency");
            let n = lat["N"].as_u64().expect("N");
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
                keys,
                n,
            )
        })
        .collect()
}

/// Each priority's latencies, in fio 3.33's JSON shape and order: the job's
/// own priority first, then the per-I/O ones as given, the ones with I/Os
/// only, and no `prios` when one priority had them all.
#[test]
fn each_prioritys_latencies_are_in_fios_json() {
    if !root_or_skip() {
        return;
    }
    let base = "--name=j --filename=f --size=16m --bs=64k --rw=randread --direct=1 \
                --ioengine=libaio";
    let jobs = [
        "--cmdprio_percentage=50 --prioclass=2 --prio=5",
        "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2",
        "--cmdprio_percentage=50 --lat_percentiles=1",
        "--cmdprio_percentage=100",
    ];
    for extra in jobs {
        let args = format!("{base} {extra}");
        let Some(fio) = real_fio_json_in(real_dir().path(), &args) else {
            return;
        };
        let ours = fio_ok_in(real_dir().path(), &args);
        let shape = |doc: &serde_json::Value| {
            let e = prio_entries(doc, "read");
            let n: u64 = e.iter().map(|p| p.3).sum();
            let shape: Vec<_> = e.into_iter().map(|(c, l, k, _)| (c, l, k)).collect();
            (shape, n)
        };
        let (fio_shape, _) = shape(&fio);
        let (our_shape, our_n) = shape(&ours);
        assert_eq!(our_shape, fio_shape, "{extra}");
        if !our_shape.is_empty() {
            assert_eq!(our_n, 256, "{extra}: every read in one entry");
        }
        assert!(prio_entries(&ours, "write").is_empty());
    }
}

#[test]
fn the_normal_output_has_fios_prio_lines() {
    if !root_or_skip() {
        return;
    }
    let dir = real_dir();
    let args = "fio --no-save --name=j --filename=f --size=4m --bs=4k --rw=randread --direct=1 \
                --ioengine=libaio --cmdprio_percentage=50 --prioclass=3";
    let out = diskbench()
        .current_dir(dir.path())
        .args(args.split_whitespace())
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(out.status.success(), "{}", stderr_of(&out));
    for line in [
        "    clat prio 3/0 (",
        "    clat prio 1/0 (",
        "% of IOs) percentiles (",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
}

/// Priority hints are fio 3.42's: a job with them gets 3.42's `priohint`
/// in `prios` and `class/level/hint` in the normal output (checked by hand
/// against fio 3.42, which 3.33 cannot run), and its logs the hint's bits.
#[test]
fn priority_hints_are_shown_as_fio_3_42_shows_them() {
    if !root_or_skip() {
        return;
    }
    let dir = real_dir();
    let job = "--name=h --filename=f --size=4m --bs=4k --rw=randread --direct=1 \
               --ioengine=io_uring --cmdprio_percentage=50 --cmdprio_class=2 --cmdprio_hint=3 \
               --write_lat_log=h --log_prio=1";
    let doc = fio_ok_in(dir.path(), job);
    let entries = prio_entries(&doc, "read");
    let shown: Vec<_> = entries.iter().map(|e| (e.0, e.1, e.2.clone())).collect();
    let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let with_hint = keys(&["prioclass", "prio", "priohint", "clat_ns"]);
    assert_eq!(shown, [(0, 0, with_hint.clone()), (2, 0, with_hint)]);
    assert_eq!(doc["jobs"][0]["read"]["prios"][1]["priohint"], 3);
    let (_, count) = prios(&dir.path().join("h_clat.1.log"));
    assert_eq!(count.keys().collect::<Vec<_>>(), ["0x0000", "0x4018"]);
    let out = fio_text_in(dir.path(), job);
    assert!(
        stdout_of(&out).contains("    clat prio 2/0/3 ("),
        "{}",
        stdout_of(&out)
    );
}
