//! A file named in a pattern: fio's `buffer_pattern` and `verify_pattern`
//! take, among their pieces, a file name in single quotes
//! (`buffer_pattern=0xdeadface"abcd"-12'filename'`), whose whole contents
//! become that piece of the pattern. The file is read when the job is
//! parsed, from the current directory when the name is relative, as fio
//! opens it. fio 3.33 kept only a pattern's first 512 bytes; fio 3.34 and
//! later (and so diskbench) keep the whole file, so a 16 KiB file fills a
//! 16 KiB block exactly.
//!
//! Only the quoted file names are taken here; the pieces between them are
//! read by the option's own grammar (`verify_opts::pattern`), handed in as
//! `parse`, so the two files need not import each other.

use crate::error::{FioError, Scope};
use model::verify::PatternPiece;

/// `text`'s pieces, each single-quoted name replaced by its file's bytes
/// and the text between them read by `parse`. A single quote inside a
/// double-quoted string is part of the string.
pub(crate) fn with_files(
    scope: &Scope,
    name: &str,
    text: &str,
    parse: impl Fn(&str) -> Result<Vec<PatternPiece>, FioError>,
) -> Result<Vec<PatternPiece>, FioError> {
    let mut pieces = Vec::new();
    let mut rest = text.trim();
    while let Some(open) = quote_outside_strings(rest) {
        let between = &rest[..open];
        if !between.is_empty() {
            pieces.extend(parse(between)?);
        }
        let after = &rest[open + 1..];
        let close = after.find('\'').ok_or_else(|| {
            FioError::invalid(
                scope,
                name,
                text,
                "a file name in single quotes is not closed: add the closing quote",
            )
        })?;
        let path = &after[..close];
        let bytes = std::fs::read(path).map_err(|e| {
            FioError::invalid(
                scope,
                name,
                text,
                format!(
                    "cannot read the pattern file '{path}' ({e}): a name in single quotes is a \
                     file whose bytes are the pattern; give an existing file, or write the bytes \
                     in hex (0xdeadbeef) or in double quotes (\"abcd\")"
                ),
            )
        })?;
        if bytes.is_empty() {
            return Err(FioError::invalid(
                scope,
                name,
                text,
                format!("the pattern file '{path}' is empty: give a file with the pattern's bytes"),
            ));
        }
        pieces.push(PatternPiece::Bytes(bytes));
        rest = &after[close + 1..];
    }
    if !rest.is_empty() || pieces.is_empty() {
        pieces.extend(parse(rest)?);
    }
    Ok(pieces)
}

/// Where the first single quote outside a double-quoted string is.
fn quote_outside_strings(text: &str) -> Option<usize> {
    let mut in_string = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '\'' if !in_string => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use PatternPiece::Bytes;

    const G: &Scope = &Scope::Global;

    /// A stand-in for the option's grammar: each piece's text as bytes.
    fn as_text(t: &str) -> Result<Vec<PatternPiece>, FioError> {
        Ok(vec![Bytes(t.as_bytes().to_vec())])
    }

    #[test]
    fn a_quoted_name_is_its_files_bytes_between_the_other_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.bin");
        let content: Vec<u8> = (0..2000u32).map(|i| (i * 7) as u8).collect();
        std::fs::write(&file, &content).unwrap();
        let text = format!("0x11'{}'\"a'b\"", file.display());
        let pieces = with_files(G, "buffer_pattern", &text, as_text).unwrap();
        assert_eq!(
            pieces,
            vec![
                Bytes(b"0x11".to_vec()),
                Bytes(content),
                Bytes(b"\"a'b\"".to_vec())
            ]
        );
        // Without a quoted name, the option's grammar reads it all.
        let plain = with_files(G, "buffer_pattern", "\"it's\"", as_text).unwrap();
        assert_eq!(plain, vec![Bytes(b"\"it's\"".to_vec())]);
    }

    #[test]
    fn a_missing_unclosed_or_empty_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        for (text, says) in [
            (
                "'/nowhere/p'".to_string(),
                "cannot read the pattern file '/nowhere/p'",
            ),
            ("'open".to_string(), "not closed"),
            (format!("'{}'", empty.display()), "is empty"),
        ] {
            let e = with_files(G, "buffer_pattern", &text, as_text).unwrap_err();
            assert!(e.to_string().contains(says), "{text}: {e}");
        }
    }
}
