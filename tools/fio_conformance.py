#!/usr/bin/env python3
"""Runs fio's example job files in the real fio and in `diskbench fio`, and
prints a table of where the two differ, for the promise that a script
cannot tell `diskbench fio` from fio: the exit code, stderr (byte-empty or
not, and its text), the files a job leaves in its directory (by name: how
many a job of many small files makes in its runtime depends on the
machine), and the keys of the JSON on stdout. A tool still running after
`--timeout` is killed and the row says so (fio 3.33 hangs on
`io_submit_mode=offload`).

fio's examples are fio's (GPL-2.0), so the repository does not carry them:
give the directory, e.g. Debian's `/usr/share/doc/fio/examples` (fio 3.33's,
matching /usr/bin/fio), or a fio checkout's, extracted with
`git --git-dir=FIO.git archive HEAD examples | tar -x -C /tmp`.

Only the examples that run on local engines are run (psync, sync, libaio,
io_uring, mmap, null, posixaio, cpuio and the file-operation engines); one
that names a device (`filename=/dev/...`) or another engine is listed as skipped with the reason.

Each example runs in a scratch directory of its own, once per tool, on a
copy of its text shortened the same way for both: every `size=`,
`filesize=`, `io_size=`/`io_limit=` larger than `--size` (8m) becomes it, every
`runtime=` becomes `--runtime` (1), `ramp_time=`/`startdelay=` become 0,
`directory=` lines go (the scratch directory is the working directory), a
`filename=` outside `/dev` keeps only its last part (`/tmp/test`: `test`),
and a `[global]` with `size=` and `runtime=` is put first when the file
gives none. Both get `--output-format=json`; diskbench also `--no-save`
(it keeps no history entry, which fio has none of either).

Usage (from the repository's top, after `cargo build --bin diskbench`):
    tools/fio_conformance.py /usr/share/doc/fio/examples target/debug/diskbench
    [--fio /usr/bin/fio] [--size 8m] [--runtime 1] [--only NAME...]
It exits 1 when any example differs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LOCAL_ENGINES = {
    "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring",
    "mmap", "null", "posixaio", "cpuio", "falloc", "ftruncate",
    "filecreate", "filestat", "filedelete", "dircreate", "dirstat",
    "dirdelete", "splice",
}


def skip_reason(text):
    """Why an example is not run here, or None."""
    for engine in re.findall(r"^\s*ioengine\s*=\s*([\w:]+)", text, re.M):
        if engine not in LOCAL_ENGINES:
            return f"engine {engine}"
    for name in re.findall(r"^\s*filename\s*=\s*(\S+)", text, re.M):
        if name.startswith("/dev/"):
            return f"device {name}"
    if re.search(r"^\s*(numa_|cpus_allowed|cpumask)", text, re.M):
        return "CPU or NUMA placement of this machine"
    return None


SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def bytes_of(value):
    """A size as fio reads it (k, m, g... are powers of 2), or None."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgtp]?)i?b?\s*", value.lower())
    return int(m.group(1)) * SUFFIX[m.group(2)] if m else None


def shortened(text, size, runtime):
    """The example's text with the same short size and runtime for both:
    a size larger than `size` becomes `size`, a smaller one (a job of many
    small files) stays."""
    limit = bytes_of(size)

    def at_most(m):
        value = bytes_of(m.group(3))
        if value is not None and value <= limit:
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}={size}"

    text = re.sub(r"^(\s*)(size|filesize|io_size|io_limit)\s*=(.*)$", at_most, text, flags=re.M)
    rules = [
        (r"^(\s*)runtime\s*=.*$", rf"\1runtime={runtime}"),
        (r"^(\s*)(ramp_time|startdelay)\s*=.*$", r"\1\2=0"),
        (r"^\s*directory\s*=.*$", ""),
        (r"^(\s*)filename\s*=\s*/(?!dev/)(?:[^/\s]+/)*([^/\s]+)\s*$", r"\1filename=\2"),
    ]
    for pattern, repl in rules:
        text = re.sub(pattern, repl, text, flags=re.M)
    head = ""
    if not re.search(r"^\s*(size|filesize)\s*=", text, re.M):
        head += f"size={size}\n"
    if not re.search(r"^\s*runtime\s*=", text, re.M):
        head += f"runtime={runtime}\n"
    if head:
        text = f"[global]\n{head}\n{text}"
    return text


def files_in(top):
    """The files and directories left under `top`, relative, sorted."""
    found = []
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            found.append(os.path.relpath(os.path.join(root, name), top))
    return sorted(found)


