//! `~/.pgpass` (or `$PGPASSFILE`) as libpq reads it: lines of
//! `host:port:database:user:password`, `*` matching anything, `\:` and
//! `\\` escaping, the first matching line winning. Like libpq, a file that
//! others may read is ignored (its passwords could be anyone's by now).

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

/// The password for `target` from the password file, if any line matches.
pub(crate) fn lookup(target: Wanted<'_>) -> Option<String> {
    let file = match std::env::var_os("PGPASSFILE").filter(|v| !v.is_empty()) {
        Some(f) => PathBuf::from(f),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let meta = std::fs::metadata(&file).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "warning: {} is readable by others, so its passwords are not used (chmod 600 {})",
            file.display(),
            file.display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
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
        .map(|f| f[4].clone())
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
