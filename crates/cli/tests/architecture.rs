//! The rules of ARCHITECTURE.md that a test can hold, checked by reading
//! the repository's files (nothing is built or run):
//!
//! - **Dependency directions.** Each crate's `[dependencies]` name only
//!   crates of ours that its row of the crate table (under "## Crates":
//!   `| crate | its room | may use | may not |`) lists under "may use"
//!   ("all of the above": every crate of the rows above it; "nothing of
//!   ours", "std only": none). Every directory in `crates/` has a row, and
//!   a crate whose row says it is a dev-dependency (test support) is named
//!   only in `[dev-dependencies]`. The table is read, never copied here, so
//!   a new crate needs a row and nothing else.
//! - **No printing below cli.** The library crates return what they have
//!   to say (a warning in the result, an error) and the `diskbench` binary
//!   prints it, so their non-test source has no `println!`, `eprintln!`,
//!   `print!`, `eprint!`, `dbg!` nor a handle on stdout or stderr. Test
//!   modules (`#[cfg(test)]`) may print; so may the test-support crate,
//!   whose messages (a skipped test's reason) are test output.
//! - **Unsafe only in engine.** The workspace forbids `unsafe_code`; every
//!   crate but the engine takes the workspace's lints (`[lints] workspace =
//!   true`) and has no `unsafe` in its code. The engine keeps the lints
//!   that make clippy refuse an unsafe block or impl without its `//
//!   SAFETY:` comment and an unsafe operation hidden in an unsafe fn, and
//!   each of its unsafe blocks and impls has that comment above it (what
//!   clippy checks, read here so the rule shows without clippy).
//!
//! Each failure names the file, the line and the fix.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The crate that prints: the `diskbench` binary.
const BINARY: &str = "cli";
/// The crate that may hold unsafe code.
const ENGINE: &str = "engine";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `path` as the failure messages name it: from the repository's root.
fn shown(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The directories of `crates/`, by name.
fn crate_dirs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The words between backticks in `text`.
fn ticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// One row of ARCHITECTURE.md's crate table.
struct Row {
    name: String,
    /// Line in ARCHITECTURE.md, from 1.
    line: usize,
    may_use: BTreeSet<String>,
    /// Test support: used as a dev-dependency only.
    dev_only: bool,
}

/// The crate table under "## Crates", in its order.
fn crate_table() -> Vec<Row> {
    let text = read(&root().join("ARCHITECTURE.md"));
    let mut in_section = false;
    let mut cells = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line.trim() == "## Crates";
            continue;
        }
        if in_section && line.trim_start().starts_with('|') {
            let row: Vec<String> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            cells.push((i + 1, row));
        }
    }
    assert!(
        cells.len() > 2,
        "ARCHITECTURE.md: no crate table under \"## Crates\" (| crate | its room | may use | may not |): \
         restore it, the rules of the crates' dependencies are read from it"
    );
    let (header_line, header) = &cells[0];
    assert_eq!(
        header.iter().map(String::as_str).collect::<Vec<_>>(),
        ["crate", "its room", "may use", "may not"],
        "ARCHITECTURE.md:{header_line}: the crate table's columns changed: \
         keep `| crate | its room | may use | may not |` or change this test with them"
    );
    let body: Vec<_> = cells[1..]
        .iter()
        .filter(|(_, row)| {
            !row.iter()
                .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        })
        .collect();
    let names: Vec<String> = body
        .iter()
        .map(|(line, row)| {
            let name = ticked(&row[0]);
            assert_eq!(
                name.len(),
                1,
                "ARCHITECTURE.md:{line}: the first cell of a crate row names one crate in backticks, as `model`: {}",
                row[0]
            );
            name[0].to_string()
        })
        .collect();
    body.iter()
        .enumerate()
        .map(|(k, (line, row))| {
            assert_eq!(
                row.len(),
                4,
                "ARCHITECTURE.md:{line}: a crate row has four cells (crate, its room, may use, may not)"
            );
            let may_use = if row[2].contains("all of the above") {
                names[..k].iter().cloned().collect()
            } else {
                ticked(&row[2])
                    .into_iter()
                    .filter(|n| names.iter().any(|m| m == n))
                    .map(String::from)
                    .collect()
            };
            Row {
                name: names[k].clone(),
                line: *line,
                may_use,
                dev_only: row[3].contains("dev-dependency"),
            }
        })
        .collect()
}

