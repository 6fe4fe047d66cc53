#!/usr/bin/env bash
# Runs the CPU benchmarks of BENCHMARKS.md and prints their figures, with the machine's Fp mul time first
# so figures from different machines compare. Usage: bench/run_cpu_benchmarks.sh [BUILD_DIR] [OUT_DIR]
# (./dev.sh bench builds first). Logs go to OUT_DIR (default build/bench-out).
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-$BUILD/bench-out}
mkdir -p "$OUT"
B="$BUILD/bench"
CUZK="$BUILD/cli/cuzk"

echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(date -u +%F)"

run_bench() {  # name filter
  "$B/$1" --benchmark_filter="$2" --benchmark_min_time=${MIN_TIME:-0.5} --benchmark_format=console \
    > "$OUT/$1.txt" 2>&1
  grep -E '^[a-zA-Z_]' "$OUT/$1.txt" | grep -v -E '^(Run on|CPU Caches|Load Average|Benchmark|\*\*\*)' || true
}

echo "## field and curve arithmetic (bench_field)"
run_bench bench_field 'fp_mul_latency|fp_mul_throughput|fr_mul_latency|fr_mul_throughput|g1_jacobian_add_mixed|g1_xyzz_accumulate_affine'
echo "## pairing (bench_pairing)"
run_bench bench_pairing '.'
echo "## NTT (bench_ntt)"
MIN_TIME=0.1 run_bench bench_ntt 'log_n/20'
echo "## MSM (bench_msm)"
MIN_TIME=0.1 run_bench bench_msm '.'

echo "## prepare's scalar gathering (bench_prepare; the 32 GiB shape: bench/gpu/run_h200.sh, mode prepare)"
MIN_TIME=0.1 run_bench bench_prepare '2\^20'

echo "## Groth16 setup and prove (cuzk setup, cuzk prove --params), sha256 chains"
for c in sha256:2 sha256:39; do
  d="$OUT/groth16-${c/:/_}"
  { "$CUZK" setup --circuit "$c" --out "$d" &&
    "$CUZK" prove --circuit "$c" --params "$d/${c/:/_}.params" --out "$d/proof.bin" --inputs-out "$d/inputs.json" &&
    "$CUZK" verify --vk "$d/${c/:/_}.vk" --proof "$d/proof.bin" --inputs "$d/inputs.json"; } > "$d.txt" 2>&1
  grep -E 'info\] (setup|proved) |^(in)?valid$' "$d.txt"
done
