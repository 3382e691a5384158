//! From pods to the history: each finished pod's log is read, its runs
//! taken from between the markers `kube pod` printed
//! (`cluster::results`), labelled with what the cluster knows of the pod
//! (its node and name), and saved. Saving merges by the runs' UUIDs, so a
//! run a pod already saved in a shared history (`--db postgresql://`), or
//! one collected before, is never saved twice.
//!
//! `kube collect RUN` does this for a run applied from `kube manifests`,
//! whose pods nobody followed.

use super::watch::{PodEnd, State};
use super::ClusterArgs;
use crate::args::DbArgs;
use crate::outcome::Exit;
use cluster::Cluster;
use model::RunRecord;

/// A pod that did not give its results, and the end of its log.
pub struct PodFailure {
    pub pod: String,
    pub why: String,
    pub log_tail: Vec<String>,
}

/// What the pods of a run gave.
#[derive(Default)]
pub struct Gathered {
    pub records: Vec<RunRecord>,
    pub failures: Vec<PodFailure>,
    /// Pods that finished and whose log held their results.
    pub gave: usize,
    /// The Jobs of pods whose node went away (their objects wait for it).
    pub lost: Vec<String>,
    /// Those nodes, for the table of nodes.
    pub lost_nodes: Vec<report::fleet::LostNode>,
}

/// Lines of a failed pod's log shown to the user.
const TAIL_LINES: usize = 15;

impl Gathered {
    /// Reads each pod's log that ran, keeps its runs (a failed pod's too:
    /// its partial results), and notes each failure with its log's end.
    pub fn add(&mut self, cluster: &Cluster, ends: &[PodEnd]) {
        for end in ends {
            let pod_name = end.pod.as_ref().map_or_else(
                || format!("{} pod {}", end.slot.class, end.slot.index + 1),
                |p| p.name.clone(),
            );
            if end.lost {
                self.lost.push(end.job.clone());
                let node = end.pod.as_ref().and_then(|p| p.node.clone());
                if let (Some(node), State::Failed(why)) =
                    (node.or(end.slot.node.clone()), &end.state)
                {
                    self.lost_nodes.push(report::fleet::LostNode {
                        class: end.slot.class.clone(),
                        node,
                        why: why.trim_start_matches("lost: ").to_string(),
                    });
                }
            }
            let log = match (&end.pod, end.started && !end.lost) {
                (Some(p), true) => match cluster.log(&p.name) {
                    Ok(log) => log,
                    Err(e) => {
                        self.fail(pod_name, format!("its log could not be read: {e}"), "");
                        continue;
                    }
                },
                _ => String::new(),
            };
            let found = cluster::results::parse(&log);
            for line in &found.runs {
                match serde_json::from_str::<RunRecord>(line) {
                    Ok(mut r) => {
                        r.id = 0;
                        if let Some(p) = &end.pod {
                            r.labels.insert("pod".into(), p.name.clone());
                            if let Some(node) = &p.node {
                                r.labels.insert("node".into(), node.clone());
                                // In the history each node is a host:
                                // `compare --by host` tells nodes apart
                                // even where their pods share a name.
                                r.result.host.hostname = node.clone();
                            }
                        }
                        self.records.push(r);
                    }
                    Err(e) => self.fail(
                        pod_name.clone(),
                        format!("a run in its log is not readable: {e}"),
                        "",
                    ),
                }
            }
            match &end.state {
                State::Failed(why) => self.fail(pod_name, why.clone(), &log),
                _ if !found.found => self.fail(
                    pod_name,
                    "its log holds no results (was it run by `diskbench kube pod`?)".into(),
                    &log,
                ),
                _ => self.gave += 1,
            }
        }
    }

    fn fail(&mut self, pod: String, why: String, log: &str) {
        let lines: Vec<String> = log
            .lines()
            .filter(|l| !l.starts_with('{'))
            .map(String::from)
            .collect();
        let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec();
        self.failures.push(PodFailure {
            pod,
            why,
            log_tail: tail,
        });
    }

    /// Each failure on stderr, with its log's last lines.
    pub fn report_failures(&self) {
        for f in &self.failures {
            eprintln!("pod {} failed: {}", f.pod, f.why);
            if !f.log_tail.is_empty() {
                eprintln!("  its log ends:");
                for l in &f.log_tail {
                    eprintln!("  | {l}");
                }
            }
        }
    }