/// A dependency on one of our crates, as a Cargo.toml declares it.
struct Dep {
    /// The crate's directory under `crates/`.
    krate: String,
    /// Line in the Cargo.toml, from 1.
    line: usize,
    dev: bool,
}

/// The directory a dependency's `path` points to, if it is one of ours.
fn path_dir(value: &str) -> Option<String> {
    let rest = &value[value.find("path")? + 4..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let quoted = rest.strip_prefix('"')?;
    let path = &quoted[..quoted.find('"')?];
    let dir = Path::new(path);
    let in_crates = dir
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == "crates");
    (in_crates || path.starts_with("../"))
        .then(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .flatten()
}

/// The lines of a Cargo.toml with their table: (table, line from 1, the
/// line trimmed), headers, blank lines and comments left out. A table is
/// named as in its header without brackets or quotes (`dependencies`,
/// `lints.rust`, `target.cfg(unix).dependencies`).
fn toml_lines(text: &str) -> Vec<(String, usize, &str)> {
    let mut table = String::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            table = t.trim_matches(['[', ']']).replace(['\'', '"'], "");
        } else if !t.is_empty() && !t.starts_with('#') {
            out.push((table.clone(), i + 1, t));
        }
    }
    out
}

/// `[workspace.dependencies]` of the root Cargo.toml: key to directory,
/// for those that are ours.
fn workspace_crates() -> Vec<(String, String)> {
    let text = read(&root().join("Cargo.toml"));
    toml_lines(&text)
        .into_iter()
        .filter(|(table, ..)| table == "workspace.dependencies")
        .filter_map(|(_, _, t)| {
            let (key, value) = t.split_once('=')?;
            Some((key.trim().to_string(), path_dir(value)?))
        })
        .collect()
}

/// What a table of a Cargo.toml holds, if dependencies: whether they are
/// dev-dependencies, and for a `[dependencies.NAME]` table its one key.
fn dependency_table(table: &str) -> Option<(bool, Option<&str>)> {
    for kind in ["dev-dependencies", "build-dependencies", "dependencies"] {
        let at = match table.find(kind) {
            Some(at) if at == 0 || table[..at].ends_with('.') => at,
            _ => continue,
        };
        let dev = kind == "dev-dependencies";
        return match &table[at + kind.len()..] {
            "" => Some((dev, None)),
            rest => rest.strip_prefix('.').map(|key| (dev, Some(key))),
        };
    }
    None
}

/// The dependencies on our crates that `crates/NAME/Cargo.toml` declares.
fn our_deps(name: &str, workspace: &[(String, String)]) -> Vec<Dep> {
    let text = read(&root().join("crates").join(name).join("Cargo.toml"));
    let ours = |key: &str, value: &str| {
        path_dir(value).or_else(|| {
            let inherits = value.contains("workspace") || key.ends_with(".workspace");
            let key = key.trim_end_matches(".workspace");
            inherits
                .then(|| workspace.iter().find(|(k, _)| k == key))
                .flatten()
                .map(|(_, dir)| dir.clone())
        })
    };
    let lines = toml_lines(&text);
    let mut out = Vec::new();
    for (table, line, t) in &lines {
        let Some((dev, table_key)) = dependency_table(table) else {
            continue;
        };
        let found = match table_key {
            // A `[dependencies.NAME]` table: named on its header's line,
            // the one before its first key.
            Some(key) => ours(key, t).map(|k| (k, lines_before(&text, *line))),
            None => t
                .split_once('=')
                .and_then(|(key, value)| ours(key.trim(), value))
                .map(|k| (k, *line)),
        };
        if let Some((krate, line)) = found {
            out.push(Dep { krate, line, dev });
        }
    }
    out
}

