//! The options that shape what is reported (`percentile_list`,
//! `clat_percentiles`, `lat_percentiles`, `description`) and the two the
//! articles diskbench grew from need (`fadvise_hint`, `gtod_reduce`), with fio 3.33's defaults.

use super::*;
use model::FadviseHint;

const JOB: [&str; 3] = ["--name=a", "--size=1m", "--ioengine=null"];

fn job(extra: &[&str]) -> model::JobSpec {
    let args: Vec<&str> = JOB.iter().chain(extra).copied().collect();
    ok(&args).jobs.remove(0)
}

#[test]
fn fios_defaults() {
    let j = job(&[]);
    assert_eq!(j.fadvise_hint, FadviseHint::Workload);
    assert!(!j.gtod_reduce);
    assert_eq!(j.percentile_list, model::DEFAULT_PERCENTILES.to_vec());
    assert!(j.clat_percentiles && !j.lat_percentiles);
    assert_eq!(j.description, None);
}

#[test]
fn values_as_fio_takes_them() {
    let j = job(&[
        "--percentile_list=99:50:99.9",
        "--lat_percentiles",
        "--clat_percentiles=0",
        "--description=two words",
        "--fadvise_hint=random",
        "--gtod_reduce=1",
    ]);
    // fio 3.33 sorts the list: `99:50` reports 50 first.
    assert_eq!(j.percentile_list, vec![50.0, 99.0, 99.9]);
    assert!(j.lat_percentiles && !j.clat_percentiles);
    assert_eq!(j.description.as_deref(), Some("two words"));
    assert_eq!(j.fadvise_hint, FadviseHint::Random);
    assert!(j.gtod_reduce);
    for (text, hint) in [
        ("0", FadviseHint::None),
        ("1", FadviseHint::Workload),
        ("sequential", FadviseHint::Sequential),
        ("normal", FadviseHint::Normal),
    ] {
        let arg = format!("--fadvise_hint={text}");
        assert_eq!(job(&[&arg]).fadvise_hint, hint);
    }
}

#[test]
fn gtod_reduce_is_said_on_stderr_once() {
    let args = ok(&[
        "--gtod_reduce=1",
        "--name=a",
        "--size=1m",
        "--name=b",
        "--size=1m",
    ]);
    let notes: Vec<_> = args
        .warnings
        .iter()
        .filter(|w| w.contains("gtod_reduce=1: diskbench keeps measuring latencies"))
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", args.warnings);
    assert!(ok(&JOB).warnings.is_empty());
}

#[test]
fn bad_values_name_the_option() {
    for (arg, part) in [
        ("--percentile_list=50:abc", "'abc' is not a number"),
        ("--percentile_list=101", "each must be from 0 to 100"),
        (
            "--fadvise_hint=willneed",
            "use 0, 1, sequential, random or normal",
        ),
    ] {
        let args: Vec<&str> = JOB.iter().copied().chain([arg]).collect();
        let msg = parse(&args).unwrap_err().to_string();
        assert!(msg.contains(part), "{msg}");
    }
    let many = format!("--percentile_list={}", vec!["50"; 21].join(":"));
    let args: Vec<&str> = JOB.iter().copied().chain([many.as_str()]).collect();
    assert!(parse(&args).unwrap_err().to_string().contains("1 to 20"));
}

#[test]
fn parse_only_echoes_them() {
    let j = job(&[
        "--fadvise_hint=0",
        "--percentile_list=50:99.9",
        "--description=x y",
    ]);
    let line = crate::job_line(&j, false);
    assert!(line.contains("--fadvise_hint=0"), "{line}");
    assert!(line.contains("--percentile_list=50:99.9"), "{line}");
    assert!(line.contains("--description='x y'"), "{line}");
}

#[test]
fn log_compression_and_store_compressed() {
    let j = job(&["--write_bw_log=b", "--log_compression=10k"]);
    assert_eq!(j.logs.compression, 10 * 1024);
    assert!(!j.logs.store_compressed);
    let j = job(&["--write_bw_log=b", "--log_store_compressed=1"]);
    assert!(j.logs.store_compressed);
    // The histogram log is not stored compressed: refused, not written plain.
    let msg = refusal(&JOB, &["--write_hist_log=h", "--log_store_compressed=1"]);
    assert!(
        msg.contains("log_store_compressed") && msg.contains("drop write_hist_log"),
        "{msg}"
    );
}

#[test]
fn unified_rw_reporting_takes_fios_names_and_numbers() {
    use model::UnifiedRw;
    assert_eq!(job(&[]).unified_rw, UnifiedRw::None);
    for (value, want) in [
        ("none", UnifiedRw::None),
        ("0", UnifiedRw::None),
        ("mixed", UnifiedRw::Mixed),
        ("1", UnifiedRw::Mixed),
        ("both", UnifiedRw::Both),
        ("2", UnifiedRw::Both),
    ] {
        let opt = format!("--unified_rw_reporting={value}");
        assert_eq!(job(&[&opt]).unified_rw, want, "{value}");
    }
    let msg = refusal(&JOB, &["--unified_rw_reporting=3"]);
    assert!(msg.contains("mixed (1"), "{msg}");
}
