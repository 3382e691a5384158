//! The reference in `docs/` is checked against the binary, so that a flag
//! added, renamed or removed cannot leave it behind: each command's page
//! (`docs/CMD.md`; `kube`'s subcommands share `docs/kube.md`) lists every
//! flag `diskbench CMD --help` shows in its Options section, and lists no
//! flag the command does not take. Every `--flag` named anywhere in the
//! pages is one some command takes (or, in fio's form, one of fio's job
//! options), so prose cannot keep a flag that is gone either.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

fn page(name: &str) -> String {
    let path = docs_dir().join(format!("{name}.md"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn help(args: &[&str]) -> String {
    let out = diskbench().args(args).arg("--help").output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    stdout_of(&out)
}

/// The flags a line that defines one starts with: `  -c, --count <N>`,
/// `      --json`, `  -n <NUM>`, and gobonniego's Go-style `  -dir string`.
fn defined_flags(line: &str) -> Vec<String> {
    let t = line.trim_start();
    let indent = line.len() - t.len();
    if !(1..=6).contains(&indent) || !t.starts_with('-') {
        return Vec::new();
    }
    t.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[')
        .take_while(|w| w.is_empty() || w.starts_with('-'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            w.len() > 1
                && w.chars()
                    .nth(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
        })
        .map(str::to_string)
        .collect()
}

/// Every `--flag` written in `text`, as its name alone.
fn named_flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes: Vec<char> = text.chars().collect();
    for (i, w) in bytes.iter().enumerate() {
        if *w != '-' || bytes.get(i + 1) != Some(&'-') {
            continue;
        }
        if i > 0 && (bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '-') {
            continue;
        }
        let name: String = bytes[i + 2..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == '-' || **c == '_')
            .collect();
        // `--price-*`: a family of flags, not one.
        let wildcard = bytes.get(i + 2 + name.len()) == Some(&'*');
        let name = name.trim_end_matches(['-', '_']);
        if !wildcard && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            out.insert(format!("--{name}"));
        }
    }
    out
}

/// The flags a command takes: each line of its help that defines one, and
/// for `fio` the run options its help names in prose.
fn flags_of(command: &[&str]) -> BTreeSet<String> {
    let text = help(command);
    let mut flags: BTreeSet<String> = text.lines().flat_map(defined_flags).collect();
    if command == ["fio"] {
        let at = text
            .find("fio's run options")
            .expect("fio --help names its run options");
        let end = at + text[at..].find("Any other").unwrap();
        flags.extend(named_flags(&text[at..end]));
        flags
            .extend(["--output-format", "--output", "--parse-only", "--section"].map(String::from));
    }
    flags.retain(|f| !matches!(f.as_str(), "-h" | "--help" | "-V" | "--version"));
    flags
}

/// The flags a page's Options section lists: the code spans each entry
/// (`- `--flag VALUE`: ...`) starts with.
fn listed_flags(page: &str) -> BTreeSet<String> {
    let at = page.find("\n## Options").expect("an Options section");
    let section = &page[at + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut out = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("- `")) {
        let head = &line[2..line.find("`:").map_or(line.len(), |e| e + 1)];
        for span in head.split('`').skip(1).step_by(2) {
            let name = span.split([' ', '=', '[']).next().unwrap();
            if name.starts_with('-') {
                // `--write...`: clap's mark of a flag given again and again.
                out.insert(name.trim_end_matches('.').to_string());
            }
        }
    }
    out.retain(|f| !matches!(f.as_str(), "-h" | "--help" | "-V" | "--version"));
    out
}

/// Each command line whose flags a page documents, with its page.
fn commands_and_pages() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for c in commands_in(&help(&[])) {
        let subs = match c.as_str() {
            "fio" | "gobonniego" => Vec::new(),
            _ => commands_in(&help(&[&c])),
        };
        if subs.is_empty() {
            out.push((vec![c.clone()], c));
        } else {
            for s in subs {
                out.push((vec![c.clone(), s], c.clone()));
            }
        }
    }
    out
}

#[test]
fn every_flag_of_every_command_is_in_its_page_and_no_page_lists_a_flag_it_lacks() {
    let all = commands_and_pages();
    assert!(all.len() >= 25, "{all:?}");
    let mut pages: Vec<String> = all.iter().map(|(_, p)| p.clone()).collect();
    pages.dedup();
    let mut problems = Vec::new();
    for name in &pages {
        let text = page(name);
        let listed = listed_flags(&text);
        let mut taken = BTreeSet::new();
        for (command, _) in all.iter().filter(|(_, p)| p == name) {
            let words: Vec<&str> = command.iter().map(String::as_str).collect();
            let flags = flags_of(&words);
            for f in &flags {
                if !listed.contains(f) {
                    problems.push(format!(
                        "docs/{name}.md: `diskbench {}` takes {f}, not in the page's Options",
                        command.join(" ")
                    ));
                }
            }
            taken.extend(flags);
        }
        for f in listed.difference(&taken) {
            problems.push(format!(
                "docs/{name}.md lists {f}, which `diskbench {name}` does not take"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// fio's job options as `diskbench fio --help` lists them, aliases too.
fn fio_job_options() -> BTreeSet<String> {
    let text = help(&["fio"]);
    let at = text.find("job options carried out:").unwrap();
    let list = text[at..].lines().nth(1).unwrap();
    list.split([',', '(', ')', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| format!("--{w}"))
        .collect()
}

/// The text of a page without the lines of its code blocks that run
/// another program (`createuser --pwprompt`, ...): their flags are not ours.
fn ours(page: &str) -> String {
    let mut inside = false;
    let mut out = String::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        let t = line.trim_start();
        if !inside || t.starts_with("diskbench ") || t.starts_with("fio ") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn every_flag_the_pages_name_is_one_a_command_takes() {
    let mut known = BTreeSet::new();
    for (command, _) in commands_and_pages() {
        let words: Vec<&str> = command.iter().map(String::as_str).collect();
        known.extend(flags_of(&words));
        // A flag's other spelling, `[alias: --timelimit]`.
        let text = help(&words);
        for (at, _) in text.match_indices("alias: ") {
            known.extend(named_flags(text[at..].lines().next().unwrap()));
        }
    }
    known.extend(fio_job_options());
    // `--opt=value` is how fio's form is written, not a flag.
    known.extend(["--help", "--version", "--opt"].map(String::from));
    // Refused by name, with the way diskbench measures many machines.
    known.extend(["--server", "--client", "--daemonize", "--remote-config"].map(String::from));
    let mut problems = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(docs_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 25, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for f in named_flags(&ours(&text)).difference(&known) {
            problems.push(format!("{}: {f} is no command's flag", file.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
