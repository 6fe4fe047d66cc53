#!/usr/bin/env bash
# GPU efficiency of the whole pipeline: the three daemons with gpud's CUDA backend under a multi-job load,
# measured from `cuzk timeline` (time under the CUDA lock / first GPU_START to last GPU_END); written for an
# NVIDIA H200 box (16 cores, 128 GiB) that lacks the project's build dependencies.
#
#   bench/gpu/run_pipeline_h200.sh [PREBUILT_DIR]
#
# PREBUILT_DIR: made by `bench/gpu/pack_prebuilt.sh BUILD DEST` from a build of the targets cuzk
# cuzk-assemblerd cuzk-synthd cuzk-gpud (DEST/lib the libraries, DEST/glibc the C library and its loader), or a
# build directory holding them.
# The executables run with LD_LIBRARY_PATH=DEST/lib, or, when this machine's C library is older than the
# build's, through the packed loader: `cuzk up` then starts the daemons through small wrapper scripts
# (CUZK_BIN_DIR) that exec the loader under a name containing cuzk-<stage>, so that `cuzk down` still
# recognizes them. Without PREBUILT_DIR: configures build-gpu (CUZK_CUDA_ARCHITECTURES=90a) and builds
# those four targets first (needs the project's build dependencies; the build is not in the time budget).
#
# Steps (each with a timeout, all within TIME_BUDGET seconds, default 420): test parameters (`cuzk setup`),
# `cuzk up`, one warm-up job (parameters loaded and made resident on the GPU), `cuzk bench`, `cuzk status`,
# `cuzk down`, `cuzk timeline` over the daemons' logs. Logs, config, status and timeline go to $OUT
# (default ./pipeline-out); the bench summary and the timeline's gaps and efficiency are printed last.
# On a failure the daemons' log tails are printed and the daemons stopped. Measured on the H200 box with the
# defaults: about 1 minute (65 partitions of ~122 ms of kernels each).
# Concurrency 6: with the kernels of a mul:2097150 partition at ~122 ms, 3 jobs in flight left the GPU
# waiting for synthesis (82.6 % busy in steady state), a load bound by the CPUs rather than the GPU;
# 6 keep the GPU the busiest stage (99.9 %; BENCHMARKS.md).
#
# Environment (defaults for the H200 box: a large mul circuit, so that synthesis is trivial and the GPU
# is the busiest stage):
#   BACKEND=cuda  CIRCUIT=mul:2097150 (domain 2^21: 1.2 GB of parameters, 258 MiB per witness)  PARTITIONS=4
#   JOBS=16  CONCURRENCY=6
#   GPU=0  GPUS=$GPU (a list, e.g. 0,1: one gpud per GPU through `cuzk up --gpus`, each with its own lock)
#   GPUD_WORKERS=2  SYNTH_THREADS=(cores - GPUD_WORKERS - 2, at least 1)  RING_SLOTS=8
#   SLOT_BYTES (default: sized from a mul:N or sha256:K circuit; give it for others)  WARMUP=1
#   TIMELINE_WARMUP_JOBS (default 2 with WARMUP=1: the warm-up job and the first bench job, which fills the
#   pipeline; 1 without)
#   TIME_BUDGET=420  SETUP_TIMEOUT=150  UP_TIMEOUT=90  DOWN_TIMEOUT=40  FORCE_LOADER=0  KEEP=0 (keep the temp dir)
#   RING_IN_TMP=0 (1: the ring in a file under the temp dir; automatic when /dev/shm has too little room)
#   KILL_GPU (a GPU of GPUS: its gpud is killed with SIGKILL KILL_AFTER_S=10 seconds into the bench, while it
#   proves, and started again by `cuzk up` RESTART_AFTER_S=2 seconds later; the bench must still complete every
#   job: the other gpuds take the dead one's slots back; the kill, the restart and the slots reclaimed are printed)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=daemon_run_lib.sh source-path=SCRIPTDIR
. "$SRC/bench/gpu/daemon_run_lib.sh" || exit 2
OUT=${OUT:-$PWD/pipeline-out}
BACKEND=${BACKEND:-cuda}
CIRCUIT=${CIRCUIT:-mul:2097150}
PARTITIONS=${PARTITIONS:-4}
JOBS=${JOBS:-16}
CONCURRENCY=${CONCURRENCY:-6}
GPU=${GPU:-0}
GPUS=${GPUS:-$GPU}
GPUD_WORKERS=${GPUD_WORKERS:-2}
RING_SLOTS=${RING_SLOTS:-8}
WARMUP=${WARMUP:-1}
TIMELINE_WARMUP_JOBS=${TIMELINE_WARMUP_JOBS:-$(( WARMUP == 1 ? 2 : 1 ))}
TIME_BUDGET=${TIME_BUDGET:-420}
SETUP_TIMEOUT=${SETUP_TIMEOUT:-150}
UP_TIMEOUT=${UP_TIMEOUT:-90}
DOWN_TIMEOUT=${DOWN_TIMEOUT:-40}
FORCE_LOADER=${FORCE_LOADER:-0}
KEEP=${KEEP:-0}
CORES=$(nproc)
SYNTH_THREADS=${SYNTH_THREADS:-$(( CORES - GPUD_WORKERS - 2 > 1 ? CORES - GPUD_WORKERS - 2 : 1 ))}
RESERVE=$(( DOWN_TIMEOUT + 40 ))  # kept back from the budget for down, status, timeline and the copies

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# what an earlier run left there (only this script's own names)
rm -rf "$OUT/logs" "$OUT"/{machine.txt,cuzk.toml,status.json,timeline.txt,timeline.json}
rm -f "$OUT"/{configure,build,setup,up,warmup,bench,down,timeline}.log

