#!/usr/bin/env bash
# WindowPoSt and WinningPoSt at the 32 GiB shape through the three daemons on the H200 machine (16 cores, 128 GB),
# gpud on the CUDA backend: WinningPoSt latency from submission to proof with the service idle and while PoRep
# partitions are proving, a WindowPoSt partition's synthesis (on all synthd threads), its GPU time under the lock,
# its ring slot and synthd's memory; then `cuzk timeline` and a short table.
#
# TEST FACILITIES, so the figures are timings only: the vanilla proofs are synthetic (`cuzk seal-test --synthetic
# --post-randomness`: openings of a sparse random tree R; they verify and their circuits are satisfied, but they
# are of no sealed sector), the PoRep C1 of the load is synthetic, and the parameters are random points of the
# exact sizes ([gpud] synthetic_params), so no proof made here is valid and [assemblerd] verify is off. The R1CS
# matrices are real: recorded once per circuit into PARAMS_DIR.
#
#   bench/gpu/run_post_h200.sh [BIN]
#
# BIN as for run_porep_h200.sh: a packed directory (bench/gpu/pack_prebuilt.sh), a build directory, or none (PATH).
# A smoke test on any machine, CPU backend, 2 KiB:
#   BACKEND=cpu SECTOR_SIZE=2KiB WINDOW_SECTORS=2 bench/gpu/run_post_h200.sh build
#
# Phases, each step with a timeout, all within TIME_BUDGET seconds:
#   1. synthetic vanilla proofs of WINDOW_SECTORS sectors (a full 32 GiB WindowPoSt partition: 2349) and the
#      WinningPoSt proof of the first; a synthetic PoRep C1 of the same sector size
#   2. `cuzk up`; a WinningPoSt warm-up (its parameters and matrices), then IDLE_WINNING WinningPoSt jobs one
#      after another: the idle latency
#   3. a WindowPoSt warm-up, then WINDOW_JOBS WindowPoSt jobs one after another: synthesis, GPU time, memory;
#      its parameters evicted after (`cuzk api evict`), so that PoRep's fit the GPU beside the WinningPoSt's
#   4. a PoRep warm-up job, then `cuzk bench` of POREP_JOBS PoRep jobs, and while they prove, LOADED_WINNING
#      WinningPoSt jobs, WINNING_GAP_S seconds apart: the latency under PoRep load
#   5. `cuzk status`, peak memory, `cuzk down`, `cuzk timeline`; the table by bench/gpu/post_run_summary.py,
#      with the PoRep phase's GPU efficiency and its warm-up job's time under the lock
#
# Environment:
#   BACKEND=cuda  SECTOR_SIZE=32GiB  GPU=0  GPUD_WORKERS=2  SYNTH_THREADS=(cores - 2)  WINDOW_SECTORS=(the
#   registered proof's partition: 2349 at 32 GiB)  IDLE_WINNING=5  WINDOW_JOBS=2  POREP_JOBS=8  LOADED_WINNING=6
#   WINNING_GAP_S=3  LOAD_SETTLE_S=20 (after the bench starts, before the first WinningPoSt under load)
#   RING_SLOTS=6  SLOT_BYTES=(256 MiB with SKIP_WINDOW=1, else 5 GiB at 32 GiB: a WindowPoSt witness's
#   Poseidon values are nearly all full field elements)  PARAMS_DIR=<repo>/.gpu-porep-params  TIME_BUDGET=570  UP_TIMEOUT=90  DOWN_TIMEOUT=40  SAMPLE_S=2
#   KEEP=0  FORCE_LOADER=0  RING_IN_TMP=0  SKIP_POREP=0 (1: phases 2 and 3 only)  SKIP_WINDOW=0 (1: no phase 3)
#   PRELOAD ([gpud] preload, e.g. winning-32g: the first WinningPoSt waits until gpud has logged each set's preload,
#   up to PRELOAD_WAIT_S=120 seconds, so its latency is that of a set loaded as gpud started)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=daemon_run_lib.sh source-path=SCRIPTDIR
. "$SRC/bench/gpu/daemon_run_lib.sh" || exit 2
OUT=${OUT:-$PWD/post-out}
BACKEND=${BACKEND:-cuda}
SECTOR_SIZE=${SECTOR_SIZE:-32GiB}
GPU=${GPU:-0}
GPUD_WORKERS=${GPUD_WORKERS:-2}
CORES=$(nproc)
SYNTH_THREADS=${SYNTH_THREADS:-$(( CORES > 3 ? CORES - 2 : 1 ))}
IDLE_WINNING=${IDLE_WINNING:-5}
PRELOAD_WAIT_S=${PRELOAD_WAIT_S:-120}
WINDOW_JOBS=${WINDOW_JOBS:-2}
POREP_JOBS=${POREP_JOBS:-8}
LOADED_WINNING=${LOADED_WINNING:-6}
WINNING_GAP_S=${WINNING_GAP_S:-3}
LOAD_SETTLE_S=${LOAD_SETTLE_S:-20}
RING_SLOTS=${RING_SLOTS:-6}
PARAMS_DIR=${PARAMS_DIR:-$SRC/.gpu-porep-params}
TIME_BUDGET=${TIME_BUDGET:-570}
UP_TIMEOUT=${UP_TIMEOUT:-90}
DOWN_TIMEOUT=${DOWN_TIMEOUT:-40}
SAMPLE_S=${SAMPLE_S:-2}
FORCE_LOADER=${FORCE_LOADER:-0}
KEEP=${KEEP:-0}
SKIP_POREP=${SKIP_POREP:-0}
RESERVE=$(( DOWN_TIMEOUT + 40 ))
# Without the WindowPoSt phase the slots need only hold PoRep's and WinningPoSt's compact witnesses (~100 MB at
# 32 GiB): 6 x 5 GiB of ring beside the 51 GB PoRep parameters left no room on a 128 GiB host for their points'
# host copy where the GPU (an H100) cannot hold them (docs/gpu-backend.md).
[ "${SKIP_WINDOW:-0}" = 1 ] && SLOT_BYTES=${SLOT_BYTES:-268435456}
case "$SECTOR_SIZE" in
  32GiB) WINDOW_SECTORS=${WINDOW_SECTORS:-2349}; SLOT_BYTES=${SLOT_BYTES:-5368709120} ;;
  64GiB) WINDOW_SECTORS=${WINDOW_SECTORS:-2300}; SLOT_BYTES=${SLOT_BYTES:-5368709120} ;;
  *) WINDOW_SECTORS=${WINDOW_SECTORS:-2}; SLOT_BYTES=${SLOT_BYTES:-268435456} ;;
