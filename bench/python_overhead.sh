#!/usr/bin/env bash
# The Python module's overhead: one simulation of the expert's plan of gnmt:layers=8 on
# 8xV100, called from Python (bench/python_overhead.py) and from C++ (sim_bench's
# BM_SimulateExpertPlan), the medians of 20 calls each, ROUNDS rounds alternating.
# Usage: bench/python_overhead.sh [ROUNDS]   (a quiet machine: nothing else running)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
for r in $(seq "$rounds"); do
  cpp=$(./build/bench/sim_bench --benchmark_filter=BM_SimulateExpertPlan --benchmark_format=csv 2> /dev/null |
        grep '_median' | cut -d, -f3)
  py=$(PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py)
  awk -v r="$r" -v c="$cpp" -v p="$py" 'BEGIN { printf "round %d: C++ %.3f ms, Python %.3f ms, Python / C++ %.4f\n", r, c, p, p / c }'
done