# --- the executables and how to run them -------------------------------------------------------------
if [ -z "${1:-}" ]; then
  BUILD=$SRC/build-gpu
  t0=$(date +%s)
  timeout 300 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA_ARCHITECTURES=90a \
    -DCUZK_BUILD_TESTS=ON -DCUZK_BUILD_BENCHMARKS=OFF >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 2; }
  timeout 1800 cmake --build "$BUILD" --target cuzk cuzk-assemblerd cuzk-synthd cuzk-gpud -j"$CORES" \
    >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 2; }
  log "build: $(( $(date +%s) - t0 )) s (not in the time budget)"
  set -- "$BUILD"
fi
new_run pipe p "$1"  # a packed directory or a build directory

setup_runner "$W/loader-bin"  # in loader mode, the daemons' wrapper scripts ($W/bin holds a build's links)

T0=$(date +%s)

# --- the configuration ---------------------------------------------------------------------------------
if [ -n "${SLOT_BYTES:-}" ]; then
  :
elif [[ $CIRCUIT =~ ^mul:([0-9]+)(@.*)?$ ]]; then
  # mul:N: N + 2 rows (the input rows included), N + 1 aux, 2 inputs: 32 bytes each for a, b, c, inputs and aux,
  # 320 bytes of header and the density bits; rounded up to MiB with 1 MiB to spare.
  n=${BASH_REMATCH[1]}
  SLOT_BYTES=$(( ( (32 * (3 * (n + 2) + 2 + n + 1) + 320 + 8 * (2 * (n / 64 + 1) + 1)) / 1048576 + 2 ) * 1048576 ))
elif [[ $CIRCUIT =~ ^sha256:([0-9]+) ]]; then
  SLOT_BYTES=$(( (BASH_REMATCH[1] * 4 + 2) * 1048576 ))  # about 3.3 MiB of witness per block
else
  SLOT_BYTES=$(( 64 * 1048576 ))
fi
choose_ring_dir
cat >"$CONFIG" <<EOF
# written by bench/gpu/run_pipeline_h200.sh
[runtime]
dir = "$RT"
spool_dir = "$SPOOL"
log_level = "info"
[ring]
name = "$RING_NAME"
slots = $RING_SLOTS
slot_bytes = $SLOT_BYTES
shm_dir = "$SHM_DIR"
[synthd]
threads = $SYNTH_THREADS
[gpud]
backend = "$BACKEND"
workers = $GPUD_WORKERS
gpu = ${GPUS%%,*}
lock_name = "$LOCK_NAME"
EOF
cp "$CONFIG" "$OUT/cuzk.toml"

{
  echo "machine: $CORES CPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')"
  timeout 20 nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>/dev/null \
    || echo "nvidia-smi: not available"
  echo "backend $BACKEND, circuit $CIRCUIT x $PARTITIONS partitions, $JOBS jobs at concurrency $CONCURRENCY," \
       "synthd $SYNTH_THREADS threads, gpud $GPUD_WORKERS workers on GPU(s) $GPUS, ring $RING_SLOTS x $SLOT_BYTES bytes," \
       "loader mode $LOADER_MODE"
} | tee "$OUT/machine.txt"

