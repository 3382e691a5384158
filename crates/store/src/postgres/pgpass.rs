//! `~/.pgpass` (or `$PGPASSFILE`) as libpq reads it: lines of
//! `host:port:database:user:password`, `*` matching anything, `\:` and
//! `\\` escaping, the first matching line winning. Like libpq, a file that
//! others may read is ignored (its passwords could be anyone's by now);
//! which file was ignored is kept on the target, and a connection the
//! server then refuses for want of a password says so (the store does not
//! print: the caller shows the error).

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// Who a password is for: a connection's host (or, when `socket`, the
/// directory of a Unix socket), port, database and user. It is given as
/// plain fields so this file needs nothing of the target it serves.
pub(crate) struct Wanted<'a> {
    pub host: &'a str,
    pub socket: bool,
    pub port: u16,
    pub dbname: &'a str,
    pub user: &'a str,
}

/// What the password file gave.
pub(crate) enum PgPass {
    /// The password of the first matching line.
    Found(String),
    /// No file, or no line for this target.
    None,
    /// The file is readable by others, so none of its lines was used.
    Ignored(PathBuf),
}

/// The password for `target` from the password file, if any line matches.
pub(crate) fn lookup(target: Wanted<'_>) -> PgPass {
    let file = match std::env::var_os("PGPASSFILE").filter(|v| !v.is_empty()) {
        Some(f) => PathBuf::from(f),
        None => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".pgpass"),
            None => return PgPass::None,
        },
    };
    let Ok(meta) = std::fs::metadata(&file) else {
        return PgPass::None;
    };
    if !meta.is_file() {
        return PgPass::None;
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return PgPass::Ignored(file);
    }
    let Ok(text) = std::fs::read_to_string(&file) else {
        return PgPass::None;
    };
    // A Unix socket counts as "localhost", as in libpq.
    let host = match target.socket {
        true => "localhost".to_string(),
        false => target.host.to_string(),
    };
    let wanted = [
        host,
        target.port.to_string(),
        target.dbname.to_string(),
        target.user.to_string(),
    ];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(fields)
        .find(|f| {
            f.len() == 5
                && f[..4]
                    .iter()
                    .zip(&wanted)
                    .all(|(have, want)| have == "*" || have == want)
        })
        .map_or(PgPass::None, |f| PgPass::Found(f[4].clone()))
}

/// The five fields of a line, unescaped.
fn fields(line: &str) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.last_mut()?.push(chars.next()?),
            ':' if out.len() < 5 => out.push(String::new()),
            c => out.last_mut()?.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::fields;

    #[test]
    fn lines_split_on_unescaped_colons() {
        assert_eq!(
            fields(r"db.example:5432:*:bench:pa\:ss\\word").unwrap(),
            ["db.example", "5432", "*", "bench", r"pa:ss\word"]
        );
    }
}
