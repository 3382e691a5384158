//! An OCI image archive of the running diskbench, for clusters that cannot
//! pull from a registry: `ctr -n k8s.io images import FILE` (containerd),
//! `podman load`, `skopeo copy oci-archive:FILE ...` all read it.
//!
//! The image holds one layer: the binary at `/diskbench` and, when the
//! binary is linked dynamically, the shared libraries this very process
//! has mapped (read from `/proc/self/maps`, so exactly the ones the
//! loader chose), its program interpreter at the path the binary names,
//! and the system's CA certificates for TLS to a PostgreSQL history. A
//! static binary needs none of that and the layer is the binary alone.
//!
//! The tag carries the binary's digest (`0.1.0-3fa94c1d2e07`), so a
//! rebuilt binary is a new image and `imagePullPolicy: Never` cannot run a
//! stale one. The tar crate writes the archives (the layer, and the OCI
//! layout around it); this file adds the SHA-256 digests and the layout's
//! `index.json`. Every member is owned by root with time 0, so the same
//! binary always gives the same digests.

use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the image is named unless the user names it: "localhost/" keeps
/// a runtime from looking for it on Docker Hub.
pub const REPOSITORY: &str = "localhost/diskbench";

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the image to {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot put {path} in the image's archive: {source}; report this as a bug")]
    Member {
        path: String,
        source: std::io::Error,
    },
}

/// The image's contents and name, before it is written.
pub struct Image {
    /// Path in the image (no leading `/`) and its contents, or a symlink target.
    files: Vec<(String, Entry)>,
    pub name: String,
    pub statically_linked: bool,
}

enum Entry {
    File(Vec<u8>, u32),
    Dir,
}

/// The tag of the image of this binary: diskbench's version and the first
/// 12 hex digits of the binary's SHA-256.
pub fn tag_of(binary: &[u8], version: &str) -> String {
    let digest = hex(&Sha256::digest(binary));
    format!("{version}-{}", &digest[..12])
}

/// The default image name of the running binary, as `kube run` expects it
/// when no `--image` is given.
pub fn default_name(version: &str) -> Result<String, ImageError> {
    let exe = read(Path::new("/proc/self/exe"))?;
    Ok(format!("{REPOSITORY}:{}", tag_of(&exe, version)))
}

fn read(path: &Path) -> Result<Vec<u8>, ImageError> {
    std::fs::read(path).map_err(|source| ImageError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The image of the running process: its binary and what it loaded.
pub fn of_this_process(version: &str, name: Option<&str>) -> Result<Image, ImageError> {
    let exe = read(Path::new("/proc/self/exe"))?;
    let name = match name {
        Some(n) => n.to_string(),
        None => format!("{REPOSITORY}:{}", tag_of(&exe, version)),
    };
    let interpreter = interpreter_of(&exe);
    let statically_linked = interpreter.is_none();
    let mut files = vec![("diskbench".to_string(), Entry::File(exe, 0o755))];
    if let Some(interp) = interpreter {
        let maps =
            std::fs::read_to_string("/proc/self/maps").map_err(|source| ImageError::Read {
                path: "/proc/self/maps".into(),
                source,
            })?;
        let mut seen = BTreeSet::new();
        for lib in mapped_libraries(&maps) {
            if seen.insert(lib.clone()) {
                files.push((relative(&lib), Entry::File(read(Path::new(&lib))?, 0o755)));
            }
        }
        // The loader at the path the binary names (e.g. /lib64/...), which
        // the mapped path (e.g. /usr/lib/x86_64-linux-gnu/...) may not be.
        if !seen.contains(&interp) {
            let real = std::fs::canonicalize(&interp).map_err(|source| ImageError::Read {
                path: interp.clone().into(),
                source,
            })?;
            files.push((relative(&interp), Entry::File(read(&real)?, 0o755)));
        }
        for certs in ["/etc/ssl/certs/ca-certificates.crt"] {
            if let Ok(data) = std::fs::read(certs) {
                files.push((relative(certs), Entry::File(data, 0o644)));
            }
        }
    }
    files.push(("tmp".into(), Entry::Dir));
    files.push(("data".into(), Entry::Dir));
    Ok(Image {
        files,
        name,
        statically_linked,
    })
}

fn relative(path: &str) -> String {
    path.trim_start_matches('/').to_string()
}

/// The shared objects mapped into a process, from its `/proc/PID/maps`.
pub fn mapped_libraries(maps: &str) -> Vec<String> {
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.starts_with('/'))
        .filter(|path| {
            let file = path.rsplit('/').next().unwrap_or_default();
            file.ends_with(".so") || file.contains(".so.")
        })
        .map(String::from)
        .collect()
}

/// The program interpreter an ELF binary names (`PT_INTERP`), `None` for a
/// static binary or one this reader does not understand (64-bit
/// little-endian ELF is what diskbench builds as).
pub fn interpreter_of(elf: &[u8]) -> Option<String> {
    if elf.len() < 64 || &elf[..4] != b"\x7fELF" || elf[4] != 2 || elf[5] != 1 {
        return None;
    }
    let u16_at = |at: usize| -> Option<usize> {
        Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?).into())
    };
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?))
    };
    let phoff = u64_at(0x20)? as usize;
    let phentsize = u16_at(0x36)?;
    let phnum = u16_at(0x38)?;
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        let kind = u32::from_le_bytes(elf.get(ph..ph + 4)?.try_into().ok()?);
        if kind == 3 {
            let offset = u64_at(ph + 8)? as usize;
            let size = u64_at(ph + 32)? as usize;
            let raw = elf.get(offset..offset + size)?;
            let text = raw.split(|b| *b == 0).next()?;
            return String::from_utf8(text.to_vec()).ok();
        }
    }
    None
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest(data: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(data)))
}

