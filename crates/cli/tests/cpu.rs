//! The benchmark's own CPU, as fio reports it: `usr_cpu` and `sys_cpu` are
//! CPU time over the wall time of all a job's threads (so a group of clones
//! never shows more than 100%), and the kernel threads io_uring starts for
//! buffered I/O (`iou-wrk-*`, which getrusage of the worker does not see)
//! are counted in `sys_cpu`.

mod common;
use common::*;

#[test]
fn a_group_of_clones_reports_cpu_per_clone_as_fio_does() {
    let dir = real_dir();
    let doc = fio_ok_in(
        dir.path(),
        "--name=n --ioengine=null --size=1g --rw=randread --bs=4k --numjobs=4 \
         --group_reporting --runtime=1 --time_based",
    );
    let job = &doc["jobs"][0];
    let cpu = job["usr_cpu"].as_f64().unwrap() + job["sys_cpu"].as_f64().unwrap();
    // Four clones each busy on the CPU: over four clones' wall time, not one's.
    assert!(cpu <= 100.5, "usr+sys = {cpu}% for a group of 4 clones");
    // fio's job_runtime is that wall time: the four clones' runtimes added,
    // and the read runtime one clone's, the longest. Held by the run's own
    // figures, whatever delays a loaded machine adds to each clone: the
    // longest ran its 1 s; the other three add at least their 1 s each to
    // the sum and at most the longest's (each figure rounded to the ms).
    let wall_ms = job["job_runtime"].as_f64().unwrap();
    let runtime_ms = job["read"]["runtime"].as_f64().unwrap();
    assert!(runtime_ms >= 1000.0, "read.runtime {runtime_ms} ms");
    assert!(
        wall_ms + 1.0 >= runtime_ms + 3000.0 && wall_ms <= 4.0 * runtime_ms + 2.0,
        "job_runtime {wall_ms} ms for clones of at most {runtime_ms} ms"
    );
    // And the shares are of it: CPU time per I/O times the I/Os, over it.
    let cpu_ns = job["diskbench"]["cpu_ns_per_io"].as_f64().unwrap()
        * job["read"]["total_ios"].as_f64().unwrap();
    let share = cpu_ns / (wall_ms * 1e6) * 100.0;
    assert!(
        (share - cpu).abs() <= 0.02 * cpu + 0.1,
        "{share}% against {cpu}%"
    );
}

#[test]
fn io_urings_kernel_workers_are_counted_in_sys_cpu() {
    let dir = real_dir();
    let file = dir.path().join("f");
    let doc = fio_ok_in(
        dir.path(),
        &format!(
            "--name=b --filename={} --size=256m --rw=randwrite --bs=4k --ioengine=io_uring \
             --iodepth=32 --direct=0 --runtime=1 --time_based",
            file.display()
        ),
    );
    let job = &doc["jobs"][0];
    let helpers = job["diskbench"]["io_uring_helpers_cpu_ns"]
        .as_f64()
        .unwrap_or(0.0);
    // sys_cpu is a share of the thread's wall time (job_runtime), which is
    // longer than the measured runtime by the job's setup and teardown: on
    // a loaded machine by enough that the helpers' share of the runtime
    // came out above sys_cpu. 1% for job_runtime's rounding to the ms.
    let wall_ns = job["job_runtime"].as_f64().unwrap() * 1e6;
    let sys = job["sys_cpu"].as_f64().unwrap();
    assert!(helpers > 0.0, "no io-wq time counted: {}", job["diskbench"]);
    assert!(
        sys >= 0.99 * helpers / wall_ns * 100.0,
        "sys_cpu {sys}% leaves out the helpers' {helpers} ns of {wall_ns} ns"
    );
}
