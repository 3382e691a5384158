//! Library tests of `diskbench meta`: every phase touches every file once,
//! the layout (directories, sizes, names) is bonnie++'s, threads share the
//! work, and stops and bad input leave nothing behind.

use super::spec::sequential_index;
use super::*;
use std::collections::BTreeMap;

fn opts(files: u64, spec: &str, threads: u32) -> MetaOptions {
    MetaOptions {
        spec: FileSpec::parse(spec).unwrap(),
        files: Some(files),
        threads,
        seed: 42,
        phase_time: None,
    }
}

/// Regular files and their sizes, by directory.
type Listing = BTreeMap<PathBuf, Vec<(String, u64)>>;

/// Regular files under `dir` (one level of subdirectories), with sizes, by directory.
fn listing(dir: &Path) -> Listing {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(listing(&e.path()));
        } else {
            let name = e.file_name().to_string_lossy().into_owned();
            let entry: &mut Vec<_> = out.entry(dir.to_path_buf()).or_default();
            entry.push((name, e.metadata().unwrap().len()));
        }
    }
    out
}

/// Records each phase and what the files looked like after it.
#[derive(Default)]
struct Recorder {
    started: Vec<Phase>,
    after: Vec<(Phase, Listing)>,
}
impl Observer for Recorder {
    fn phase_started(&mut self, phase: Phase) {
        self.started.push(phase);
    }
    fn phase_finished(&mut self, r: &PhaseResult, files_dir: &Path) {
        self.after.push((r.phase, listing(files_dir)));
    }
}

#[test]
fn meta_parses_bonnie_n_values() {
    assert_eq!(FileSpec::parse("16").unwrap(), FileSpec::default());
    let s = FileSpec::parse("16:4k:1024:16").unwrap();
    assert_eq!(
        (s.num, s.max_bytes, s.min_bytes, s.dirs),
        (16, 4096, 1024, 16)
    );
    assert_eq!(s.files(), 16384);
    let s = FileSpec::parse("2:100").unwrap();
    assert_eq!((s.max_bytes, s.min_bytes, s.dirs), (100, 0, 1));
    assert_eq!(FileSpec::parse("1:::4").unwrap().dirs, 4);
    assert_eq!(FileSpec::parse("1:0:0:1:64k").unwrap().chunk_bytes, 65536);
}

#[test]
fn meta_refuses_bad_n_values_naming_the_fix() {
    for (text, says) in [
        ("0", "NUM 0"),
        ("abc", "not a whole number"),
        ("", "NUM is missing"),
        ("1:10:100", "MIN (100) is larger than MAX (10)"),
        ("1:0:0:0", "DIRS must be 1 to"),
        ("1:0:0:100000", "DIRS must be 1 to"),
        ("1:-1", "not supported"),
        ("1:4x", "MAX"),
        ("1:4k:1k:4:1000", "power of two"),
        ("1:2:1:3:4k:9", "too many fields"),
    ] {
        let e = FileSpec::parse(text).unwrap_err().to_string();
        assert!(e.contains(says), "-n {text}: {e}");
    }
}

#[test]
fn meta_names_sort_in_creation_order_only_when_sequential() {
    let seq: Vec<_> = (0..500).map(|i| file_name(7, i, false)).collect();
    assert!(seq.windows(2).all(|w| w[0] < w[1]));
    assert!(seq.iter().all(|n| (10..=22).contains(&n.len())));
    for (i, n) in seq.iter().enumerate() {
        assert_eq!(sequential_index(n.as_bytes()), Some(i as u64));
    }
    let random: Vec<_> = (0..500).map(|i| file_name(7, i, true)).collect();
    assert!(
        random.windows(2).any(|w| w[0] > w[1]),
        "random names look random"
    );
    for (i, n) in random.iter().enumerate() {
        assert!(n.ends_with(&format!("{i:010x}")), "{n}");
    }
    assert_eq!(file_name(7, 3, true), file_name(7, 3, true));
}

