//! `prio`, `prioclass`, `priohint`, the engines' `cmdprio*` and `log_prio`
//! (see `prio_opts`): fio's defaults and bounds, the three forms of
//! `cmdprio_bssplit`, and where the per-I/O options belong.

use super::*;
use model::prio::{CmdPrioShare, IoPrio, PrioSpec};

fn prio(extra: &[&str]) -> PrioSpec {
    let mut args = vec!["--name=a", "--size=1m", "--ioengine=libaio"];
    args.extend(extra);
    ok(&args).jobs.remove(0).prio
}

fn p(class: u8, level: u8, hint: u16) -> IoPrio {
    IoPrio { class, level, hint }
}

#[test]
fn prio_alone_is_best_effort_and_prioclass_sets_the_class() {
    assert_eq!(prio(&[]).job, None);
    assert_eq!(prio(&["--prio=7"]).job, Some(p(2, 7, 0)));
    assert_eq!(
        prio(&["--prioclass=3"]).job.map(IoPrio::value),
        Some(0x6000)
    );
    assert_eq!(prio(&["--prioclass=1", "--prio=2"]).job, Some(p(1, 2, 0)));
    // fio: prioclass=0 is no class, so prio=3 is best-effort.
    assert_eq!(
        prio(&["--prioclass=0", "--prio=3"]).job.map(IoPrio::value),
        Some(0x4003)
    );
}

#[test]
fn cmdprio_percentage_defaults_to_the_real_time_class_per_direction() {
    let s = prio(&["--cmdprio_percentage=20,60", "--cmdprio=3,"]);
    assert_eq!((s.cmd.read.percentage, s.cmd.write.percentage), (20, 60));
    assert_eq!(s.cmd.read.prio, p(1, 3, 0));
    assert_eq!(s.cmd.write.prio, p(1, 0, 0));
    assert!(s.per_io());
    let s = prio(&[
        "--cmdprio_percentage=50",
        "--cmdprio_class=2",
        "--cmdprio_hint=3",
    ]);
    assert_eq!(s.cmd.write.prio, p(2, 0, 3));
}

#[test]
fn cmdprio_bssplit_takes_fios_three_forms() {
    let s = prio(&["--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1m/0,1m/10/2/0/1"]);
    let share = |bytes, pct, prio| CmdPrioShare { bytes, pct, prio };
    assert_eq!(
        s.cmd.read.bssplit,
        vec![
            share(65536, 25, Some(p(1, 1, 0))),
            share(65536, 75, Some(p(3, 2, 0))),
            share(1 << 20, 0, None),
        ]
    );
    assert_eq!(
        s.cmd.write.bssplit,
        vec![share(1 << 20, 10, Some(p(2, 0, 1)))]
    );
    // The simple form: every entry with cmdprio_class and cmdprio.
    let s = prio(&[
        "--cmdprio_bssplit=64k/100:1m/0",
        "--cmdprio_class=2",
        "--cmdprio=4",
    ]);
    assert_eq!(s.cmd.read.pick(65536, 99), Some(p(2, 4, 0)));
    assert_eq!(s.cmd.read.pick(1 << 20, 0), None);
}

#[test]
fn bad_priorities_are_refused_with_fios_bounds() {
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["--name=a", "--size=1m", "--ioengine=libaio"];
        all.extend(args);
        let msg = parse(&all).expect_err("refused").to_string();
        assert!(msg.contains(says), "{args:?}: {msg}");
    };
    refused(&["--prio=8"], "from 0 to 7");
    refused(&["--prioclass=4"], "from 0 to 3");
    refused(&["--cmdprio_class=0"], "from 1 to 3");
    refused(&["--cmdprio_percentage=101"], "from 0 to 100");
    refused(&["--cmdprio_hint=1024"], "from 0 to 1023");
    refused(&["--cmdprio_bssplit=64k/60:64k/60"], "add up to 120%");
    refused(&["--cmdprio_bssplit=64k/50/1"], "SIZE/PERCENT/CLASS/LEVEL");
    refused(
        &["--cmdprio_percentage=20", "--cmdprio_bssplit=4k/10"],
        "fio refuses the two together",
    );
}

#[test]
fn per_io_priorities_need_libaio_or_io_uring() {
    let msg = parse(&["--name=a", "--size=1m", "--cmdprio_percentage=20"])
        .expect_err("psync has no per-I/O priority")
        .to_string();
    assert!(msg.contains("use ioengine=libaio or io_uring"), "{msg}");
    let uring = ok(&[
        "--name=a",
        "--size=1m",
        "--ioengine=io_uring",
        "--cmdprio_percentage=20",
    ]);
    assert_eq!(uring.jobs[0].prio.cmd.read.percentage, 20);
    // The job's own priority is any engine's.
    let psync = ok(&["--name=a", "--size=1m", "--prioclass=3"]);
    assert!(psync.jobs[0].prio.job.is_some());
}

#[test]
fn log_prio_is_a_log_option() {
    assert!(!prio(&[]).per_io());
    let args = ["--name=a", "--size=1m", "--write_lat_log=x", "--log_prio=1"];
    assert!(ok(&args).jobs[0].logs.prio);
}
