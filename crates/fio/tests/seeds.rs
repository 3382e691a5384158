//! The seeds' fio jobs (`fixtures/`, as the articles print them) parsed into
//! the JobSpecs the articles mean, and the errors where diskbench does not
//! carry them out yet. `crates/cli/tests/seeds.rs` runs them.

use diskbench_fio::{parse_args, FioError};
use model::{EngineKind, FileTarget, RwMode};
use std::path::Path;
use std::time::Duration;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn seed_001_names_fadvise_hint_at_its_line() {
    for (name, line) in [("seq-read", 5), ("random-write", 6), ("read-write", 6)] {
        let path = fixture(&format!("001_{name}.fio"));
        let e = parse_args(args(&[&path])).unwrap_err();
        assert_eq!(
            e.origin().map(|o| (o.file.as_str(), o.line)),
            Some((path.as_str(), line))
        );
        assert_eq!(
            e.innermost(),
            &FioError::NotCarriedOut("fadvise_hint".into())
        );
    }
}

#[test]
fn seed_001_without_fadvise_hint_is_what_the_article_describes() {
    let dir = tempfile::tempdir().unwrap();
    let mut specs = Vec::new();
    for name in ["seq-read", "random-write", "read-write"] {
        let text = std::fs::read_to_string(fixture(&format!("001_{name}.fio"))).unwrap();
        let kept: String = text
            .lines()
            .filter(|l| !l.contains("fadvise_hint"))
            .map(|l| format!("{l}\n"))
            .collect();
        let path = dir.path().join(format!("{name}.fio"));
        std::fs::write(&path, kept).unwrap();
        let parsed = parse_args(args(&[&path.display().to_string()])).unwrap();
        assert_eq!(parsed.groups.len(), 1);
        specs.push(parsed.jobs[0].clone());
    }
    for spec in &specs {
        assert_eq!(spec.bs_bytes, 16 << 10);
        assert!(spec.direct && spec.time_based);
        assert_eq!(spec.engine, EngineKind::Libaio);
        assert_eq!(spec.runtime, Some(Duration::from_secs(300)));
        assert!(
            matches!(&spec.target, FileTarget::Generated { directory, nrfiles: 1, .. }
            if directory == Path::new("/a/fio"))
        );
    }
    let [seq, rand, mix] = &specs[..] else {
        unreachable!()
    };
    assert_eq!(
        (seq.rw, seq.numjobs, seq.size_bytes),
        (RwMode::Read, 1, Some(40 << 30))
    );
    assert_eq!(
        (rand.rw, rand.numjobs, rand.size_bytes),
        (RwMode::RandWrite, 8, Some(5 << 30))
    );
    assert_eq!(
        (mix.rw, mix.numjobs, mix.rwmix_read_pct),
        (RwMode::ReadWrite, 8, 80)
    );
}

#[test]
fn seed_002_typo_gets_a_suggestion() {
    let text = std::fs::read_to_string(fixture("002_commands.txt")).unwrap();
    let first = text.split("\n\n").nth(1).unwrap().replace("\\\n", " ");
    let words: Vec<&str> = first.split_whitespace().skip(2).collect();
    let msg = parse_args(args(&words)).unwrap_err().to_string();
    assert!(
        msg.contains("ioengine=libio") && msg.contains("did you mean 'libaio'?"),
        "{msg}"
    );
    let fixed: Vec<String> = words.iter().map(|w| w.replace("libio", "libaio")).collect();
    let job = &parse_args(fixed).unwrap().jobs[0];
    assert_eq!(
        (job.rw, job.rwmix_read_pct, job.iodepth),
        (RwMode::RandRw, 70, 4)
    );
    assert_eq!(job.target, FileTarget::Named("/tmp/testfile".into()));
}

#[test]
fn seed_004_dashes_then_gtod_reduce() {
    let text = std::fs::read_to_string(fixture("004_commands.txt")).unwrap();
    let line = text.lines().next().unwrap();
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let e = parse_args(args(&words)).unwrap_err();
    assert!(matches!(e, FioError::TypographicDash(..)), "{e:?}");
    let dashed: Vec<String> = words.iter().map(|w| w.replace('\u{2013}', "--")).collect();
    let e = parse_args(dashed.clone()).unwrap_err();
    assert_eq!(e, FioError::NotCarriedOut("gtod_reduce".into()));
    let kept: Vec<String> = dashed
        .into_iter()
        .filter(|w| !w.contains("gtod_reduce"))
        .collect();
    let job = &parse_args(kept).unwrap().jobs[0];
    assert_eq!(
        (job.rw, job.rwmix_read_pct, job.iodepth),
        (RwMode::RandRw, 75, 64)
    );
    assert_eq!(job.size_bytes, Some(4 << 30));
}
