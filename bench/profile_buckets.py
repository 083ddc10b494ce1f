#!/usr/bin/env python3
"""Self time of a `perf record` profile of graphopt, summed into the parts of a
search: the network (LibTorch, BLAS, the policy's own kernels; sampling and
decoding are inlined there), simulating, making plans (fusion, legalizing,
priorities), memory allocation, and the rest.

  perf record -o run.data -F 499 ./build/graphopt optimize ...
  bench/profile_buckets.py run.data [--top 8]
"""
import re
import subprocess
import sys
from collections import defaultdict

BUCKETS = [  # (bucket, pattern on "dso symbol"), first match wins
    ("network", r"libopenblas|libtorch|libc10|libpthreadpool|libgomp|libomp|Attention|NeighborMax|NeighborMean|"
                r"at::|c10::|torch::|GoPolicy|Segment|Sage"),
    ("simulation", r"Simulator|BatchSimulator|Ports|SimScratch"),
    ("making plans", r"Fusion|Fuser|Legalizer|CriticalPath|BuildAdjacency|TopologicalOrder|ToPlan|"
                     r"PlanBuilder|TaskDefaults|RespectColocation|CompletePlan|ActionsToPlan"),
    ("allocation", r"tcmalloc|operator new|operator delete|tc_delete|tc_new|malloc|free|memmove|memset|memcpy|"
                   r"clear_page|page_fault|do_anonymous_page"),
]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 8
    out = subprocess.run(["perf", "report", "-i", sys.argv[1], "--no-children", "--sort", "dso,sym",
                          "--percent-limit", "0", "--stdio"], capture_output=True, text=True, check=True).stdout
    totals = defaultdict(float)
    symbols = defaultdict(list)
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        key = dso + " " + sym
        bucket = next((b for b, pat in BUCKETS if re.search(pat, key)), "other")
        totals[bucket] += pct
        symbols[bucket].append((pct, sym[:90]))
    for bucket in [b for b, _ in BUCKETS] + ["other"]:
        print(f"{bucket:14s} {totals[bucket]:5.1f}%")
        for pct, sym in sorted(symbols[bucket], reverse=True)[:top]:
            print(f"    {pct:5.2f}%  {sym}")


if __name__ == "__main__":
    main()
