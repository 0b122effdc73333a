#!/bin/bash
# The 10x cold start with the operator process's CPU seconds at its end:
# runs operator_load --scale 10 --edits 0 into OUT and, when the
# "cold start" line appears, appends utime+stime from /proc/PID/stat
# (the bench's own cluster generation before the controller starts is
# included; simcluster, a separate process, is not).
# Usage: benchmarks/cold_cpu.sh build/bin/operator_load OUT
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 OPERATOR_LOAD_BINARY OUT" >&2
  exit 2
fi
BIN=$1 OUT=$2
"$BIN" --scale 10 --edits 0 > "$OUT" 2>&1 &
PID=$!
TICK=$(getconf CLK_TCK)
for _ in $(seq 1 6000); do
  if grep -q "^cold start" "$OUT" 2>/dev/null; then
    read -r -a f < "/proc/$PID/stat"
    cpu="cpu at the cold start line: $(( (f[13] + f[14]) * 1000 / TICK )) ms (user $(( f[13] * 1000 / TICK )), sys $(( f[14] * 1000 / TICK )))"
    break
  fi
  sleep 0.05
done
wait "$PID"
echo "${cpu:-cpu: no cold start line}" >> "$OUT"
