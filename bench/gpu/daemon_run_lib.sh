# shellcheck shell=bash
# What the scripts that run the three daemons through `cuzk up` on a GPU machine (run_porep_h200.sh,
# run_pipeline_h200.sh) have in common, sourced by them (bash; it sets DAEMONS_UP=0 and STATUS=0 and defines
# functions, nothing else):
#   log MSG...             a line with the time of day
#   choose_bin [DIR]       the executables: DIR a build directory (cli/cuzk, <stage>/cuzk-<stage>, linked into
#                          $W/bin), a directory packed by pack_prebuilt.sh (use_packed_bin), or none: from PATH;
#                          sets BIN and DAEMON_DIR
#   use_packed_bin DIR     the executables packed by bench/gpu/pack_prebuilt.sh in DIR: sets BIN, DAEMON_DIR,
#                          PACKED_LD_PATH, and LOADER_MODE=1 when cuzk does not start with the packed libraries
#                          alone (or FORCE_LOADER=1); exits 2 when one is missing or nothing can start them
#   setup_runner WRAPPERS  defines `run LIMIT CMD...` (CMD under timeout, with the packed libraries or through the
#                          packed loader); in loader mode it writes the daemons' wrapper scripts into WRAPPERS
#                          and points DAEMON_DIR there; exports CUZK_BIN_DIR=$DAEMON_DIR, sets CUZK=$BIN/cuzk
#   left, step_limit LIMIT the seconds left of the budget; a step's timeout within it
#   step NAME LIMIT CMD... CMD through run, output to $OUT/NAME.log, its duration logged; returns its status
#   write_synthetic_config WHAT  $CONFIG (and a copy in $OUT/cuzk.toml) for a run on synthetic inputs and
#                          parameters (verify off, [gpud] synthetic_params, [gpud] preload = $PRELOAD), WHAT its
#                          first comment line
#   choose_ring_dir        SHM_DIR: "" (the ring in /dev/shm) or $W/shm when /dev/shm has too little room or
#                          RING_IN_TMP=1; sets avail (the bytes free in /dev/shm)
#   start_daemons GPUS     `cuzk up --gpus GPUS` (from then on stop_daemons stops them), fail when it fails
#   stop_daemons           `cuzk down` when the daemons were started; when down fails, calls kill_daemons
#   kill_pid_files FILE... SIGKILL to the pid in each file that holds one
#   log_tails, collect     the daemons' log tails; their logs copied to $OUT/logs
#   fail MSG...            reports the failure with the log tails, STATUS=1, exit 1
#   remove_run_files GPU...  this run's CUDA lock for each GPU index, its ring (unless under $W), $W (unless KEEP=1)
#   write_timeline LIMIT   `cuzk timeline` of the daemons' logs to $OUT/timeline.txt and timeline.json
#   daemon_pids            "stage pid" for each daemon cuzk up started (from $RT/*.pid)
#   start_sampler FILE     every SAMPLE_S seconds a CSV line to FILE: per daemon its resident and private memory,
#                          the host's available memory, the GPU's memory in use and utilization; stop_sampler ends it
#   record_daemon_peaks FILE  per daemon: VmHWM, VmRSS, RssAnon and CPU seconds so far, one line each
#
# The caller sets, before calling them: FORCE_LOADER (use_packed_bin); BIN, LOADER_MODE, PACKED_LD_PATH (may be
# unset), DAEMON_DIR (setup_runner); T0 (the budget's start, in seconds since the epoch), TIME_BUDGET, RESERVE
# (the seconds kept back from the budget), OUT (left, step_limit, step); W, RING_SLOTS, SLOT_BYTES
# (choose_ring_dir); RT (the runtime dir), CONFIG, UP_TIMEOUT, DOWN_TIMEOUT (the daemons' functions); LOCK_NAME
# (with {gpu} for the GPU's index), RING_NAME, SHM_DIR, KEEP (remove_run_files); TIMELINE_WARMUP_JOBS
# (write_timeline). It defines kill_daemons, which stop_daemons calls when `cuzk down` fails: the daemons that
# the script started, by their pid files (never by name), usually through kill_pid_files.

DAEMONS_UP=0
STATUS=0
SAMPLER=""

log() { echo "[$(date +%H:%M:%S)] $*"; }

