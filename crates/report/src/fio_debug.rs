//! What `diskbench fio --debug=random` prints: the seeds each job's clones
//! drew their random numbers from, in fio's debug layout (the category
//! padded to 8 columns, the process id to 5, then the message), at the head
//! of the output (the `--output` file when one is given), as fio prints its
//! debug lines. Scripts compare these lines across runs to check that
//! `randrepeat` and `randseed` give the same sequence again, or a new one.
//!
//! fio keeps one seed per generator (24 in fio 3.42, `FIO_RAND_NR_OFFS`);
//! diskbench derives all of a clone's random numbers from one seed, so it
//! says `FIO_RAND_NR_OFFS=1` and prints that seed as `rand_seeds[0]`. A
//! job whose seed came from the system (`randrepeat=0` with no `randseed=`)
//! first says so, as fio does.

use model::RunResult;

/// The `random` debug lines of every job's clones; `pid` is the process's.
pub fn random_seeds(result: &RunResult, pid: u32) -> String {
    let line = |text: String| format!("{:<8} {pid:<5} {text}\n", "random");
    let mut out = String::new();
    for job in &result.jobs {
        for seed in &job.seeds {
            if job.spec.repeatable_seed().is_none() {
                out.push_str(&line("using system RNG for random seeds".into()));
            }
            out.push_str(&line("FIO_RAND_NR_OFFS=1".into()));
            out.push_str(&line(format!("rand_seeds[0]={seed}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;

    #[test]
    fn one_seed_per_clone_in_fios_layout() {
        let mut result = testutil::sample_run();
        result.jobs[0].seeds = vec![7, 1 << 40];
        let text = random_seeds(&result, 42);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "random   42    FIO_RAND_NR_OFFS=1",
                "random   42    rand_seeds[0]=7",
                "random   42    FIO_RAND_NR_OFFS=1",
                "random   42    rand_seeds[0]=1099511627776",
            ]
        );
        result.jobs[0].spec.randrepeat = false;
        let text = random_seeds(&result, 42);
        assert!(
            text.starts_with("random   42    using system RNG"),
            "{text}"
        );
        result.jobs[0].spec.randseed_given = true;
        assert!(!random_seeds(&result, 42).contains("system RNG"));
    }
}
