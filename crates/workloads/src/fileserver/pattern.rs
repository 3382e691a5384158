//! The wildcards of an SMB directory search (FIND_FIRST), matched as a
//! Windows server matches them: case-insensitively, with `*` and `?` and
//! the DOS forms a client sends for old 8.3 masks: `<` (any characters up
//! to the last dot), `>` (one character, or none before a dot or the end)
//! and `"` (a dot, or the end of the name).

/// Whether `name` matches `mask`.
pub fn matches(mask: &str, name: &str) -> bool {
    let mask: Vec<u8> = mask.bytes().map(|b| b.to_ascii_lowercase()).collect();
    let name: Vec<u8> = name.bytes().map(|b| b.to_ascii_lowercase()).collect();
    let last_dot = name.iter().rposition(|&b| b == b'.');
    match_at(&mask, &name, 0, last_dot)
}

fn match_at(mask: &[u8], name: &[u8], pos: usize, last_dot: Option<usize>) -> bool {
    let Some((&m, rest)) = mask.split_first() else {
        return pos == name.len();
    };
    let here = name.get(pos).copied();
    match m {
        b'*' => (pos..=name.len()).any(|p| match_at(rest, name, p, last_dot)),
        b'<' => {
            // Up to (not past) the last dot when there is one, else anywhere.
            let limit = last_dot.unwrap_or(name.len()).max(pos);
            (pos..=limit).any(|p| match_at(rest, name, p, last_dot))
        }
        b'?' => here.is_some() && match_at(rest, name, pos + 1, last_dot),
        b'>' => match here {
            None | Some(b'.') => match_at(rest, name, pos, last_dot),
            Some(_) => match_at(rest, name, pos + 1, last_dot),
        },
        b'"' => match here {
            None => match_at(rest, name, pos, last_dot),
            Some(b'.') => match_at(rest, name, pos + 1, last_dot),
            Some(_) => false,
        },
        c => here == Some(c) && match_at(rest, name, pos + 1, last_dot),
    }
}

/// Whether the mask has a wildcard at all (else it names one entry).
pub fn is_wild(mask: &str) -> bool {
    mask.contains(['*', '?', '<', '>', '"'])
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn star_and_question_mark() {
        assert!(matches("*", "anything.doc"));
        assert!(matches("*", "."));
        assert!(matches("FILLER.*", "filler.000"));
        assert!(!matches("FILLER.*", "other.000"));
        assert!(matches("chap?.doc", "CHAP1.DOC"));
        assert!(!matches("chap?.doc", "CHAP10.DOC"));
    }

    #[test]
    fn dos_wildcards() {
        assert!(matches("<.JNK", "ab.jnk"));
        assert!(matches("<.JNK", "a.b.jnk"));
        assert!(!matches("<.JNK", "ab.doc"));
        assert!(matches("ab>>.doc", "ab.doc"));
        assert!(matches("abc\"", "abc"));
        assert!(matches("abc\"txt", "abc.txt"));
    }

    #[test]
    fn literal_names_ignore_case() {
        assert!(matches("File.TXT", "file.txt"));
        assert!(!matches("file.txt", "file.txt2"));
    }
}
