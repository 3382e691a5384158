//! The method's invariants, checked on small files: GoBonnieGo's sizes,
//! the 90/10 IOPS mix, the verification, the clean-up, bad options.

use super::*;
use std::io::{Seek, SeekFrom, Write};

fn small(dir: &Path) -> Options {
    Options {
        dir: dir.to_path_buf(),
        size_gib: 0.01,
        runs: 1,
        seconds: 0,
        threads: 2,
        iops_seconds: 0.3,
        drop_host_cache: true,
    }
}

fn no_events(_: &Event) {}

#[test]
fn file_sizes_are_gobonniegos() {
    // Figures from GoBonnieGo 1.0.10 itself (`-size 0.05 -threads 2`) and the sample (`-size 0.5`).
    let mut o = small(Path::new("/"));
    o.size_gib = 0.05;
    assert_eq!(o.total_bytes(), 53_477_376);
    o.size_gib = 0.5;
    assert_eq!(o.total_bytes(), 536_870_912);
    o.threads = 3;
    assert_eq!(o.file_bytes() % BLOCK_BYTES as u64, 0);
    assert!(o.total_bytes() >= 512 << 20);
    assert_eq!(default_size_gib(25_276_502_016), 47.080_078_125);
}

#[test]
fn bad_options_are_usage_errors() {
    let base = small(Path::new("/"));
    type Change = fn(&mut Options);
    let cases: [(&str, Change); 6] = [
        ("-size 0", |o| o.size_gib = 0.0),
        ("-size NaN", |o| o.size_gib = f64::NAN),
        ("under 1 MiB", |o| o.size_gib = 0.0005),
        ("-threads 0", |o| o.threads = 0),
        ("-runs 0", |o| o.runs = 0),
        ("-iops-duration", |o| o.iops_seconds = -1.0),
    ];
    for (want, change) in cases {
        let mut o = base.clone();
        change(&mut o);
        match o.validate() {
            Err(Error::Usage(m)) => assert!(m.contains(want), "{want}: {m}"),
            other => panic!("{want}: {other:?}"),
        }
    }
    assert!(base.validate().is_ok());
}

#[test]
fn a_run_measures_all_three_tests_with_a_90_10_mix_and_cleans_up() {
    let parent = tempfile::tempdir().unwrap();
    let mut events = Vec::new();
    let out = run(&small(parent.path()), &AtomicBool::new(false), &mut |e| {
        events.push(match e {
            Event::Started { .. } => "started",
            Event::Written { .. } => "written",
            Event::CacheDropped { .. } => "dropped",
            Event::Read { .. } => "read",
            Event::Iops { .. } => "iops",
        })
    });
    assert!(out.failure.is_none(), "{:?}", out.failure);
    assert_eq!(
        events,
        ["started", "written", "dropped", "read", "dropped", "iops"]
    );
    let f = &out.report.runs[0];
    assert_eq!(f.write_bytes, 10 << 20);
    assert_eq!(f.read_bytes, f.write_bytes);
    // 80 blocks per file: the 127th is never reached.
    assert_eq!(f.blocks_verified, 0);
    // Enough operations for the 9:1 mix to show (a quiet disk does
    // thousands in the 0.5 s; one busy with other builds' writes did 18).
    assert!(f.io_operations >= 10, "{f:?}");
    assert_eq!(f.io_reads + f.io_writes, f.io_operations);
    // Each thread's operations 0, 10, 20, ... are writes: ceil(n/10) per thread.
    let excess = 10 * f.io_writes - f.io_operations;
    assert!(
        excess <= 9 * 2,
        "{} writes of {}",
        f.io_writes,
        f.io_operations
    );
    assert!(f.io_time >= Duration::from_millis(300));
    assert_ne!(f.cache_before_read, CacheDrop::NotYet);
    assert!(!matches!(f.cache_before_iops, CacheDrop::Failed(_)));
    assert!(!out.report.dir.exists(), "the test directory is removed");
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
}

