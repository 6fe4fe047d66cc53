#!/usr/bin/env bash
# The whole job at real size: PoRep C2 of a 32 GiB sector (10 partitions a job) through the three daemons on
# the H200 machine (16 cores, 128 GB), gpud on the CUDA backend, N jobs submitted at once, then `cuzk timeline`
# and a short table: s/proof and proofs/hour in steady state, one job's latency, GPU efficiency, synthesis per
# partition (wall and core-seconds), ring slot bytes, each daemon's peak memory, device memory, PCIe bytes per
# partition, and which resource bounded the rate.
#
# TEST FACILITIES, so the figures are timings only: the C1 is synthetic (`cuzk seal-test --synthetic`: random
# Merkle siblings, its witness does not satisfy the circuit) and the parameters too ([gpud] synthetic_params:
# random points of the exact sizes, built in gpud's memory, never written), so no proof made here is valid and
# [assemblerd] verify is off. The circuit's R1CS matrices are real: recorded once (a blank synthesis, ~7.7 GB at
# 32 GiB) into PARAMS_DIR, where the next run on the same machine finds them.
#
#   bench/gpu/run_porep_h200.sh [BIN]
#
# BIN: a directory from `bench/gpu/pack_prebuilt.sh BUILD DEST` (cuzk, cuzk-assemblerd, cuzk-synthd, cuzk-gpud at
# its top; DEST/lib the libraries, DEST/glibc the C library and its loader for a machine whose own is older), or a
# build directory (cli/cuzk and the daemons in assemblerd/, synthd/, gpud/); without BIN, cuzk and the daemons are
# taken from PATH. On the H200 machine: `bench/gpu/pack_prebuilt.sh build-cuda .gpubin` here, then there
# `bench/gpu/run_porep_h200.sh .gpubin`.
# A smoke test of the script on any machine, CPU backend:
#   BACKEND=cpu REGISTERED_PROOF=StackedDrg2KiBV1_1 JOBS=1 bench/gpu/run_porep_h200.sh build
#
# Steps (each with a timeout, all within TIME_BUDGET seconds): the synthetic C1; `cuzk up`; a warm-up job (gpud
# records or reads the matrices, builds the parameters and makes them resident: minutes the first time at 32 GiB);
# `cuzk bench` of JOBS jobs at once; `cuzk status` and each daemon's peak memory (VmHWM) and CPU time from /proc;
# `cuzk down`; `cuzk timeline` (the warm-up job and the first bench job, which fills the pipeline, left out of the
# steady state). A sampler records every SAMPLE_S seconds each daemon's resident and private memory, the host's
# available memory and the GPU's memory in use. Everything goes to $OUT (default ./porep-out); on a failure the
# daemons' log tails are printed and the daemons stopped. The table is made by bench/gpu/porep_run_summary.py
# (python3) from those files.
#
# Environment:
#   BACKEND=cuda  REGISTERED_PROOF=StackedDrg32GiBV1_1  GPU=0  GPUD_WORKERS=2  SYNTH_THREADS=(cores - 2)
#   JOBS (default: what the time left after the warm-up allows at SEC_PER_JOB s a job, 4 to 40)  SEC_PER_JOB
#   (default: the warm-up job's GPU time plus a tenth, from assemblerd's log, as the steady state is GPU-bound:
#   a 32 GiB job takes ~10.6 s of GPU on the H200, ~17 s on an H100, whose 79 GiB leave the points in host
#   memory; 13 where the log has no such line)  RING_SLOTS=8  SLOT_BYTES=268435456 (a 32 GiB partition's compact
#   witness is ~95 MB)  PARAMS_DIR=<repo>/.gpu-porep-params (ignored by git; remove it after a circuit change)
#   TIME_BUDGET=570  C1_TIMEOUT=120  UP_TIMEOUT=90  WARMUP_TIMEOUT=360  DOWN_TIMEOUT=40  SAMPLE_S=2
#   TIMELINE_WARMUP_JOBS (default 2; 1 when JOBS < 3)  FORCE_LOADER=0  KEEP=0 (keep the temp dir)
#   RING_IN_TMP=0 (1: the ring in a file under the temp dir; automatic when /dev/shm has too little room)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=daemon_run_lib.sh source-path=SCRIPTDIR
. "$SRC/bench/gpu/daemon_run_lib.sh" || exit 2
OUT=${OUT:-$PWD/porep-out}
BACKEND=${BACKEND:-cuda}
REGISTERED_PROOF=${REGISTERED_PROOF:-StackedDrg32GiBV1_1}
GPU=${GPU:-0}
GPUD_WORKERS=${GPUD_WORKERS:-2}
CORES=$(nproc)
SYNTH_THREADS=${SYNTH_THREADS:-$(( CORES > 3 ? CORES - 2 : 1 ))}
JOBS=${JOBS:-}
SEC_PER_JOB=${SEC_PER_JOB:-}
RING_SLOTS=${RING_SLOTS:-8}
SLOT_BYTES=${SLOT_BYTES:-268435456}
PARAMS_DIR=${PARAMS_DIR:-$SRC/.gpu-porep-params}
TIME_BUDGET=${TIME_BUDGET:-570}
C1_TIMEOUT=${C1_TIMEOUT:-120}
UP_TIMEOUT=${UP_TIMEOUT:-90}
WARMUP_TIMEOUT=${WARMUP_TIMEOUT:-360}
DOWN_TIMEOUT=${DOWN_TIMEOUT:-40}
SAMPLE_S=${SAMPLE_S:-2}
FORCE_LOADER=${FORCE_LOADER:-0}
KEEP=${KEEP:-0}
RESERVE=$(( DOWN_TIMEOUT + 40 ))  # kept back from the budget for status, down, timeline and the copies

