# shellcheck shell=bash
# Sourced by the CPU benchmark scripts: step NAME ARGS... runs `$CUZK ARGS...` with its output in $OUT/NAME.log
# and prints its wall time and peak RSS (GNU time). The caller sets CUZK and OUT.
step() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" "$CUZK" "$@" > "$OUT/$name.log" 2>&1
  read -r secs kib < "$OUT/$name.time"
  printf '%-28s %8.2f s  peak %6d MiB\n' "$name" "$secs" $((kib / 1024))
}