    /// Saves the runs (merging by UUID), then prints each pod's figures and
    /// the comparison across classes.
    /// `per_node`: the table of nodes, each against the rest, too.
    pub fn save_and_print(&self, db: &DbArgs, run_id: &str, per_node: bool) -> anyhow::Result<()> {
        if self.records.is_empty() {
            eprintln!("no runs to save: no pod gave results");
            return Ok(());
        }
        let mut store = db.open()?;
        let merged = store.merge(&self.records)?;
        let see = match per_node {
            true => format!(
                "diskbench compare --label kube_run={run_id} --by node, or side by side: \
                 diskbench report --label kube_run={run_id} --by node -o nodes.html"
            ),
            false => format!("diskbench compare --label kube_run={run_id} --by storage_class"),
        };
        eprintln!(
            "saved {} runs in {} ({} there already); see them with: {see}",
            merged.added + merged.completed,
            store.path().display(),
            merged.present
        );
        if let Some(text) = fit_verdicts(&self.records, &self.lost_nodes) {
            print!("{text}");
            return Ok(());
        }
        if per_node {
            // A row per node, each against the rest; the runs are the
            // repeats of each node's pod, not pods to sum.
            print!("{}", report::fleet::table(&self.records, &self.lost_nodes));
            return Ok(());
        }
        print!("{}", report::pods::table(&self.records));
        println!();
        let by = vec![report::pods::CLASS.to_string()];
        let comparison = report::compare::compare(&self.records, &by);
        print!("{}", report::compare::render_table(&comparison));
        print!("{}", report::compare::noise::noise_text(&self.records, &by));
        Ok(())
    }
}

/// The pods' runs of `kube run --fit WORKLOAD` judged, each pod and each
/// class, with the pods lost with their node; `None` when the runs are not
/// a workload's checks.
fn fit_verdicts(records: &[RunRecord], lost: &[report::fleet::LostNode]) -> Option<String> {
    let name = records.iter().find_map(|r| {
        let w = r.result.workload.as_ref()?;
        (w.command == model::RunKind::Fit.name()).then(|| w.document["workload"].as_str())?
    })?;
    let workload = fit::catalogue::find(name).ok()?;
    fn label<'a>(r: &'a RunRecord, k: &str) -> &'a str {
        r.labels.get(k).map_or("?", String::as_str)
    }
    let pods: Vec<fit::pods::PodRun> = records
        .iter()
        .map(|r| fit::pods::PodRun {
            class: label(r, report::pods::CLASS),
            pod: label(r, report::pods::POD),
            node: label(r, report::pods::NODE),
            result: &r.result,
        })
        .collect();
    let lost: Vec<fit::pods::LostPod> = lost
        .iter()
        .map(|l| fit::pods::LostPod {
            class: &l.class,
            node: &l.node,
            why: &l.why,
        })
        .collect();
    Some(fit::pods::render(workload, &pods, &lost))
}

#[derive(clap::Args)]
pub struct CollectArgs {
    /// The run's id (as `kube manifests` printed it) [default: every diskbench run in the namespace]
    run: Option<String>,
    /// Remove the run's objects once its results are saved
    #[arg(long)]
    delete: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: CollectArgs) -> anyhow::Result<Exit> {
    let cluster = match args.cluster.connect("collect") {
        Ok(c) => c,
        Err(exit) => return Ok(exit),
    };
    let mut runs: Vec<String> = match &args.run {
        Some(r) => vec![r.clone()],
        None => cluster.owned(None)?.into_iter().map(|o| o.run_id).collect(),
    };
    runs.sort();
    runs.dedup();
    if runs.is_empty() {
        eprintln!(
            "diskbench kube collect: no diskbench run in namespace {} (no objects labelled {})",
            cluster.namespace,
            cluster::objects::selector(args.run.as_deref())
        );
        return Ok(Exit::Runtime);
    }
    let mut exit = Exit::Ok;
    for run_id in runs {
        let pods = cluster.pods(&run_id)?;
        let (finished, running): (Vec<_>, Vec<_>) = pods
            .into_iter()
            .partition(|p| matches!(p.phase.as_str(), "Succeeded" | "Failed"));
        let ends: Vec<PodEnd> = finished
            .into_iter()
            .map(|p| PodEnd {
                slot: cluster::objects::Slot {
                    class: String::new(),
                    provisioner: String::new(),
                    class_index: p.class_index,
                    index: p.index,
                    node: None,
                },
                state: if p.phase == "Succeeded" {
                    State::Done
                } else {
                    State::Failed(format!(
                        "its command exited with {}",
                        p.exit_code.unwrap_or(-1)
                    ))
                },
                started: true,
                lost: false,
                job: String::new(),
                pod: Some(p),
            })
            .collect();
        eprintln!(
            "run {run_id}: {} pods finished, {} not yet",
            ends.len(),
            running.len()
        );
        let mut gathered = Gathered::default();
        gathered.add(&cluster, &ends);
        fill_provisioners(&cluster, &mut gathered.records);
        gathered.report_failures();
        gathered.save_and_print(&args.db, &run_id, false)?;
        if !gathered.failures.is_empty() || !running.is_empty() {
            exit = Exit::Runtime;
        }
        if args.delete && running.is_empty() {
            let removed = cluster.delete_owned(Some(&run_id))?;
            eprintln!("removed {} objects of run {run_id}", removed.len());
        }
    }
    Ok(exit)
}

/// Pods from `kube manifests` could not know their class's provisioner.
fn fill_provisioners(cluster: &Cluster, records: &mut [RunRecord]) {
    let Ok(classes) = cluster.storage_classes() else {
        return;
    };
    for r in records {
        if r.labels.contains_key("provisioner") {
            continue;
        }
        let class = r.labels.get("storage_class").cloned().unwrap_or_default();
        if let Some(c) = classes.iter().find(|c| c.name == class) {
            r.labels.insert("provisioner".into(), c.provisioner.clone());
        }
    }
}
