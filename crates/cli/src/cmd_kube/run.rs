//! `diskbench kube run` and `kube manifests`.
//!
//! A run measures its classes one after another, each with all its pods
//! at once: classes measured side by side would share the nodes' CPUs
//! and network and disturb each other's figures, while a class's pods
//! running together is the point (the aggregate a class gives several
//! workloads). For each class: the Jobs are created suspended, each PVC
//! owned by its Job (so deleting the Job, or its TTL, deletes the PVC),
//! the ConfigMap of a fio job file owned by the class's Jobs; then the
//! Jobs are resumed and their pods followed ([`super::watch`]); the logs
//! are collected ([`super::collect`]); and the class's objects are
//! deleted before the next class starts.
//!
//! With `--per-node` a class's pods are one per schedulable node (or per
//! node `--node-selector` picks), each held to its node and measuring that
//! node's storage: the class's node-local volumes, or `--host-path DIR`
//! (the node's own directory, never chosen for the user). They measure
//! together, or with `--one-at-a-time` node after node, so a backend the
//! nodes share does not make them look alike; `--runs N` repeats the
//! measurement in each pod, so each node's run-to-run spread is known and
//! the table can name the node that is not like the others
//! (`report::fleet`).
//!
//! Whatever happens (a pod that fails, a refusal from the cluster,
//! Ctrl-C) everything the run created is deleted before it exits, and
//! it waits until the cluster has removed it: "zero objects left" is
//! checked, not hoped for. The one exception is a node lost in the middle
//! (`super::watch`): its pod and claim are deleted too, but only the
//! node's kubelet can confirm that, so the run does not wait for them and
//! says they go once the node is back.

use super::collect::Gathered;
use super::workload::WorkloadArgs;
use super::{ClusterArgs, GONE_TIMEOUT};
use crate::args::DbArgs;
use crate::outcome::Exit;
use cluster::objects::{RunPlan, Slot};
use cluster::{ClassInfo, Cluster, ClusterError};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    work: WorkloadArgs,
    /// Measure every StorageClass of the cluster without asking (when no --storage-class is given)
    #[arg(long)]
    yes: bool,
    /// How long a pod may wait to be scheduled, bound to a volume and started
    #[arg(long, default_value = "5m", value_parser = parse_timeout)]
    pending_timeout: Duration,
    /// One pod on every schedulable node, each on that node's storage (node-local volumes, or --host-path)
    #[arg(long, conflicts_with = "pods")]
    per_node: bool,
    /// With --per-node: only the nodes with these labels, as kubectl's -l (e.g. disk=nvme)
    #[arg(long, requires = "per_node", value_name = "SELECTOR")]
    node_selector: Option<String>,
    /// With --per-node: measure this directory of each node (a hostPath volume, no PVC)
    #[arg(
        long,
        requires = "per_node",
        conflicts_with = "storage_class",
        value_name = "DIR"
    )]
    host_path: Option<String>,
    /// With --per-node: the nodes one after another, so storage they share does not make them look alike
    #[arg(long, requires = "per_node")]
    one_at_a_time: bool,
    /// Repeat the measurement this many times in each pod (a node is named slow only beyond its runs' spread)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    db: DbArgs,
}

#[derive(clap::Args)]
pub struct ManifestArgs {
    #[command(flatten)]
    work: WorkloadArgs,
    /// A shared history the pods save their runs in (postgresql://...), since nobody collects them
    #[arg(long, value_name = "URL")]
    db: Option<String>,
}

