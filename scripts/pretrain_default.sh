#!/usr/bin/env bash
# The default policy shipped in policies/default.pt (the one `graphopt optimize` starts
# from): every family of the suite and the graphs of ../shared/data (model files are one
# more family of the stream), the default clusters (2, 4, 5, 6 and 8 GPUs), a teacher per task,
# seed 0, SECONDS of wall time (default 7200), checkpointing in CKPT, resumably
# (scripts/pretrain_policy.sh: rerun the same command after an interruption).
# Flags after the three arguments go to `graphopt pretrain` (e.g. --policy layer_units=1).
# Usage: scripts/pretrain_default.sh [SECONDS] [CKPT] [OUT] [PRETRAIN_FLAG...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-7200}"
ckpt="${2:-runs/pretrain-default}"
out="${3:-policies/default.pt}"
shift $(( $# < 3 ? $# : 3 ))
data=../shared/data
[ -d "$data" ] || { echo "error: $data (the real models pre-training reads) is not there" >&2; exit 1; }
models=$(ls "$data"/onnx/*.onnx "$data"/pipedream/*.txt | paste -sd';')
scripts/pretrain_policy.sh "$out" "$seconds" "$ckpt" --imitate-baselines --models "$models" "$@"
