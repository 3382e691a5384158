//! The fio jobs of the articles diskbench grew from (`fixtures/`, as the articles print them) parsed into
//! the JobSpecs the articles mean, unchanged (the article's own typos aside).
//! `crates/cli/tests/seeds.rs` runs them.

use diskbench_fio::{parse_args, FioError};
use model::{EngineKind, FadviseHint, FileTarget, RwMode};
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
fn adventures_in_storageland_is_what_the_article_describes() {
    let mut specs = Vec::new();
    for name in ["seq-read", "random-write", "read-write"] {
        let path = fixture(&format!("001_{name}.fio"));
        let parsed = parse_args(args(&[&path])).unwrap();
        assert_eq!(parsed.groups.len(), 1);
        specs.push(parsed.jobs[0].clone());
    }
    for spec in &specs {
        assert_eq!(spec.bs_bytes, 16 << 10);
        assert_eq!(spec.fadvise_hint, FadviseHint::None);
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
fn the_ebs_benchmark_typo_gets_a_suggestion() {
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
fn the_aws_vs_digitalocean_article_dashes_then_runs_with_gtod_reduce() {
    let text = std::fs::read_to_string(fixture("004_commands.txt")).unwrap();
    let line = text.lines().next().unwrap();
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let e = parse_args(args(&words)).unwrap_err();
    assert!(matches!(e, FioError::TypographicDash(..)), "{e:?}");
    let dashed: Vec<String> = words.iter().map(|w| w.replace('\u{2013}', "--")).collect();
    let parsed = parse_args(dashed).unwrap();
    assert!(parsed
        .warnings
        .iter()
        .any(|w| w.starts_with("gtod_reduce=1")));
    let job = &parsed.jobs[0];
    assert!(job.gtod_reduce);
    assert_eq!(
        (job.rw, job.rwmix_read_pct, job.iodepth),
        (RwMode::RandRw, 75, 64)
    );
    assert_eq!(job.size_bytes, Some(4 << 30));
}
