//! diskbench's reference, one Markdown page per command and per topic in
//! the repository's `docs/` directory, built into the binary so that
//! `diskbench man CMD` prints the very page a reader finds on the web, as
//! a man page: the two cannot drift apart, and a test holds the pages to
//! the command line (`crates/cli/tests/reference.rs`).
//!
//! A command's page is written in one shape, which the man page follows:
//! a `# diskbench CMD` title, a one-sentence summary (the man page's NAME),
//! then `## Synopsis`, `## Description`, `## Options`, `## Examples` and
//! optionally `## Exit status` and `## See also`. What every command shares
//! (the exit codes of diskbench's own commands, the environment variables
//! read, the files) is written once, on the top page `docs/README.md`, and
//! added to each command's man page.

mod roff;

/// A page's name (`run`, `output`, ...) and its Markdown.
const PAGES: &[(&str, &str)] = &[
    ("diskbench", include_str!("../../../docs/README.md")),
    ("run", include_str!("../../../docs/run.md")),
    ("fio", include_str!("../../../docs/fio.md")),
    ("gobonniego", include_str!("../../../docs/gobonniego.md")),
    ("ping", include_str!("../../../docs/ping.md")),
    ("meta", include_str!("../../../docs/meta.md")),
    ("fileserver", include_str!("../../../docs/fileserver.md")),
    ("sweep", include_str!("../../../docs/sweep.md")),
    ("limit", include_str!("../../../docs/limit.md")),
    ("fit", include_str!("../../../docs/fit.md")),
    ("profiles", include_str!("../../../docs/profiles.md")),
    ("history", include_str!("../../../docs/history.md")),
    ("show", include_str!("../../../docs/show.md")),
    ("rm", include_str!("../../../docs/rm.md")),
    ("export", include_str!("../../../docs/export.md")),
    ("import", include_str!("../../../docs/import.md")),
    ("sync", include_str!("../../../docs/sync.md")),
    ("db", include_str!("../../../docs/db.md")),
    ("compare", include_str!("../../../docs/compare.md")),
    ("report", include_str!("../../../docs/report.md")),
    ("chart", include_str!("../../../docs/chart.md")),
    ("volumes", include_str!("../../../docs/volumes.md")),
    ("kube", include_str!("../../../docs/kube.md")),
    ("completions", include_str!("../../../docs/completions.md")),
    ("man", include_str!("../../../docs/man.md")),
    ("output", include_str!("../../../docs/output.md")),
    ("safety", include_str!("../../../docs/safety.md")),
    ("verify", include_str!("../../../docs/verify.md")),
    (
        "many-machines",
        include_str!("../../../docs/many-machines.md"),
    ),
];

/// The sections every command's man page has, in man(7)'s order.
pub const COMMAND_SECTIONS: [&str; 8] = [
    "NAME",
    "SYNOPSIS",
    "DESCRIPTION",
    "OPTIONS",
    "EXAMPLES",
    "EXIT STATUS",
    "ENVIRONMENT",
    "FILES",
];

/// The sections the top page lends to every command page that has none of
/// its own.
const SHARED: [&str; 3] = ["Exit status", "Environment", "Files"];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DocsError {
    #[error("no page '{name}'; the pages are: {}", pages.join(", "))]
    NoPage { name: String, pages: Vec<String> },
}

/// The names of the pages (`diskbench` is the top page).
pub fn names() -> Vec<&'static str> {
    PAGES.iter().map(|(n, _)| *n).collect()
}

/// A page's Markdown, as in `docs/`.
pub fn page(name: &str) -> Result<&'static str, DocsError> {
    PAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| DocsError::NoPage {
            name: name.to_string(),
            pages: names().iter().map(|n| n.to_string()).collect(),
        })
}

/// Whether a page is a command's (section 1) rather than a topic's (7).
fn is_command(name: &str) -> bool {
    name == "diskbench" || page(name).is_ok_and(|t| t.starts_with("# diskbench "))
}

/// The man page of `name` (`diskbench` for diskbench(1)), in roff, with
/// `version` in its footer.
pub fn man(name: &str, version: &str) -> Result<String, DocsError> {
    let text = page(name)?;
    let mut sections = roff::Page::parse(text);
    if name != "diskbench" && is_command(name) {
        let top = roff::Page::parse(page("diskbench")?);
        for shared in SHARED {
            if sections.section(shared).is_none() {
                if let Some(body) = top.section(shared) {
                    sections.push(shared, body.to_string());
                }
            }
        }
    }
    let title = if name == "diskbench" {
        "diskbench".to_string()
    } else {
        format!("diskbench-{name}")
    };
    let section = if is_command(name) { 1 } else { 7 };
    Ok(roff::render(
        &title, section, version, &sections, is_command,
    ))
}

#[cfg(test)]
mod tests;