# --- the executables and how to run them -------------------------------------------------------------
choose_bin() {
  local c e s build
  if [ -n "${1:-}" ] && [ -x "$1/cli/cuzk" ]; then  # a build directory
    build=$(cd "$1" && pwd)
    BIN=$W/bin
    mkdir -p "$BIN"
    ln -s "$build/cli/cuzk" "$BIN/cuzk"
    for s in assemblerd synthd gpud; do
      [ -x "$build/$s/cuzk-$s" ] || { echo "$build/$s/cuzk-$s missing: build it" >&2; exit 2; }
      ln -s "$build/$s/cuzk-$s" "$BIN/cuzk-$s"
    done
    DAEMON_DIR=$BIN
  elif [ -n "${1:-}" ]; then  # packed by pack_prebuilt.sh
    use_packed_bin "$1"
  else  # PATH
    c=$(command -v cuzk) || { echo "no cuzk on PATH: give a build or a packed directory" >&2; exit 2; }
    BIN=$(dirname "$c")
    for e in cuzk-assemblerd cuzk-synthd cuzk-gpud; do
      command -v "$e" >/dev/null || { echo "no $e on PATH" >&2; exit 2; }
    done
    DAEMON_DIR=$(dirname "$(command -v cuzk-gpud)")
  fi
}
use_packed_bin() {
  local e
  BIN=$(cd "$1" && pwd) || exit 2
  for e in cuzk cuzk-assemblerd cuzk-synthd cuzk-gpud; do
    [ -x "$BIN/$e" ] || { echo "$BIN/$e missing: pack it with bench/gpu/pack_prebuilt.sh BUILD $1" >&2; exit 2; }
  done
  # Only the project's executables get the packed libraries (cuzk up passes its environment on to the
  # daemons); this machine's own tools keep theirs.
  PACKED_LD_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [ "$FORCE_LOADER" = 1 ] || ! LD_LIBRARY_PATH=$PACKED_LD_PATH timeout 20 "$BIN/cuzk" circuits >/dev/null 2>&1; then
    [ -x "$BIN/glibc/ld-linux-x86-64.so.2" ] || { echo "$BIN: cuzk does not start and no packed loader" >&2; exit 2; }
    LOADER_MODE=1
  fi
  DAEMON_DIR=$BIN
}

# A run's scratch directory and names, and its executables (choose_bin BIN): W (under /tmp/cz<LETTER>: short, as
# the sockets' paths must fit a Unix socket address), TAG, RT, SPOOL, CONFIG, RING_NAME and LOCK_NAME (one lock per
# GPU: {gpu} is its index), all named for KIND. The caller runs setup_runner next.
new_run() {  # KIND LETTER BIN
  LOADER_MODE=0
  PACKED_LD_PATH=""
  W=$(mktemp -d "/tmp/cz$2.XXXXXX") || exit 2
  choose_bin "$3"
  TAG=$(basename "$W" | tr -cd 'A-Za-z0-9')-$$
  RT=$W/rt
  SPOOL=$W/spool
  CONFIG=$W/cuzk.toml
  RING_NAME=cuzk-$1-ring-$TAG
  LOCK_NAME="cuzk-$1-lock-$TAG-gpu{gpu}"
}

setup_runner() {
  local s
  # shellcheck disable=SC2317  # run: called by the sourcing script
  if [ "$LOADER_MODE" = 1 ]; then
    LOADER=$BIN/glibc/ld-linux-x86-64.so.2
    LIBS="$BIN/glibc:$BIN/lib:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/cuda/lib64"
    # cuzk up execs $CUZK_BIN_DIR/cuzk-<stage>; each wrapper execs the packed loader through a link named
    # ld-cuzk-<stage> (argv[0], which `cuzk down` checks for cuzk-<stage>), in the same process, so the pid
    # that cuzk up records is the daemon's.
    DAEMON_DIR=$1
    mkdir -p "$DAEMON_DIR"
    for s in assemblerd synthd gpud; do
      ln -s "$LOADER" "$DAEMON_DIR/ld-cuzk-$s"
      printf '#!/bin/sh\nexec "%s" --library-path "%s" "%s" "$@"\n' "$DAEMON_DIR/ld-cuzk-$s" "$LIBS" "$BIN/cuzk-$s" \
        >"$DAEMON_DIR/cuzk-$s"
      chmod +x "$DAEMON_DIR/cuzk-$s"
    done
    run() { local t=$1; shift; timeout "$t" "$LOADER" --library-path "$LIBS" "$@"; }
    log "this machine's C library is older than the build's (or FORCE_LOADER=1): running through the packed loader"
  elif [ -n "${PACKED_LD_PATH:-}" ]; then
    run() { local t=$1; shift; LD_LIBRARY_PATH=$PACKED_LD_PATH timeout "$t" "$@"; }
  else
    run() { local t=$1; shift; timeout "$t" "$@"; }
  fi
  export CUZK_BIN_DIR=$DAEMON_DIR
  CUZK=$BIN/cuzk
}

