#!/usr/bin/env bash
# One fuzz target under libFuzzer for the test suite: RUNS inputs from its committed seeds (SEEDS, read only) with a
# fixed random seed, new inputs and any crash written under WORK (emptied first). A count, not a time: the same
# inputs on every machine, so the suite's verdict does not depend on the machine's speed (a time budget let a
# faster or idler machine go further and meet what the last run here had not). Fails on a crash,
# a broken invariant, a leak, an input slower than 10 s or one using more than 2 GiB, naming the input to rerun.
# Usage: run_fuzz_target.sh BINARY SEEDS WORK RUNS
set -euo pipefail

binary=${1:?usage: run_fuzz_target.sh BINARY SEEDS WORK RUNS}
seeds=${2:?} work=${3:?} runs=${4:?}
[[ -x $binary ]] || { echo "FAIL: $binary is not built (the fuzz_build test builds it)"; exit 1; }
[[ -d $seeds ]] || { echo "FAIL: no seed corpus $seeds"; exit 1; }
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
# A target's dictionary (tests/fuzz/dict/<target>.dict): the words of a format parsed by a library that is not
# instrumented.
dict=$(dirname "${BASH_SOURCE[0]}")/dict/$(basename "$binary").dict
options=()
[[ -f $dict ]] && options+=(-dict="$dict")
set +e
"$binary" -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "${options[@]}" "$work/corpus" "$seeds"
rc=$?
set -e
if ((rc != 0)); then
    for input in "$work"/artifacts/*; do
        [[ -e $input ]] && echo "FAIL: $(basename "$binary") exit $rc on $input; rerun: $binary $input"
    done
    exit "$rc"
fi
