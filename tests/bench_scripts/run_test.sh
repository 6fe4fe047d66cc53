#!/usr/bin/env bash
# The device benchmark scripts (bench/gpu/run_{porep,update,post}_h200.sh) on the CPU backend at 2 KiB, each
# with the least work that still goes through every step: they run only in the rare calls to a GPU machine,
# where a script broken since its last run costs the whole call. Asserts the exit status and the lines of the
# summary table each script exists to print.
# Usage: run_test.sh porep|update|post BUILD_DIR
set -uo pipefail

kind=${1:?usage: run_test.sh porep|update|post BUILD_DIR}
build=$(cd "${2:?usage: run_test.sh porep|update|post BUILD_DIR}" && pwd)
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ -x $build/cli/cuzk ]] || { echo "FAIL: $build/cli/cuzk is not built"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is missing (the scripts' summary tables need it)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-script-$kind.XXXXXX")
trap 'rm -rf "$work"' EXIT
export BACKEND=cpu OUT=$work/out PARAMS_DIR=$work/params TIME_BUDGET=600 SYNTH_THREADS=1 GPUD_WORKERS=1
case "$kind" in
  porep)
    script=run_porep_h200.sh
    export REGISTERED_PROOF=StackedDrg2KiBV1_1 JOBS=1
    # The warm-up job's GPU time sets the seconds a job (SEC_PER_JOB unset); the bench of JOBS jobs, the table.
    expect=("SEC_PER_JOB=[0-9]+: the warm-up job's GPU time" "s/proof" "GPU efficiency" "GPU efficiency over the bench's jobs" "peak RSS gpud") ;;
  update)
    script=run_update_h200.sh
    export SECTOR_SIZE=2KiB UPDATE_JOBS=1
    expect=("synthesis per partition" "GPU time under the lock per partition" "job alone, after the warm-up"
            "s/proof") ;;
  post)
    script=run_post_h200.sh
    # With [gpud] preload of the WinningPoSt set: the script waits for it before the first WinningPoSt.
    export SECTOR_SIZE=2KiB WINDOW_SECTORS=2 IDLE_WINNING=1 WINDOW_JOBS=1 POREP_JOBS=1 LOADED_WINNING=1 \
      WINNING_GAP_S=1 LOAD_SETTLE_S=1 PRELOAD=post:StackedDrgWinning2KiBV1
    expect=("\[gpud\] preload post:StackedDrgWinning2KiBV1: loaded in" "WinningPoSt, idle: submission to proof"
            "WinningPoSt, under PoRep load: submission to proof" "WinningPoSt warm-up \(its set preloaded"
            "PoRep phase: GPU efficiency") ;;
  *) echo "FAIL: unknown script kind '$kind' (porep, update or post)"; exit 1 ;;
esac

"$source_dir/bench/gpu/$script" "$build" >"$work/log" 2>&1
status=$?
summary=$OUT/summary.txt
failed=0
if [[ $status -ne 0 ]]; then
  echo "FAIL: bench/gpu/$script exited $status"
  failed=1
fi
for line in "${expect[@]}"; do
  if ! grep -qE "$line" "$work/log"; then
    echo "FAIL: bench/gpu/$script printed no line matching '$line'"
    failed=1
  fi
done
if [[ $failed -ne 0 ]]; then
  echo "--- its output, last 60 lines"
  tail -60 "$work/log"
  [[ -f $summary ]] || echo "(no $summary)"
  exit 1
fi
echo "bench/gpu/$script on the CPU backend at 2 KiB: exit 0, its table printed"
grep -E "$(IFS='|'; echo "${expect[*]}")" "$work/log"
