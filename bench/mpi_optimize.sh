#!/usr/bin/env bash
# `graphopt optimize` over MPI ranks on this machine (issue: MPI): MODEL (default the
# README's first command's, GNMT-4 on 4xV100) for SECONDS, everything on and the policy
# alone, in one process (both cores) and on two ranks (one core each): PPO steps, plans
# simulated per second, and the plan found.
# Usage: bench/mpi_optimize.sh [GRAPHOPT] [SECONDS] [MODEL] [CLUSTER]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-./build/graphopt}"
seconds="${2:-120}"
model="${3:-gnmt:layers=4}"
cluster="${4:-4xV100}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive

# "N steps, P plans in S s: R plans/s; plan T" from a run's closing lines.
summary() {
  local line plan
  line=$(sed -n 's/.*(\([0-9]*\) plans simulated in \([0-9]*\) steps, \([0-9.]*\) s in all).*/\1 \2 \3/p' "$1")
  plan=$(sed -n 's/^go (found) *\([0-9.]* s\).*/\1/p' "$1")
  echo "$line" | awk -v plan="$plan" '{printf "%d steps, %d plans in %.1f s: %.1f plans/s, %.2f steps/s; plan %s\n", $2, $1, $3, $1/$3, $2/$3, plan}'
}
for config in "everything on:" "policy alone:baselines=0,warm_start=0,polish=0"; do
  name="${config%%:*}"
  policy="${config#*:}"
  flags=(optimize "$model" --cluster "$cluster" --time-limit "$seconds" --seed 0)
  [ -z "$policy" ] || flags+=(--policy "$policy")
  echo "== $model on $cluster, $name, $seconds s"
  "$bin" "${flags[@]}" > "$tmp/one.log" 2>&1
  echo "1 process, 2 threads:   $(summary "$tmp/one.log")"
  mpirun -np 2 "$bin" "${flags[@]}" > "$tmp/two.log" 2>&1
  echo "2 ranks, 1 thread each: $(summary "$tmp/two.log")"
done
