//! `iomem`/`mem` and fio's io_uring options: what they parse to, what is
//! refused and why, and the trip through `--parse-only`'s command line.

mod common;
use common::{assert_round_trip, parse, parse_error};
use model::{IoMem, JobSpec, UringOptions};

const BASE: &str = "--name=j --ioengine=null --size=16m";

fn job(opts: &str) -> JobSpec {
    parse(&format!("{BASE} {opts}")).jobs[0].clone()
}

fn error(opts: &str) -> String {
    parse_error(&format!("{BASE} {opts}")).to_string()
}

#[test]
fn iomem_takes_fio_names_and_mem_is_the_same() {
    assert_eq!(job("").iomem, IoMem::Default);
    for (text, want) in [
        ("malloc", IoMem::Malloc),
        ("shm", IoMem::Shm),
        ("shmhuge", IoMem::ShmHuge),
        ("mmap", IoMem::Mmap),
        ("mmaphuge", IoMem::MmapHuge),
        ("mmapshared", IoMem::MmapShared),
    ] {
        assert_eq!(job(&format!("--iomem={text}")).iomem, want);
        assert_eq!(job(&format!("--mem={text}")).iomem, want);
    }
}

#[test]
fn iomem_refuses_what_it_cannot_do_and_says_what_to_use() {
    let e = error("--iomem=hugepages");
    assert!(
        e.contains("iomem=hugepages") && e.contains("malloc, shm, shmhuge"),
        "{e}"
    );
    let e = error("--mem=mmaphuge:/huge/file");
    assert!(e.contains("use iomem=mmaphuge without the path"), "{e}");
    assert!(e.contains("nr_hugepages"), "{e}");
    let e = error("--iomem=cudamalloc");
    assert!(e.contains("rdma"), "{e}");
}

#[test]
fn io_uring_options_parse_as_given() {
    let j = job("--ioengine=io_uring --fixedbufs=0 --registerfiles --sqthread_poll --sqthread_poll_cpu=1 --hipri");
    assert_eq!(
        j.uring,
        UringOptions {
            fixedbufs: Some(false),
            registerfiles: Some(true),
            sqthread_poll: Some(true),
            sqthread_poll_cpu: Some(1),
            hipri: Some(true),
            uncached: None,
            atomic: None,
        }
    );
    // Not given: diskbench registers buffers and files, no polling.
    let j = job("--ioengine=io_uring");
    assert!(j.uring.fixed_buffers() && j.uring.register_files());
    assert!(!j.uring.sqpoll() && !j.uring.iopoll());
}

#[test]
fn io_uring_options_are_refused_with_other_engines_in_any_order() {
    for engine in ["psync", "libaio", "null"] {
        for opt in ["fixedbufs", "registerfiles=0", "sqthread_poll", "hipri=1"] {
            let name = opt.split('=').next().unwrap();
            for line in [
                format!("--ioengine={engine} --{opt}"),
                format!("--{opt} --ioengine={engine}"),
            ] {
                let e = error(&line);
                assert!(
                    e.contains(&format!("{name} is an option of the io_uring engine"))
                        && e.contains(engine),
                    "{line}: {e}"
                );
            }
        }
    }
    // The engine given last wins, as for every option.
    assert!(job("--ioengine=libaio --hipri --ioengine=io_uring")
        .uring
        .iopoll());
}

#[test]
fn the_polling_cpu_needs_the_polling_thread() {
    let e = error("--ioengine=io_uring --sqthread_poll_cpu=2");
    assert!(
        e.contains("sqthread_poll_cpu=2") && e.contains("add sqthread_poll=1"),
        "{e}"
    );
    let e = error("--ioengine=io_uring --sqthread_poll --sqthread_poll_cpu=-1");
    assert!(e.contains("sqthread_poll_cpu"), "{e}");
}

#[test]
fn parse_only_lines_give_the_same_jobs_again() {
    for opts in [
        "--iomem=malloc",
        "--mem=shmhuge --ioengine=io_uring",
        "--iomem=mmapshared --ioengine=psync",
        "--ioengine=io_uring --fixedbufs=0 --registerfiles=0",
        "--ioengine=io_uring --fixedbufs --registerfiles=1 --hipri=0",
        "--ioengine=io_uring --sqthread_poll --sqthread_poll_cpu=3 --hipri --iomem=mmap",
    ] {
        assert_round_trip(&job(opts), opts);
    }
}
