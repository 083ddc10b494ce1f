#!/usr/bin/env bash
# The leave-one-family-out policies of the transfer table (docs/pretrain.md, "Pre-training and
# transfer"): for each family F given (default: all six), `graphopt pretrain --holdout F`
# for SECONDS of wall time (default 1800) into OUT/no-F.pt, checkpointing in
# CKPT/no-F, resumably (scripts/pretrain_policy.sh). Then:
#   ./build/graphopt bench --transfer OUT --results OUT/placement.json
# Usage: scripts/pretrain_transfer.sh [OUT] [SECONDS] [CKPT] [FAMILY...] [-- PRETRAIN_FLAG...]
# Flags after `--` go to every `graphopt pretrain` (e.g. `-- --imitate-baselines`); a
# resumed run must be given the same ones (pretrain refuses a checkpoint of other options).
# `--init-dir DIR` among them starts each family's policy from DIR/no-F.pt (pretrain's
# `--init` of that family's own leave-one-out policy, e.g. one trained on an older judge).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/results/transfer}"
seconds="${2:-1800}"
ckpt="${3:-runs/pretrain}"
shift $(( $# < 3 ? $# : 3 ))
families=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do families+=("$1"); shift; done
[ $# -gt 0 ] && shift  # the `--`
flags=()
init_dir=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--init-dir" ]; then
    [ $# -ge 2 ] || { echo "$0: --init-dir needs a folder" >&2; exit 2; }
    init_dir="$2"; shift 2
  else
    flags+=("$1"); shift
  fi
done
[ ${#families[@]} -gt 0 ] || families=(rnnlm gnmt transformer_xl inception_v3 amoebanet wavenet)
# Every family's start is checked before the first one trains.
if [ -n "$init_dir" ]; then
  for f in "${families[@]}"; do
    [ -f "$init_dir/no-$f.pt" ] || { echo "$0: no policy $init_dir/no-$f.pt to start $f from" >&2; exit 2; }
  done
fi
for f in "${families[@]}"; do
  init=()
  [ -z "$init_dir" ] || init=(--init "$init_dir/no-$f.pt")
  scripts/pretrain_policy.sh "$out/no-$f.pt" "$seconds" "$ckpt/no-$f" --holdout "$f" \
    ${flags[@]+"${flags[@]}"} ${init[@]+"${init[@]}"}
done
echo "=== done ($(date +%T))"