mkdir -p "$OUT" "$PARAMS_DIR" || exit 2
OUT=$(cd "$OUT" && pwd)
PARAMS_DIR=$(cd "$PARAMS_DIR" && pwd)
# what an earlier run left there (only this script's own names)
rm -rf "$OUT/logs"
rm -f "$OUT"/{machine.txt,cuzk.toml,status.json,status.err,timeline.txt,timeline.json,samples.csv,daemons.txt,summary.txt}
rm -f "$OUT"/{c1,up,warmup,bench,down,timeline}.log

# --- the executables and how to run them -------------------------------------------------------------
new_run porep r "${1:-}"

setup_runner "$W/loader-bin"  # in loader mode, the daemons' wrapper scripts ($W/bin holds a build's links)

T0=$(date +%s)

# --- the configuration ---------------------------------------------------------------------------------
choose_ring_dir
write_synthetic_config "synthetic C1 and parameters (test facilities), proofs NOT valid"

{
  echo "machine: $CORES CPUs, $(grep MemTotal /proc/meminfo | tr -s ' '), /dev/shm ${avail:-?} bytes free," \
       "$(df -h --output=avail "$PARAMS_DIR" | tail -1 | tr -d ' ') free for $PARAMS_DIR"
  timeout 20 nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>/dev/null \
    || echo "nvidia-smi: not available"
  echo "backend $BACKEND, $REGISTERED_PROOF (synthetic C1 and parameters: proofs not valid, verify off)," \
       "jobs ${JOBS:-auto}, synthd $SYNTH_THREADS threads, gpud $GPUD_WORKERS workers on GPU $GPU," \
       "ring $RING_SLOTS x $SLOT_BYTES bytes, params dir $PARAMS_DIR, loader mode $LOADER_MODE"
} | tee "$OUT/machine.txt"

