#!/bin/bash
# The engine's scaling chart: simulate, a local-search move, zero-shot and a PPO step
# (bench/scaling_bench.cc) on Transformer-XL training graphs of 1k to 204k ops on
# 8xV100, each measurement in a process of its own, then the table, the fitted lines
# and the chart (bench/scaling_chart.py):
#   bench/scaling.sh OUTDIR [BUILD_DIR]
# writes OUTDIR/scaling.jsonl (one line per measurement), scaling.md and scaling.svg.
set -euo pipefail
OUT=$(realpath -m "$1"); BUILD=$(realpath "${2:-build}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p "$OUT"
export OMP_WAIT_POLICY=passive
: > "$OUT/scaling.jsonl.part"
for spec in layers=1,segments=3 layers=1,segments=8 layers=2,segments=10 layers=2 layers=4 layers=11 layers=27; do
  for measure in simulate local-search zero-shot ppo-step; do
    echo "transformer_xl:$spec $measure" >&2
    "$BUILD/bench/scaling_bench" --model "transformer_xl:$spec" --cluster 8xV100 --measure "$measure" \
      --repeats 5 --policy "$ROOT/policies/default.pt" >> "$OUT/scaling.jsonl.part"
  done
done
mv "$OUT/scaling.jsonl.part" "$OUT/scaling.jsonl"
python3 bench/scaling_chart.py "$OUT/scaling.jsonl" "$OUT/scaling.md" "$OUT/scaling.svg"