esac
POREP_PROOF=StackedDrg${SECTOR_SIZE}V1_1
WINDOW_PROOF=StackedDrgWindow${SECTOR_SIZE}V1_1
WINNING_PROOF=StackedDrgWinning${SECTOR_SIZE}V1
# A canonical field element (the top byte small), as a chain's randomness is once reduced.
RANDOMNESS=${RANDOMNESS:-0101010101010101010101010101010101010101010101010101010101010101}

mkdir -p "$OUT" "$PARAMS_DIR" || exit 2
OUT=$(cd "$OUT" && pwd)
PARAMS_DIR=$(cd "$PARAMS_DIR" && pwd)
rm -rf "$OUT/logs"
rm -f "$OUT"/{machine.txt,cuzk.toml,status.json,status.err,timeline.txt,timeline.json,samples.csv,summary.txt}
rm -f "$OUT"/*.log "$OUT"/daemons-*.txt "$OUT/jobs.csv"

new_run post q "${1:-}"
setup_runner "$W/loader-bin"
T0=$(date +%s)

choose_ring_dir
write_synthetic_config "synthetic vanilla proofs, C1 and parameters (test facilities), proofs NOT valid"
{
  echo "machine: $CORES CPUs, $(grep MemTotal /proc/meminfo | tr -s ' '), /dev/shm ${avail:-?} bytes free"
  timeout 20 nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>/dev/null \
    || echo "nvidia-smi: not available"
  echo "backend $BACKEND, $WINDOW_PROOF ($WINDOW_SECTORS sectors) and $WINNING_PROOF, PoRep load $POREP_PROOF" \
       "(synthetic vanilla proofs, C1 and parameters: proofs not valid, verify off), synthd $SYNTH_THREADS threads," \
       "gpud $GPUD_WORKERS workers, ring $RING_SLOTS x $SLOT_BYTES bytes"
} | tee "$OUT/machine.txt"

# shellcheck disable=SC2317  # run by stop_daemons
kill_daemons() { kill_pid_files "$RT"/*.pid; }
BENCH_PID=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  [ -n "$BENCH_PID" ] && kill "$BENCH_PID" 2>/dev/null
  stop_sampler
  stop_daemons
  collect
  remove_run_files "$GPU"
}
trap cleanup EXIT

# One PoSt job through `cuzk prove`: appends "label,job,client_ms" to $OUT/jobs.csv (the job id from the
# client's "job N submitted"; the service's own latency comes from the timeline).
prove_post() {
  local label=$1 proof=$2; shift 2
  local t0 ms job
  t0=$(date +%s%N)
  run 300 "$CUZK" prove --config "$CONFIG" --post "$proof" --randomness "$RANDOMNESS" --out "$W/$label.proof" \
    --vanilla "$@" >"$OUT/$label.log" 2>&1 || { tail -5 "$OUT/$label.log"; fail "$label"; }
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  job=$(grep -o 'job [0-9]* submitted' "$OUT/$label.log" | head -1 | cut -d' ' -f2)
  echo "$label,$job,$ms" >>"$OUT/jobs.csv"
  log "$label: job $job, $ms ms from the client's start to the proof"
}

# --- 1. inputs -------------------------------------------------------------------------------------------
step vanilla 240 "$CUZK" seal-test --registered-proof "$POREP_PROOF" --synthetic --post-randomness "$RANDOMNESS" \
  --sectors "$WINDOW_SECTORS" --out "$W/post" || fail "seal-test --synthetic --post-randomness"
mapfile -t WINDOW_FILES < <(ls "$W"/post/post/window-*.vanilla | sort -t- -k2 -n)
WINNING_FILE=$(ls "$W"/post/post/winning-*.vanilla | head -1)
log "vanilla proofs: ${#WINDOW_FILES[@]} WindowPoSt sectors ($(du -cb "${WINDOW_FILES[@]}" | tail -1 | cut -f1) bytes)," \
    "WinningPoSt $(stat -c %s "$WINNING_FILE") bytes (SYNTHETIC)"
if [ "$SKIP_POREP" != 1 ]; then
  step c1 120 "$CUZK" seal-test --registered-proof "$POREP_PROOF" --synthetic --out "$W/c1" || fail "seal-test --synthetic"
fi

# --- 2. WinningPoSt, idle --------------------------------------------------------------------------------
start_daemons "$GPU"
start_sampler "$OUT/samples.csv"
if [ -n "${PRELOAD:-}" ]; then
  # [gpud] preload: gpud loads the sets after reporting ready; the first WinningPoSt is sent once each has been
  # logged (loaded or failed), as on a machine whose gpud started well before its first WinningPoSt.
  want=$(tr ',' '\n' <<<"$PRELOAD" | grep -c '[^[:space:]]')
  for _ in $(seq 1 "$PRELOAD_WAIT_S"); do
    [ "$(grep -c '\[gpud\] preload' "$RT/logs/gpud.log")" -ge "$want" ] && break
    sleep 1
  done
  grep -h '\[gpud\] preload' "$RT/logs/gpud.log" | sed 's/^\[[^]]*\] \[[^]]*\] \[[^]]*\] //' | cut -c1-300
  [ "$(grep -c '\[gpud\] preload' "$RT/logs/gpud.log")" -ge "$want" ] \
    || fail "[gpud] preload = \"$PRELOAD\": not done after $PRELOAD_WAIT_S s"
fi
prove_post winning-warmup "$WINNING_PROOF" "$WINNING_FILE"
for i in $(seq 1 "$IDLE_WINNING"); do prove_post "winning-idle-$i" "$WINNING_PROOF" "$WINNING_FILE"; done

# --- 3. WindowPoSt ---------------------------------------------------------------------------------------
if [ "${SKIP_WINDOW:-0}" != 1 ]; then
record_daemon_peaks "$OUT/daemons-before-window.txt"
prove_post window-warmup "$WINDOW_PROOF" "${WINDOW_FILES[@]}"
for i in $(seq 1 "$WINDOW_JOBS"); do prove_post "window-$i" "$WINDOW_PROOF" "${WINDOW_FILES[@]}"; done
record_daemon_peaks "$OUT/daemons-after-window.txt"
grep -hE "R1CS matrices|SYNTHETIC|resident" "$RT/logs/gpud.log" | sed 's/^\[[^]]*\] \[[^]]*\] \[[^]]*\] //' | cut -c1-300
fi

# --- 4. WinningPoSt under PoRep load ---------------------------------------------------------------------
if [ "$SKIP_POREP" != 1 ]; then
  [ "${SKIP_WINDOW:-0}" = 1 ] || step evict 60 "$CUZK" api evict --config "$CONFIG" "post:$WINDOW_PROOF" || fail "evicting the WindowPoSt parameters"
  step porep-warmup 360 "$CUZK" prove --config "$CONFIG" --c1 "$W/c1/c1.json" --out "$W/porep-warmup.proof" \
    || fail "PoRep warm-up job"
  run 600 "$CUZK" bench --config "$CONFIG" -c "$POREP_JOBS" -j "$POREP_JOBS" --c1 "$W/c1/c1.json" >"$OUT/bench.log" 2>&1 &
  BENCH_PID=$!
  sleep "$LOAD_SETTLE_S"
  for i in $(seq 1 "$LOADED_WINNING"); do
    kill -0 "$BENCH_PID" 2>/dev/null || { log "the PoRep bench ended before WinningPoSt $i: fewer loaded samples"; break; }
    prove_post "winning-loaded-$i" "$WINNING_PROOF" "$WINNING_FILE"
    sleep "$WINNING_GAP_S"
  done
  wait "$BENCH_PID" || { BENCH_PID=""; tail -20 "$OUT/bench.log"; fail "cuzk bench"; }
  BENCH_PID=""
fi

# --- 5. report -------------------------------------------------------------------------------------------
run 20 "$CUZK" status --json --config "$CONFIG" >"$OUT/status.json" 2>"$OUT/status.err" || echo "cuzk status failed"
record_daemon_peaks "$OUT/daemons.txt"
stop_sampler
stop_daemons
collect
TIMELINE_WARMUP_JOBS=0
write_timeline 60
log "total $(( $(date +%s) - T0 )) s (budget $TIME_BUDGET s); logs, config, samples, status and timeline in $OUT"
if command -v python3 >/dev/null; then
  python3 "$SRC/bench/gpu/post_run_summary.py" "$OUT" "$SYNTH_THREADS" "$CORES" | tee "$OUT/summary.txt" \
    || echo "the summary failed (the files are in $OUT)"
else
  echo "no python3: no summary table (the figures are in $OUT)"
fi
exit $STATUS