fn parse_timeout(text: &str) -> Result<Duration, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err("a timeout of 0 would fail every pod: give e.g. 5m".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The classes to measure: those named (each must exist), or every class
/// after the user agreed.
fn choose_classes(cluster: &Cluster, args: &RunArgs) -> Result<Vec<ClassInfo>, String> {
    let all = cluster.storage_classes().map_err(|e| e.to_string())?;
    let names = |v: &[ClassInfo]| {
        v.iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if all.is_empty() {
        return Err(
            "the cluster has no StorageClass: create one, or ask its administrators which to use"
                .into(),
        );
    }
    if args.work.storage_class.is_empty() {
        if !args.yes {
            if !std::io::stdin().is_terminal() {
                return Err(format!(
                    "no --storage-class given: name the classes to measure (the cluster has {}), \
                     or give --yes to measure them all",
                    names(&all)
                ));
            }
            eprint!(
                "measure all {} StorageClasses ({})? [y/N] ",
                all.len(),
                names(&all)
            );
            let mut answer = String::new();
            let _ = std::io::stdin().read_line(&mut answer);
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                return Err("nothing measured: name the classes with --storage-class".into());
            }
        }
        return Ok(all);
    }
    let mut chosen = Vec::new();
    for name in &args.work.storage_class {
        match all.iter().find(|c| &c.name == name) {
            Some(c) => chosen.push(c.clone()),
            None => {
                return Err(format!(
                    "no StorageClass {name} in the cluster; it has: {}",
                    names(&all)
                ))
            }
        }
    }
    Ok(chosen)
}

pub fn run(args: RunArgs) -> anyhow::Result<Exit> {
    let stop = crate::outcome::stop_on_signals()?;
    let job_file = match args.work.job_text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            return Ok(Exit::Usage);
        }
    };
    let cluster = match args.cluster.connect("run") {
        Ok(c) => c,
        Err(exit) => return Ok(exit),
    };
    let classes = match &args.host_path {
        Some(dir) if !dir.starts_with('/') => {
            eprintln!("diskbench kube run: --host-path {dir}: give the directory's absolute path on the nodes");
            return Ok(Exit::Usage);
        }
        Some(dir) => Ok(vec![ClassInfo {
            name: format!("hostPath:{dir}"),
            provisioner: "hostPath".into(),
            default: false,
        }]),
        None => choose_classes(&cluster, &args),
    };
    let classes = match classes {
        Ok(c) => c,
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            return Ok(Exit::Usage);
        }
    };
    let nodes = match args.per_node {
        true => match choose_nodes(&cluster, args.node_selector.as_deref()) {
            Ok(n) => n,
            Err(e) => {
                eprintln!("diskbench kube run: {e}");
                return Ok(Exit::Runtime);
            }
        },
        false => Vec::new(),
    };
    let started = Instant::now();
    let run_id = soak::new_soak_id();
    let db = args
        .db
        .db
        .as_ref()
        .map(|p| p.display().to_string())
        .filter(|d| store::is_url(d));
    let mut plan = match args
        .work
        .plan(run_id.clone(), args.work.image()?, job_file, db.as_deref())
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            return Ok(Exit::Usage);
        }
    };
    plan.host_path = args.host_path.clone();
    if args.runs > 1 {
        plan.agent_args.push(format!("--runs={}", args.runs));
    }
    let groups = groups(&classes, &nodes, &args);
    let pods: usize = groups.iter().map(Vec::len).sum();
    eprintln!(
        "kube run {run_id}: {} in namespace {} at {}, image {}{}",
        match args.per_node {
            true => format!(
                "{} x {} node{} ({}){}",
                classes.len(),
                nodes.len(),
                if nodes.len() == 1 { "" } else { "s" },
                nodes.join(", "),
                if args.one_at_a_time {
                    ", one at a time"
                } else {
                    ""
                }
            ),
            false => format!(
                "{} x {} pod{}",
                classes.len(),
                args.work.pods,
                if args.work.pods == 1 { "" } else { "s" }
            ),
        },
        cluster.namespace,
        cluster.server,
        plan.image,
        match &plan.host_path {
            Some(_) => String::new(),
            None => format!(", {} PVCs", plan.pvc_size),
        }
    );
    let mut gathered = Gathered::default();
    let mut outcome: Result<bool, ClusterError> = Ok(false);
    for slots in &groups {
        let class = &classes[slots[0].class_index];
        match (&slots[0].node, slots.len()) {
            (Some(node), 1) => eprintln!("{} ({}) on {node}:", class.name, class.provisioner),
            _ => eprintln!("{} ({}):", class.name, class.provisioner),
        }
        outcome = run_class(&cluster, &plan, slots, &args, &stop, &mut gathered);
        // The class's objects go before the next class starts.
        let left = remove_run(&cluster, &run_id, &gathered.lost, false);
        if matches!(outcome, Ok(true) | Err(_)) || !left {
            break;
        }
    }
    // Again, for what a failure between classes might have left.
    let clean = remove_run(&cluster, &run_id, &gathered.lost, true);
    gathered.report_failures();
    gathered.save_and_print(&args.db, &run_id, args.per_node)?;
    eprintln!(
        "{}",
        report::pods::last_line(&run_id, started.elapsed(), gathered.gave, pods, clean)
    );
    Ok(match outcome {
        Ok(true) => {
            eprintln!("diskbench kube run: interrupted; the run's objects were deleted");
            Exit::Interrupted
        }
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            Exit::Runtime
        }
        Ok(false) if !gathered.failures.is_empty() || !clean => Exit::Runtime,
        Ok(false) => Exit::Ok,
    })
}