#[test]
fn meta_sizes_stay_within_min_max_and_cover_it() {
    let sizes: Vec<_> = (0..20_000).map(|i| file_size(9, 1024, 4096, i)).collect();
    assert!(sizes.iter().all(|s| (1024..=4096).contains(s)));
    assert_eq!(sizes.iter().min(), Some(&1024));
    assert_eq!(sizes.iter().max(), Some(&4096));
    assert!((0..100).all(|i| file_size(9, 0, 0, i) == 0));
    assert!((0..100).all(|i| file_size(9, 512, 512, i) == 512));
}

#[test]
fn meta_each_phase_touches_every_file_once_spread_over_dirs() {
    let parent = tempfile::tempdir().unwrap();
    let o = opts(300, "1:3000:100:7", 1);
    let stop = AtomicBool::new(false);
    let mut rec = Recorder::default();
    let out = run(&o, parent.path(), &stop, &mut rec);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let names: Vec<_> = out.result.phases.iter().map(|p| p.phase).collect();
    assert_eq!(names, Phase::ALL);
    assert_eq!(rec.started, Phase::ALL);
    for p in &out.result.phases {
        assert_eq!(p.files, 300, "{}", p.phase.name());
        assert_eq!(p.latency.count(), 300, "{}", p.phase.name());
        assert_eq!(p.sync.is_zero(), !p.phase.syncs(), "{}", p.phase.name());
    }
    for (phase, files) in &rec.after {
        match phase.op() {
            Op::Create | Op::Stat => {
                assert_eq!(files.len(), 7, "{phase:?}: 7 directories hold files");
                let per_dir: Vec<_> = files.values().map(Vec::len).collect();
                assert!(per_dir.iter().all(|n| (42..=43).contains(n)), "{per_dir:?}");
                let all: Vec<_> = files.values().flatten().collect();
                assert_eq!(all.len(), 300);
                for (name, size) in all {
                    assert!((100..=3000).contains(size), "{name}: {size}");
                    let digits = if phase.is_random() {
                        &name[name.len() - 10..]
                    } else {
                        &name[..10]
                    };
                    let index = u64::from_str_radix(digits, 16).unwrap();
                    assert_eq!(*name, file_name(42, index, phase.is_random()));
                    assert_eq!(*size, file_size(42, 100, 3000, index), "{name}");
                }
            }
            Op::Delete => assert!(files.is_empty(), "{phase:?} left {files:?}"),
        }
    }
    let written = out.result.phases[0].bytes;
    assert_eq!(
        out.result.phases[1].bytes, written,
        "stat reads back every byte"
    );
    assert_eq!(
        written,
        (0..300).map(|i| file_size(42, 100, 3000, i)).sum::<u64>()
    );
    assert!(std::fs::read_dir(parent.path()).unwrap().next().is_none());
}

#[test]
fn meta_threads_share_the_files_even_in_one_directory() {
    for (spec, threads) in [("1", 3), ("1:10:0:2", 3), ("1:0:0:6", 2)] {
        let parent = tempfile::tempdir().unwrap();
        let stop = AtomicBool::new(false);
        let mut rec = Recorder::default();
        let out = run(&opts(301, spec, threads), parent.path(), &stop, &mut rec);
        assert!(out.failure.is_none(), "{spec}: {:?}", out.failure);
        for p in &out.result.phases {
            assert_eq!((p.files, p.latency.count()), (301, 301), "{spec} {p:?}");
        }
        let created: usize = rec.after[0].1.values().map(Vec::len).sum();
        assert_eq!(created, 301);
        assert!(std::fs::read_dir(parent.path()).unwrap().next().is_none());
    }
}

