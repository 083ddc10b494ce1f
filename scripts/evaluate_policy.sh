#!/usr/bin/env bash
# A pre-trained policy's zero-shot tables (docs/policy-changelog.md), resumably
# (scripts/bench_rows.sh): its plans with every decision its own, against every
# standard baseline given greedy legal fusion and critical-path priorities
# (`bench --decisions all`), on
#   OUT/data.*    the graphs of ../shared/data, each on 4xV100;
#   OUT/unseen.*  the 13 suite rows on 1xV100+2xP100, a machine no pre-training draws;
#   OUT/suite.*   the 13 suite rows on their own clusters.
# With --finetune, also OUT/finetune.*: the finetune method (its default 50 steps) on
# the 13 suite rows, placement decisions, beside the expert.
# Usage: scripts/evaluate_policy.sh POLICY OUT [--finetune]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 POLICY OUT [--finetune]" >&2; exit 2; }
policy="$1"; out="$2"; finetune="${3:-}"
[ -f "$policy" ] || { echo "error: $policy: no such policy file" >&2; exit 2; }
data=../shared/data
[ -d "$data" ] || { echo "error: $data (the real models) is not there" >&2; exit 1; }
mkdir -p "$out"
methods=single,tf-default,expert,metis,scotch,heft,zero-shot
rows="rnnlm-2 rnnlm-4 rnnlm-8 gnmt-2 gnmt-4 gnmt-8 transformer_xl-2 transformer_xl-4 transformer_xl-8
      inception_v3 amoebanet wavenet-2 wavenet-4"
scripts/bench_rows.sh "$out/data.json" "$(ls "$data"/onnx/*.onnx "$data"/pipedream/*.txt)" \
  --methods "$methods" --decisions all --pretrained "$policy"
scripts/bench_rows.sh "$out/unseen.json" "$rows" --cluster 1xV100+2xP100 \
  --methods "$methods" --decisions all --pretrained "$policy"
scripts/bench_rows.sh "$out/suite.json" "$rows" --methods "$methods" --decisions all --pretrained "$policy"
if [ "$finetune" = --finetune ]; then
  scripts/bench_rows.sh "$out/finetune.json" "$rows" --methods expert,finetune --pretrained "$policy"
fi
