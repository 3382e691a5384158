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
//! Whatever happens (a pod that fails, a refusal from the cluster,
//! Ctrl-C) everything the run created is deleted before it exits, and
//! it waits until the cluster has removed it: "zero objects left" is
//! checked, not hoped for.

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
    let classes = match choose_classes(&cluster, &args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            return Ok(Exit::Usage);
        }
    };
    let started = Instant::now();
    let run_id = soak::new_soak_id();
    let db = args
        .db
        .db
        .as_ref()
        .map(|p| p.display().to_string())
        .filter(|d| store::is_url(d));
    let plan = match args
        .work
        .plan(run_id.clone(), args.work.image()?, job_file, db.as_deref())
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("diskbench kube run: {e}");
            return Ok(Exit::Usage);
        }
    };
    eprintln!(
        "kube run {run_id}: {} x {} pod{} on {} PVCs in namespace {} at {}, image {}",
        classes.len(),
        args.work.pods,
        if args.work.pods == 1 { "" } else { "s" },
        plan.pvc_size,
        cluster.namespace,
        cluster.server,
        plan.image
    );
    let mut gathered = Gathered::default();
    let mut outcome: Result<bool, ClusterError> = Ok(false);
    for (class_index, class) in classes.iter().enumerate() {
        let slots: Vec<Slot> = (0..args.work.pods as usize)
            .map(|index| Slot {
                class: class.name.clone(),
                provisioner: class.provisioner.clone(),
                class_index,
                index,
            })
            .collect();
        eprintln!("{} ({}):", class.name, class.provisioner);
        outcome = run_class(&cluster, &plan, &slots, &args, &stop, &mut gathered);
        // The class's objects go before the next class starts.
        let left = remove_run(&cluster, &run_id);
        if matches!(outcome, Ok(true) | Err(_)) || !left {
            break;
        }
    }
    // Again, for what a failure between classes might have left.
    let clean = remove_run(&cluster, &run_id);
    gathered.report_failures();
    gathered.save_and_print(&args.db, &run_id)?;
    eprintln!(
        "{}",
        report::pods::last_line(
            &run_id,
            started.elapsed(),
            gathered.gave,
            classes.len() * args.work.pods as usize,
            clean
        )
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
        cluster.create(&plan.pvc(slot, Some(&uid)))?;
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
/// removed them; false (and the names on stderr) when some remain.
fn remove_run(cluster: &Cluster, run_id: &str) -> bool {
    let result = cluster
        .delete_owned(Some(run_id))
        .and_then(|_| cluster.wait_gone(Some(run_id), GONE_TIMEOUT));
    match result {
        Ok(left) if left.is_empty() => true,
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
