//! The parser: dbench's lines in, `file:line: reason` for anything else.

use super::*;

fn one(text: &str) -> Line {
    Loadfile::parse("t.txt", text).unwrap().lines.remove(0)
}

fn error(text: &str) -> String {
    Loadfile::parse("t.txt", text).unwrap_err().to_string()
}

#[test]
fn client_txt_lines_parse() {
    let line =
        one(r#"NTCreateX "\clients\client1\~dmtmp\WORD\CHAP10.DOC" 0x40 0x2 10042 NT_STATUS_OK"#);
    assert_eq!(line.number, 1);
    assert_eq!(line.at, None);
    assert_eq!(line.expect, Status::Ok);
    match line.op {
        Op::NtCreateX {
            path,
            options,
            disposition,
            handle,
        } => {
            assert_eq!(&*path.rel, "clients/client1/~dmtmp/WORD/CHAP10.DOC");
            assert!(path.per_client);
            assert_eq!((options, disposition, handle), (0x40, 2, 10042));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        one("ReadX 10941 2100 4096 4096 NT_STATUS_OK").op,
        Op::ReadX {
            handle: 10941,
            offset: 2100,
            size: 4096,
            returned: 4096
        }
    );
    assert_eq!(
        one(r#"QUERY_PATH_INFORMATION "\clients\client1\x" 1004 NT_STATUS_OBJECT_PATH_NOT_FOUND"#)
            .expect,
        Status::ObjectPathNotFound
    );
    assert_eq!(
        one("LockX 12997 2147483538 1 NT_STATUS_OK").op,
        Op::LockX { handle: 12997 }
    );
    assert_eq!(one("QUERY_FS_INFORMATION 259 NT_STATUS_OK").op, Op::Qfsinfo);
}

#[test]
fn a_leading_time_is_kept() {
    let line = one(r#"0.250 Close 7 NT_STATUS_OK"#);
    assert_eq!(line.at, Some(0.25));
    assert_eq!(line.op, Op::Close { handle: 7 });
}

#[test]
fn comments_and_blank_lines_keep_line_numbers() {
    let load = Loadfile::parse("t.txt", "# a comment\n\nClose 1 NT_STATUS_OK\r\n").unwrap();
    assert_eq!(load.lines.len(), 1);
    assert_eq!(load.lines[0].number, 3);
}

#[test]
fn every_error_names_file_line_and_reason() {
    let text = "Close 1 NT_STATUS_OK\nFrobnicate 1 NT_STATUS_OK\n";
    let e = error(text);
    assert!(
        e.starts_with("t.txt:2: unknown operation 'Frobnicate'"),
        "{e}"
    );
    for (bad, reason) in [
        (
            "Close NT_STATUS_OK",
            "Close takes 1 argument (HANDLE) before the status, found 0",
        ),
        ("Close 1", "must end with the status"),
        (
            "Close x NT_STATUS_OK",
            "'x' is not a number (the handle of Close)",
        ),
        ("WriteX 1 0 65536 NT_STATUS_OK", "WriteX takes 4 arguments"),
        (
            r#"Unlink "\clients\..\..\etc\passwd" 0x6 NT_STATUS_OK"#,
            "climbs out of the test directory",
        ),
        (
            r#"Deltree "\" NT_STATUS_OK"#,
            "test directory itself is refused",
        ),
        (
            r#"NTCreateX "\a 0x40 0x2 1 NT_STATUS_OK"#,
            "quote is not closed",
        ),
        (
            r#"NTCreateX "\a" 0x40 0x9 1 NT_STATUS_OK"#,
            "disposition 0x9",
        ),
        ("ntcreatex", "did you mean NTCreateX?"),
        ("1.5.2 Close 1 NT_STATUS_OK", "not a time in seconds"),
        ("Close 99999999999 NT_STATUS_OK", "too large"),
    ] {
        let e = error(&format!("Close 1 NT_STATUS_OK\n{bad}\n"));
        assert!(e.starts_with("t.txt:2: "), "{bad}: {e}");
        assert!(e.contains(reason), "{bad}: {e}");
    }
}

#[test]
fn an_empty_file_is_an_error() {
    assert!(error("# nothing\n").contains("no operations"));
}

#[test]
fn a_missing_file_says_where_to_find_one() {
    let e = Loadfile::read(Path::new("/nonexistent/client.txt"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/client.txt"), "{e}");
    assert!(e.contains("/usr/share/dbench/client.txt"), "{e}");
}

#[test]
fn counts_sizes_and_data() {
    let load = Loadfile::parse(
        "t.txt",
        "NTCreateX \"\\a\" 0x40 0x5 1 NT_STATUS_OK\n\
         WriteX 1 0 65536 65536 NT_STATUS_OK\n\
         WriteX 1 65536 4096 4096 NT_STATUS_OK\n\
         ReadX 1 0 131072 69632 NT_STATUS_OK\n\
         Close 1 NT_STATUS_OK\n",
    )
    .unwrap();
    let counts = load.counts();
    assert_eq!(counts[OpKind::WriteX as usize], 2);
    assert_eq!(counts[OpKind::Close as usize], 1);
    assert_eq!(load.max_io(), 131072);
    assert_eq!(load.data_bytes(), 69632);
}

#[test]
fn debian_client_txt_parses_when_installed() {
    let path = Path::new("/usr/share/dbench/client.txt");
    if !path.exists() {
        testbed::skip(format!(
            "{} is not installed (apt-get install dbench)",
            path.display()
        ));
        return;
    }
    let load = Loadfile::read(path).unwrap();
    assert!(load.lines.len() > 400_000);
    assert_eq!(load.counts()[OpKind::ReadX as usize], 124_199);
}
