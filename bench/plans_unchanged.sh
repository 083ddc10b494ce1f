#!/bin/bash
# The plans a refactoring must not change, from one binary:
#   bench/plans_unchanged.sh BINARY OUTDIR
# run once with the binary of the commit before and once with the one after, then
#   python3 bench/plans_unchanged.py BEFORE_DIR AFTER_DIR
# (seeded, step-budgeted runs: the same code gives the same plans).
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
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
# Head-only fine-tuning (frozen trunk, unit bias): the bench's method and optimize's.
"$B" bench --methods finetune --transfer docs/results/transfer-gnmt2048 --rows rnnlm-2,gnmt-2 --finetune-steps 4 \
  --results "$O/finetune.json" > "$O/finetune.log" 2>&1
"$B" optimize gnmt:layers=2 --cluster 2xP100 --pretrained docs/results/transfer-gnmt2048/no-gnmt.pt \
  --finetune-steps 4 --threads 1 --out "$O/ft-optimize.json" > "$O/ft-optimize.log" 2>&1
# A checkpointed search: 3 steps, then resumed to 5.
rm -rf "$O/ck"
"$B" optimize rnnlm:layers=2 --cluster 2xP100 --steps 3 --time-limit 0 --threads 1 --checkpoint "$O/ck" \
  --out "$O/ck1.json" > "$O/ck1.log" 2>&1
"$B" optimize rnnlm:layers=2 --cluster 2xP100 --steps 5 --time-limit 0 --threads 1 --checkpoint "$O/ck" \
  --out "$O/ck2.json" > "$O/ck2.log" 2>&1
# The earlier learned placers, from scratch, to a step budget.
"$B" optimize rnnlm:layers=2 --cluster 2xP100 --method colocrl --steps 4 --time-limit 0 --threads 1 \
  --out "$O/colocrl.json" > "$O/colocrl.log" 2>&1
"$B" optimize rnnlm:layers=2 --cluster 2xP100 --method hdp --steps 4 --time-limit 0 --threads 1 \
  --out "$O/hdp.json" > "$O/hdp.log" 2>&1
