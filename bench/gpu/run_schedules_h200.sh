#!/usr/bin/env bash
# Compares builds that differ in their device multiplication schedule (gpud/cuda/field.cuh, CUZK_DEVICE_MUL,
# CUZK_DEVICE_MUL_FP, CUZK_DEVICE_MUL_FR) end to end on one GPU:
#
#   bench/gpu/run_schedules_h200.sh PREBUILT_DIR...        (each made by bench/gpu/pack_prebuilt.sh)
#
# For each directory, in order: the CUDA tests it carries (test_cuda_msm, test_cuda_ntt, test_cuda_backend:
# GPU == CPU under that build's arithmetic), then the short modes of cuzk_bench_gpu: one G1 MSM at 2^20, 2^24
# and 2^26 (random, and PoRep-like at 2^24), one NTT and H pipeline at 2^24 and 2^27 (each checked inside
# the benchmark), and the field microbenchmark of the first directory (every schedule side by side).
# Logs go to $OUT (default ./gpu-schedules-out), one folder per build; a table of every figure is last.
# SCHEDULE_TESTS=0 skips the tests; STEP_TIMEOUT (seconds, default 300) bounds each executable.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-schedules-out}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
SCHEDULE_TESTS=${SCHEDULE_TESTS:-1}
if [ $# -lt 1 ]; then
  echo "usage: $0 PREBUILT_DIR..." >&2
  exit 2
fi
for dir in "$@"; do
  if [ ! -x "$dir/cuzk_bench_gpu" ] || [ ! -x "$dir/test_cuda_ntt" ]; then
    echo "$0: $dir has no cuzk_bench_gpu and test_cuda_ntt (make it with bench/gpu/pack_prebuilt.sh)" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/machine.txt"

status=0
rows=()
first=1
for dir in "$@"; do
  BIN=$(cd "$dir" && pwd)
  name=$(basename "$BIN")
  mkdir -p "$OUT/$name"
  run() { LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" timeout "$STEP_TIMEOUT" "$@"; }
  # Each pack carries test_cuda_ntt; whether it starts says if the machine's C library will do.
  if ! run "$BIN/test_cuda_ntt" --gtest_list_tests >/dev/null 2>&1; then
    LOADER="$BIN/glibc/ld-linux-x86-64.so.2"
    LIBS="$BIN/glibc:$BIN/lib:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/cuda/lib64"
    run() { timeout "$STEP_TIMEOUT" "$LOADER" --library-path "$LIBS" "$@"; }
  fi
  echo "=== $name"
  if [ "$SCHEDULE_TESTS" = 1 ]; then
    for t in test_cuda_msm test_cuda_ntt test_cuda_backend; do
      [ -x "$BIN/$t" ] || continue
      t0=$(date +%s)
      run "$BIN/$t" >"$OUT/$name/$t.log" 2>&1
      rc=$?
      summary=$(grep -E "^\[  (PASSED|FAILED) " "$OUT/$name/$t.log" | tr '\n' ' ')
      echo "$t: exit $rc, $(( $(date +%s) - t0 )) s: $summary"
      grep -E "Failure|FAILED  \]" "$OUT/$name/$t.log" | head -5
      [ "$rc" = 0 ] || status=1
      rows+=("| $name | $t | exit $rc | $summary |")
    done
  fi
  run "$BIN/cuzk_bench_gpu" --one-ntt --max-log-ntt 20 --reps 3 >/dev/null 2>&1  # warm-up: module load, clocks
  for args in "--one-msm --max-log-msm 20" "--one-msm --max-log-msm 24" "--one-msm --max-log-msm 24 --porep" \
              "--one-msm --max-log-msm 26 --reps 3" "--one-ntt --max-log-ntt 24" "--one-ntt --max-log-ntt 27 --reps 3"; do
    # shellcheck disable=SC2086
    line=$(run "$BIN/cuzk_bench_gpu" $args 2>&1 | tee -a "$OUT/$name/bench.log" | tail -1)
    rc=${PIPESTATUS[0]}
    echo "$args: $line"
    [ "$rc" = 0 ] || status=1
    rows+=("| $name | cuzk_bench_gpu $args | exit $rc | $line |")
  done
  if [ "$first" = 1 ] && [ -x "$BIN/cuzk_bench_gpu_field" ]; then
    run "$BIN/cuzk_bench_gpu_field" >"$OUT/$name/bench_field.log" 2>&1
    rc=$?
    [ "$rc" = 0 ] || status=1
    grep -E "^\|" "$OUT/$name/bench_field.log" >"$OUT/field_table.md"
    rows+=("| $name | cuzk_bench_gpu_field | exit $rc | $(tail -1 "$OUT/$name/bench_field.log") |")
  fi
  first=0
done

echo
[ -f "$OUT/field_table.md" ] && cat "$OUT/field_table.md" && echo
echo "| build | step | exit | result |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $status
