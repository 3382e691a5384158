//! fio's random seeds end to end: `randseed=` fixes the sequence even with
//! `randrepeat=0` (fio lets it override), `randrepeat=1` repeats it,
//! `randrepeat=0` alone takes a fresh one each run, and `--debug=random`
//! prints each clone's seed at the head of the output, in fio's layout
//! (`random   PID   rand_seeds[0]=N`), with nothing on stderr. Scripts
//! (fio's own `t/random_seed.py`) compare these lines across runs. The
//! jobs use the null engine sized by `filesize=` alone, as fio allows.

mod common;
use common::*;

/// The seeds `--debug=random` printed for one run of a small random-read
/// job with `extra` options; stderr must stay empty, as fio's does.
fn seeds(extra: &[&str]) -> Vec<u64> {
    let dir = real_dir();
    let out = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--no-save",
            "--debug=random",
            "--name=seeded",
            "--ioengine=null",
            "--filesize=32k",
            "--rw=randread",
            "--output=out.txt",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "stderr stays empty, as fio's");
    let text = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
    assert!(text.contains("(groupid=0"), "the report follows: {text}");
    let seeds: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("random ") && l.contains("rand_seeds["))
        .map(|l| l.rsplit('=').next().unwrap().parse().unwrap())
        .collect();
    assert!(!seeds.is_empty(), "no seed lines in: {text}");
    seeds
}

#[test]
fn randseed_overrides_randrepeat_and_sets_the_sequence() {
    let a = seeds(&["--randrepeat=0", "--randseed=12345"]);
    assert_eq!(a, seeds(&["--randrepeat=0", "--randseed=12345"]));
    assert_eq!(a, seeds(&["--randrepeat=1", "--randseed=12345"]));
    assert_ne!(a, seeds(&["--randrepeat=0", "--randseed=67890"]));
}

#[test]
fn randrepeat_repeats_and_randrepeat_0_draws_fresh_seeds() {
    let fixed = seeds(&["--randrepeat=1"]);
    assert_eq!(fixed, seeds(&["--allrandrepeat=1"]));
    let fresh = seeds(&["--randrepeat=0"]);
    assert_ne!(fresh, seeds(&["--randrepeat=0"]));
    assert_ne!(fresh, fixed);
}

#[test]
fn each_clone_prints_its_own_seed() {
    let s = seeds(&["--randseed=7", "--numjobs=3"]);
    assert_eq!(s.len(), 3, "{s:?}");
    assert!(s[0] != s[1] && s[1] != s[2], "{s:?}");
}
