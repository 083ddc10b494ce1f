#!/usr/bin/env bash
# First look at the simulator against real executions on this machine's cores, until
# `bench --fidelity` exists: for each model, the baselines' plans on `local`, each
# executed (median of STEPS steps) and simulated with the roofline and with a profile.
# Prints one line per plan: executed ms, simulated ms (roofline, profile) and errors.
# Usage: bench/execute_vs_simulate.sh [STEPS] MODEL...
set -euo pipefail
cd "$(dirname "$0")/.."
steps=5
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then steps=$1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 [STEPS] MODEL..." >&2; exit 2; }
bin=./build/graphopt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ms() { sed -n 's/^step time *\([0-9.]*\) \(ms\|s\|us\).*/\1 \2/p' | head -1 | awk '{v=$1; if ($2=="s") v*=1000; if ($2=="us") v/=1000; print v}'; }
for model in "$@"; do
  echo "== $model"
  $bin profile "$model" --cluster local --out "$tmp/profile.json" 2>/dev/null | grep measured
  printf "%-12s %10s %10s %10s %8s %8s\n" plan executed roofline profile "err(rf)" "err(pr)"
  for method in single tf-default expert metis scotch heft; do
    $bin baseline "$model" --cluster local --method "$method" --out "$tmp/$method.json" > /dev/null 2>&1 || { echo "$method: no plan"; continue; }
    real=$($bin execute "$model" --plan "$tmp/$method.json" --steps "$steps" 2>/dev/null | ms)
    roof=$($bin simulate "$model" --cluster local --plan "$tmp/$method.json" | ms)
    prof=$($bin simulate "$model" --cluster local --profile "$tmp/profile.json" --plan "$tmp/$method.json" | ms)
    awk -v m="$method" -v e="$real" -v r="$roof" -v p="$prof" 'BEGIN {
      printf "%-12s %10.2f %10.2f %10.2f %+7.1f%% %+7.1f%%\n", m, e, r, p, 100*(r-e)/e, 100*(p-e)/e }'
  done
done
