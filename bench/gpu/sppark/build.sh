#!/usr/bin/env bash
# Builds the sppark measuring harness (../shared/peers/sppark-bench: sppark and blst, a tool outside this
# project, never part of it) into BUILD, and beside its spp_bench our driver of its NTT alone (spp_ntt_only:
# ntt_only_main.cpp, no MSMs). Runs here or on the device machine (nvcc, a minute); its output is carried as a
# git-ignored folder:
#   bench/gpu/sppark/build.sh [PEER_DIR (../shared/peers/sppark-bench)] [BUILD (.gpu-spp)]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
PEER=${1:-$SRC/../shared/peers/sppark-bench}
B=${2:-$SRC/.gpu-spp}
[ -f "$PEER/build.sh" ] || { echo "no sppark harness at $PEER (its build.sh)" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "nvcc is not on PATH" >&2; exit 2; }
bash "$PEER/build.sh" "$B"
ARCH=${ARCH:--gencode=arch=compute_90a,code=sm_90a}
g++ -O2 -std=c++17 -I"$PEER/harness" -c "$SRC/bench/gpu/sppark/ntt_only_main.cpp" -o "$B/ntt_only_main.o"
# shellcheck disable=SC2086  # ARCH is a list of flags
nvcc $ARCH -o "$B/spp_ntt_only" "$B/ntt_only_main.o" "$B/host_blst.o" "$B/spp_msm.o" "$B/spp_ntt.o" \
  "$B/all_gpus.o" "$B/blst/libblst.a" -lpthread
echo "built $B/spp_bench and $B/spp_ntt_only"