/// The nodes a `--per-node` run measures: every schedulable one (or those
/// the selector picks); those that cannot take a pod are said and left.
fn choose_nodes(cluster: &Cluster, selector: Option<&str>) -> Result<Vec<String>, String> {
    let all = cluster.nodes(selector).map_err(|e| e.to_string())?;
    for n in all.iter().filter(|n| !n.schedulable()) {
        eprintln!(
            "node {} left out: {}",
            n.name,
            n.lost()
                .unwrap_or_else(|| "cordoned or tainted NoSchedule".into())
        );
    }
    let nodes: Vec<String> = all
        .into_iter()
        .filter(|n| n.schedulable())
        .map(|n| n.name)
        .collect();
    if nodes.is_empty() {
        return Err(match selector {
            Some(s) => format!(
                "no schedulable node has the labels {s} (kubectl get nodes -l '{s}' lists them)"
            ),
            None => "the cluster has no schedulable node (kubectl get nodes)".into(),
        });
    }
    Ok(nodes)
}

/// The pods of the run, in the groups that measure at once: a class's
/// pods together, or with `--one-at-a-time` one node at a time.
fn groups(classes: &[ClassInfo], nodes: &[String], args: &RunArgs) -> Vec<Vec<Slot>> {
    let mut groups = Vec::new();
    for (class_index, class) in classes.iter().enumerate() {
        let slot = |index: usize, node: Option<&String>| Slot {
            class: class.name.clone(),
            provisioner: class.provisioner.clone(),
            class_index,
            index,
            node: node.cloned(),
        };
        if !args.per_node {
            groups.push(
                (0..args.work.pods as usize)
                    .map(|i| slot(i, None))
                    .collect(),
            );
        } else if args.one_at_a_time {
            groups.extend(
                nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| vec![slot(i, Some(n))]),
            );
        } else {
            groups.push(
                nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| slot(i, Some(n)))
                    .collect(),
            );
        }
    }
    groups
}

/// One class: create, follow, collect. `Ok(true)` when interrupted.
fn run_class(
    cluster: &Cluster,
    plan: &RunPlan,
    slots: &[Slot],
    args: &RunArgs,
    stop: &std::sync::atomic::AtomicBool,
    gathered: &mut Gathered,
) -> Result<bool, ClusterError> {
    let mut owners = Vec::new();
    for slot in slots {
        let uid = cluster.create(&plan.job(slot, true))?;
        if plan.host_path.is_none() {
            cluster.create(&plan.pvc(slot, Some(&uid)))?;
        }
        owners.push((plan.name(slot), uid));
    }
    let class_index = slots[0].class_index;
    for object in [
        plan.config_map(class_index, &owners),
        plan.secret(class_index, &owners),
    ]
    .into_iter()
    .flatten()
    {
        cluster.create(&object)?;
    }
    for slot in slots {
        cluster.resume_job(&plan.name(slot))?;
    }
    let watched = super::watch::follow(cluster, plan, slots, args.pending_timeout, stop)?;
    if watched.interrupted {
        return Ok(true);
    }
    gathered.add(cluster, &watched.pods);
    Ok(false)
}

