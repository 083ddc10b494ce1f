#!/usr/bin/env bash
# GO-one, policy alone (no baselines, warm start or polishing), on each row for the number
# of PPO steps its 300-s run of the issue-10 table took (read from the steps column of
# docs/results/ablation/main-300s.md),
# so that a slower or busier machine does not shorten the comparison. One line per row in
# OUT, resumably (bench/rl_bench_rows.sh). EXTRA options go to every run, e.g.
# layer_units=1.
# Usage: bench/policy_alone_steps.sh OUT.md NAME [EXTRA] [ROW,ROW,...]
#   e.g. bench/policy_alone_steps.sh docs/results/ablation/policy-alone-layer-steps.md \
#          policy-alone-layer-steps layer_units=1 gnmt-2,gnmt-4
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OUT.md NAME [EXTRA] [ROWS]" >&2; exit 2; }
out="$1"; name="$2"; extra="${3:-}"
ref=docs/results/ablation/main-300s.md
# The steps column of each row's policy-alone line in the issue-10 table.
declare -A steps
while IFS='|' read -r _ row config _ _ _ _ _ _ _ n _; do
  if [ "${config// /}" = policy-alone ]; then steps[${row// /}]="${n// /}"; fi
done < "$ref"
rows="${4:-rnnlm-2,rnnlm-4,rnnlm-8,gnmt-2,gnmt-4,gnmt-8,transformer_xl-2,transformer_xl-4,transformer_xl-8,inception_v3,amoebanet,wavenet-2,wavenet-4}"
IFS=',' read -ra row_list <<< "$rows"
for row in "${row_list[@]}"; do
  n="${steps[$row]:-}"
  [ -n "$n" ] || { echo "error: no policy-alone line for row '$row' in $ref" >&2; exit 2; }
  bench/rl_bench_rows.sh "$out" 100000 \
    "$name:baselines=0,warm_start=0,polish=0,max_steps=$n${extra:+,$extra}" "$row"
done
