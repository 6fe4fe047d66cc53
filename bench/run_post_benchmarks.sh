#!/usr/bin/env bash
# PoSt figures of BENCHMARKS.md on the CPU: the 2 KiB WindowPoSt (2 sectors) and WinningPoSt round trips,
# seal-test (which writes the vanilla proofs), setup, prove-post, verify-post, each step's wall time and peak RSS.
# Usage: bench/run_post_benchmarks.sh [BUILD_DIR] [OUT_DIR] (default BUILD/post-bench).
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-$BUILD/post-bench}
CUZK="$BUILD/cli/cuzk"
RANDOMNESS=0d2b1ac76d9c8a4b31f6e0a2c1d59f4a7e3b8c6d2f1a0e9b8c7d6e5f4a3b2c11
mkdir -p "$OUT"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(date -u +%F)"
# shellcheck source=bench/timed_step.sh
. "$(dirname "$0")/timed_step.sh"

step seal-test-2KiB seal-test --registered-proof StackedDrg2KiBV1_1 --rng bench --sectors 2 --sector-id 7 \
  --post-randomness "$RANDOMNESS" --out "$OUT/2k"
P="$OUT/2k/post.json"
sector() { python3 -c "import json; s=json.load(open('$P'))['sectors'][$1]; print(s['$2'])"; }
S0="--sector $(sector 0 sector_id):$(sector 0 comm_r)"
S1="--sector $(sector 1 sector_id):$(sector 1 comm_r)"
for kind in Window Winning; do
  case $kind in
    Window) name=StackedDrgWindow2KiBV1_1 vanilla=("$OUT/2k/$(sector 0 window_vanilla)" "$OUT/2k/$(sector 1 window_vanilla)")
            sectors="$S0 $S1" ;;
    Winning) name=StackedDrgWinning2KiBV1 vanilla=("$OUT/2k/$(sector 1 winning_vanilla)") sectors="$S1" ;;
  esac
  step "setup-$kind-2KiB" setup --circuit "post:$name" --out "$OUT/2k"
  step "prove-post-$kind-2KiB" prove-post --registered-proof "$name" --randomness "$RANDOMNESS" \
    --params "$OUT/2k/post_$name.params" --out "$OUT/2k/$kind.proof" --vanilla "${vanilla[@]}"
  grep -E 'proved in' "$OUT/prove-post-$kind-2KiB.log" | sed 's/^.*\] //'
  # shellcheck disable=SC2086  # $sectors holds several --sector arguments
  step "verify-post-$kind-2KiB" verify-post --vk "$OUT/2k/post_$name.vk" --registered-proof "$name" \
    --randomness "$RANDOMNESS" $sectors --proof "$OUT/2k/$kind.proof"
  cat "$OUT/verify-post-$kind-2KiB.log"
done
