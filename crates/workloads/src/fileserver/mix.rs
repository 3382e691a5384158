//! The built-in mix: a small office file-server day written as a dbench
//! loadfile, so it runs through exactly the same replay as `client.txt` and
//! a user can print it (`--show-mix`), edit it and pass it back with
//! `--loadfile`.
//!
//! Each pass, in the client's own tree (`clients/clientN/mix`): make four
//! directories; create 24 files of 4 KiB to 1 MiB (written in 64 KiB
//! pieces, one file in four flushed to disk with fsync); list each
//! directory; stat every file and one missing name; open and read every
//! file twice, with a stat of the open file; rename a third of the files;
//! delete another third; remove the tree. Reads are twice the writes, as in an
//! office (NetBench's own load is 90% writes; `client.txt` replays that).

use std::fmt::Write;

const DIRS: usize = 4;
const FILES: usize = 24;
const SIZES: [u64; 8] = [
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    1 << 20,
];
const CHUNK: u64 = 64 << 10;
const ROOT: &str = r"\clients\client1\mix";

fn file(i: usize) -> String {
    format!(r"{ROOT}\d{}\file{i:02}.dat", i % DIRS)
}

fn size(i: usize) -> u64 {
    SIZES[i % SIZES.len()]
}

/// Writes `ReadX`/`WriteX` lines covering `len` bytes of handle `h`.
fn pieces(out: &mut String, op: &str, h: usize, len: u64) {
    let mut offset = 0;
    while offset < len {
        let n = CHUNK.min(len - offset);
        let _ = writeln!(out, "{op} {h} {offset} {n} {n} NT_STATUS_OK");
        offset += n;
    }
}

/// The mix as loadfile text.
pub fn text() -> String {
    let mut out = String::from("# diskbench fileserver's built-in mix (a dbench loadfile)\n");
    let _ = writeln!(out, r#"Deltree "{ROOT}" NT_STATUS_OK"#);
    for dir in [r"\clients", r"\clients\client1", ROOT] {
        let _ = writeln!(out, r#"Mkdir "{dir}" NT_STATUS_OK"#);
    }
    for d in 0..DIRS {
        let _ = writeln!(out, r#"Mkdir "{ROOT}\d{d}" NT_STATUS_OK"#);
    }
    let mut handle = 1000;
    for i in 0..FILES {
        handle += 1;
        let _ = writeln!(
            out,
            r#"NTCreateX "{}" 0x40 0x5 {handle} NT_STATUS_OK"#,
            file(i)
        );
        pieces(&mut out, "WriteX", handle, size(i));
        if i % 4 == 0 {
            let _ = writeln!(out, "Flush {handle} NT_STATUS_OK");
        }
        let _ = writeln!(out, "Close {handle} NT_STATUS_OK");
    }
    for d in 0..DIRS {
        let n = FILES / DIRS + 2;
        let _ = writeln!(
            out,
            r#"FIND_FIRST "{ROOT}\d{d}\*" 260 1366 {n} NT_STATUS_OK"#
        );
    }
    for i in 0..FILES {
        let _ = writeln!(
            out,
            r#"QUERY_PATH_INFORMATION "{}" 1004 NT_STATUS_OK"#,
            file(i)
        );
    }
    let _ = writeln!(
        out,
        r#"QUERY_PATH_INFORMATION "{ROOT}\d0\missing.dat" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND"#
    );
    for _ in 0..2 {
        for i in 0..FILES {
            handle += 1;
            let _ = writeln!(
                out,
                r#"NTCreateX "{}" 0x40 0x1 {handle} NT_STATUS_OK"#,
                file(i)
            );
            let _ = writeln!(out, "QUERY_FILE_INFORMATION {handle} 1004 NT_STATUS_OK");
            pieces(&mut out, "ReadX", handle, size(i));
            let _ = writeln!(out, "Close {handle} NT_STATUS_OK");
        }
    }
    for i in (0..FILES).step_by(3) {
        let renamed = file(i).replace("file", "renamed");
        let _ = writeln!(out, r#"Rename "{}" "{renamed}" NT_STATUS_OK"#, file(i));
    }
    for i in (1..FILES).step_by(3) {
        let _ = writeln!(out, r#"Unlink "{}" 0x6 NT_STATUS_OK"#, file(i));
    }
    let _ = writeln!(out, r#"Deltree "{ROOT}" NT_STATUS_OK"#);
    out
}

#[cfg(test)]
mod tests {
    use super::super::loadfile::{Loadfile, OpKind};

    #[test]
    fn the_mix_parses_and_uses_every_listed_operation() {
        let mix = Loadfile::parse("built-in mix", &super::text()).unwrap();
        let counts = mix.counts();
        for kind in [
            OpKind::NtCreateX,
            OpKind::WriteX,
            OpKind::ReadX,
            OpKind::Qpathinfo,
            OpKind::Rename,
            OpKind::Unlink,
            OpKind::Mkdir,
            OpKind::Flush,
            OpKind::Find,
            OpKind::Deltree,
        ] {
            assert!(
                counts[kind as usize] > 0,
                "{} missing from the mix",
                kind.name()
            );
        }
        let bytes = |kind: OpKind| -> u64 {
            mix.lines
                .iter()
                .filter(|l| l.op.kind() == kind)
                .map(|l| match l.op {
                    super::super::loadfile::Op::WriteX { size, .. }
                    | super::super::loadfile::Op::ReadX { size, .. } => u64::from(size),
                    _ => 0,
                })
                .sum()
        };
        assert_eq!(bytes(OpKind::ReadX), 2 * bytes(OpKind::WriteX));
    }
}
