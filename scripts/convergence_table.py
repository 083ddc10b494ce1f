#!/usr/bin/env python3
"""The GO paper's convergence comparison, from a bench run's convergence file.

Per row: the final step time of the SLOW method (HDP by default) at the end of its run,
the wall time it took to first reach it, the wall time the FAST method (go by default)
took to first reach a plan at least as fast, and their ratio. The geometric mean of the
ratios runs over the rows where FAST reached it. Rows where either method found no plan
that fits are listed as such.

Usage: scripts/convergence_table.py RESULTS.convergence.json [--fast go] [--slow hdp]
Prints a Markdown table.
"""
import argparse
import math
import sys

from result_files import read_versioned


def load(path):
    data = read_versioned(path, "graphopt-convergence-suite", (1,), "a convergence file")
    runs = {}
    for run in data.get("runs", []):
        try:
            points = [(float(p[0]), float(p[2])) for p in run["points"]]
            runs[(run["row"], run["method"])] = (run.get("label", run["row"]), points)
        except (KeyError, IndexError, TypeError, ValueError):
            sys.exit(f"error: {path}: a run without row, method or points [seconds, plans, step_us]")
    return runs


def first_at_most(points, target_us):
    """Wall time of the first point whose best step time is at most target_us (None if never)."""
    for seconds, best_us in points:
        if best_us <= target_us * (1 + 1e-12):
            return seconds
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("convergence")
    parser.add_argument("--fast", default="go", help="the method timed to reach SLOW's final plan (default go)")
    parser.add_argument("--slow", default="hdp", help="the method whose final step time is the target (default hdp)")
    args = parser.parse_args()
    runs = load(args.convergence)
    rows = []
    for (row, method) in runs:
        if method == args.slow and row not in rows:
            rows.append(row)
    if not rows:
        sys.exit(f"error: {args.convergence}: no run of {args.slow}")
    print(f"| graph | {args.slow} final, ms | {args.slow} reached it after, s | {args.fast} reached it after, s | "
          f"{args.slow} time / {args.fast} time |")
    print("|---|---:|---:|---:|---:|")
    logs = []
    for row in rows:
        label, slow = runs[(row, args.slow)]
        if not slow:
            print(f"| {label} | no plan fits | | | |")
            continue
        target_seconds, target_us = slow[-1]
        slow_seconds = first_at_most(slow, target_us)
        fast = runs.get((row, args.fast), (label, None))[1]
        if fast is None:
            print(f"| {label} | {target_us / 1e3:.1f} | {slow_seconds:.1f} | no {args.fast} run | |")
            continue
        fast_seconds = first_at_most(fast, target_us)
        if fast_seconds is None:
            best = f"never (best {min(p[1] for p in fast) / 1e3:.1f} ms)" if fast else "never (no plan fits)"
            print(f"| {label} | {target_us / 1e3:.1f} | {slow_seconds:.1f} | {best} | |")
            continue
        ratio = slow_seconds / max(fast_seconds, 1e-3)
        logs.append(math.log(ratio))
        print(f"| {label} | {target_us / 1e3:.1f} | {slow_seconds:.1f} | {fast_seconds:.2f} | {ratio:.1f}x |")
    if logs:
        print(f"| geometric mean ({len(logs)} of {len(rows)} rows) | | | | **{math.exp(sum(logs) / len(logs)):.1f}x** |")
    else:
        print(f"| geometric mean | | | | {args.fast} reached {args.slow}'s final plan on no row |")


if __name__ == "__main__":
    main()
