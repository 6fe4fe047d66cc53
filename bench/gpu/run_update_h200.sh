#!/usr/bin/env bash
# SnapDeals updates at the 32 GiB shape (16 partitions a job) through the three daemons on the H200 machine
# (16 cores, 128 GB), gpud on the CUDA backend: a partition's synthesis (wall and core-seconds), its GPU time
# under the lock, its ring slot and host memory, one whole job's latency alone, then UPDATE_JOBS jobs submitted at
# once (s/proof, GPU efficiency); then `cuzk timeline` and a short table.
#
# TEST FACILITIES, so the figures are timings only: the update is synthetic (`cuzk seal-test --update --synthetic`:
# trees of periodic random data, of no sealed sector; a valid witness, its circuits satisfied) and the parameters
# are random points of the exact sizes ([gpud] synthetic_params), so no proof made here is valid and [assemblerd]
# verify is off. The R1CS matrices are real: recorded once per circuit into PARAMS_DIR (a blank synthesis of the
# update circuit, 81M constraints at 32 GiB), where the next run on the same machine finds them.
#
#   bench/gpu/run_update_h200.sh [BIN]
#
# BIN as for run_porep_h200.sh: a packed directory (bench/gpu/pack_prebuilt.sh), a build directory, or none (PATH).
# A smoke test on any machine, CPU backend, 2 KiB (one partition a job):
#   BACKEND=cpu SECTOR_SIZE=2KiB UPDATE_JOBS=1 bench/gpu/run_update_h200.sh build-nocuda
#
# Steps, each with a timeout, all within TIME_BUDGET seconds:
#   1. the synthetic update of StackedDrgUpdate<SECTOR_SIZE>V1: DIR/update-partition-<k>.bin and update.json
#   2. `cuzk up`; a warm-up job (gpud records or reads the matrices, builds the synthetic parameters and makes them
#      resident), then ALONE_JOBS jobs one after another with the service otherwise idle: a job's latency alone
#   3. UPDATE_JOBS jobs submitted at once (`cuzk submit` each, then `cuzk await` each, all in parallel)
#   4. `cuzk status`, each daemon's peak memory (VmHWM) and CPU time, `cuzk down`, `cuzk timeline` (the warm-up
#      and the alone jobs left out of the steady state: it is the multi-job phase); the table by
#      bench/gpu/update_run_summary.py
# A sampler records every SAMPLE_S seconds each daemon's resident and private memory, the host's available memory
# and the GPU's memory in use. Everything goes to $OUT (default ./update-out).
#
# Environment:
#   BACKEND=cuda  SECTOR_SIZE=32GiB  GPU=0  GPUD_WORKERS=2  SYNTH_THREADS=(cores - 2)  UPDATE_JOBS=3  ALONE_JOBS=1
#   RING_SLOTS=8  SLOT_BYTES=(256 MiB from 512 MiB sectors: a 32 GiB partition's compact witness was ~56 MB on the dev machine, by hand;
#   64 MiB below)  PARAMS_DIR=<repo>/.gpu-porep-params  TIME_BUDGET=570  SEAL_TIMEOUT=120  UP_TIMEOUT=90
#   WARMUP_TIMEOUT=360  JOB_TIMEOUT=300  DOWN_TIMEOUT=40  SAMPLE_S=2  TIMELINE_WARMUP_JOBS=(1 + ALONE_JOBS)
#   FORCE_LOADER=0  KEEP=0 (keep the temp dir)  RING_IN_TMP=0
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=daemon_run_lib.sh source-path=SCRIPTDIR
. "$SRC/bench/gpu/daemon_run_lib.sh" || exit 2
OUT=${OUT:-$PWD/update-out}
BACKEND=${BACKEND:-cuda}
SECTOR_SIZE=${SECTOR_SIZE:-32GiB}
GPU=${GPU:-0}
GPUD_WORKERS=${GPUD_WORKERS:-2}
CORES=$(nproc)
SYNTH_THREADS=${SYNTH_THREADS:-$(( CORES > 3 ? CORES - 2 : 1 ))}
UPDATE_JOBS=${UPDATE_JOBS:-3}
ALONE_JOBS=${ALONE_JOBS:-1}
RING_SLOTS=${RING_SLOTS:-8}
case "$SECTOR_SIZE" in
  2KiB|8MiB) SLOT_BYTES=${SLOT_BYTES:-67108864} ;;
  *) SLOT_BYTES=${SLOT_BYTES:-268435456} ;;
