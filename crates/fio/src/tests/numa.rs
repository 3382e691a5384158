//! `numa_cpu_nodes` and `numa_mem_policy` (see `numa_opts`): node lists,
//! fio's rules for each policy's nodes, and `--parse-only`'s echo.

use super::*;
use model::numa::{MemMode, MemPolicy, NodeList, NumaSpec};

fn numa(extra: &[&str]) -> NumaSpec {
    let mut args = vec!["--name=a", "--size=1m"];
    args.extend(extra);
    ok(&args).jobs.remove(0).numa
}

#[test]
fn node_lists_and_policies_parse_as_fio_reads_them() {
    assert_eq!(numa(&[]), NumaSpec::default());
    let n = numa(&["--numa_cpu_nodes=0-2,5", "--numa_mem_policy=interleave:all"]);
    assert_eq!(n.cpu_nodes, Some(NodeList::Nodes(vec![0, 1, 2, 5])));
    assert_eq!(
        n.mem_policy,
        Some(MemPolicy {
            mode: MemMode::Interleave,
            nodes: Some(NodeList::All)
        })
    );
    let local = numa(&["--numa_mem_policy=local"]).mem_policy.unwrap();
    assert_eq!((local.mode, local.nodes), (MemMode::Local, None));
    assert_eq!(
        numa(&["--numa_mem_policy=prefer:1"])
            .mem_policy
            .unwrap()
            .fio_text(),
        "prefer:1"
    );
    // Nodes this machine lacks parse: the runner says so when the job starts.
    assert_eq!(
        numa(&["--numa_cpu_nodes=7"]).cpu_nodes,
        Some(NodeList::Nodes(vec![7]))
    );
}

#[test]
fn each_policy_takes_the_nodes_fio_allows() {
    let refused = |policy: &str, says: &str| {
        let arg = format!("--numa_mem_policy={policy}");
        let msg = parse(&["--name=a", "--size=1m", &arg])
            .expect_err(policy)
            .to_string();
        assert!(msg.contains(says), "{policy}: {msg}");
    };
    refused("bind", "'bind' needs its nodes");
    refused("prefer:0,1", "'prefer' takes one node");
    refused("local:0", "'local' takes no nodes");
    refused("often:0", "one of default, prefer, bind, interleave, local");
    refused("bind:x", "node numbers");
    let msg = parse(&["--name=a", "--size=1m", "--numa_cpu_nodes=1-0"]).unwrap_err();
    assert!(msg.to_string().contains("node numbers (or all)"), "{msg}");
}
