#!/usr/bin/env python3
"""The target allocator end to end, as a user starts it: a config with N
static targets over C static collectors; measures the wall time from exec
to "listening on" (config parsed, targets allocated and published, socket
bound), then one GET of a collector's share, and the peak RSS. Usage:
  benchmarks/ta_startup.py BINARY [--targets N] [--collectors C] [--reps R] [--journal]
Prints best and median of R runs."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def config_text(targets, collectors):
    lines = ["allocation_strategy: consistent-hashing",
             "collectors: [" + ", ".join(f"c{i}" for i in range(collectors)) + "]",
             "config:", "  scrape_configs:", "    - job_name: node", "      static_configs:"]
    per_group = 100
    for g in range(0, targets, per_group):
        addrs = ", ".join(f"'10.{(t >> 16) & 255}.{(t >> 8) & 255}.{t & 255}:9100'"
                          for t in range(g, min(targets, g + per_group)))
        lines.append(f"        - targets: [{addrs}]")
        lines.append(f"          labels: {{zone: z{g % 7}}}")
    return "\n".join(lines) + "\n"


def one_run(binary, config, journal):
    args = [binary, "--config-file", config, "--listen-addr", "127.0.0.1:0"]
    if journal:
        args += ["--journal", journal]
    start = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    listening = time.perf_counter() - start
    port = int(line.rsplit(":", 1)[1])
    t = time.perf_counter()
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/jobs/node/targets?collector_id=c0").read()
    get_ms = (time.perf_counter() - t) * 1000
    with open(f"/proc/{p.pid}/status") as f:
        rss = int([l for l in f if l.startswith("VmHWM:")][0].split()[1])
    p.terminate()
    p.wait()
    return listening * 1000, get_ms, rss / 1024, len(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--targets", type=int, default=100000)
    ap.add_argument("--collectors", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--journal", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        config = os.path.join(d, "ta.yaml")
        with open(config, "w") as f:
            f.write(config_text(a.targets, a.collectors))
        journal = os.path.join(d, "journal") if a.journal else None
        runs = [one_run(a.binary, config, journal) for _ in range(a.reps)]
    start = [r[0] for r in runs]
    print(f"{a.targets} targets, {a.collectors} collectors, journal={'on' if a.journal else 'off'}: "
          f"to listening best {min(start):.0f} ms median {statistics.median(start):.0f} ms; "
          f"first GET median {statistics.median(r[1] for r in runs):.1f} ms; "
          f"peak RSS median {statistics.median(r[2] for r in runs):.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