/// An archive being written: a tar of members owned by root, dated 0.
struct Tar(tar::Builder<Vec<u8>>);

impl Tar {
    fn new() -> Tar {
        Tar(tar::Builder::new(Vec::new()))
    }

    /// A file holding `data`.
    fn file(&mut self, path: &str, data: &[u8], mode: u32) -> Result<(), ImageError> {
        self.member(path, data, mode, tar::EntryType::Regular)
    }

    /// A directory (`path` ends in `/`).
    fn dir(&mut self, path: &str, mode: u32) -> Result<(), ImageError> {
        self.member(path, &[], mode, tar::EntryType::Directory)
    }

    fn member(
        &mut self,
        path: &str,
        data: &[u8],
        mode: u32,
        kind: tar::EntryType,
    ) -> Result<(), ImageError> {
        let mut header = tar::Header::new_ustar();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_size(data.len() as u64);
        self.0
            .append_data(&mut header, path, data)
            .map_err(|source| ImageError::Member {
                path: path.to_string(),
                source,
            })
    }

    /// The archive, closed with its two empty blocks.
    fn finish(self) -> Result<Vec<u8>, ImageError> {
        self.0.into_inner().map_err(|source| ImageError::Member {
            path: "the archive's end".into(),
            source,
        })
    }
}

impl Image {
    /// The layer: every file with its parent directories, in order.
    fn layer(&self) -> Result<Vec<u8>, ImageError> {
        let mut out = Tar::new();
        let mut dirs = BTreeSet::new();
        for (path, entry) in &self.files {
            let mut parent = String::new();
            for part in path
                .split('/')
                .collect::<Vec<_>>()
                .split_last()
                .map_or(&[][..], |(_, p)| p)
            {
                parent.push_str(part);
                parent.push('/');
                if dirs.insert(parent.clone()) {
                    out.dir(&parent, 0o755)?;
                }
            }
            match entry {
                Entry::File(data, mode) => out.file(path, data, *mode)?,
                Entry::Dir => {
                    // /tmp is writable by anyone, as on every system.
                    let mode = if path == "tmp" { 0o1777 } else { 0o755 };
                    if dirs.insert(format!("{path}/")) {
                        out.dir(&format!("{path}/"), mode)?;
                    }
                }
            }
        }
        out.finish()
    }

