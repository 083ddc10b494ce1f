#!/usr/bin/env bash
# The simulator's speed against an older commit's, side by side on this machine:
# builds that commit's sim_bench (without LibTorch) in a worktree under /tmp, then
# runs BM_SimulateRandomPlan (20 repetitions, median) of the old and of ./build's
# sim_bench alternately ROUNDS times, and prints each median's CPU ns per (op + edge)
# and the ratio new / old of their medians. Run it on a quiet machine.
# Usage: bench/sim_bench_compare.sh OLD_COMMIT [ROUNDS]
#   e.g. bench/sim_bench_compare.sh c2b2c1b 4
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 OLD_COMMIT [ROUNDS]" >&2; exit 2; }
old="$(git rev-parse --short "$1")"; rounds="${2:-4}"
new_bin=./build/bench/sim_bench
[ -x "$new_bin" ] || { echo "error: $new_bin not built (ninja -C build sim_bench)" >&2; exit 2; }
dir="/tmp/graphopt-sim-bench-$old"
if [ ! -x "$dir/build/bench/sim_bench" ]; then
  [ -d "$dir" ] || git worktree add --detach "$dir" "$old" >/dev/null
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON >/dev/null
  ninja -C "$dir/build" sim_bench >/dev/null
fi
median_ns() {
  "$1" --benchmark_filter=BM_SimulateRandomPlan 2>/dev/null |
    sed -n 's/.*real_time_median.*cpu_ns_per_op_edge=\([0-9.]*\).*/\1/p'
}
olds=(); news=()
for ((i = 1; i <= rounds; ++i)); do
  o="$(median_ns "$dir/build/bench/sim_bench")"; n="$(median_ns "$new_bin")"
  olds+=("$o"); news+=("$n")
  echo "round $i: $old $o ns, this build $n ns per (op + edge)"
done
python3 - "${olds[*]}" "${news[*]}" <<'EOF'
import statistics, sys
o = statistics.median(map(float, sys.argv[1].split()))
n = statistics.median(map(float, sys.argv[2].split()))
print(f"median: old {o:.1f} ns, new {n:.1f} ns per (op + edge); new / old = {n / o:.3f}")
EOF