# --- cleanup and failure reporting ---------------------------------------------------------------------
# When `cuzk down` fails (stop_daemons): the stages' daemons, one gpud per GPU, by their pid files.
# shellcheck disable=SC2317  # run by stop_daemons
kill_daemons() { kill_pid_files "$RT"/assemblerd.pid "$RT"/synthd.pid "$RT"/gpud.pid "$RT"/gpud-*.pid; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  stop_daemons
  collect
  # shellcheck disable=SC2086  # GPUS: a comma-separated list, one index a word
  remove_run_files ${GPUS//,/ }
}
trap cleanup EXIT

# --- the run -------------------------------------------------------------------------------------------
step setup "$SETUP_TIMEOUT" "$CUZK" setup --circuit "${CIRCUIT%%@*}" --out "$SPOOL/params" \
  || fail "cuzk setup --circuit $CIRCUIT"
grep -h "setup " "$OUT/setup.log" | tail -1

start_daemons "$GPUS"

if [ "$WARMUP" = 1 ]; then
  # One job of one partition first: gpud loads the parameters and makes them resident on the GPU, so the
  # bench's figures leave that out. The timeline counts it and the first bench job (whose synthesis
  # cannot overlap earlier GPU work: the pipeline fills) as warm-up (TIMELINE_WARMUP_JOBS).
  step warmup 180 "$CUZK" prove --config "$CONFIG" --circuit "$CIRCUIT" --partitions 1 --seed 999999 \
    --out "$W/warmup.proof" || fail "warm-up job"
fi

KILLER=""
if [ -n "${KILL_GPU:-}" ]; then
  [[ ",$GPUS," == *",$KILL_GPU,"* ]] || fail "KILL_GPU=$KILL_GPU is not one of GPUS=$GPUS"
  victim_pid_file=$RT/gpud-$KILL_GPU.pid
  [ "$KILL_GPU" = "${GPUS%%,*}" ] && victim_pid_file=$RT/gpud.pid  # the configured GPU's gpud is "gpud"
  (
    sleep "${KILL_AFTER_S:-10}"
    victim=$(cat "$victim_pid_file" 2>/dev/null)
    [ -n "$victim" ] || { log "kill: no pid in $victim_pid_file"; exit 1; }
    kill -KILL "$victim" && log "kill: gpud of GPU $KILL_GPU (pid $victim) killed with SIGKILL"
    sleep "${RESTART_AFTER_S:-2}"
    run 90 "$CUZK" up --config "$CONFIG" --gpus "$GPUS" --wait 80
    log "restart: \`cuzk up\` exit $?; gpud of GPU $KILL_GPU now pid $(cat "$victim_pid_file" 2>/dev/null)"
  ) >"$OUT/kill.log" 2>&1 &
  KILLER=$!
fi

step bench 600 "$CUZK" bench --config "$CONFIG" -c "$JOBS" -j "$CONCURRENCY" --circuit "$CIRCUIT" \
  --partitions "$PARTITIONS" || fail "cuzk bench"
[ -n "$KILLER" ] && wait "$KILLER"

run 20 "$CUZK" status --json --config "$CONFIG" >"$OUT/status.json" 2>&1 || echo "cuzk status failed (see $OUT/status.json)"
backend_used=$(grep -o '"backend": *"[a-z]*"' "$OUT/status.json" | head -1)
stop_daemons
collect

write_timeline 30

echo
log "total $(( $(date +%s) - T0 )) s (budget $TIME_BUDGET s); logs, config, status and timeline in $OUT"
echo "gpud: ${backend_used:-backend unknown (see status.json)}"
grep -hE "CUDA backend on|parameters (for .* loaded|resident)" "$OUT/logs/gpud.log" 2>/dev/null | sed 's/^.*\] //'
echo
cat "$OUT/bench.log"
echo
sed -n '/^Gaps between GPU_END/,$p' "$OUT/timeline.txt"
if [ -n "${KILL_GPU:-}" ]; then
  echo
  echo "kill -9 of GPU $KILL_GPU's gpud mid-run:"
  cat "$OUT/kill.log"
  grep -h "reclaimed from dead pid" "$OUT"/logs/gpud*.log | sed 's/^.*\] /  /'
  grep -o '"reclaimed_proving": *[0-9]*' "$OUT/status.json" | sort | uniq -c | sed 's/^/  status: /'
fi
exit $STATUS
