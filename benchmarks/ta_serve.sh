#!/bin/bash
# What serving the per-collector bodies costs target-allocator: 100 static
# collectors, 100k static targets (10,000 groups of 10, consistent-hashing);
# one curl fetches every collector's body three times (gzip, gzip again,
# identity) and the server's CPU time is read from /proc/PID/stat.
# usage: benchmarks/ta_serve.sh BINARY [BINARY...]   (binaries run in turn)
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir/ta.yaml" <<'PY'
import sys
cols = ", ".join(f"c-{i}" for i in range(100))
out = [f"collectors: [{cols}]", "allocation_strategy: consistent-hashing", "config:", "  scrape_configs:",
       "    - job_name: static", "      static_configs:"]
for g in range(10000):
    ips = ", ".join(f"10.{(g*10+k)//65536%256}.{(g*10+k)//256%256}.{(g*10+k)%256}:9100" for k in range(10))
    out.append(f"        - targets: [{ips}]")
    out.append(f"          labels: {{namespace: team-{g%50}, service: svc-{g}, pod_template_hash: x7f9k{g%7}, "
               "cluster: prod-eu-west-1, team: observability-platform}")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
port=18190
for bin in "$@"; do
  port=$((port + 1))
  "$bin" --config-file "$dir/ta.yaml" --listen "127.0.0.1:$port" > "$dir/ta.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
    sleep 0.1
  done
  urls=()
  for c in $(seq 0 99); do urls+=("http://127.0.0.1:$port/jobs/static/targets?collector_id=c-$c" -o /dev/null); done
  cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
  echo "== $bin"
  for pass in gzip-1 gzip-2 identity; do
    header=()
    [ "$pass" != identity ] && header=(-H 'Accept-Encoding: gzip')
    c0=$(cpu)
    bytes=$(curl -s "${header[@]}" "${urls[@]}" -w '%{size_download}\n' | awk '{s += $1} END {print s}')
    c1=$(cpu)
    echo "$pass: server CPU $(( (c1 - c0) * 1000 / $(getconf CLK_TCK) )) ms, bytes $bytes"
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
