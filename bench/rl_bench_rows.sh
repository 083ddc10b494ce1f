#!/usr/bin/env bash
# rl_bench one (row, configuration) at a time into one Markdown table, resumably: a pair
# whose line is already in OUT is skipped, so rerunning the same command after an
# interruption (Ctrl-C, the end of a session) goes on where it stopped. Each pair's line
# is appended only once its run has finished.
# Usage: bench/rl_bench_rows.sh OUT.md SECONDS "NAME:OPTIONS;..." [ROW,ROW,...]
#   e.g. bench/rl_bench_rows.sh docs/results/ablation/a.md 300 "full:;search-only:train=0"
# RL_BENCH picks the program (default ./build/bench/rl_bench).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 OUT.md SECONDS \"NAME:OPTIONS;...\" [ROWS]" >&2; exit 2; }
out="$1"; seconds="$2"; configs="$3"
rows="${4:-rnnlm-2,rnnlm-4,rnnlm-8,gnmt-2,gnmt-4,gnmt-8,transformer_xl-2,transformer_xl-4,transformer_xl-8,inception_v3,amoebanet,wavenet-2,wavenet-4}"
bin="${RL_BENCH:-./build/bench/rl_bench}"
[ -x "$bin" ] || { echo "error: $bin is not built (cmake --build build)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
IFS=',' read -ra row_list <<< "$rows"
IFS=';' read -ra config_list <<< "$configs"
for row in "${row_list[@]}"; do
  for config in "${config_list[@]}"; do
    name="${config%%:*}"
    if [ -f "$out" ] && grep -q "^| $row | $name |" "$out"; then continue; fi
    echo "=== $row $name ($seconds s, $(date +%T))"
    "$bin" --rows "$row" --time-limit "$seconds" --configs "$config" > "$tmp"
    if [ ! -s "$out" ]; then grep '^|' "$tmp" | head -2 > "$out"; fi
    grep "^| $row | $name |" "$tmp" >> "$out"
  done
done
echo "=== $out: every row done"
