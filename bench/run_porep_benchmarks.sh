#!/usr/bin/env bash
# PoRep figures of BENCHMARKS.md: circuit sizes (counting mode), witness generation rate, the 2 KiB
# round trip (seal-test, setup, prove-c2, verify-seal) and one 32 GiB-shape partition synthesized
# against a synthetic C1. Usage: bench/run_porep_benchmarks.sh [BUILD_DIR] [OUT_DIR]
# Each step prints its wall time and peak RSS (GNU time); logs go to OUT_DIR (default BUILD/porep-bench).
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-$BUILD/porep-bench}
CUZK="$BUILD/cli/cuzk"
mkdir -p "$OUT"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(date -u +%F)"

# shellcheck source=bench/timed_step.sh
. "$(dirname "$0")/timed_step.sh"

step circuit-info-32GiB circuit-info --registered-proof StackedDrg32GiBV1_1
grep -E '"constraints"|"constraints_with_input_rows"|"inputs"|"synthesis_seconds"' "$OUT/circuit-info-32GiB.log"
step witness-rate-32GiB circuit-info --registered-proof StackedDrg32GiBV1_1 --witness-timing
grep -E 'witness_' "$OUT/witness-rate-32GiB.log"

step seal-test-2KiB seal-test --registered-proof StackedDrg2KiBV1_1 --rng bench --out "$OUT/2k"
step setup-2KiB setup --circuit porep:StackedDrg2KiBV1_1 --out "$OUT/2k"
step prove-c2-2KiB prove-c2 --c1 "$OUT/2k/c1.json" --params "$OUT/2k/porep_StackedDrg2KiBV1_1.params" \
  --out "$OUT/2k/proof.bin"
grep -E 'proved in' "$OUT/prove-c2-2KiB.log" | sed 's/^.*partition/partition/'
S="$OUT/2k/seal.json"
field() { python3 -c "import json,sys; print(json.load(open('$S'))['$1'])"; }
step verify-seal-2KiB verify-seal --vk "$OUT/2k/porep_StackedDrg2KiBV1_1.vk" --registered-proof StackedDrg2KiBV1_1 \
  --sector-id "$(field sector_id)" --prover-id "$(field prover_id)" --ticket "$(field ticket)" \
  --seed "$(field seed)" --comm-r "$(field comm_r)" --comm-d "$(field comm_d)" --proof "$OUT/2k/proof.bin"
cat "$OUT/verify-seal-2KiB.log"

step synthetic-c1-32GiB seal-test --registered-proof StackedDrg32GiBV1_1 --synthetic --out "$OUT/32g"
step partition0-32GiB circuit-info --registered-proof StackedDrg32GiBV1_1 --c1 "$OUT/32g/c1.json"
grep -E 'c1_' "$OUT/partition0-32GiB.log"
