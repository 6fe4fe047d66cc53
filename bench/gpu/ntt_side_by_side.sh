#!/usr/bin/env bash
# The NTT at 2^L, cuzk's and sppark's (the library inside supraseal) on the same GPU in one call: each
# transform's time (cuzk_bench_gpu --one-ntt; sppark's forward, inverse and coset transforms by
# bench/gpu/sppark/spp_ntt_only), then, with PROFILE=1, Nsight Compute's full section set on each one's kernels
# of one forward transform (cuzk: its passes and the bit reversal; sppark: its steps and bit reversal).
#
#   bench/gpu/ntt_side_by_side.sh BIN SPP OUT
#
# BIN: a packed directory (bench/gpu/pack_prebuilt.sh) or a build directory holding cuzk_bench_gpu; SPP: the
# folder bench/gpu/sppark/build.sh wrote (spp_ntt_only); OUT: where the logs go. Environment: L=27, REPS=5,
# PROFILE=0, PROFILE_SPPARK=1 (with PROFILE=1), NCU=ncu, NCU_SET=full, BASELINE (another cuzk_bench_gpu, an
# earlier build, timed beside this one: its lines come first in the table), VARIANTS (cuzk_bench_gpu flag sets,
# separated by commas, each timed in a run of its own: "--pairwise-reversal,--register-stages 2"), PIPES=0 (1: each
# one's forward kernels again under Nsight Compute for the pipe and stall figures alone, tabled by
# bench/gpu/ncu_pipe_table.py: how busy the 64-bit multiply-add pipe, the transform's bound, is kept).
set -uo pipefail
BIN=${1:?BIN}; SPP=${2:?SPP}; OUT=${3:?OUT}
L=${L:-27}; REPS=${REPS:-5}; VARIANTS=${VARIANTS:---pairwise-reversal}; PROFILE=${PROFILE:-0}; NCU=${NCU:-ncu}; NCU_SET=${NCU_SET:-full}
mkdir -p "$OUT"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BENCH=$BIN/cuzk_bench_gpu; [ -x "$BENCH" ] || BENCH=$BIN/bench/gpu/cuzk_bench_gpu
[ -x "$BENCH" ] || { echo "no cuzk_bench_gpu in $BIN" >&2; exit 2; }
[ -x "$SPP/spp_ntt_only" ] || { echo "no spp_ntt_only in $SPP (bench/gpu/sppark/build.sh)" >&2; exit 2; }
STATUS=0
if [ -n "${BASELINE:-}" ]; then
  timeout 300 "$BASELINE" --one-ntt --all-kinds --max-log-ntt "$L" --reps "$REPS" >"$OUT/cuzk_ntt_baseline.txt" 2>&1 || STATUS=1
fi
variant_file() { local v=${1//--/}; echo "$OUT/cuzk_ntt_${v// /_}.txt"; }
IFS=, read -r -a VARIANT_LIST <<<"$VARIANTS"
for v in "${VARIANT_LIST[@]}"; do
  # shellcheck disable=SC2086  # a variant is several flags
  timeout 300 "$BENCH" --one-ntt --all-kinds $v --max-log-ntt "$L" --reps "$REPS" >"$(variant_file "$v")" 2>&1 \
    || STATUS=1
done
timeout 300 "$BENCH" --one-ntt --all-kinds --max-log-ntt "$L" --reps "$REPS" >"$OUT/cuzk_ntt.txt" 2>&1 || STATUS=1
timeout 300 "$SPP/spp_ntt_only" --ntt-log "$L" --reps "$REPS" --check-log 20 >"$OUT/sppark_ntt.txt" 2>&1 || STATUS=1
if [ "$PROFILE" = 1 ]; then
  # --clock-control none: the clocks as the timed runs have them. cuzk: the first forward transform's three
  # passes and its bit reversal. sppark: every step and bit reversal of its 2^10 round-trip checks and of the
  # first 2^L forward (told apart by grid size in the report).
  timeout 300 "$NCU" --clock-control none --set "$NCU_SET" --kernel-name regex:'pass_kernel|bit_reverse' \
    --launch-count 4 "$BENCH" --one-ntt --max-log-ntt "$L" --reps 1 >"$OUT/ncu_cuzk.txt" 2>&1 || STATUS=1
  if [ "${PROFILE_SPPARK:-1}" = 1 ]; then
    timeout 300 "$NCU" --clock-control none --set "$NCU_SET" --kernel-name regex:'GS_NTT|CT_NTT|bit_rev' \
      --launch-count 24 "$SPP/spp_ntt_only" --ntt-log "$L" --reps 1 --check-log 10 >"$OUT/ncu_sppark.txt" 2>&1 || STATUS=1
  fi
fi
if [ "${PIPES:-0}" = 1 ]; then
  PIPE_METRICS='regex:^sm__pipe_(fmaheavy|alu)_cycles_active\.avg\.pct_of_peak_sustained_active$'
  PIPE_METRICS+=',regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$'
  PIPE_METRICS+=',gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active'
  PIPE_METRICS+=',smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread'
  PIPE_METRICS+=',dram__throughput.avg.pct_of_peak_sustained_elapsed'
  timeout 300 "$NCU" --clock-control none --metrics "$PIPE_METRICS" --kernel-name regex:'pass_kernel|bit_reverse' \
    --launch-count 4 "$BENCH" --one-ntt --max-log-ntt "$L" --reps 1 >"$OUT/ncu_pipes_cuzk.txt" 2>&1 || STATUS=1
  timeout 300 "$NCU" --clock-control none --metrics "$PIPE_METRICS" --kernel-name regex:'GS_NTT|CT_NTT|bit_rev' \
    --launch-count 24 "$SPP/spp_ntt_only" --ntt-log "$L" --reps 1 --check-log 10 >"$OUT/ncu_pipes_sppark.txt" 2>&1 \
    || STATUS=1
fi
[ -f "$OUT/cuzk_ntt_baseline.txt" ] && { echo "== cuzk, baseline build"; grep -E "NTT|error" "$OUT/cuzk_ntt_baseline.txt"; }
for v in "${VARIANT_LIST[@]}"; do echo "== cuzk $v"; grep -E "NTT|error" "$(variant_file "$v")"; done
echo "== cuzk"; grep -E "NTT|error" "$OUT/cuzk_ntt.txt"
echo "== sppark"; grep -E "RESULT|CHECK|error|rror" "$OUT/sppark_ntt.txt"
if [ "$PROFILE" = 1 ]; then
  for f in ncu_cuzk ncu_sppark; do
    [ -f "$OUT/$f.txt" ] || continue
    echo "== $f (kernel, grid, duration, SM throughput %, DRAM throughput %, registers, achieved occupancy %)"
    grep -E "^  [A-Za-z_].*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Grid Size|Executed Instructions  |bank conflicts" \
      "$OUT/$f.txt" | sed 's/  */ /g' | head -150
  done
fi
if [ "${PIPES:-0}" = 1 ]; then
  echo "== pipes, cuzk (a forward transform's kernels)"; python3 "$(dirname "$0")/ncu_pipe_table.py" "$OUT/ncu_pipes_cuzk.txt"
  echo "== pipes, sppark (its forward NN transform)"
  python3 "$(dirname "$0")/ncu_pipe_table.py" "$OUT/ncu_pipes_sppark.txt" $(( (1 << L) >> 10 ))
fi
exit $STATUS
