#!/usr/bin/env bash
# `mpirun -np 2 graphopt bench` gives the same table as one process, a command of one
# process (baseline) is refused, and a rank killed from outside ends the job within
# seconds (no hang), with mpirun naming it.
# Usage: mpirun_test.sh GRAPHOPT
set -euo pipefail
bin="$1"
source "$(dirname "$0")/mpirun_lib.sh"

rows=rnnlm-2,wavenet-2,gnmt-2
"$bin" bench --rows "$rows" --methods single,expert,heft --results "$tmp/one.json" > "$tmp/one.log" 2>&1 ||
  fail "one process"
mpirun -np 2 --oversubscribe "$bin" bench --rows "$rows" --methods single,expert,heft --results "$tmp/two.json" \
  > "$tmp/two.log" 2>&1 || fail "two ranks"
# Rows handed out as ranks become free: rank 0 says so.
grep -q "2 ranks: the 3 rows go to the ranks as they become free" "$tmp/two.log" || fail "rank 0 did not say how the rows were shared"
table() { sed -n '/^| graph/,/^| plans/p' "$1"; }
[ -n "$(table "$tmp/one.md")" ] || fail "no table"
diff <(table "$tmp/one.md") <(table "$tmp/two.md") > "$tmp/diff.log" || fail "the tables differ"

# The summary after the table has the learned runs of every rank's rows.
mpirun -np 2 --oversubscribe "$bin" bench --rows rnnlm-2,wavenet-2 --methods hdp --hdp-options max_steps=1 \
  --time-limit 0 --results "$tmp/learned.json" > "$tmp/learned.log" 2>&1 || fail "two ranks, hdp"
for row in rnnlm-2 wavenet-2; do
  grep -Eq "^  $row +hdp +final plan" "$tmp/learned.log" || fail "no summary line of $row's hdp run"
done

# A command of one process is refused under mpirun, once, rather than run N times.
code=0
mpirun -np 2 --oversubscribe "$bin" baseline rnnlm:layers=1,steps=2 --method expert --out "$tmp/plan.json" \
  > "$tmp/baseline.log" 2>&1 || code=$?
[ "$code" -ne 0 ] || fail "baseline ran under mpirun"
[ "$(grep -c "baseline runs in one process, not over 2 MPI ranks" "$tmp/baseline.log")" -eq 1 ] ||
  fail "baseline under mpirun did not say once why it stopped"
[ ! -e "$tmp/plan.json" ] || fail "baseline under mpirun wrote a plan"

# A killed rank: the job ends within seconds, not at the learned method's 60 s.
mpirun -np 2 --oversubscribe "$bin" bench --rows rnnlm-2,wavenet-2 --methods hdp --time-limit 60 \
  --results "$tmp/killed.json" > "$tmp/killed.log" 2>&1 &
kill_rank $! "$tmp/killed.json"
[ "$job_code" -ne 0 ] || fail "the job ended well though rank 1 was killed"
[ "$job_seconds" -lt 30 ] || fail "the job took ${job_seconds} s to end after rank 1 was killed"
grep -qi "signal 9\|killed" "$tmp/killed.log" || fail "nothing names the killed rank"
echo "ok: same table with 2 ranks; killed rank ended the job in ${job_seconds} s (exit $job_code)"
