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
    let fio = std::process::Command::new("fio")
        .current_dir(theirs.path())
        .args(["--output-format=json"])
        .args(job.split_whitespace())
        .output();
    let Ok(fio) = fio else {
        testbed::skip("fio is not installed (apt-get install fio)");
        return;
    };
    assert!(fio.status.success(), "fio: {}", stderr_of(&fio));
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
