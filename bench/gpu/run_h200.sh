#!/usr/bin/env bash
# Builds (or takes prebuilt), checks and times the CUDA backend on one GPU; written for an NVIDIA H200.
#
#   bench/gpu/run_h200.sh [PREBUILT_DIR]
#
# Without PREBUILT_DIR: configures build-gpu with CUZK_CUDA_ARCHITECTURES=90a, tests on, CPU benchmarks
# off, and builds only test_cuda_msm, test_cuda_ntt, test_cuda_backend and cuzk_bench_gpu (needs the project's build
# dependencies). With PREBUILT_DIR (bench/gpu/pack_prebuilt.sh makes it, for GPU machines without the
# dependencies): runs the executables there with their libraries; when the machine's C library is
# older than the one they were built against, through the packed loader and C library.
# Then runs the CUDA correctness tests (GPU == CPU) and the benchmark; logs go to $OUT (default
# ./gpu-bench-out), the benchmark's table is printed last.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-bench-out}
mkdir -p "$OUT"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BENCH_ARGS=${BENCH_ARGS:-}
# Which benchmarks follow the tests: "kernels" (MSM, NTT, H tables), "partition" (cuzk_bench_gpu --partition:
# GPU time of a synthetic 32 GiB-shape partition) and "multiples" (below) by default. "profile" adds Nsight Compute (ncu)
# reports of the MSM accumulation and NTT pass kernels at 2^20 (where ncu can read the counters). "field"
# (cuzk_field_bench, an experiment: bench/gpu/experiments, built with -DCUZK_BUILD_EXPERIMENTS=ON): the
# production Montgomery multiplication and the experiments' schedules and the bucket step timed against each
# other, the instruction mix of each (cuobjdump + sass_histogram.py) and, where ncu reads the counters,
# the bucket kernels' pipe usage. "multiples" (cuzk_bench_gpu --multiples): G1 MSMs through precomputed
# window multiples against the plain ones, 2^20 to 2^MULTIPLES_MAX_LOG (26). RUN_TESTS=0 skips the CUDA tests.
# PARTITION_CENSUS: the real partition whose query sizes and scalar classes the partition run takes (default
# bench/gpu/porep_32GiB_census.json, `cuzk circuit-info --c1 F --scalar-census` of a 32 GiB C1;
# bench/gpu/window_post_32GiB_census.json: a 32 GiB WindowPoSt partition of 2,349 synthetic sectors, `cuzk
# circuit-info --registered-proof StackedDrgWindow32GiBV1_1 --scalar-census --randomness R --vanilla F...`;
# bench/gpu/update_32GiB_census.json: partition 0 of a synthetic 32 GiB SnapDeals update (`cuzk seal-test
# --registered-proof StackedDrgUpdate32GiBV1 --update --synthetic`, then circuit-info --scalar-census); empty:
# the earlier assumptions, PoRep-like scalars with A dense and B 44 M).
# PARTITION_ARGS: more arguments for the partition run (e.g. "--kernels-only --device-gib 96 --reps 2";
# "--no-pageable --reps 2": the kernels, pinned copies and gpud's sequence, without the pageable copies and
# the pinning-beside step that take most of the full mode's ~7 minutes).
# "sweep": one cuzk_bench_gpu --one-msm run per ';'-separated argument list in SWEEP_ARGS (e.g.
# "--max-log-msm 24 --buckets batch-affine; --max-log-msm 24 --g2"), each checked against
# the default options' result. "kernelsums": every kernel of cuzk_bench_gpu --one-msm KERNELSUM_ARGS timed by ncu
# (--cache-control none, one metric: no replay), summed per kernel name for each MSM run (ncu_kernel_sums.py).
# "prepare" (bench_prepare, a CPU benchmark): prepare's scalar gathering at the 32 GiB shape on this machine's
# CPU, the serial loop it replaced against gather_dense: the work a gpud worker does while the other holds
# the lock (with a build here, it turns the CPU benchmarks on to build bench_prepare).
# "compact" (cuzk_bench_gpu --compact-partition, COMPACT_ARGS e.g. "--reps 3", COMPACT_MATRICES a matrix file kept
# between modes): gpud's backend on a synthetic compact 32 GiB partition; "r1cs" (cuzk_bench_gpu --r1cs R1CS_ARGS):
# a, b, c from recorded matrices on the GPU, checked against the CPU.
# Unset: the three defaults; set but empty: no benchmark, the tests alone.
BENCH_MODES=${BENCH_MODES-kernels multiples partition}
RUN_TESTS=${RUN_TESTS:-1}
PARTITION_CENSUS=${PARTITION_CENSUS-$SRC/bench/gpu/porep_32GiB_census.json}
STEP_TIMEOUT=${STEP_TIMEOUT:-900}  # seconds per executable, so a hung kernel cannot eat the whole session

nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >&2
echo "machine: $(nproc) CPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')" | tee "$OUT/machine.txt"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader | tee -a "$OUT/machine.txt"

if [ -n "${1:-}" ]; then
  BIN=$(cd "$1" && pwd)
  run() { LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" timeout "$STEP_TIMEOUT" "$@"; }
  profile_run() { LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" timeout "$STEP_TIMEOUT" "$@"; }
  if ! run "$BIN/test_cuda_ntt" --gtest_list_tests >/dev/null 2>&1; then
    echo "prebuilt executables do not start with this machine's C library: using the packed loader"
    LOADER="$BIN/glibc/ld-linux-x86-64.so.2"
    LIBS="$BIN/glibc:$BIN/lib:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/cuda/lib64"
    run() { timeout "$STEP_TIMEOUT" "$LOADER" --library-path "$LIBS" "$@"; }
    # ncu starts the program itself: through the packed loader, which ncu follows as the profiled process.
    profile_run() { local tool=("${@:1:$#-1}"); timeout "$STEP_TIMEOUT" "${tool[@]}" "$LOADER" --library-path "$LIBS" "${@: -1}" \
      --max-log-msm 20 --max-log-ntt 20 --reps 1; }
  fi
else
  BIN=$SRC/build-gpu
  t0=$(date +%s)
  cpu_benchmarks=OFF
  targets=(test_cuda_msm test_cuda_ntt test_cuda_backend test_gpud_backend_status cuzk_bench_gpu)
  experiments=OFF
  if [[ " $BENCH_MODES " == *" prepare "* ]]; then cpu_benchmarks=ON; targets+=(bench_prepare); fi
  if [[ " $BENCH_MODES " == *" field "* ]]; then experiments=ON; targets+=(cuzk_field_bench); fi
  cmake -S "$SRC" -B "$BIN" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA_ARCHITECTURES=90a \
    -DCUZK_BUILD_TESTS=ON -DCUZK_BUILD_BENCHMARKS=$cpu_benchmarks -DCUZK_BUILD_EXPERIMENTS=$experiments >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 2; }
  cmake --build "$BIN" --target "${targets[@]}" -j"$(nproc)" >"$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log"; exit 2; }
  echo "build: $(( $(date +%s) - t0 )) s"
  for f in test_cuda_msm test_cuda_ntt test_cuda_backend test_gpud_backend_status; do ln -sf "$BIN/tests/$f" "$BIN/$f"; done
  ln -sf "$BIN/gpud/cuzk_bench_gpu" "$BIN/cuzk_bench_gpu"
  [ "$cpu_benchmarks" = OFF ] || ln -sf "$BIN/bench/bench_prepare" "$BIN/bench_prepare"
  [ "$experiments" = OFF ] || ln -sf "$BIN/bench/gpu/experiments/cuzk_field_bench" "$BIN/cuzk_field_bench"
  run() { timeout "$STEP_TIMEOUT" "$@"; }
  profile_run() { timeout "$STEP_TIMEOUT" "$@"; }
fi

