#!/usr/bin/env bash
# Data-parallel pre-training and the distributed bench on this machine (issue: MPI):
# plans simulated per second by `graphopt pretrain` with two and four graphs per step,
# in one process (1 and 2 threads) and on two ranks of one thread each; rows per minute of
# `graphopt bench` (HDP, a fixed 20 steps per row, on the 13 rows) in one process and
# on two ranks; and,
# from the per-task step times of a pre-training report, how step time grows with the
# rank count when every step waits for its slowest graph (load imbalance).
# Usage: bench/mpi_throughput.sh [GRAPHOPT] [STEPS] [REPORT]
#   REPORT: a pre-training report or state with task records (default: the shipped
#   policy's report, policies/default.pt.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-./build/graphopt}"
steps="${2:-120}"
report="${3:-policies/default.pt.json}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
common=(pretrain --steps "$steps" --steps-per-task 20 --max-ops 6000 --seed 0 --time-limit 0)

rate() {  # plans per second and steps from a run's report
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.1f plans/s  (%d plans, %d steps x %d graphs, %.1f s)' % (r['plans']/r['seconds'], r['plans'], r['steps'], r['graphs_per_step'], r['seconds']))" "$1"
}
for g in 2 4; do
  echo "== pretrain, $steps steps of $g graphs (default families and clusters, graphs up to 6000 ops)"
  "$bin" "${common[@]}" --graphs-per-step $g --threads 1 --out "$tmp/p1.pt" > "$tmp/p1.log" 2>&1
  echo "1 process, 1 thread:    $(rate "$tmp/p1.pt.json")"
  "$bin" "${common[@]}" --graphs-per-step $g --threads 2 --out "$tmp/p2.pt" > "$tmp/p2.log" 2>&1
  echo "1 process, 2 threads:   $(rate "$tmp/p2.pt.json")"
  mpirun -np 2 "$bin" "${common[@]}" --graphs-per-step $g --out "$tmp/m2.pt" > "$tmp/m2.log" 2>&1
  echo "2 ranks, 1 thread each: $(rate "$tmp/m2.pt.json")"
  for f in p1 p2 m2; do printf '  %s: parameters %s\n' "$f" "$(sed -n 's/.*, fingerprint //p' "$tmp/$f.log")"; done
done
grep "gradient floats" "$tmp/m2.log" || true

echo "== bench: HDP, 20 steps per row (a fixed amount of work), the 13 rows"
methods=hdp
learned=(--hdp-options max_steps=20 --time-limit 0)
t0=$(date +%s.%N)
"$bin" bench --methods "$methods" "${learned[@]}" --results "$tmp/b1.json" > "$tmp/b1.log" 2>&1
t1=$(date +%s.%N)
mpirun -np 2 "$bin" bench --methods "$methods" "${learned[@]}" --results "$tmp/b2.json" > "$tmp/b2.log" 2>&1
t2=$(date +%s.%N)
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print('1 process: %.1f s (%.1f rows/min); 2 ranks: %.1f s (%.1f rows/min): %.2fx' % (b-a, 13*60/(b-a), c-b, 13*60/(c-b), (b-a)/(c-b)))" "$t0" "$t1" "$t2"

if [ -f "$report" ]; then
  echo "== load imbalance, from the task records of $report"
  python3 - "$report" <<'PY'
import json, random, sys
tasks = [t for t in json.load(open(sys.argv[1]))["tasks"] if t["steps"] > 0]
per_step = [t["seconds"] / t["steps"] for t in tasks]  # a graph's seconds per step (set-up included)
mean = sum(per_step) / len(per_step)
rng = random.Random(0)
print("%d tasks: %.3f s per step on average, %.3f s median, %.3f s largest" % (
    len(per_step), mean, sorted(per_step)[len(per_step) // 2], max(per_step)))
for n in (1, 2, 4, 8, 16, 32, 64):
    # A step of n ranks, one graph each, lasts as long as its slowest graph.
    m = sum(max(rng.choice(per_step) for _ in range(n)) for _ in range(20000)) / 20000
    print("%3d ranks: step %.3f s, efficiency %.0f%% (mean graph time / step time)" % (n, m, 100 * mean / m))
PY
fi
