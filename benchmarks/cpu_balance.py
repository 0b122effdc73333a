#!/usr/bin/env python3
"""Whether this machine's cores run at the same speed right now.

Spins one busy loop per core for a second, in separate processes, and
prints the slowest loop's count over the fastest's (1.00: even). On the
2-vCPU VM the benchmarks were recorded on, "slow phases" lasting minutes
show up as one core at ~0.6, and every stage that splits work over two
lanes moves with it; run this before and after a two-lane benchmark and
compare only runs made at ~1.0.

Usage: benchmarks/cpu_balance.py [--cores N] [--seconds S]
"""
import argparse
import multiprocessing as mp
import os
import time


def spin(seconds, out):
    end = time.monotonic() + seconds
    count = 0
    while time.monotonic() < end:
        count += 1
    out.put(count)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    if args.cores < 1 or args.seconds <= 0:
        parser.error("--cores must be at least 1 and --seconds positive")
    out = mp.Queue()
    workers = [mp.Process(target=spin, args=(args.seconds, out)) for _ in range(args.cores)]
    for w in workers:
        w.start()
    counts = [out.get() for _ in workers]
    for w in workers:
        w.join()
    print(f"cpu balance {min(counts) / max(counts):.2f} over {args.cores} cores "
          f"(loops per core: {', '.join(str(c) for c in sorted(counts))})")


if __name__ == "__main__":
    main()