# --- cleanup and failure reporting ---------------------------------------------------------------------
# When `cuzk down` fails (stop_daemons): every daemon of this run, by its pid file.
# shellcheck disable=SC2317  # run by stop_daemons
kill_daemons() { kill_pid_files "$RT"/*.pid; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  stop_sampler
  stop_daemons
  collect
  remove_run_files "$GPU"
}
trap cleanup EXIT
# --- the run -------------------------------------------------------------------------------------------
step c1 "$C1_TIMEOUT" "$CUZK" seal-test --registered-proof "$REGISTERED_PROOF" --synthetic --out "$W/c1" \
  || fail "cuzk seal-test --synthetic"
C1=$W/c1/c1.json
log "synthetic C1: $(stat -c %s "$C1") bytes (not satisfiable: its proofs are not valid)"

start_daemons "$GPU"
start_sampler "$OUT/samples.csv"

# One job first: gpud records (or reads) the matrices, builds the synthetic parameters and makes them resident;
# the timeline counts it and the first bench job as warm-up.
step warmup "$WARMUP_TIMEOUT" "$CUZK" prove --config "$CONFIG" --c1 "$C1" --out "$W/warmup.proof" \
  || fail "warm-up job"
grep -hE "R1CS matrices|SYNTHETIC|resident|not written|ready after" "$RT/logs/gpud.log" \
  | sed 's/^\[[^]]*\] \[[^]]*\] \[[^]]*\] //' | cut -c1-500

if [ -z "$SEC_PER_JOB" ]; then
  # "job 1 done (porep-c2, ...): 10 partitions in .. ms (..., GPU 17302 ms)": the warm-up job's first partition
  # counts its set's first run too, so this errs long, never short (a fixed 13 s ran an H100 out of its budget).
  warmup_gpu_ms=$(grep -h 'done (porep-c2' "$RT/logs/assemblerd.log" 2>/dev/null | head -1 \
    | sed -nE 's/.*, GPU ([0-9]+) ms\)$/\1/p')
  if [ -n "$warmup_gpu_ms" ]; then
    SEC_PER_JOB=$(( (warmup_gpu_ms * 11 / 10 + 999) / 1000 ))
    [ "$SEC_PER_JOB" -lt 1 ] && SEC_PER_JOB=1
    log "SEC_PER_JOB=$SEC_PER_JOB: the warm-up job's GPU time, $warmup_gpu_ms ms, and a tenth"
  else
    SEC_PER_JOB=13
    log "SEC_PER_JOB=13: assemblerd's log has no warm-up job's GPU time"
  fi
fi
if [ -z "$JOBS" ]; then
  JOBS=$(( ($(left) - RESERVE - 20) / SEC_PER_JOB ))
  [ "$JOBS" -gt 40 ] && JOBS=40
  [ "$JOBS" -lt 4 ] && JOBS=4
  log "JOBS=$JOBS: $(left) s of the budget left, $SEC_PER_JOB s a job"
fi
TIMELINE_WARMUP_JOBS=${TIMELINE_WARMUP_JOBS:-$(( JOBS >= 3 ? 2 : 1 ))}
step bench 600 "$CUZK" bench --config "$CONFIG" -c "$JOBS" -j "$JOBS" --c1 "$C1" || fail "cuzk bench"

run 20 "$CUZK" status --json --config "$CONFIG" >"$OUT/status.json" 2>"$OUT/status.err" \
  || echo "cuzk status failed (see $OUT/status.err)"
record_daemon_peaks "$OUT/daemons.txt"
stop_sampler
stop_daemons
collect

write_timeline 60

echo
log "total $(( $(date +%s) - T0 )) s (budget $TIME_BUDGET s); logs, config, samples, status and timeline in $OUT"
cat "$OUT/bench.log"
echo
sed -n '/^Gaps between GPU_END/,$p' "$OUT/timeline.txt"
echo
if command -v python3 >/dev/null; then
  python3 "$SRC/bench/gpu/porep_run_summary.py" "$OUT" "$REGISTERED_PROOF" "$SYNTH_THREADS" "$CORES" "$GPUD_WORKERS" \
    | tee "$OUT/summary.txt" || echo "the summary failed (the files are in $OUT)"
else
  echo "no python3: no summary table (the figures are in $OUT)"
fi
exit $STATUS
