//! fio job files: whatever the text, `fio::parse_args` on the file
//! answers with jobs or an error, never a panic.
//!
//! The fio crate reads job files from a path only (`jobfile::read` is
//! crate-private), so the input is written to a file in a scratch directory
//! and parsed as `diskbench fio FILE` would. A second parse picks the last
//! job section with `--section=` and shortens the jobs from the command line,
//! as the tests of the articles' job files do, to reach the skipping and override paths.
//! Inputs whose `include` lines leave the scratch directory are skipped (see
//! `common`).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fn parse(args: Vec<String>) {
    match fio::parse_args(args) {
        Ok(parsed) => {
            let in_groups: usize = parsed.groups.iter().map(Vec::len).sum();
            assert_eq!(in_groups, parsed.jobs.len(), "groups and jobs disagree");
            // What `--parse-only` prints must not panic either.
            let _ = fio::showcmd(&parsed.groups);
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an error without a message"),
    }
}

/// The name of the last `[job]` header, as the reader trims it.
fn last_job_section(text: &str) -> Option<&str> {
    text.lines()
        .filter_map(|l| {
            let t = l.trim().strip_prefix('[')?;
            Some(t[..t.find(']')?].trim())
        })
        .rfind(|n| !n.is_empty() && *n != "global")
}

fuzz_target!(|data: &[u8]| {
    let text = std::str::from_utf8(data).ok();
    if text.is_some_and(|t| !common::includes_stay_inside(t)) {
        return;
    }
    let path = common::write("main.fio", data);
    parse(vec![path.clone()]);
    if let Some(section) = text.and_then(last_job_section) {
        parse(vec![
            format!("--section={section}"),
            "--size=1m".into(),
            "--runtime=1".into(),
            path,
        ]);
    }
});
