#!/usr/bin/env bash
# The leave-one-family-out policies of the transfer table (README, "Pre-training and
# transfer"): for each family F given (default: all six), `graphopt pretrain --holdout F`
# for SECONDS of wall time (default 1800) into OUT/no-F.pt, checkpointing in
# CKPT/no-F. Resumable: rerun the same command after an interruption and each policy
# continues where its checkpoint stopped (a finished one is skipped, its report says
# "time limit" or "steps"). Then:
#   ./build/graphopt bench --transfer OUT --results docs/results/transfer/placement.json
# Usage: scripts/pretrain_transfer.sh [OUT] [SECONDS] [CKPT] [FAMILY...] [-- PRETRAIN_FLAG...]
# Flags after `--` go to every `graphopt pretrain` (e.g. `-- --imitate-baselines`); a
# resumed run must be given the same ones (pretrain refuses a checkpoint of other options).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/results/transfer}"
seconds="${2:-1800}"
ckpt="${3:-runs/pretrain}"
shift $(( $# < 3 ? $# : 3 ))
families=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do families+=("$1"); shift; done
[ $# -gt 0 ] && shift  # the `--`
flags=("$@")
[ ${#families[@]} -gt 0 ] || families=(rnnlm gnmt transformer_xl inception_v3 amoebanet wavenet)
mkdir -p "$out" "$ckpt"
for f in "${families[@]}"; do
  report="$out/no-$f.pt.json"
  # A policy whose report exists is done (the report is written last).
  if [ -f "$report" ]; then echo "=== no-$f: done ($report)"; continue; fi
  # The time limit is per run: a resumed run gets what the earlier runs left.
  spent=0
  if [ -f "$ckpt/no-$f/pretrain_state.json" ]; then
    spent=$(sed -n 's/.*"seconds": *\([0-9.]*\).*/\1/p' "$ckpt/no-$f/pretrain_state.json" | head -1 | cut -d. -f1)
  fi
  left=$(( seconds - ${spent:-0} ))
  [ "$left" -gt 0 ] || left=1  # spent: one more second writes the policy out
  echo "=== no-$f: $left s left of $seconds ($(date +%T))"
  ./build/graphopt pretrain --holdout "$f" --time-limit "$left" --checkpoint "$ckpt/no-$f" --out "$out/no-$f.pt.tmp" "${flags[@]}"
  if grep -q '"stop_reason": "interrupted"' "$out/no-$f.pt.tmp.json"; then
    echo "=== no-$f interrupted: rerun to resume"; exit 1
  fi
  mv "$out/no-$f.pt.tmp" "$out/no-$f.pt"
  mv "$out/no-$f.pt.tmp.json" "$report"
done
echo "=== done ($(date +%T))"