    /// The files in the image, for the user (`kube image` lists them).
    pub fn paths(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|(_, e)| matches!(e, Entry::File(..)))
            .map(|(p, _)| format!("/{p}"))
            .collect()
    }

    /// The whole OCI archive (oci-layout, index.json, blobs).
    pub fn archive(&self) -> Result<Vec<u8>, ImageError> {
        let layer = self.layer()?;
        let layer_digest = digest(&layer);
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        };
        let config = json!({
            "architecture": arch,
            "os": "linux",
            "config": {
                "Entrypoint": ["/diskbench"],
                "Env": ["PATH=/", "HOME=/tmp"],
                "User": format!("{0}:{0}", crate::objects::POD_USER),
                "WorkingDir": crate::objects::DATA_DIR,
            },
            "rootfs": { "type": "layers", "diff_ids": [layer_digest] },
        })
        .to_string()
        .into_bytes();
        let manifest = json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": digest(&config),
                "size": config.len(),
            },
            "layers": [{
                "mediaType": "application/vnd.oci.image.layer.v1.tar",
                "digest": layer_digest,
                "size": layer.len(),
            }],
        })
        .to_string()
        .into_bytes();
        let tag = self.name.rsplit_once(':').map_or("latest", |(_, t)| t);
        let index = json!({
            "schemaVersion": 2,
            "manifests": [{
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": digest(&manifest),
                "size": manifest.len(),
                "annotations": {
                    "io.containerd.image.name": self.name,
                    "org.opencontainers.image.ref.name": tag,
                },
            }],
        })
        .to_string()
        .into_bytes();
        let mut out = Tar::new();
        out.file("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#, 0o644)?;
        out.file("index.json", &index, 0o644)?;
        out.dir("blobs/", 0o755)?;
        out.dir("blobs/sha256/", 0o755)?;
        for blob in [&config, &manifest, &layer] {
            let name = format!("blobs/sha256/{}", &digest(blob)[7..]);
            out.file(&name, blob, 0o644)?;
        }
        out.finish()
    }

    pub fn write_to(&self, path: &Path) -> Result<u64, ImageError> {
        let data = self.archive()?;
        let fail = |source| ImageError::Write {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::create(path).map_err(fail)?;
        file.write_all(&data).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        Ok(data.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_read_from_the_maps() {
        let maps = "55d0-55d1 r--p 00000000 fe:01 1 /usr/bin/diskbench\n\
                    7f00-7f01 r--p 00000000 fe:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n\
                    7f02-7f03 r--p 00000000 fe:01 3 /usr/lib/x86_64-linux-gnu/libssl.so.3\n\
                    7f04-7f05 rw-p 00000000 00:00 0 \n\
                    7f06-7f07 r--p 00000000 00:00 0 [vdso]\n";
        assert_eq!(
            mapped_libraries(maps),
            [
                "/usr/lib/x86_64-linux-gnu/libc.so.6",
                "/usr/lib/x86_64-linux-gnu/libssl.so.3"
            ]
        );
    }

    #[test]
    fn this_test_binary_names_its_interpreter() {
        let exe = std::fs::read("/proc/self/exe").unwrap();
        let interp = interpreter_of(&exe).expect("a dynamically linked test binary");
        assert!(interp.contains("ld-linux"), "{interp}");
        assert_eq!(interpreter_of(b"not an elf"), None);
    }

    /// The layer holds each file with its parents before it and its mode,
    /// /tmp open to all, and the same image always gives the same bytes
    /// (so the same digests).
    #[test]
    fn the_layer_keeps_modes_and_is_the_same_every_time() {
        let image = Image {
            files: vec![
                ("diskbench".into(), Entry::File(b"binary".to_vec(), 0o755)),
                (
                    "etc/ssl/certs/ca.pem".into(),
                    Entry::File(b"pem".to_vec(), 0o644),
                ),
                ("tmp".into(), Entry::Dir),
            ],
            name: "localhost/diskbench:test".into(),
            statically_linked: true,
        };
        let layer = image.layer().unwrap();
        assert_eq!(layer, image.layer().unwrap());
        assert_eq!(image.archive().unwrap(), image.archive().unwrap());
        let mut read = tar::Archive::new(layer.as_slice());
        let members: Vec<(String, u32, u64)> = read
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let h = e.header();
                let path = e.path().unwrap().to_string_lossy().into_owned();
                (
                    path,
                    h.mode().unwrap(),
                    h.mtime().unwrap() + h.uid().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            members,
            [
                ("diskbench".to_string(), 0o755, 0),
                ("etc/".to_string(), 0o755, 0),
                ("etc/ssl/".to_string(), 0o755, 0),
                ("etc/ssl/certs/".to_string(), 0o755, 0),
                ("etc/ssl/certs/ca.pem".to_string(), 0o644, 0),
                ("tmp/".to_string(), 0o1777, 0),
            ]
        );
    }

    /// The archive is a tar GNU tar lists, with the OCI layout's files and
    /// blobs named by their digests.
    #[test]
    fn the_archive_is_an_oci_layout_tar_lists() {
        let image = of_this_process("0.1.0", None).unwrap();
        assert!(image.name.starts_with("localhost/diskbench:0.1.0-"));
        assert!(image.paths().iter().any(|p| p.contains("libc.so")));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("image.tar");
        image.write_to(&path).unwrap();
        let out = std::process::Command::new("tar")
            .arg("-tf")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let list = String::from_utf8(out.stdout).unwrap();
        assert!(list.contains("oci-layout\nindex.json\n"), "{list}");
        // The directory and three blobs: config, manifest, layer.
        assert_eq!(list.matches("blobs/sha256/").count(), 4, "{list}");
        // Every blob's name is the SHA-256 of its content.
        let x = std::process::Command::new("tar")
            .arg("-xf")
            .arg(&path)
            .arg("-C")
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(x.success());
        for entry in std::fs::read_dir(dir.path().join("blobs/sha256")).unwrap() {
            let entry = entry.unwrap();
            let data = std::fs::read(entry.path()).unwrap();
            assert_eq!(
                hex(&Sha256::digest(&data)),
                entry.file_name().to_string_lossy()
            );
        }
    }
}