status=0
tests=(test_cuda_msm test_cuda_ntt test_cuda_backend)
# Tests that older packs lack: the backend's status for the API (device name and memory, forgetting evicted
# parameters); the compact witness expanded on the device and a, b, c from the resident R1CS matrices; the
# pinned pool; the host's copy plan for the compact slot.
for t in test_gpud_backend_status test_cuda_backend_compact test_cuda_r1cs test_cuda_pinned_pool test_device_copy_plan; do
  [ -x "$BIN/$t" ] && tests+=("$t")
done
[ "$RUN_TESTS" = 1 ] || tests=()
for t in "${tests[@]}"; do
  t0=$(date +%s)
  run "$BIN/$t" 2>&1 | tee "$OUT/$t.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |OK \]|FAILED  \]|Failure|error" 
  rc=${PIPESTATUS[0]}
  echo "$t: exit $rc, $(( $(date +%s) - t0 )) s"
  [ "$rc" = 0 ] || status=1
done

if [[ " $BENCH_MODES " == *" field "* ]]; then
  run "$BIN/cuzk_field_bench" 2>&1 | tee "$OUT/bench_field.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-sass "$BIN/cuzk_field_bench" >"$OUT/field.sass" 2>&1
    python3 "$SRC/bench/gpu/sass_histogram.py" mul_outline sqr_outline mul_chain_kernel bucket_chain_kernel \
      <"$OUT/field.sass" | tee "$OUT/field_sass_mix.txt" | cut -c1-400
    cuobjdump --dump-sass "$BIN/cuzk_bench_gpu" 2>/dev/null | python3 "$SRC/bench/gpu/sass_histogram.py" \
      accumulate_xyzz_kernel mul_outline pass_kernel >"$OUT/msm_sass_mix.txt"
    cut -c1-400 "$OUT/msm_sass_mix.txt"
  fi
  if command -v ncu >/dev/null; then
    LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" ncu --clock-control none --section ComputeWorkloadAnalysis --section SchedulerStats --section Occupancy \
      --section WarpStateStats --section InstructionStats -k regex:bucket_chain_kernel -c 3 \
      "$BIN/cuzk_field_bench" --iters 64 --reps 1 >"$OUT/ncu_field.txt" 2>&1
    echo "ncu field: exit $?"
    grep -E "bucket_chain_kernel|Issued Ipc|Executed Ipc|No Eligible|Achieved Occupancy|Registers Per|Stall" "$OUT/ncu_field.txt" | head -40
    # How busy each multiply pipe is under the Fp schedules (the production one and the experiments') and the
    # pipe microkernels: the fmaheavy (IMAD) / fp64 / alu figures of docs/benchmarks-history.md.
    LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" ncu --clock-control none --kernel-name-base mangled \
      --section SchedulerStats --section Occupancy \
      --metrics sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active \
      -k 'regex:mul_chain_kernel|pipe_kernel' -c 12 \
      "$BIN/cuzk_field_bench" --iters 64 --reps 1 >"$OUT/ncu_pipes.txt" 2>&1
    echo "ncu pipes: exit $?"
    grep -E "^  void|pipe_(fmaheavy|fp64|alu)_cycles|Issue Slots Busy" "$OUT/ncu_pipes.txt" | cut -c1-140 | head -60
  fi
