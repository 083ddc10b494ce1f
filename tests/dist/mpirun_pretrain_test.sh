#!/usr/bin/env bash
# `mpirun -np 2 graphopt pretrain`: data-parallel pre-training (rl/pretrain.h) gives the
# policy of one process training the same two graphs per step, bit for bit (one thread
# per rank); a checkpoint of two ranks resumes in one process (two or four graphs per
# step); a rank killed from outside ends the job within seconds and leaves a checkpoint
# that resumes.
# Usage: mpirun_pretrain_test.sh GRAPHOPT
set -euo pipefail
bin="$1"
source "$(dirname "$0")/mpirun_lib.sh"
# The fingerprint of a policy's parameters a run reports (policy files are not byte-stable).
fingerprint() { sed -n 's/.*, fingerprint \([0-9a-f]*\)$/\1/p' "$1"; }

models="rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500;wavenet:stacks=1,layers=2,batch=2,length=512,channels=32,skip=32,quantization=32"
tiny=(pretrain --families "" --models "$models" --clusters 2xV100,1xV100+1xP100 --steps-per-task 2 --threads 1
      --policy hidden=16,heads=2,segment=16,memory=16,samples=4)

"$bin" "${tiny[@]}" --graphs-per-step 2 --steps 6 --out "$tmp/one.pt" > "$tmp/one.log" 2>&1 || fail "one process"
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 6 --out "$tmp/two.pt" > "$tmp/two.log" 2>&1 || fail "two ranks"
grep -q "ranks     2" "$tmp/two.log" || fail "rank 0 did not say it runs on 2 ranks"
grep -q "6 steps, 6 tasks (2 per step)" "$tmp/two.log" || fail "two ranks did not train 2 graphs per step"
[ "$(grep -c "policy written" "$tmp/two.log")" -eq 1 ] || fail "more than one rank reported"
[ -n "$(fingerprint "$tmp/one.log")" ] || fail "no fingerprint"
[ "$(fingerprint "$tmp/one.log")" = "$(fingerprint "$tmp/two.log")" ] || fail "two ranks trained another policy than one process"

# Three steps on two ranks, the rest in one process: the same policy.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 3 --checkpoint "$tmp/ck" --out "$tmp/part.pt" \
  > "$tmp/part1.log" 2>&1 || fail "first part on two ranks"
"$bin" "${tiny[@]}" --steps 6 --checkpoint "$tmp/ck" --out "$tmp/part.pt" > "$tmp/part2.log" 2>&1 ||
  fail "second part in one process"
grep -q "resumed from" "$tmp/part2.log" || fail "one process did not resume the two ranks' checkpoint"
[ "$(fingerprint "$tmp/one.log")" = "$(fingerprint "$tmp/part2.log")" ] || fail "resumed with another rank count, the policy differs"

# Four graphs per step on two ranks (dealt by op count), resumed in one process.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --graphs-per-step 4 --steps 3 --checkpoint "$tmp/ck4" \
  --out "$tmp/four.pt" > "$tmp/four1.log" 2>&1 || fail "four graphs per step on two ranks"
"$bin" "${tiny[@]}" --steps 5 --checkpoint "$tmp/ck4" --out "$tmp/four.pt" > "$tmp/four2.log" 2>&1 ||
  fail "four graphs per step resumed in one process"
grep -q "5 steps, 12 tasks (4 per step)" "$tmp/four2.log" || fail "the resumed run did not go on with 4 graphs per step"

# A killed rank: the job ends within seconds; the checkpoint resumes.
mpirun -np 2 --oversubscribe "$bin" "${tiny[@]}" --steps 1000000 --time-limit 0 --checkpoint "$tmp/killed" \
  --out "$tmp/killed.pt" > "$tmp/killed.log" 2>&1 &
kill_rank $! "$tmp/killed.pt" "$tmp/killed/pretrain_state.json"
[ "$job_code" -ne 0 ] || fail "the job ended well though rank 1 was killed"
[ "$job_seconds" -lt 60 ] || fail "the job took ${job_seconds} s to end after rank 1 was killed"
grep -qi "signal 9\|killed" "$tmp/killed.log" || fail "nothing names the killed rank"
done_steps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["steps"])' "$tmp/killed/pretrain_state.json")
"$bin" "${tiny[@]}" --steps $(( done_steps + 2 )) --checkpoint "$tmp/killed" --out "$tmp/killed.pt" \
  > "$tmp/resumed.log" 2>&1 || fail "the killed job's checkpoint does not resume"
grep -q "resumed from" "$tmp/resumed.log" || fail "the killed job's checkpoint was not resumed"
echo "ok: 2 ranks = 1 process bit for bit; resumed across rank counts; killed rank ended the job in ${job_seconds} s (exit $job_code), its checkpoint at step $done_steps resumed"