/// Deletes every object of the run and waits until the cluster has
/// removed them; false (and the names on stderr) when some remain. The
/// objects of pods on lost nodes (`lost`: their Jobs' names) are deleted
/// but not waited for: only their node can confirm it (`say`: name them).
fn remove_run(cluster: &Cluster, run_id: &str, lost: &[String], say: bool) -> bool {
    let result = cluster
        .delete_owned(Some(run_id))
        .and_then(|_| cluster.wait_gone(Some(run_id), GONE_TIMEOUT, lost));
    let spared = cluster
        .owned(Some(run_id))
        .unwrap_or_default()
        .into_iter()
        .filter(|o| {
            lost.iter()
                .any(|l| cluster::objects::belongs_to(&o.name, l))
        })
        .map(|o| o.to_string())
        .collect::<Vec<_>>();
    if say && !spared.is_empty() {
        eprintln!(
            "deleted, but held by a lost node until its kubelet is back (or the node is removed): {}; \
             Kubernetes removes them then (`diskbench kube cleanup --run {run_id}` checks)",
            spared.join(", ")
        );
    }
    // The last word on the run: not clean while a lost node holds some.
    let held = say && !spared.is_empty();
    match result {
        Ok(left) if left.is_empty() => !held,
        Ok(left) => {
            let names: Vec<String> = left.iter().map(ToString::to_string).collect();
            eprintln!(
                "diskbench kube run: still in the cluster after {} s: {}; `diskbench kube cleanup --run {run_id}` removes them",
                GONE_TIMEOUT.as_secs(),
                names.join(", ")
            );
            false
        }
        Err(e) => {
            eprintln!("diskbench kube run: deleting the run's objects failed: {e}; `diskbench kube cleanup --run {run_id}` removes them");
            false
        }
    }
}

/// `kube manifests`: the objects of a run as YAML. Nothing owns the PVCs
/// (a Job's uid exists only once it is applied): `kube collect RUN
/// --delete` or `kube cleanup --run RUN` removes them, and the Jobs' TTL
/// removes the Jobs.
pub fn manifests(args: ManifestArgs) -> anyhow::Result<Exit> {
    if args.work.storage_class.is_empty() {
        eprintln!("diskbench kube manifests: name the classes with --storage-class (manifests are written without asking the cluster)");
        return Ok(Exit::Usage);
    }
    let job_file = match args.work.job_text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("diskbench kube manifests: {e}");
            return Ok(Exit::Usage);
        }
    };
    let run_id = soak::new_soak_id();
    let plan = match args.work.plan(
        run_id.clone(),
        args.work.image()?,
        job_file,
        args.db.as_deref(),
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench kube manifests: {e}");
            return Ok(Exit::Usage);
        }
    };
    if plan.db_password.is_some() {
        eprintln!(
            "diskbench kube manifests: the history's password is in a Secret among these objects: \
             keep the file out of any repository others read, or apply the Secret apart"
        );
    }
    let mut objects = Vec::new();
    for (class_index, class) in args.work.storage_class.iter().enumerate() {
        objects.extend(plan.secret(class_index, &[]));
        objects.extend(plan.config_map(class_index, &[]));
        for index in 0..args.work.pods as usize {
            let slot = Slot {
                class: class.clone(),
                provisioner: String::new(),
                class_index,
                index,
                node: None,
            };
            objects.push(plan.pvc(&slot, None));
            objects.push(plan.job(&slot, false));
        }
    }
    println!(
        "# diskbench kube run {run_id}: apply with kubectl apply -f FILE; when its Jobs are done, \
         gather the results with: diskbench kube collect {run_id} --delete"
    );
    print!("{}", cluster::yaml::documents(&objects));
    Ok(Exit::Ok)
}