/// The line of the table header above `line` in `text` (both from 1).
fn lines_before(text: &str, line: usize) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    (1..line)
        .rev()
        .find(|&n| lines[n - 1].trim().starts_with('['))
        .unwrap_or(line)
}

#[test]
fn each_crate_uses_only_what_its_row_of_the_crate_table_allows() {
    let table = crate_table();
    let workspace = workspace_crates();
    let mut wrong = Vec::new();
    for name in crate_dirs() {
        let Some(row) = table.iter().find(|r| r.name == name) else {
            wrong.push(format!(
                "crates/{name}: no row in ARCHITECTURE.md's crate table (under \"## Crates\"): \
                 add one, | `{name}` | its room | may use | may not |"
            ));
            continue;
        };
        let manifest = format!("crates/{name}/Cargo.toml");
        for dep in our_deps(&name, &workspace) {
            let target = table.iter().find(|r| r.name == dep.krate);
            if target.is_some_and(|t| t.dev_only) && !dep.dev {
                wrong.push(format!(
                    "{manifest}:{}: `{name}` depends on `{}`, test support \
                     (ARCHITECTURE.md:{}): move it to [dev-dependencies]",
                    dep.line,
                    dep.krate,
                    target.map_or(0, |t| t.line)
                ));
            }
            if !dep.dev && dep.krate != name && !row.may_use.contains(&dep.krate) {
                wrong.push(format!(
                    "{manifest}:{}: `{name}` depends on `{}`, which its row \
                     (ARCHITECTURE.md:{}) does not list under \"may use\" ({:?}): \
                     move the shared piece down to a crate both may use, or, if the \
                     arrow is meant, add `{}` to the row",
                    dep.line, dep.krate, row.line, row.may_use, dep.krate
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// The code of each line of `text`: string and char literals emptied and
/// comments removed, strings that run over several lines (raw ones too)
/// and `/* */` comments followed across them.
fn code_lines(text: &str) -> Vec<String> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        /// A raw string closed by `"` and this many `#`.
        Raw(usize),
        Block,
    }
    let mut state = In::Code;
    let mut out = Vec::new();
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut code = String::with_capacity(line.len());
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            match state {
                In::Str => match c {
                    '\\' => i += 1,
                    '"' => {
                        state = In::Code;
                        code.push('"');
                    }
                    _ => {}
                },
                In::Raw(hashes) => {
                    let closes = c == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#'));
                    if closes {
                        state = In::Code;
                        code.push('"');
                        i += hashes;
                    }
                }
                In::Block => {
                    if c == '*' && next == Some('/') {
                        state = In::Code;
                        i += 1;
                    }
                }
                In::Code => {
                    let after_word =
                        i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
                    if c == '/' && next == Some('/') {
                        break;
                    } else if c == '/' && next == Some('*') {
                        state = In::Block;
                        i += 1;
                    } else if c == '"' {
                        state = In::Str;
                        code.push('"');
                    } else if c == 'r' && !after_word && matches!(next, Some('"') | Some('#')) {
                        let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                        if chars.get(i + 1 + hashes) == Some(&'"') {
                            state = In::Raw(hashes);
                            code.push('"');
                            i += 1 + hashes;
                        } else {
                            code.push(c);
                        }
                    } else if c == '\'' {
                        // A char literal ('"', '{', '\''), not a lifetime ('a).
                        let end = match next {
                            Some('\\') => chars
                                .iter()
                                .skip(i + 3)
                                .position(|&x| x == '\'')
                                .map(|p| i + 3 + p),
                            Some(_) if chars.get(i + 2) == Some(&'\'') => Some(i + 2),
                            _ => None,
                        };
                        match end {
                            Some(end) => {
                                code.push_str("' '");
                                i = end;
                            }
                            None => code.push(c),
                        }
                    } else {
                        code.push(c);
                    }
                }
            }
            i += 1;
        }
        out.push(code);
    }
    out
}

/// Whether `line` is a `#[cfg(test)]` (or `cfg(all(test, ...))`) attribute.
fn is_cfg_test(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test")
}

/// The lines of `text` (numbered from 1) outside `#[cfg(test)]` items,
/// and the modules declared `#[cfg(test)] mod NAME;` (in their own file).
fn non_test_lines(text: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let lines = code_lines(text);
    let mut out = Vec::new();
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_cfg_test(&lines[i]) {
            out.push((i + 1, lines[i].clone()));
            i += 1;
            continue;
        }
        // Skip the item the attribute is on: to its `;` or to the brace
        // that closes its body.
        i += 1;
        let mut depth = 0i64;
        let mut opened = false;
        while i < lines.len() {
            let code = &lines[i];
            let t = code.trim();
            if !opened && t.starts_with("mod ") && t.ends_with(';') {
                let name = t.trim_start_matches("mod ").trim_end_matches(';').trim();
                test_mods.push(name.to_string());
            }
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            i += 1;
            if (opened && depth <= 0) || (!opened && t.ends_with(';')) {
                break;
            }
        }
    }
    (out, test_mods)
}

/// The files of a module declared `mod NAME;` in `file`: `NAME.rs` and
/// everything under `NAME/`, beside `file` (lib.rs, main.rs, mod.rs) or
/// in `file`'s own directory.
fn module_paths(file: &Path, name: &str) -> Vec<PathBuf> {
    let dir = file.parent().unwrap();
    let stem = file.file_stem().unwrap().to_string_lossy();
    let base = if ["lib", "main", "mod"].contains(&stem.as_ref()) {
        dir.to_path_buf()
    } else {
        dir.join(stem.as_ref())
    };
    vec![base.join(format!("{name}.rs")), base.join(name)]
}

/// The non-test code of a crate's `src/`: (file, line number, code).
fn library_code(name: &str) -> Vec<(PathBuf, usize, String)> {
    let files = rust_files(&root().join("crates").join(name).join("src"));
    let mut test_only: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for file in &files {
        let (lines, mods) = non_test_lines(&read(file));
        for m in mods {
            test_only.extend(module_paths(file, &m));
        }
        out.push((file.clone(), lines));
    }
    out.into_iter()
        .filter(|(file, _)| !test_only.iter().any(|t| file.starts_with(t)))
        .flat_map(|(file, lines)| lines.into_iter().map(move |(n, l)| (file.clone(), n, l)))
        .collect()
}

/// Whether `code` calls `mac!` as a whole word (`print!`, not `eprint!`).
fn calls(code: &str, mac: &str) -> bool {
    code.match_indices(mac).any(|(at, _)| {
        !code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn library_crates_do_not_print() {
    let table = crate_table();
    let mut found = Vec::new();
    for name in crate_dirs() {
        let test_support = table.iter().any(|r| r.name == name && r.dev_only);
        if name == BINARY || test_support {
            continue;
        }
        for (file, line, code) in library_code(&name) {
            let printing = ["println!", "eprintln!", "print!", "eprint!", "dbg!"]
                .into_iter()
                .chain(["stdout()", "stderr()"])
                .find(|m| calls(&code, m));
            if let Some(m) = printing {
                found.push(format!(
                    "{}:{line}: `{m}` in the library crate `{name}`: return what it has to say \
                     (a warning in the result, an error, a value) and let `cli` print it",
                    shown(&file)
                ));
            }
        }
    }
    assert!(found.is_empty(), "\n{}\n", found.join("\n"));
}

/// The `[lints]` tables of a Cargo.toml: (table, its line without spaces).
fn lint_lines(manifest: &str) -> Vec<(String, String)> {
    toml_lines(manifest)
        .into_iter()
        .filter(|(table, ..)| table.starts_with("lints"))
        .map(|(table, _, t)| (table, t.split_whitespace().collect()))
        .collect()
}

/// Whether `code` has the `unsafe` keyword.
fn has_unsafe(code: &str) -> bool {
    code.match_indices("unsafe").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + 6..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn unsafe_code_is_forbidden_outside_the_engine() {
    let root_manifest = read(&root().join("Cargo.toml"));
    let mut wrong = Vec::new();
    let forbids = root_manifest
        .split("[workspace.lints.rust]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .is_some_and(|table| {
            table
                .lines()
                .any(|l| l.split_whitespace().collect::<String>() == "unsafe_code=\"forbid\"")
        });
    if !forbids {
        wrong.push(
            "Cargo.toml: [workspace.lints.rust] does not say unsafe_code = \"forbid\": \
             put it back, it is what keeps unsafe code in the engine"
                .to_string(),
        );
    }
    for name in crate_dirs().into_iter().filter(|n| n != ENGINE) {
        let manifest = root().join("crates").join(&name).join("Cargo.toml");
        let takes_workspace = lint_lines(&read(&manifest))
            .iter()
            .any(|(section, line)| section == "lints" && line == "workspace=true");
        if !takes_workspace {
            wrong.push(format!(
                "{}: no `[lints] workspace = true`, so the workspace's ban on unsafe code \
                 does not reach `{name}`: add it",
                shown(&manifest)
            ));
        }
        for file in rust_files(&root().join("crates").join(&name)) {
            for (i, code) in code_lines(&read(&file)).iter().enumerate() {
                if has_unsafe(code) {
                    wrong.push(format!(
                        "{}:{}: `unsafe` outside the engine: move the unsafe part into \
                         `engine` behind a safe API",
                        shown(&file),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// Whether the unsafe block or impl on line `at` of `lines` has a `//
/// SAFETY:` comment: on its line, or above it, past the lines of its own
/// statement (an unsafe block inside a `let`, a call's arguments) and any
/// other comment, up to a blank line or the end of the statement before.
fn documented(lines: &[&str], at: usize) -> bool {
    if lines[at].contains("SAFETY:") {
        return true;
    }
    for line in lines[..at].iter().rev() {
        let t = line.trim();
        if t.starts_with("//") {
            if t.contains("SAFETY:") {
                return true;
            }
            continue;
        }
        if t.is_empty() || t.ends_with(';') || t.ends_with('}') {
            return false;
        }
    }
    false
}

#[test]
fn the_engines_unsafe_is_each_documented() {
    let manifest_path = root().join("crates").join(ENGINE).join("Cargo.toml");
    let lints = lint_lines(&read(&manifest_path));
    let mut wrong = Vec::new();
    for (section, want) in [
        ("lints.clippy", "undocumented_unsafe_blocks=\"deny\""),
        ("lints.rust", "unsafe_op_in_unsafe_fn=\"deny\""),
    ] {
        if !lints.iter().any(|(s, l)| s == section && l == want) {
            wrong.push(format!(
                "{}: [{section}] lacks `{want}`: put it back, it is how the compiler holds \
                 the engine's unsafe to its SAFETY comments",
                shown(&manifest_path)
            ));
        }
    }
    let mut blocks = 0;
    for file in rust_files(&root().join("crates").join(ENGINE).join("src")) {
        let text = read(&file);
        let lines: Vec<&str> = text.lines().collect();
        for (i, code) in code_lines(&text).iter().enumerate() {
            let Some(at) = code.find("unsafe") else {
                continue;
            };
            let rest = code[at + 6..].trim_start();
            if !(rest.starts_with('{') || rest.starts_with("impl")) || !has_unsafe(code) {
                continue;
            }
            blocks += 1;
            if !documented(&lines, i) {
                wrong.push(format!(
                    "{}:{}: an unsafe block or impl without a `// SAFETY:` comment above it: \
                     say why it is sound (what the kernel or the caller guarantees)",
                    shown(&file),
                    i + 1
                ));
            }
        }
    }
    assert!(
        blocks > 0,
        "no unsafe block found in crates/{ENGINE}/src: the search is broken"
    );
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}