/// Stops the run when a phase ends, as a signal would.
struct StopAfter<'a>(Phase, &'a AtomicBool);
impl Observer for StopAfter<'_> {
    fn phase_finished(&mut self, r: &PhaseResult, _: &Path) {
        if r.phase == self.0 {
            self.1.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn meta_stop_keeps_finished_phases_and_removes_the_files() {
    let parent = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let mut obs = StopAfter(Phase::SequentialStat, &stop);
    let out = run(&opts(200, "1:100", 2), parent.path(), &stop, &mut obs);
    assert!(matches!(out.failure, Some(RunError::Interrupted)));
    assert_eq!(out.result.phases.len(), 2);
    assert!(std::fs::read_dir(parent.path()).unwrap().next().is_none());
}

#[test]
fn meta_refuses_unusable_targets_and_options() {
    let parent = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let usage = |o: &MetaOptions, dir: &Path, says: &str| {
        let out = run(o, dir, &stop, &mut Quiet);
        match out.failure {
            Some(e) if e.kind() == model::FailureKind::Usage => {
                assert!(e.to_string().contains(says), "{e}")
            }
            other => panic!("expected a usage error with '{says}', got {other:?}"),
        }
        assert!(out.result.phases.is_empty());
    };
    usage(
        &opts(10, "1", 1),
        &parent.path().join("nope"),
        "does not exist",
    );
    let huge = MetaOptions {
        files: None,
        ..opts(0, "1024:1t", 1)
    };
    usage(&huge, parent.path(), "free");
    usage(&opts(10, "1", 0), parent.path(), "--threads 0");
    usage(&opts(10, "1", 11), parent.path(), "--threads 11");
    usage(&opts(10, "1:0:0:11", 1), parent.path(), "DIRS 11");
    assert!(std::fs::read_dir(parent.path()).unwrap().next().is_none());
}

/// `--runtime`: a phase done sooner than its time is repeated over the
/// same files, so each phase has a figure from (about) that long, and the
/// files are exactly those created once the last phase is over.
#[test]
fn meta_phase_time_repeats_short_phases_and_leaves_the_files_as_they_were() {
    let parent = tempfile::tempdir().unwrap();
    let time = Duration::from_millis(300);
    let o = MetaOptions {
        phase_time: Some(time),
        ..opts(50, "1:0:0:2", 2)
    };
    let stop = AtomicBool::new(false);
    let mut rec = Recorder::default();
    let started = std::time::Instant::now();
    let out = run(&o, parent.path(), &stop, &mut rec);
    let wall = started.elapsed();
    assert!(out.failure.is_none(), "{:?}", out.failure);
    assert_eq!(out.result.phases.len(), 6);
    // The run is over by 1.5 times its six phases' time; the syncs of a
    // last pass and removing the files may add a little (2 s of slack for
    // a loaded machine).
    let run_budget = time.mul_f64(WALL_BUDGET) * 6;
    assert!(wall < run_budget + Duration::from_secs(2), "{wall:?}");
    for p in &out.result.phases {
        let budget = time.mul_f64(WALL_BUDGET);
        assert!(p.passes >= 1, "{}: {} passes", p.phase.name(), p.passes);
        // 50 files in two threads take far under 300 ms: repeated, until
        // the passes add up to the time or the phase's wall time ran out
        // first: each pass starts its threads again, outside the clock, and
        // a phase that starts late (earlier phases' syncs on a loaded
        // machine) is given what is left of the run's time. So a stat phase
        // is asked to repeat, not to fill its time.
        if p.phase.op() == Op::Stat {
            assert!(p.passes > 1, "{}: {} passes", p.phase.name(), p.passes);
        }
        assert_eq!(p.latency.count(), p.files, "{}", p.phase.name());
        assert!(
            p.files >= 50 || p.elapsed >= time,
            "{}: {} files in {:?}",
            p.phase.name(),
            p.files,
            p.elapsed
        );
        assert!(
            p.elapsed < budget + Duration::from_secs(5),
            "{}: {:?}",
            p.phase.name(),
            p.elapsed
        );
    }
    for (phase, files) in &rec.after {
        let count: usize = files.values().map(Vec::len).sum();
        match phase.op() {
            // Cut at the time, or all 50; stat leaves what create made.
            Op::Create | Op::Stat => assert!((1..=50).contains(&count), "{phase:?}: {count}"),
            Op::Delete => assert_eq!(count, 0, "{phase:?} left {files:?}"),
        }
    }
    assert!(std::fs::read_dir(parent.path()).unwrap().next().is_none());
}
