#!/usr/bin/env python3
"""The best of several snapshots of one pre-training run, by their zero-shot plans on
validation rows (scripts/pretrain_select.sh): each SNAPSHOT=RESULTS pair names a policy
file and the `graphopt bench` results file of its zero-shot column on those rows.

The best snapshot is the one whose zero-shot plan fits on the most rows, then the one
with the lowest geometric mean of step times over the rows where every snapshot with
that many fits fits; ties go to the earlier snapshot (fewer steps from the start).
Writes OUT (JSON, "graphopt-policy-selection" version 1: every snapshot's step times
and score, the chosen one) atomically and prints one line per snapshot.

Usage: scripts/select_policy.py OUT SNAPSHOT=RESULTS [SNAPSHOT=RESULTS ...]
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_files import read_versioned  # noqa: E402

METHOD = "zero-shot"


def zero_shot_times(path):
    """{row: step time in us, or None where the plan does not fit or failed}."""
    data = read_versioned(path, "graphopt-results", (1, 2), "a bench results file")
    times = {}
    for row in data["rows"]:
        m = row.get("methods", {}).get(METHOD)
        if m is None:
            sys.exit(f"error: {path}: row {row.get('row')} has no {METHOD} column")
        ok = not m.get("error") and not m.get("oom") and m.get("step_time_us", 0) > 0
        times[row["row"]] = m["step_time_us"] if ok else None
    return times


def select(snapshots):
    """snapshots: [(name, {row: us or None})] in training order. Returns (index, rows
    scored, [(fits, geomean us)])."""
    rows = sorted(set().union(*(t.keys() for _, t in snapshots)))
    for name, t in snapshots:
        missing = [r for r in rows if r not in t]
        if missing:
            sys.exit(f"error: snapshot {name} has no result for rows {', '.join(missing)}")
    fits = [sum(t[r] is not None for r in rows) for _, t in snapshots]
    most = max(fits)
    leaders = [i for i, f in enumerate(fits) if f == most]
    scored = [r for r in rows if all(snapshots[i][1][r] is not None for i in leaders)]
    scores = []
    for i, (_, t) in enumerate(snapshots):
        ok = [t[r] for r in scored if t[r] is not None]
        gm = math.exp(sum(math.log(x) for x in ok) / len(ok)) if ok and len(ok) == len(scored) else None
        scores.append((fits[i], gm))
    best = min(leaders, key=lambda i: (scores[i][1] if scores[i][1] is not None else math.inf, i))
    return best, scored, scores


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__.strip().splitlines()[-1])
    out = argv[1]
    pairs = [a.split("=", 1) for a in argv[2:]]
    snapshots = [(policy, zero_shot_times(results)) for policy, results in pairs]
    best, scored, scores = select(snapshots)
    for i, ((policy, _), (fits, gm)) in enumerate(zip(pairs, scores)):
        mark = "*" if i == best else " "
        shown = f"{gm / 1000:.1f} ms" if gm is not None else "-"
        print(f"{mark} {policy}: fits {fits}/{len(snapshots[i][1])}, geometric mean {shown} over {len(scored)} rows")
    report = {
        "format": "graphopt-policy-selection",
        "version": 1,
        "method": METHOD,
        "rows_scored": scored,
        "chosen": pairs[best][0],
        "snapshots": [
            {"policy": policy, "results": results, "fits": fits, "geomean_us": gm, "step_time_us": t}
            for (policy, results), (fits, gm), (_, t) in zip(pairs, scores, snapshots)
        ],
    }
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv)
