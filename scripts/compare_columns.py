#!/usr/bin/env python3
"""One method's column from several bench results files, side by side (an ablation).

Each COLUMN is LABEL=RESULTS.json (the label may hold "="): the bench results file of
one variant (e.g. the full recipe, then each ingredient switched off alone). Per row of
the first file (then the rows only later files have): the BASELINE's step time (expert
by default, from the first file that has it) and each variant's step time of METHOD (go
by default) with its speedup over the baseline. The last lines give each column's
geometric mean of speedups over the rows where both the baseline and that variant fit,
and how many of those rows are below FLOOR (0.95 by default) times the baseline.

Usage: scripts/compare_columns.py LABEL=RESULTS.json [LABEL=RESULTS.json ...]
           [--method go] [--baseline expert] [--floor 0.95]
Prints a Markdown table.
"""
import argparse
import math
import sys

from result_files import read_versioned


def load(path):
    """{row: (label, {method: step_us or None when it does not fit})}, rows in file order."""
    data = read_versioned(path, "graphopt-results", (1, 2), "a bench results file")
    rows = {}
    for r in data.get("rows", []):
        try:
            methods = {}
            for name, m in r["methods"].items():
                fits = not m.get("oom") and not m.get("error")
                methods[name] = float(m["step_time_us"]) if fits else None
            rows[r["row"]] = (r.get("label", r["row"]), methods)
        except (KeyError, TypeError, ValueError, AttributeError):
            sys.exit(f"error: {path}: a row without row, methods or a method's step_time_us")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("columns", nargs="+", metavar="LABEL=RESULTS.json")
    parser.add_argument("--method", default="go", help="the method whose column each file gives (default go)")
    parser.add_argument("--baseline", default="expert", help="speedups are over this method (default expert)")
    parser.add_argument("--floor", type=float, default=0.95, help="count rows below this speedup (default 0.95)")
    args = parser.parse_args()
    columns = []
    for spec in args.columns:
        label, sep, path = spec.rpartition("=")
        if not sep or not label or not path:
            sys.exit(f"error: a column is LABEL=RESULTS.json, not {spec!r}")
        columns.append((label, load(path)))
    order = []
    for _, rows in columns:
        order += [row for row in rows if row not in order]

    print(f"| row | {args.baseline} | " + " | ".join(label for label, _ in columns) + " |")
    print("|---|---:|" + "---:|" * len(columns))
    logs = [[] for _ in columns]
    below = [0] * len(columns)
    for row in order:
        label, base = row, None
        for _, rows in columns:
            if row in rows:
                label = rows[row][0]
                if base is None:
                    base = rows[row][1].get(args.baseline)
        cells = []
        for i, (_, rows) in enumerate(columns):
            if row not in rows or args.method not in rows[row][1]:
                cells.append("not run")
                continue
            t = rows[row][1][args.method]
            if t is None:
                cells.append("OOM")
                continue
            cell = f"{t / 1e3:.1f}"
            if base is not None:
                speedup = base / t
                logs[i].append(math.log(speedup))
                below[i] += speedup < args.floor
                cell += f" ({speedup:.2f}x)"
            cells.append(cell)
        base_cell = f"{base / 1e3:.1f}" if base is not None else "OOM or not run"
        print(f"| {label} | {base_cell} | " + " | ".join(cells) + " |")
    means = [f"{math.exp(sum(l) / len(l)):.3f}x ({len(l)} rows)" if l else "no row" for l in logs]
    print(f"| geometric mean over {args.baseline} | | " + " | ".join(means) + " |")
    print(f"| rows below {args.floor:g}x | | " + " | ".join(str(b) for b in below) + " |")


if __name__ == "__main__":
    main()
