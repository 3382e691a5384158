#!/usr/bin/env python3
"""Records what fio's `sprandom` writes, region by region, for the
diskbench tests that CI runs without a fio that has it (fio 3.33 has none).

For each configuration of a grid (size, bs, spr_op, spr_num_regions,
spr_cs) it runs fio (3.42 or later: FIO names it, default fio) with
`--debug=sprandom`, which prints every write with its region and whether it
is the first write of its block ("lfsr") or a rewrite ("over"), and the
region length fio plans ("region_write_count"). It writes one CSV line per
configuration: the outcome (ok; refused: fio refused the sprandom
options; failed: fio failed otherwise, e.g. on an LFSR of too few blocks;
crashed: fio died), the region length, and per region (fio may go one
region past spr_num_regions while first writes are left) the first writes and the
rewrites, space-separated. fio's default seed is used, so the figures are
fio's for a plain run; other seeds (randseed=) give other rewrite counts,
since fio picks the blocks to rewrite at random.

Usage (from the repository's top):
    FIO=/path/to/fio-3.42/fio bench/sprandom_fio_figures.py >
        crates/runner/tests/fixtures/sprandom_fio_3_42.csv
(about 15 minutes; the grid has 960 configurations).
"""

import collections
import itertools
import os
import subprocess
import sys
import tempfile

FIO = os.environ.get("FIO", "fio")
SIZES = ["64k", "400k", "4m", "16m", "64m"]
BLOCK_SIZES = ["4k", "8k"]
OPS = ["0.05", "0.07", "0.15", "0.3", "0.5", "0.9"]
REGIONS = [1, 2, 3, 4, 10, 33, 100, 200]
CACHES = ["0", "64k"]


def run(dev, size, bs, op, regions, cache):
    cmd = [FIO, "--debug=sprandom", "--name=p", f"--filename={dev}",
           f"--size={size}", f"--bs={bs}", "--rw=randwrite",
           "--ioengine=psync", "--norandommap=1", "--sprandom=1",
           f"--spr_op={op}", f"--spr_num_regions={regions}",
           f"--spr_cs={cache}", "--output-format=terse"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    first = collections.Counter()
    rewrites = collections.Counter()
    length = None
    for line in done.stdout.splitlines():
        words = line.split()
        if "Write" in words:
            at = words.index("Write")
            kind, region = words[at + 2], int(words[at + 3])
            (first if kind == "lfsr" else rewrites)[region] += 1
        elif len(words) > 3 and words[2] == "region_write_count:":
            length = int(words[3])
    said = done.stdout + done.stderr
    if done.returncode < 0 or "got signal" in said:
        return "crashed", "", "", ""
    if not first:
        # fio says "sprandom: spr_cs ... must be smaller than region_sz"
        # of options it refuses; other failures (an LFSR of too few
        # blocks) are its own limits.
        return ("refused" if "sprandom:" in said else "failed"), "", "", ""
    n = max(itertools.chain(first, rewrites)) + 1
    return ("ok", str(length), " ".join(str(first[r]) for r in range(n)),
            " ".join(str(rewrites[r]) for r in range(n)))


def main():
    out = sys.stdout
    out.write("size,bs,spr_op,spr_num_regions,spr_cs,outcome,region_writes,first_writes,rewrites\n")
    with tempfile.TemporaryDirectory() as tmp:
        dev = os.path.join(tmp, "dev")
        for size, bs, op, regions, cache in itertools.product(
                SIZES, BLOCK_SIZES, OPS, REGIONS, CACHES):
            figures = run(dev, size, bs, op, regions, cache)
            out.write(",".join([size, bs, op, str(regions), cache, *figures]) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
