//! fio's `flow`, `flow_id` and `flow_sleep` end to end: jobs of one flow
//! run together with their I/Os in the ratio of their weights, as in fio
//! 3.33 (flow.fio's 1:8, butterfly.fio's 1:1), on a real file with O_DIRECT.

mod common;
use common::*;

/// The I/Os (reads and writes) of each job.
fn ios(doc: &serde_json::Value) -> Vec<u64> {
    groups_and_ios(doc).iter().map(|j| j.2 + j.3).collect()
}

/// Runs `job_file` in diskbench, then in fio 3.33 when it is installed, and
/// checks that the second job did `ratio` times the first's I/Os. The flow
/// counts I/Os as they are issued, the figures as they complete, so each
/// count may be short by the `depth` I/Os in flight when its job ended;
/// beyond that, 10%: the two jobs start and end a little apart, and in
/// that time one runs alone (on a loaded machine up to some 100 ms, which
/// was 7% of a 1 s run of butterfly's readers, and 1:11 for flow.fio's 1:8
/// with 256 writes in flight).
fn ratio_as_fio(job_file: &str, ratio: f64, depth: u64) {
    let dir = real_dir();
    std::fs::write(dir.path().join("j.fio"), job_file).unwrap();
    let check = |counts: &[u64], who: &str| {
        assert_eq!(counts.len(), 2, "{who}: {counts:?}");
        assert!(counts[0] > 100, "{who}: too few I/Os to judge: {counts:?}");
        let (first, second) = (counts[0] as f64, counts[1] as f64);
        let (least, most) = (
            second / (first + depth as f64),
            (second + depth as f64) / first,
        );
        assert!(
            least / 1.1 <= ratio && ratio <= most * 1.1,
            "{who}: {counts:?} is 1:{:.2}, not 1:{ratio} (1:{least:.2} to 1:{most:.2} with \
             {depth} in flight)",
            second / first
        );
    };
    check(&ios(&fio_ok_in(dir.path(), "j.fio")), "diskbench");
    if let Some(theirs) = real_fio_json(dir.path(), &["j.fio"]) {
        check(&ios(&theirs), "fio");
    }
}

#[test]
fn flow_keeps_flow_fios_one_to_eight() {
    // flow.fio, shortened: a writer of weight 1 beside a reader of weight 8.
    ratio_as_fio(
        "[global]\nnorandommap\nthread\ntime_based\nruntime=2\ndirect=1\nioengine=libaio\n\
         iodepth=256\nsize=64m\nbs=8k\nfilename=flowfile\nflow_sleep=1000\n\
         [job2]\nrw=write\nflow=1\n[job1]\nrw=randread\nflow=8\n",
        8.0,
        256,
    );
}

#[test]
fn flow_keeps_butterflys_readers_even() {
    // butterfly.fio, shortened: forward and backward (rw=read:-8k) readers of
    // equal weight, without a flow_sleep.
    ratio_as_fio(
        "[global]\nfilename=bfile\nbs=4k\ndirect=1\nsize=16m\nruntime=2\ntime_based\n\
         [forward]\nrw=read\nflow=2\n[backward]\nrw=read:-8k\nflow=2\n",
        1.0,
        1,
    );
}

#[test]
fn flows_of_different_ids_do_not_hold_each_other() {
    // The same weights in two flows: each job runs at its own pace, so the
    // null engine's reader and a thinktime-slowed one are far from 1:1.
    let dir = real_dir();
    let doc = fio_ok_in(
        dir.path(),
        "--ioengine=null --size=1m --time_based --runtime=1 --name=a --flow=1 --flow_id=1 \
         --name=b --flow=1 --flow_id=2 --thinktime=10ms",
    );
    let counts = ios(&doc);
    assert!(counts[0] > 20 * counts[1], "{counts:?}");
}