esac
PARAMS_DIR=${PARAMS_DIR:-$SRC/.gpu-porep-params}
TIME_BUDGET=${TIME_BUDGET:-570}
SEAL_TIMEOUT=${SEAL_TIMEOUT:-120}
UP_TIMEOUT=${UP_TIMEOUT:-90}
WARMUP_TIMEOUT=${WARMUP_TIMEOUT:-360}
JOB_TIMEOUT=${JOB_TIMEOUT:-300}
DOWN_TIMEOUT=${DOWN_TIMEOUT:-40}
SAMPLE_S=${SAMPLE_S:-2}
FORCE_LOADER=${FORCE_LOADER:-0}
KEEP=${KEEP:-0}
TIMELINE_WARMUP_JOBS=${TIMELINE_WARMUP_JOBS:-$(( 1 + ALONE_JOBS ))}
RESERVE=$(( DOWN_TIMEOUT + 40 ))  # kept back from the budget for status, down, timeline and the copies
UPDATE_PROOF=StackedDrgUpdate${SECTOR_SIZE}V1

mkdir -p "$OUT" "$PARAMS_DIR" || exit 2
OUT=$(cd "$OUT" && pwd)
PARAMS_DIR=$(cd "$PARAMS_DIR" && pwd)
# what an earlier run left there (only this script's own names)
rm -rf "$OUT/logs"
rm -f "$OUT"/{machine.txt,cuzk.toml,update.json,status.json,status.err,timeline.txt,timeline.json,samples.csv,summary.txt}
rm -f "$OUT"/*.log "$OUT"/daemons*.txt "$OUT/jobs.csv"

new_run update u "${1:-}"
setup_runner "$W/loader-bin"
T0=$(date +%s)

choose_ring_dir
write_synthetic_config "synthetic update and parameters (test facilities), proofs NOT valid"
{
  echo "machine: $CORES CPUs, $(grep MemTotal /proc/meminfo | tr -s ' '), /dev/shm ${avail:-?} bytes free," \
       "$(df -h --output=avail "$PARAMS_DIR" | tail -1 | tr -d ' ') free for $PARAMS_DIR"
  timeout 20 nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>/dev/null \
    || echo "nvidia-smi: not available"
  echo "backend $BACKEND, $UPDATE_PROOF (synthetic update and parameters: proofs not valid, verify off)," \
       "$ALONE_JOBS job(s) alone then $UPDATE_JOBS at once, synthd $SYNTH_THREADS threads, gpud $GPUD_WORKERS" \
       "workers on GPU $GPU, ring $RING_SLOTS x $SLOT_BYTES bytes, params dir $PARAMS_DIR, loader mode $LOADER_MODE"
} | tee "$OUT/machine.txt"

# shellcheck disable=SC2317  # run by stop_daemons
kill_daemons() { kill_pid_files "$RT"/*.pid; }
BATCH_PIDS=()  # the batch's submit and await clients while they run (step 3)
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local p
  for p in "${BATCH_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  stop_sampler
  stop_daemons
  collect
  remove_run_files "$GPU"
}
trap cleanup EXIT

# --- 1. the synthetic update -------------------------------------------------------------------------------
step seal "$SEAL_TIMEOUT" "$CUZK" seal-test --registered-proof "$UPDATE_PROOF" --update --synthetic --out "$W/update" \
  || fail "cuzk seal-test --update --synthetic"
cp "$W/update/update.json" "$OUT/update.json"
# update.json's string and number fields (one a line, as seal-test writes it)
json_field() { sed -n "s/^ *\"$1\": \"\{0,1\}\([0-9a-fA-F]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$W/update/update.json" | head -1; }
PARTITIONS=$(json_field partitions)
[ -n "$PARTITIONS" ] || fail "no partition count in update.json"
FILES=()
for k in $(seq 0 $(( PARTITIONS - 1 ))); do FILES+=("$W/update/update-partition-$k.bin"); done
UPDATE_ARGS=(--update "$UPDATE_PROOF" --vanilla "${FILES[@]}" --comm-r-old "$(json_field comm_r_old)"
             --comm-d-new "$(json_field comm_d_new)" --comm-r-new "$(json_field comm_r_new)")
log "synthetic update: $PARTITIONS partitions of $(stat -c %s "${FILES[0]}") bytes, h $(json_field h) (SYNTHETIC)"

# --- 2. the warm-up and the jobs alone ---------------------------------------------------------------------
start_daemons "$GPU"
start_sampler "$OUT/samples.csv"
# One job through `cuzk prove`: "label,job,client_ms" to $OUT/jobs.csv (the service's latency: the timeline).
prove_update() {
  local label=$1 limit=$2 t0 ms job
  t0=$(date +%s%N)
  step "$label" "$limit" "$CUZK" prove --config "$CONFIG" "${UPDATE_ARGS[@]}" --out "$W/$label.proof" || fail "$label"
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  job=$(grep -o 'job [0-9]* submitted' "$OUT/$label.log" | head -1 | cut -d' ' -f2)
  echo "$label,$job,$ms" >>"$OUT/jobs.csv"
}
prove_update warmup "$WARMUP_TIMEOUT"
grep -hE "R1CS matrices|SYNTHETIC|resident|not written|ready after" "$RT/logs/gpud.log" \
  | sed 's/^\[[^]]*\] \[[^]]*\] \[[^]]*\] //' | cut -c1-400
for i in $(seq 1 "$ALONE_JOBS"); do prove_update "alone-$i" "$JOB_TIMEOUT"; done
record_daemon_peaks "$OUT/daemons-before-bench.txt"

# --- 3. UPDATE_JOBS jobs at once ---------------------------------------------------------------------------
# `cuzk submit` of each at once, then `cuzk await` of each at once (`cuzk bench --update` takes the job for a
# test circuit's at this commit); "batch-<i>,job,client_ms" to jobs.csv, the wall time and s/proof to batch.log.
batch() {
  local i t0 ms limit rc=0 ids=()
  limit=$(step_limit 600)
  t0=$(date +%s%N)
  for i in $(seq 1 "$UPDATE_JOBS"); do
    run 120 "$CUZK" submit --config "$CONFIG" "${UPDATE_ARGS[@]}" >"$W/batch-$i.id" 2>>"$OUT/batch.log" &
    BATCH_PIDS+=($!)
  done
  for i in $(seq 1 "$UPDATE_JOBS"); do
    wait "${BATCH_PIDS[$((i - 1))]}" || { tail -5 "$OUT/batch.log"; fail "cuzk submit of batch job $i"; }
    ids+=("$(cat "$W/batch-$i.id")")
  done
  log "batch: jobs ${ids[*]} submitted"
  BATCH_PIDS=()
  for i in $(seq 1 "$UPDATE_JOBS"); do
    ( run "$limit" "$CUZK" await --config "$CONFIG" --progress-interval 0 --out "$W/batch-$i.proof" "${ids[$((i - 1))]}" \
        >"$OUT/batch-$i.log" 2>&1 || exit
      echo "batch-$i,${ids[$((i - 1))]},$(( ($(date +%s%N) - t0) / 1000000 ))" >>"$OUT/jobs.csv" ) &
    BATCH_PIDS+=($!)
  done
  for i in $(seq 1 "$UPDATE_JOBS"); do
    wait "${BATCH_PIDS[$((i - 1))]}" || { rc=1; echo "job ${ids[$((i - 1))]}: await failed"; tail -5 "$OUT/batch-$i.log"; }
  done
  BATCH_PIDS=()
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  {
    echo "batch: $UPDATE_JOBS jobs of $UPDATE_PROOF submitted at once, wall $(( ms / 1000 )).$(printf %03d $(( ms % 1000 ))) s"
    awk -v ms="$ms" -v n="$UPDATE_JOBS" 'BEGIN { printf "  throughput: %.3f s/proof, %.2f proofs/min\n", ms / 1000 / n, n * 60000 / ms }'
  } | tee -a "$OUT/batch.log"
  return $rc
}
batch || fail "the batch of $UPDATE_JOBS jobs"

# --- 4. report ---------------------------------------------------------------------------------------------
run 20 "$CUZK" status --json --config "$CONFIG" >"$OUT/status.json" 2>"$OUT/status.err" \
  || echo "cuzk status failed (see $OUT/status.err)"
record_daemon_peaks "$OUT/daemons.txt"
stop_sampler
stop_daemons
collect
write_timeline 60
echo
log "total $(( $(date +%s) - T0 )) s (budget $TIME_BUDGET s); logs, config, samples, status and timeline in $OUT"
if command -v python3 >/dev/null; then
  python3 "$SRC/bench/gpu/update_run_summary.py" "$OUT" "$UPDATE_PROOF" "$SYNTH_THREADS" "$CORES" \
    | tee "$OUT/summary.txt" || echo "the summary failed (the files are in $OUT)"
else
  echo "no python3: no summary table (the figures are in $OUT)"
fi
exit $STATUS
