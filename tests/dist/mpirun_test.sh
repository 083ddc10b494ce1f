#!/usr/bin/env bash
# `mpirun -np 2 graphopt bench` gives the same table as one process, and a rank killed
# from outside ends the job within seconds (no hang), with mpirun naming it.
# Usage: mpirun_test.sh GRAPHOPT
set -euo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; for f in "$tmp"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }

rows=rnnlm-2,wavenet-2,gnmt-2
"$bin" bench --rows "$rows" --methods single,expert,heft --results "$tmp/one.json" > "$tmp/one.log" 2>&1 ||
  fail "one process"
mpirun -np 2 --oversubscribe "$bin" bench --rows "$rows" --methods single,expert,heft --results "$tmp/two.json" \
  > "$tmp/two.log" 2>&1 || fail "two ranks"
grep -q "2 ranks: 2 rows here, 1 on the others" "$tmp/two.log" || fail "rank 0 did not say how the rows were shared"
table() { sed -n '/^| graph/,/^| plans/p' "$1"; }
[ -n "$(table "$tmp/one.md")" ] || fail "no table"
diff <(table "$tmp/one.md") <(table "$tmp/two.md") > "$tmp/diff.log" || fail "the tables differ"

# A killed rank: the job ends within seconds, not at the learned method's 60 s.
start=$(date +%s)
mpirun -np 2 --oversubscribe "$bin" bench --rows rnnlm-2,wavenet-2 --methods hdp --time-limit 60 \
  --results "$tmp/killed.json" > "$tmp/killed.log" 2>&1 &
job=$!
victim=""
for _ in $(seq 1 100); do
  for pid in $(pgrep -f "$tmp/killed.json" || true); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$pid; fi
  done
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] || fail "rank 1 never started"
sleep 2
kill -9 "$victim"
code=0
wait "$job" || code=$?
elapsed=$(( $(date +%s) - start ))
[ "$code" -ne 0 ] || fail "the job ended well though rank 1 was killed"
[ "$elapsed" -lt 30 ] || fail "the job took ${elapsed} s to end after rank 1 was killed"
grep -qi "signal 9\|killed" "$tmp/killed.log" || fail "nothing names the killed rank"
echo "ok: same table with 2 ranks; killed rank ended the job in ${elapsed} s (exit $code)"
