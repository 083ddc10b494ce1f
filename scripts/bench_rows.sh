#!/usr/bin/env bash
# Long suite measurements, resumably: `graphopt bench` merges each row's results into
# RESULTS when the row ends, and this script passes only the rows RESULTS does not have
# yet, so rerunning the same command after an interruption (Ctrl-C, the end of a
# session) goes on with the rows left. Rows: suite row names (`graphopt bench --list`),
# or model files (a path with a `/`: each is a row of its own, named by its file, as
# `bench --models` makes them).
# GRAPHOPT_LAUNCH, if set, goes before the command: "mpirun -np 2" spreads the rows over
# two ranks (docs/mpi.md, "Several processes"). GRAPHOPT_BIN picks the program (default
# ./build/graphopt).
# Usage: scripts/bench_rows.sh RESULTS "ROW ROW ..." [BENCH_FLAG...]
# e.g. the multi-task table, everything on, 60 s per learned configuration:
#   scripts/bench_rows.sh docs/results/tasks/tasks-60s.json "rnnlm-2 gnmt-4" --tasks --time-limit 60
#   scripts/bench_rows.sh docs/results/tasks/data-60s.json "$(ls ../shared/data/*/*.* | grep -v NOTICE)" --tasks --time-limit 60
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 RESULTS \"ROW ROW ...\" [BENCH_FLAG...]" >&2; exit 2; }
results="$1"; rows="$2"; shift 2
has_row() {
  [ -f "$results" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(r['row']==sys.argv[2] for r in d['rows']) else 1)" "$results" "$1"
}
left=(); models=()
for row in $rows; do
  if has_row "$(basename "$row")"; then echo "=== $row: in $results already"; continue; fi
  if [[ "$row" == */* ]]; then models+=("$row"); else left+=("$row"); fi
done
[ ${#left[@]} -eq 0 ] || [ ${#models[@]} -eq 0 ] || { echo "error: give suite rows or model files, not both" >&2; exit 2; }
if [ ${#left[@]} -gt 0 ]; then
  echo "=== ${left[*]} ($(date +%T))"
  ${GRAPHOPT_LAUNCH:-} "${GRAPHOPT_BIN:-./build/graphopt}" bench --rows "$(IFS=,; echo "${left[*]}")" --results "$results" "$@"
elif [ ${#models[@]} -gt 0 ]; then
  echo "=== ${models[*]} ($(date +%T))"
  ${GRAPHOPT_LAUNCH:-} "${GRAPHOPT_BIN:-./build/graphopt}" bench --models "$(IFS=';'; echo "${models[*]}")" --results "$results" "$@"
fi
echo "=== done ($(date +%T))"
