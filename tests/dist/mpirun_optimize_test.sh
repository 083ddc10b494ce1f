#!/usr/bin/env bash
# `mpirun -np 2 graphopt optimize`: the search over two ranks (rl/learned_search.h
# LearnedSearchConfig::world): rank 0 alone prints and writes; the same seed gives the same
# plan; the plans are counted over both ranks; the policy alone stays the policy alone;
# a checkpoint of two ranks resumes in one process; a killed rank ends the job.
# Usage: mpirun_optimize_test.sh GRAPHOPT
set -euo pipefail
bin="$1"
source "$(dirname "$0")/mpirun_lib.sh"
tiny=(optimize "rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500" --cluster 2xV100 --time-limit 0 --seed 3
      --policy hidden=16,heads=2,segment=16,memory=16,samples=4,polish_evaluations=8)
plans() { sed -n 's/.*(\([0-9]*\) plans simulated in.*/\1/p' "$1"; }

"$bin" "${tiny[@]}" --threads 1 --steps 6 --out "$tmp/one.json" > "$tmp/one.log" 2>&1 || fail "one process"
for run in a b; do
  mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 6 --out "$tmp/two-$run.json" > "$tmp/two-$run.log" 2>&1 ||
    fail "two ranks ($run)"
done
grep -q "^ranks    2 (1 threads each)" "$tmp/two-a.log" || fail "rank 0 did not say it runs on 2 ranks"
[ "$(grep -c "^model " "$tmp/two-a.log")" -eq 1 ] || fail "more than one rank printed"
[ "$(grep -c "plans simulated in 6 steps" "$tmp/two-a.log")" -eq 1 ] || fail "no closing line of 6 steps, or more than one"
cmp -s "$tmp/two-a.json" "$tmp/two-b.json" || fail "the same seed on two ranks gave two plans"
# Each rank runs the baselines and its own local search: more plans than one process.
[ "$(plans "$tmp/two-a.log")" -gt "$(plans "$tmp/one.log")" ] ||
  fail "two ranks counted $(plans "$tmp/two-a.log") plans, one process $(plans "$tmp/one.log")"

# The policy alone over two ranks: every improvement is a policy sample's.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 4 --policy \
  hidden=16,heads=2,segment=16,memory=16,samples=4,baselines=0,warm_start=0,polish=0 > "$tmp/alone.log" 2>&1 ||
  fail "policy alone on two ranks"
grep -q "improvements: [1-9][0-9]* by policy samples, 0 by polished policy samples, 0 by the polish" "$tmp/alone.log" ||
  fail "the policy alone on two ranks took a plan from elsewhere"

# Three steps on two ranks, three more in one process.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 3 --checkpoint "$tmp/ck" > "$tmp/part1.log" 2>&1 ||
  fail "first part on two ranks"
"$bin" "${tiny[@]}" --threads 1 --steps 6 --checkpoint "$tmp/ck" > "$tmp/part2.log" 2>&1 || fail "second part in one process"
grep -q "resumed from" "$tmp/part2.log" || fail "one process did not resume the two ranks' checkpoint"
grep -q "in 6 steps" "$tmp/part2.log" || fail "the resumed run did not end at step 6"

# A killed rank: the job ends within seconds.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 1000000 --checkpoint "$tmp/killed" > "$tmp/killed.log" 2>&1 &
kill_rank $! "$tmp/killed" "$tmp/killed/state.json"
[ "$job_code" -ne 0 ] || fail "the job ended well though rank 1 was killed"
[ "$job_seconds" -lt 60 ] || fail "the job took ${job_seconds} s to end after rank 1 was killed"
echo "ok: two ranks print once, same seed same plan, $(plans "$tmp/two-a.log") plans over 2 ranks against $(plans "$tmp/one.log"); policy alone kept; resumed in one process; killed rank ended the job in ${job_seconds} s"
