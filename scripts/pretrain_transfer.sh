#!/usr/bin/env bash
# The leave-one-family-out policies of the transfer table (docs/pretrain.md, "Pre-training and
# transfer"): for each family F given (default: all six), `graphopt pretrain --holdout F`
# for SECONDS of wall time (default 1800) into OUT/no-F.pt, checkpointing in
# CKPT/no-F, resumably (scripts/pretrain_policy.sh). Then:
#   ./build/graphopt bench --transfer OUT --results OUT/placement.json
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
for f in "${families[@]}"; do
  scripts/pretrain_policy.sh "$out/no-$f.pt" "$seconds" "$ckpt/no-$f" --holdout "$f" "${flags[@]}"
done
echo "=== done ($(date +%T))"