# --- the time budget -----------------------------------------------------------------------------------
left() { echo $(( TIME_BUDGET - ($(date +%s) - T0) )); }
# A step's timeout: its own limit, or what the budget has left after the reserve, whichever is smaller.
step_limit() { local l; l=$(( $(left) - RESERVE )); [ "$1" -lt "$l" ] && l=$1; [ "$l" -lt 5 ] && l=5; echo "$l"; }
# step NAME LIMIT cmd...: runs it with its timeout, output to $OUT/NAME.log, and says how long it took.
step() {
  local name=$1 limit; limit=$(step_limit "$2"); shift 2
  local t0 rc ms; t0=$(date +%s%N)
  run "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  log "$name: exit $rc, $(( ms / 1000 )).$(( ms % 1000 / 100 )) s (limit $limit s)"
  if [ $rc -ne 0 ]; then
    tail -n 20 "$OUT/$name.log" >&2
    [ $rc = 124 ] && echo "$name: timed out after $limit s" >&2
  fi
  return $rc
}

# --- the ring ------------------------------------------------------------------------------------------
choose_ring_dir() {
  local need
  SHM_DIR=""
  need=$(( RING_SLOTS * SLOT_BYTES + 64 * 1048576 ))
  avail=$(df -B1 --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ')
  if [ "${RING_IN_TMP:-0}" = 1 ] || [ -z "$avail" ] || [ "$avail" -lt "$need" ]; then
    SHM_DIR=$W/shm
    mkdir -p "$SHM_DIR"
    log "/dev/shm has ${avail:-no} bytes free, the ring needs $need (or RING_IN_TMP=1): ring segment in $SHM_DIR"
  fi
}

# --- the configuration ---------------------------------------------------------------------------------
# From RT, SPOOL, RING_NAME, RING_SLOTS, SLOT_BYTES, SHM_DIR, SYNTH_THREADS, BACKEND, GPUD_WORKERS, GPU, LOCK_NAME,
# PARAMS_DIR, LOG_LEVEL (default info; debug adds, among others, each compact partition's kernel steps to
# gpud's log), and RELEASE_HOST_POINTS ([gpud] release_host_points; default true, false keeps the parameters' host
# vectors after their upload), PARAMS_MEMORY ([gpud] params_memory; default auto) and SPARSE_STREAMING ([gpud]
# sparse_streaming; default true).
write_synthetic_config() {
  cat >"$CONFIG" <<EOF
# written by $(basename "$0"): $1
[runtime]
dir = "$RT"
spool_dir = "$SPOOL"
log_level = "${LOG_LEVEL:-info}"
[metrics]
listen = ""
[ring]
name = "$RING_NAME"
slots = $RING_SLOTS
slot_bytes = $SLOT_BYTES
shm_dir = "$SHM_DIR"
[assemblerd]
verify = false
partition_timeout_s = 1800
max_pending_jobs = 256
[synthd]
threads = $SYNTH_THREADS
[gpud]
backend = "$BACKEND"
workers = $GPUD_WORKERS
gpu = $GPU
lock_name = "$LOCK_NAME"
params_dir = "$PARAMS_DIR"
synthetic_params = true
release_host_points = ${RELEASE_HOST_POINTS:-true}
params_memory = "${PARAMS_MEMORY:-auto}"
sparse_streaming = ${SPARSE_STREAMING:-true}
preload = "${PRELOAD:-}"
EOF
  cp "$CONFIG" "$OUT/cuzk.toml"
}

# --- the daemons, cleanup and failure reporting --------------------------------------------------------
start_daemons() {
  DAEMONS_UP=1  # from here on, whatever `cuzk up` started is stopped on exit
  step up "$UP_TIMEOUT" "$CUZK" up --config "$CONFIG" --gpus "$1" --wait $(( UP_TIMEOUT - 10 )) || fail "cuzk up"
  cat "$OUT/up.log"
  grep -h "backend" "$RT/logs/gpud.log" | head -3
}
kill_pid_files() {
  local f p
  for f in "$@"; do
    p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
  done
}
stop_daemons() {
  [ "$DAEMONS_UP" = 1 ] || return 0
  DAEMONS_UP=0
  run "$DOWN_TIMEOUT" "$CUZK" down --config "$CONFIG" --grace 15 >>"$OUT/down.log" 2>&1 || {
    echo "cuzk down failed:"; cat "$OUT/down.log"
    kill_daemons
  }
}
log_tails() {
  for f in "$RT"/logs/*.log; do
    [ -f "$f" ] || continue
    echo "--- $f: last lines other than TIMELINE, then the last TIMELINE lines"
    grep -v "TIMELINE," "$f" | tail -n 15
    grep "TIMELINE," "$f" | tail -n 4
  done
}
collect() {
  mkdir -p "$OUT/logs"
  cp "$RT"/logs/*.log "$OUT/logs/" 2>/dev/null
}
fail() {
  echo "FAILED: $*" >&2
  log_tails >&2
  # shellcheck disable=SC2034  # the sourcing script's exit status
  STATUS=1
  exit 1
}
remove_run_files() {
  local g
  for g in "$@"; do rm -f "/dev/shm/${LOCK_NAME//\{gpu\}/$g}"; done  # this run's CUDA locks (in /dev/shm)
  [ -n "$SHM_DIR" ] || rm -f "/dev/shm/$RING_NAME"  # and its ring, unless it lives in $W/shm
  if [ "$KEEP" = 1 ]; then echo "kept $W"; else rm -rf "$W"; fi
}

# --- the report ----------------------------------------------------------------------------------------
write_timeline() {
  step timeline "$1" "$CUZK" timeline --warmup-jobs "$TIMELINE_WARMUP_JOBS" "$RT"/logs/*.log || fail "cuzk timeline"
  mv "$OUT/timeline.log" "$OUT/timeline.txt"
  run "$1" "$CUZK" timeline --json --warmup-jobs "$TIMELINE_WARMUP_JOBS" "$RT"/logs/*.log >"$OUT/timeline.json" \
    2>/dev/null || echo "cuzk timeline --json failed"
}

# --- what the daemons use ------------------------------------------------------------------------------
daemon_pids() {
  local f p name
  for f in "$RT"/*.pid; do
    p=$(cat "$f" 2>/dev/null) || continue
    if [ -z "$p" ] || [ ! -r "/proc/$p/cmdline" ]; then continue; fi
    name=$(tr '\0' ' ' <"/proc/$p/cmdline" | grep -o 'cuzk-[a-z]*' | head -1)
    [ -n "$name" ] && echo "${name#cuzk-} $p"
  done
}
# Every SAMPLE_S seconds: time, then per daemon stage:rss_kb:anon_kb, the host's MemAvailable (kB) and the GPU's
# memory in use (MiB) and utilization (%), when nvidia-smi answers.
sampler() {
  local have_smi=0 t now stages gpu_line s p
  timeout 10 nvidia-smi -L >/dev/null 2>&1 && have_smi=1
  echo "seconds,daemons(stage:rss_kb:anon_kb),mem_available_kb,gpu_mem_used_mib,gpu_util_pct"
  t=$(date +%s)
  while :; do
    now=$(( $(date +%s) - t ))
    stages=""
    while read -r s p; do
      stages+="$s:$(awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} END {print r ":" a}' "/proc/$p/status" 2>/dev/null) "
    done < <(daemon_pids)
    gpu_line=","
    [ "$have_smi" = 1 ] && gpu_line=$(timeout 5 nvidia-smi -i "$GPU" --query-gpu=memory.used,utilization.gpu \
      --format=csv,noheader,nounits 2>/dev/null | tr -d ' ')
    echo "$now,${stages% },$(awk '/MemAvailable/ {print $2}' /proc/meminfo),${gpu_line:-,}"
    sleep "$SAMPLE_S"
  done
}
start_sampler() {
  sampler >"$1" 2>/dev/null &
  SAMPLER=$!
}
stop_sampler() {
  [ -n "$SAMPLER" ] || return 0
  kill "$SAMPLER" 2>/dev/null
  wait "$SAMPLER" 2>/dev/null
  SAMPLER=""
}
# Peak memory (VmHWM: the ring's pages that a daemon touched count in it) and CPU seconds, before down.
record_daemon_peaks() {
  local ticks s p
  ticks=$(getconf CLK_TCK)
  while read -r s p; do
    echo "$s pid $p $(awk '/^VmHWM/ {print "vmhwm_kb " $2} /^VmRSS/ {print "vmrss_kb " $2} /^RssAnon/ {print "anon_kb " $2}' \
      "/proc/$p/status" | tr '\n' ' ') cpu_s $(awk -v t="$ticks" '{printf "%.1f", ($14 + $15) / t}' "/proc/$p/stat")"
  done < <(daemon_pids) >"$1"
}