#[test]
fn the_read_test_finds_a_corrupted_block() {
    let parent = tempfile::tempdir().unwrap();
    let mut o = small(parent.path());
    o.size_gib = 0.02; // 160 blocks per file: block 127 is compared
    o.threads = 1;
    let mut corrupted = PathBuf::new();
    let out = run(&o, &AtomicBool::new(false), &mut |e| {
        if let Event::Written { files, .. } = e {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&files[0])
                .unwrap();
            f.seek(SeekFrom::Start(126 * BLOCK_BYTES as u64 + 100))
                .unwrap();
            f.write_all(b"not what was written").unwrap();
            corrupted = files[0].clone();
        }
    });
    match out.failure {
        Some(Error::Corrupt {
            path,
            block_offset,
            offset,
        }) => {
            assert_eq!(path, corrupted);
            assert_eq!(block_offset, 126 * BLOCK_BYTES as u64);
            assert!((block_offset..block_offset + 101).contains(&offset));
        }
        other => panic!("expected a corruption error, got {other:?}"),
    }
    assert!(out.report.runs.is_empty());
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
}

#[test]
fn verify_block_names_the_first_differing_byte() {
    let written = vec![7u8; BLOCK_BYTES];
    let p = Path::new("/x/bonnie.0");
    assert!(verify_block(&written, &written, p, 0).is_ok());
    let mut read = written.clone();
    read[4096] = 0;
    let e = verify_block(&written, &read, p, 1 << 20).unwrap_err();
    assert!(matches!(e, Error::Corrupt { offset, .. } if offset == (1 << 20) + 4096));
    let text = e.to_string();
    assert!(
        text.contains("/x/bonnie.0") && text.contains("1052672"),
        "{text}"
    );
}

#[test]
fn a_stop_ends_the_run_and_removes_the_files() {
    let parent = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let mut o = small(parent.path());
    o.iops_seconds = 30.0;
    let out = run(&o, &stop, &mut |e| {
        if let Event::Read { .. } = e {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    assert!(matches!(out.failure, Some(Error::Interrupted)));
    // Stopped inside the run, before its 30 s IOPS test: a run that went
    // on to its end would be in the report.
    assert!(out.report.runs.is_empty(), "{} runs", out.report.runs.len());
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
}

#[test]
fn more_than_the_free_space_is_refused_before_writing() {
    let parent = tempfile::tempdir().unwrap();
    let mut o = small(parent.path());
    o.size_gib = 1e9;
    let out = run(&o, &AtomicBool::new(false), &mut no_events);
    match out.failure {
        Some(Error::Usage(m)) => assert!(m.contains("free") && m.contains("-size"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
}

#[test]
fn the_document_has_gobonniegos_keys() {
    let parent = tempfile::tempdir().unwrap();
    let mut o = small(parent.path());
    o.runs = 2;
    o.iops_seconds = 0.1;
    let out = run(&o, &AtomicBool::new(false), &mut no_events);
    assert!(out.failure.is_none());
    let doc = serde_json::to_value(doc::Document::new(&out.report, None)).unwrap();
    let sample: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/gobonniego-1.0.10-runs2.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "diskbench")
            .cloned()
            .collect()
    };
    assert_eq!(keys(&doc), keys(&sample));
    assert_eq!(keys(&doc["results"][1]), keys(&sample["results"][0]));
    assert_eq!(doc["results"].as_array().unwrap().len(), 2);
    assert_eq!(doc["num_readers_and_writers"], 2);
    assert_eq!(doc["disk_space_used_gib"], 0.01);
    let r = &doc["results"][0];
    let mb = r["write_bytes"].as_f64().unwrap() / r["write_seconds"].as_f64().unwrap() / 1e6;
    assert!((mb - r["write_megabytes_per_second"].as_f64().unwrap()).abs() < 1e-6);
    assert!(r["diskbench"]["io_reads"].as_u64().unwrap() > 0);
}

#[test]
fn seconds_repeats_runs_and_a_missing_dir_is_made_then_removed() {
    let parent = tempfile::tempdir().unwrap();
    let mut o = small(&parent.path().join("made-here"));
    (o.runs, o.seconds, o.iops_seconds) = (0, 1, 0.2);
    let t = Instant::now();
    let out = run(&o, &AtomicBool::new(false), &mut no_events);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    // GoBonnieGo: keep starting runs until -seconds have passed since the
    // start. How many fit depends on the machine's load; what does not is
    // that the loop ended only after the second had passed, and that no run
    // started after it.
    assert!(t.elapsed() >= Duration::from_secs(1));
    assert!(!out.report.runs.is_empty());
    let deadline = out.report.start + Duration::from_secs(1);
    for (i, r) in out.report.runs.iter().enumerate() {
        assert!(
            r.start < deadline,
            "run {i} started after -seconds 1 had passed"
        );
    }
    assert!(out.report.dir.starts_with(parent.path().join("made-here")));
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
}
