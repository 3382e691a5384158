//! The man pages made from docs/: every page there is built in, each command's
//! page has the sections a man page should in man(7)'s order, and the Markdown
//! the pages use comes out as roff that roff will not misread (a hyphen, a
//! leading period, a link).

use super::*;
use roff::Page;
use std::path::Path;

#[test]
fn every_page_of_the_docs_directory_is_built_in() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| n.trim_end_matches(".md").replace("README", "diskbench"))
        .collect();
    on_disk.sort();
    let mut built: Vec<String> = names().iter().map(|n| n.to_string()).collect();
    built.sort();
    assert_eq!(built, on_disk);
}

/// The `.SH` headings of a man page, in order.
fn headings(roff: &str) -> Vec<&str> {
    roff.lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect()
}

#[test]
fn every_command_page_has_every_section_a_man_page_should_in_order() {
    for name in names()
        .into_iter()
        .filter(|n| is_command(n) && *n != "diskbench")
    {
        let page = man(name, "0.1.0").unwrap();
        assert!(
            page.starts_with(&format!(".TH diskbench-{name} 1 ")),
            "{name}"
        );
        let found = headings(&page);
        let mut at = 0;
        for want in COMMAND_SECTIONS {
            match found[at..].iter().position(|h| *h == want) {
                Some(i) => at += i + 1,
                None => panic!("{name}: no {want} after the sections before it: {found:?}"),
            }
        }
    }
}

#[test]
fn the_top_page_and_the_topics_render_too() {
    let top = man("diskbench", "0.1.0").unwrap();
    assert!(top.starts_with(".TH diskbench 1 "));
    assert!(
        top.contains("diskbench\\-run(1)"),
        "the top page names run's page"
    );
    let output = man("output", "0.1.0").unwrap();
    assert!(output.starts_with(".TH diskbench-output 7 "), "{output}");
    assert!(
        !headings(&output).contains(&"ENVIRONMENT"),
        "a topic does not take the commands' shared sections"
    );
}

#[test]
fn an_option_is_a_tagged_paragraph_with_the_flag_in_bold_and_hyphens_escaped() {
    let page = Page::parse(
        "# diskbench x\n\nDoes x.\n\n## Options\n\n- `--size SIZE`: the size,\n  e.g. 1g\n- a plain point\n",
    );
    let out = roff::render("diskbench-x", 1, "v", &page, |_| true);
    assert!(
        out.contains(".TP\n\\fB\\-\\-size SIZE\\fR\nthe size, e.g. 1g\n"),
        "{out}"
    );
    assert!(out.contains(".IP \\(bu 2\na plain point\n"), "{out}");
    assert!(
        out.contains(".SH NAME\ndiskbench\\-x \\- Does x\n"),
        "{out}"
    );
}

#[test]
fn a_line_that_roff_would_read_as_a_request_is_escaped() {
    let page = Page::parse("# t\n\nT.\n\n## Description\n\n.5 s is short\n\n```\n'quoted\n```\n");
    let out = roff::render("t", 7, "v", &page, |_| false);
    assert!(out.contains("\n\\&.5 s is short\n"), "{out}");
    assert!(out.contains("\n\\&'quoted\n"), "{out}");
    assert!(!out.lines().any(|l| l == ".5 s is short"), "{out}");
}

#[test]
fn links_keep_their_text_and_name_the_page() {
    let out = roff::inline(
        "see [run](run.md#soaks) and [the map](../ARCHITECTURE.md)",
        &|p| p == "run",
    );
    assert_eq!(out, "see run (diskbench\\-run(1)) and the map");
}

#[test]
fn an_unknown_page_lists_the_pages() {
    let e = man("nosuch", "v").unwrap_err();
    assert!(e.to_string().contains("run, fio"), "{e}");
}
