use crate::{parse_args, Eta, FioError, Info, OutputFormat};
use std::time::Duration;

fn parse(args: &[&str]) -> Result<crate::FioArgs, FioError> {
    parse_args(args.iter().map(|s| s.to_string()))
}

const JOB: [&str; 3] = ["--name=a", "--ioengine=null", "--size=1m"];

fn with(extra: &[&str]) -> Result<crate::FioArgs, FioError> {
    parse(&[extra, &JOB].concat())
}

#[test]
fn minimal_and_append_terse_choose_terse() {
    assert_eq!(
        with(&["--minimal"]).unwrap().output_format,
        [OutputFormat::Terse]
    );
    assert_eq!(
        with(&["--append-terse"]).unwrap().output_format,
        [OutputFormat::Normal, OutputFormat::Terse]
    );
    assert_eq!(
        with(&["--output-format=json", "--append-terse"])
            .unwrap()
            .output_format,
        [OutputFormat::Json, OutputFormat::Terse]
    );
    assert_eq!(
        with(&["--output-format=ndjson"]).unwrap().output_format,
        [OutputFormat::Ndjson]
    );
}

#[test]
fn timing_options_are_read_in_seconds_unless_a_unit_is_given() {
    let p = with(&["--status-interval=2", "--eta-newline=500ms", "--eta=never"]).unwrap();
    assert_eq!(p.cli.status_interval, Some(Duration::from_secs(2)));
    assert_eq!(p.cli.eta_newline, Some(Duration::from_millis(500)));
    assert_eq!(p.cli.eta, Eta::Never);
    assert!(with(&["--status-interval=0"]).is_err());
    assert!(with(&["--eta-interval=249ms"]).is_err());
    assert!(with(&["--eta-interval", "250ms"]).is_ok());
}

#[test]
fn info_requests_need_no_job() {
    assert_eq!(parse(&["--version"]).unwrap().info, Some(Info::Version));
    assert_eq!(
        parse(&["--cmdhelp"]).unwrap().info,
        Some(Info::CmdHelp(None))
    );
    assert_eq!(
        parse(&["--enghelp=io_uring"]).unwrap().info,
        Some(Info::EngHelp(Some("io_uring".into())))
    );
    assert_eq!(parse(&["--debug=?"]).unwrap().info, Some(Info::DebugHelp));
    let text = crate::info_text(&Info::Version).unwrap().unwrap();
    assert_eq!(text, "fio-3.33\n");
}

#[test]
fn sizes_of_fios_internals_are_checked() {
    let p = with(&["--max-jobs=8", "--alloc-size=65536"]).unwrap();
    assert_eq!(
        (p.cli.max_jobs, p.cli.alloc_size_kib),
        (Some(8), Some(65536))
    );
    assert!(with(&["--max-jobs=0"]).is_err());
    assert!(with(&["--max-jobs=many"]).is_err());
}

#[test]
fn debug_categories_are_fios() {
    let p = with(&["--debug=file,parse,job:2"]).unwrap();
    assert_eq!(p.cli.debug, ["file", "parse", "job:2"]);
    let e = with(&["--debug=fiel"]).unwrap_err().to_string();
    assert!(e.contains("did you mean 'file'"), "{e}");
}

#[test]
fn bandwidth_log_prefix_defaults_to_agg() {
    assert_eq!(
        with(&["--bandwidth-log"])
            .unwrap()
            .cli
            .bandwidth_log
            .as_deref(),
        Some("agg")
    );
    assert_eq!(
        with(&["--bandwidth-log=run1"])
            .unwrap()
            .cli
            .bandwidth_log
            .as_deref(),
        Some("run1")
    );
}

#[test]
fn remote_options_are_refused_with_the_alternative() {
    let e = with(&["--client=h"]).unwrap_err();
    assert_eq!(e, FioError::Remote("client".into()));
    assert!(e.to_string().contains("postgresql://"));
}