def json_keys(stdout):
    """The top-level keys and each job's keys of the JSON on stdout."""
    start = stdout.find("{")
    if start < 0:
        return None
    try:
        doc = json.loads(stdout[start:])
    except ValueError:
        return "unparseable"
    jobs = doc.get("jobs", [])
    job_keys = set().union(*(set(j) for j in jobs)) if jobs else set()
    return (set(doc), job_keys, len(jobs))


def run_one(argv, text, timeout):
    """One tool on one example: (exit code, stderr, files left, JSON keys)."""
    with tempfile.TemporaryDirectory(prefix="fioconf-") as scratch:
        job = os.path.join(scratch, ".job.fio")
        with open(job, "w") as f:
            f.write(text)
        try:
            done = subprocess.run(
                argv + ["--output-format=json", job],
                cwd=scratch, capture_output=True, timeout=timeout,
            )
            code, err, out = done.returncode, done.stderr, done.stdout
        except subprocess.TimeoutExpired as e:
            code, err, out = "timeout", e.stderr or b"", e.stdout or b""
        left = [p for p in files_in(scratch) if p != ".job.fio"]
        return code, err.decode(errors="replace"), left, json_keys(out.decode(errors="replace"))


def names(files):
    """The files' names with their last number as `N`: how many files a
    job of many files (filecreate, nrfiles=) made in its runtime depends
    on the machine's speed, their names do not."""
    return {re.sub(r"\d+$", "N", f) for f in files}


def compare(fio, ours):
    """The differences between fio's result and diskbench's, as words."""
    diffs = []
    if fio[0] != ours[0]:
        diffs.append(f"exit {fio[0]} vs {ours[0]}")
    if bool(fio[1]) != bool(ours[1]):
        diffs.append("stderr " + ("empty" if not fio[1] else "text") + " vs "
                     + ("empty" if not ours[1] else "text"))
    if names(fio[2]) != names(ours[2]):
        only_fio = sorted(set(fio[2]) - set(ours[2]))
        only_ours = sorted(set(ours[2]) - set(fio[2]))
        diffs.append(f"files: fio only {only_fio[:4]}, diskbench only {only_ours[:4]}")
    fk, ok = fio[3], ours[3]
    if isinstance(fk, tuple) and isinstance(ok, tuple):
        missing_top = fk[0] - ok[0]
        missing_job = fk[1] - ok[1]
        if missing_top or missing_job:
            diffs.append(f"JSON lacks {sorted(missing_top | missing_job)[:5]}")
        if fk[2] != ok[2]:
            diffs.append(f"jobs {fk[2]} vs {ok[2]}")
    elif (fk is None) != (ok is None) or fk == "unparseable" or ok == "unparseable":
        diffs.append(f"JSON {'yes' if fk else 'no'} vs {'yes' if ok else 'no'}")
    return diffs


def first_line(text):
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:110]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples")
    ap.add_argument("diskbench")
    ap.add_argument("--fio", default="/usr/bin/fio")
    ap.add_argument("--size", default="8m")
    ap.add_argument("--runtime", default="1")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    names = sorted(n for n in os.listdir(args.examples) if n.endswith(".fio"))
    if args.only:
        names = [n for n in names if n in args.only or n[:-4] in args.only]
    counts = {"same": 0, "differ": 0, "skipped": 0}
    print(f"{'example':34} {'fio':>5} {'ours':>5}  verdict")
    for name in names:
        with open(os.path.join(args.examples, name)) as f:
            text = f.read()
        reason = skip_reason(text)
        if reason:
            counts["skipped"] += 1
            print(f"{name:34} {'-':>5} {'-':>5}  skipped: {reason}")
            continue
        text = shortened(text, args.size, args.runtime)
        fio = run_one([args.fio], text, args.timeout)
        ours = run_one([os.path.abspath(args.diskbench), "fio", "--no-save"], text, args.timeout)
        diffs = compare(fio, ours)
        counts["differ" if diffs else "same"] += 1
        verdict = "; ".join(diffs) if diffs else "same"
        if not diffs and len(fio[2]) != len(ours[2]):
            verdict += f" (files: {len(fio[2])} vs {len(ours[2])}, as many as the runtime allowed)"
        print(f"{name:34} {fio[0]!s:>5} {ours[0]!s:>5}  {verdict}")
        if fio[1] or ours[1]:
            if fio[1]:
                print(f"{'':34}   fio stderr: {first_line(fio[1])}")
            if ours[1]:
                print(f"{'':34}   our stderr: {first_line(ours[1])}")
        sys.stdout.flush()
    print(f"{counts['same']} same, {counts['differ']} differ, {counts['skipped']} skipped")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
