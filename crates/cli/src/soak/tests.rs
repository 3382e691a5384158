use super::*;

#[test]
fn the_plan_says_when_to_stop() {
    let s = Duration::from_secs;
    let none: Vec<JobVerdict> = Vec::new();
    let p = Plan {
        runs: Some(3),
        duration: None,
        pause: Duration::ZERO,
        until: None,
        recovery: None,
    };
    assert!(p.more_after(2, s(100), &none, &[]) && !p.more_after(3, s(0), &none, &[]));
    let p = Plan {
        runs: None,
        duration: Some(s(3)),
        pause: Duration::from_millis(200),
        ..p
    };
    assert!(p.more_after(9, s(2), &none, &[]));
    assert!(
        !p.more_after(1, Duration::from_millis(2900), &none, &[]),
        "the pause counts"
    );
    let both = Plan { runs: Some(2), ..p };
    assert!(!both.more_after(2, s(0), &none, &[]));
}

fn flags(args: &[&str]) -> Result<Option<Plan>, String> {
    #[derive(clap::Parser)]
    struct F {
        #[command(flatten)]
        r: RepeatArgs,
    }
    use clap::Parser;
    let f = F::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    f.r.plan()
}

#[test]
fn until_flags_have_bounds_and_need_each_other() {
    let day = Duration::from_secs(24 * 3600);
    let p = flags(&["--until-throttled"]).unwrap().unwrap();
    assert_eq!(
        (p.until, p.duration, p.runs),
        (Some(Until::Throttled), Some(day), None)
    );
    let p = flags(&["--until-throttled", "--max-duration", "2h"])
        .unwrap()
        .unwrap();
    assert_eq!(p.duration, Some(Duration::from_secs(7200)));
    let p = flags(&["--until-steady"]).unwrap().unwrap();
    assert_eq!((p.until, p.runs), (Some(Until::Steady), Some(25)));
    assert!(flags(&["--max-duration", "1h"])
        .unwrap_err()
        .contains("--until-throttled"));
    assert!(flags(&["--until-steady", "--until-throttled"]).is_err());
    let p = flags(&["--ci", "3%"]).unwrap().unwrap();
    assert_eq!((p.until, p.runs), (Some(Until::Precise(3.0)), Some(20)));
    let p = flags(&["--ci", "2", "--max-rounds", "9"]).unwrap().unwrap();
    assert_eq!((p.until, p.runs), (Some(Until::Precise(2.0)), Some(9)));
    assert!(
        flags(&["--max-rounds", "9"]).is_err(),
        "--max-rounds needs --ci"
    );
    assert!(flags(&["--ci", "0%"]).is_err() && flags(&["--ci", "x"]).is_err());
    assert!(flags(&["--ci", "3%", "--until-steady"]).is_err());
    // A recovery check alone is one run, then the check.
    let p = flags(&["--recovery-check", "30s"]).unwrap().unwrap();
    assert_eq!(
        (p.runs, p.recovery),
        (Some(1), Some(Duration::from_secs(30)))
    );
}

#[test]
fn bad_repetition_flags_are_usage_errors() {
    assert!(parse_runs("0").unwrap_err().contains("at least 1"));
    assert!(parse_runs("-2").is_err() && parse_runs("x").is_err());
    assert!(parse_span("0s").unwrap_err().contains("more than 0"));
    assert!(parse_span("3 hours")
        .unwrap_err()
        .contains("not a duration"));
    assert_eq!(parse_span("3h"), Ok(Duration::from_secs(3 * 3600)));
    assert_eq!(parse_pause("0"), Ok(Duration::ZERO));
    let pause_alone = RepeatArgs {
        pause: Some(Duration::from_secs(1)),
        ..RepeatArgs::default()
    };
    assert!(pause_alone.plan().unwrap_err().contains("--runs"));
    assert_eq!(RepeatArgs::default().plan(), Ok(None));
}

#[test]
fn soak_ids_are_a_time_and_a_random_suffix() {
    let (a, b) = (new_soak_id(), new_soak_id());
    assert_eq!(a.len(), "20261122-143000-3f9a".len(), "{a}");
    assert!(a.as_bytes()[8] == b'-' && a.as_bytes()[15] == b'-', "{a}");
    assert!(a[..8].bytes().all(|c| c.is_ascii_digit()), "{a}");
    assert!(b[16..].bytes().all(|c| c.is_ascii_hexdigit()), "{b}");
}
