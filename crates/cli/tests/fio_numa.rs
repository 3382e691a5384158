//! `numa_cpu_nodes` and `numa_mem_policy` end to end: a job on the nodes
//! this machine has runs; one that names a node it lacks fails when it
//! starts (exit 1, as fio 3.33 drops such a job and exits 1), naming the
//! nodes there are, while the other jobs run.

mod common;
use common::*;

#[test]
fn a_job_on_nodes_there_are_runs_and_a_missing_node_is_named() {
    let online = std::fs::read_to_string("/sys/devices/system/node/online");
    let Ok(online) = online else {
        testbed::skip("this kernel has no NUMA nodes in /sys/devices/system/node");
        return;
    };
    let dir = real_dir();
    let ok = "--name=here --filename=f --size=1m --bs=64k --ioengine=libaio --direct=1 \
              --numa_cpu_nodes=0 --numa_mem_policy=bind:0";
    let doc = fio_ok_in(dir.path(), ok);
    assert_eq!(doc["jobs"][0]["read"]["io_kbytes"], 1024);
    for policy in ["interleave:all", "prefer:0", "local", "default"] {
        fio_ok_in(dir.path(), &format!("{ok} --numa_mem_policy={policy}"));
    }
    // Node 4095 exists nowhere (the kernel's largest node number is 1023).
    let out = fio_in(
        dir.path(),
        &format!("{ok} --name=there --filename=g --size=1m --numa_cpu_nodes=4095"),
    );
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let plural = if online.trim().contains(['-', ',']) {
        "s"
    } else {
        ""
    };
    let have = format!("it has node{plural} {}", online.trim());
    assert!(
        err.contains("numa_cpu_nodes=4095 needs NUMA node 4095"),
        "{err}"
    );
    assert!(err.contains(&have), "{err} should say {have:?}");
    let doc = json_of(&out);
    assert_eq!(
        doc["jobs"][0]["read"]["io_kbytes"], 1024,
        "the first job ran"
    );
}
