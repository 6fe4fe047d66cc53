#!/usr/bin/env bash
# Runs the fault soak (tests/test_pipeline_fault_soak.cpp) several times, one seed each, and prints a line per
# run (seed, PASS/FAIL, faults, jobs' ends, restart-to-STATUS figures, wall) with the full output of each run
# kept in OUT. A failed run is replayed with its seed: CUZK_SOAK_SEED=<seed> <build>/tests/test_pipeline_fault_soak.
#
#   bench/run_fault_soak.sh BUILD [OUT]
#   SEEDS="1 2 3"     the seeds to run (default: RUNS random ones)
#   RUNS=5            how many random seeds when SEEDS is unset
#   SECONDS_EACH=S    the long soak: faults for S seconds per run (CUZK_SOAK_SECONDS); unset: the CI-sized run
set -euo pipefail

build=${1:?usage: $0 BUILD [OUT]}
out=${2:-fault-soak-$(date +%Y%m%d-%H%M%S)}
test_bin="$build/tests/test_pipeline_fault_soak"
[[ -x $test_bin ]] || { echo "no $test_bin: ninja -C $build test_pipeline_fault_soak" >&2; exit 2; }
mkdir -p "$out"

seeds=${SEEDS:-}
if [[ -z $seeds ]]; then
    for _ in $(seq "${RUNS:-5}"); do seeds+=" $(( (RANDOM << 15 | RANDOM) % 1000000007 ))"; done
fi

failed=0
for seed in $seeds; do
    log="$out/seed-$seed.log"
    # The test bounds itself (its watchdog); the timeout here is a second line of defence.
    limit=$(( ${SECONDS_EACH:-0} + 1200 ))
    if env CUZK_SOAK_SEED="$seed" ${SECONDS_EACH:+CUZK_SOAK_SECONDS=$SECONDS_EACH} \
        timeout "$limit" "$test_bin" >"$log" 2>&1; then
        verdict=PASS
    else
        verdict=FAIL
        failed=$((failed + 1))
    fi
    faults=$(sed -n 's/^\[soak\] faults \([0-9]*\) (\([0-9]*\) while.*/\1 (\2 mid-job)/p' "$log")
    ended=$(sed -n 's/^\[soak\] jobs .*ended: *//p' "$log")
    restarts=$(sed -n 's/^\[soak\] restart to STATUS: //p' "$log")
    wall=$(sed -n 's/.*; wall \([0-9.]*\) s$/\1/p' "$log")
    printf 'seed %-10s %s  faults %-14s ended: %-22s restart to STATUS: %s  wall %s s\n' \
        "$seed" "$verdict" "${faults:-?}" "${ended:-?}" "${restarts:-?}" "${wall:-?}"
done
echo "$failed failed; outputs in $out"
[[ $failed -eq 0 ]]