fi
if [[ " $BENCH_MODES " == *" kernels "* ]]; then
  # shellcheck disable=SC2086
  run "$BIN/cuzk_bench_gpu" $BENCH_ARGS 2>&1 | tee "$OUT/bench.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" multiples "* ]]; then
  # G1 MSM with precomputed window multiples against the plain MSM, 2^20 to 2^26 (cuzk_bench_gpu --multiples).
  run "$BIN/cuzk_bench_gpu" --multiples --max-log-msm "${MULTIPLES_MAX_LOG:-26}" --reps 3 2>&1 | tee "$OUT/bench_multiples.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" partition "* ]]; then
  # shellcheck disable=SC2086
  census=()
  [ -z "$PARTITION_CENSUS" ] || census=(--census "$PARTITION_CENSUS")
  run "$BIN/cuzk_bench_gpu" --partition "${census[@]}" ${PARTITION_ARGS:-} 2>&1 | tee "$OUT/bench_partition.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" compact "* ]]; then
  # gpud's CUDA backend on a synthetic compact 32 GiB partition (expansion, a, b, c from the resident matrices,
  # then H and the MSMs), and the R1CS evaluation alone; COMPACT_MATRICES: where the recorded matrices are kept.
  census=()
  [ -z "$PARTITION_CENSUS" ] || census=(--census "$PARTITION_CENSUS")
  matrices=()
  [ -z "${COMPACT_MATRICES:-}" ] || matrices=(--matrix-file "$COMPACT_MATRICES")
  # shellcheck disable=SC2086
  run "$BIN/cuzk_bench_gpu" --compact-partition "${census[@]}" "${matrices[@]}" ${COMPACT_ARGS:-} 2>&1 | tee "$OUT/bench_compact.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" r1cs "* ]]; then
  # shellcheck disable=SC2086
  run "$BIN/cuzk_bench_gpu" --r1cs ${R1CS_ARGS:-} 2>&1 | tee "$OUT/bench_r1cs.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" prepare "* ]]; then
  run "$BIN/bench_prepare" --benchmark_filter=32GiB 2>&1 | tee "$OUT/bench_prepare.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $BENCH_MODES " == *" sweep "* ]]; then
  IFS=';' read -ra sweeps <<<"${SWEEP_ARGS:-}"
  for a in "${sweeps[@]}"; do
    # shellcheck disable=SC2086
    run "$BIN/cuzk_bench_gpu" --one-msm --reps "${SWEEP_REPS:-3}" $a 2>&1 | tee -a "$OUT/bench_sweep.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
  done
fi
if [[ " $BENCH_MODES " == *" kernelsums "* ]]; then
  if command -v ncu >/dev/null; then
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}" timeout "$STEP_TIMEOUT" ncu --clock-control none --cache-control none \
      --metrics gpu__time_duration.sum --csv --page raw "$BIN/cuzk_bench_gpu" --one-msm --reps 1 \
      ${KERNELSUM_ARGS:---max-log-msm 24 --with-multiples 22 --window-bits 22} >"$OUT/ncu_kernel_sums.csv" 2>"$OUT/ncu_kernel_sums.err"
    rc=$?
    echo "ncu kernel sums: exit $rc"
    [ "$rc" = 0 ] || status=1
    python3 "$SRC/bench/gpu/ncu_kernel_sums.py" "$OUT/ncu_kernel_sums.csv" >"$OUT/ncu_kernel_sums.txt" || status=1
    head -20 "$OUT/ncu_kernel_sums.txt"
  else
    echo "ncu not found: no kernel sums"
  fi
fi
if [[ " $BENCH_MODES " == *" profile "* ]]; then
  # Warp stall reasons, issue rates, occupancy and memory throughput of the hottest kernels.
  NCU=(ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats
       --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
  if command -v ncu >/dev/null; then
    for k in accumulate_xyzz_kernel pass_kernel; do
      if [ -n "${1:-}" ] && [ -n "${LOADER:-}" ]; then
        profile_run "${NCU[@]}" -k "regex:$k" --launch-skip 1 -c 2 "$BIN/cuzk_bench_gpu" >"$OUT/ncu_$k.txt" 2>&1
      else
        profile_run "${NCU[@]}" -k "regex:$k" --launch-skip 1 -c 2 "$BIN/cuzk_bench_gpu" --max-log-msm 20 --max-log-ntt 20 \
          --reps 1 >"$OUT/ncu_$k.txt" 2>&1
      fi
      echo "ncu $k: exit $?, report in ncu_$k.txt"
      grep -E "Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|Issued Ipc|No Eligible|Stall|One or More" "$OUT/ncu_$k.txt" | head -30
    done
  else
    echo "ncu not found: no profile"
  fi
fi
exit $status
