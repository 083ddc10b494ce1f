#!/usr/bin/env bash
# ColocRL with its reward measured (every sampled plan executed on this machine's
# cores, as the paper measures each placement) against ColocRL with the reward
# simulated (the roofline, and op times measured in executed steps), the same wall
# time each; then every final plan executed, in turns, ROUNDS times STEPS steps.
# Usage: bench/measured_reward.sh [SECONDS] [MODEL]   (a quiet machine: nothing else running)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
model=${2:-rnnlm:layers=2,batch=16,steps=10,hidden=256,vocab=2000}
rounds=3
steps=10
bin=./build/graphopt
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
echo "model $model, $seconds s per run, results in $out"
$bin profile "$model" --cluster local --in-step --out "$out/in-step.profile.json" | grep measured
for reward in measured roofline in-step; do
  case $reward in
    measured) flags="--reward measured" ;;
    roofline) flags="" ;;
    in-step) flags="--profile $out/in-step.profile.json" ;;
  esac
  $bin optimize "$model" --cluster local --method colocrl --time-limit "$seconds" $flags \
      --out "$out/$reward.plan.json" --convergence "$out/$reward.convergence.json" > "$out/$reward.log" 2>&1
  echo "== colocrl, reward $reward"; grep -E "stopped|best baseline|^reward" "$out/$reward.log" | tail -3 || true
done
declare -A times
for r in $(seq "$rounds"); do
  for reward in measured roofline in-step; do
    t=$($bin execute "$model" --plan "$out/$reward.plan.json" --steps "$steps" 2>/dev/null |
        sed -n 's/^step time *\([0-9.]*\) \(ms\|s\).*/\1 \2/p' | awk '{v=$1; if ($2=="s") v*=1000; print v}')
    times[$reward]="${times[$reward]:-} $t"
  done
done
printf "%-10s %s\n" reward "executed step time of the final plan, ms (one median of $steps steps per round)"
for reward in measured roofline in-step; do printf "%-10s %s\n" "$reward" "${times[$reward]}"; done
