#!/bin/bash
# The figures the planner registry must not change, from one binary:
#   docs/results/planner-registry/verify.sh BINARY OUTDIR
# run once with the binary of the commit before and once with the one after, then
#   python3 docs/results/planner-registry/compare.py BEFORE_DIR AFTER_DIR
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
export OMP_WAIT_POLICY=passive GRAPHOPT_POLICY=none
# Every baseline of the suite, plain and with greedy fusion, as produced: 13 rows x 11.
"$B" bench --methods single,tf-default,expert,metis,scotch,heft --fusion --decisions as-produced \
  --results "$O/baselines.json" > "$O/baselines.log" 2>&1
# The zero-shot plans of the transfer table (leave-one-out policies): 13 rows.
"$B" bench --methods zero-shot --transfer docs/results/transfer-gnmt2048 --results "$O/transfer.json" \
  > "$O/transfer.log" 2>&1
# The first command's search to a step budget (a time limit is not deterministic).
GRAPHOPT_POLICY="$ROOT/policies/default.pt" "$B" optimize --steps 3 --time-limit 0 --out "$O/first.json" \
  > "$O/first.log" 2>&1
