#!/bin/sh
# Runs the fuzz targets one after another, each for SECONDS (default 600),
# politely: before each run it waits until no benchmark is measuring on this
# machine, then fuzzes at the lowest priority on one core.
#
#   fuzz/run.sh [SECONDS [TARGET...]]      (default: every target)
#
# Each run's libFuzzer log is kept as artifacts/TARGET/run-DATE.log, and a
# line per run (target, seconds, executions, result) is added to
# artifacts/summary.txt. Crashing inputs land in artifacts/TARGET/.
set -eu
cd "$(dirname "$0")"
secs=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-jobfile cmdline values import_json loadfile}
# Benchmarks that other people may be running here (the pattern lives in this
# file, not on a command line, so that pgrep does not find this script).
busy='dbench|bonnie|ioping|gobonniego|vs-fio|throttled-disk|ground_truth-'

RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz build -s none
for t in $targets; do
    case $t in
    loadfile) dict=-dict=dicts/loadfile.dict ;;
    import_json) dict= ;;
    *) dict=-dict=dicts/fio.dict ;;
    esac
    while pgrep -f "$busy" >/dev/null; do sleep 20; done
    mkdir -p "corpus/$t" "artifacts/$t"
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    start=$(date +%s)
    rc=0
    RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz run -s none "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$secs" -jobs=1 -workers=1 -timeout=10 $dict || rc=$?
    end=$(date +%s)
    log="artifacts/$t/run-$stamp.log"
    mv fuzz-0.log "$log" 2>/dev/null || true
    execs=$(grep -o '^Done [0-9]* runs' "$log" | tail -n 1 | cut -d' ' -f2)
    if grep -q -E 'deadly signal|panicked|ERROR: libFuzzer|Test unit written' "$log"; then
        result="CRASH (see $log)"
    else
        result="no crash"
    fi
    line="$stamp $t wall=$((end - start))s execs=${execs:-?} rc=$rc $result"
    echo "$line" | tee -a artifacts/summary.txt
done
