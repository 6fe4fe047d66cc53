#!/usr/bin/env bash
# Runs every fuzz target (tests/fuzz) for SECONDS each (default 300), one after the other, each one libFuzzer
# process (-fork=1: a single worker that goes on past a crash, so that one run counts them all), from the
# committed seeds plus what earlier runs found. Prints per target the executions, the coverage (cov: edges, ft:
# features) of libFuzzer's last status line, the corpus size and the crashes found (also timeouts and
# out-of-memory inputs); exits non-zero when a target found any. docs/fuzzing.md records a run.
# Usage: bench/run_fuzz.sh [SECONDS]
#   FUZZ_BUILD  the clang fuzz build, configured and built first (default build-fuzz)
#   FUZZ_WORK   corpora, crashes and logs (default $FUZZ_BUILD/runs-long/<target>)
#   FUZZ_ONLY   a space-separated subset of the targets
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-300}
build=${FUZZ_BUILD:-$root/build-fuzz}
work=${FUZZ_WORK:-$build/runs-long}

"$root/tests/fuzz/build_fuzz.sh" "$root" "$build" >/dev/null

targets=${FUZZ_ONLY:-$(cd "$root/tests/fuzz" && for src in fuzz_*.cpp; do echo "${src%.cpp}"; done)}
echo "$(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) cores: ${seconds}s per target, -fork=1"
printf '%-22s %12s %8s %8s %8s %8s %8s %8s %5s\n' target executions exec/s cov ft corpus crashes timeouts ooms
failed=0
for name in $targets; do
    dir=$work/$name
    mkdir -p "$dir/corpus" "$dir/artifacts"
    options=()
    [[ -f $root/tests/fuzz/dict/$name.dict ]] && options+=(-dict="$root/tests/fuzz/dict/$name.dict")
    set +e
    "$build/tests/fuzz/$name" "${options[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -artifact_prefix="$dir/artifacts/" \
        "$dir/corpus" "$root/tests/fuzz/corpus/$name" >"$dir/log" 2>&1
    set -e
    # Fork mode's status lines: "#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: O/T/X time: Ss job: J ..."
    status=$(grep -E '^#[0-9]+: cov:' "$dir/log" | tail -1 || true)
    read -r execs cov ft corp ooms timeouts crashes elapsed < <(echo "$status" | sed -E \
        's@^#([0-9]+): cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+) exec/s:? [0-9]+ oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+) time: ([0-9]+)s.*@\1 \2 \3 \4 \5 \6 \7 \8@')
    if [[ ${elapsed:-} =~ ^[0-9]+$ ]]; then
        rate=$((execs / (elapsed > 0 ? elapsed : 1)))  # the whole run's average (the line's own is the last job's)
    else
        execs="?" cov="?" ft="?" corp="?" rate="?" ooms=0 timeouts=0 crashes="?"
    fi
    printf '%-22s %12s %8s %8s %8s %8s %8s %8s %5s\n' "$name" "$execs" "$rate" "$cov" "$ft" "$corp" "$crashes" \
        "$timeouts" "$ooms"
    if [[ $crashes != 0 || $timeouts != 0 || $ooms != 0 ]]; then  # "?": no status line, see the log
        failed=1
        find "$dir/artifacts" -type f -printf '    %p\n'
    fi
done
exit "$failed"
