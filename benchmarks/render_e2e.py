#!/usr/bin/env python3
"""`agent-operator render -f` end to end, as a user runs it in CI (issue 18).

Writes render_bench's cluster (--scale, default 1) as one YAML and one JSON
file, then runs each given binary on each file, interleaved, --runs times.
Prints wall, user and system time (median, min, max) and the peak RSS of
each (binary, format), and fails if two binaries' outputs differ.

  benchmarks/render_e2e.py --bin build/bin/agent-operator [--bin other] \
      [--render-bench build/bin/render_bench] [--runs 10] [--scale 1]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(binary, path, out_path):
    """Wall seconds, user, sys and peak RSS (KiB) of one render; its stdout goes to out_path."""
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen([binary, "render", "-f", path], stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{binary} render -f {path}: exit {proc.returncode}")
    with open(out_path, "rb") as out:
        return wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, out.read()


def summary(values):
    return f"median {statistics.median(values):.3f} min {min(values):.3f} max {max(values):.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", action="append", required=True, help="agent-operator binary (repeat to compare)")
    ap.add_argument("--render-bench", default="build/bin/render_bench")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--scale", default="1")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        yaml_path, json_path = os.path.join(tmp, "cluster.yaml"), os.path.join(tmp, "cluster.json")
        subprocess.run([args.render_bench, "--scale", args.scale, "--write-yaml", yaml_path, "--write-json",
                        json_path], check=True, stdout=subprocess.DEVNULL)
        results = {}
        outputs = {}
        for _ in range(args.runs):
            for binary in args.bin:
                for fmt, path in (("yaml", yaml_path), ("json", json_path)):
                    wall, user, sys_s, rss, out = run_once(binary, path, os.path.join(tmp, "out"))
                    results.setdefault((binary, fmt), []).append((wall, user, sys_s, rss))
                    outputs.setdefault(fmt, {}).setdefault(binary, out)
        for fmt, by_bin in outputs.items():
            if len(set(by_bin.values())) > 1:
                sys.exit(f"outputs differ between binaries for {fmt}")
        print(f"input: render_bench --scale {args.scale} ({os.path.getsize(yaml_path)} bytes YAML, "
              f"{os.path.getsize(json_path)} bytes JSON); {args.runs} runs each, interleaved; load average "
              f"{os.getloadavg()[0]:.2f}")
        for (binary, fmt), rows in results.items():
            print(f"{binary} {fmt}: wall {summary([r[0] for r in rows])} s; user {summary([r[1] for r in rows])} s; "
                  f"sys {summary([r[2] for r in rows])} s; peak RSS {summary([r[3] / 1024 for r in rows])} MiB")
        if len(args.bin) > 1:
            print("outputs byte-identical across binaries")


if __name__ == "__main__":
    main()
