#!/usr/bin/env bash
# One pre-trained policy, resumably: `graphopt pretrain FLAGS... --time-limit (what is
# left of SECONDS) --checkpoint CKPT --out OUT`. The time limit covers all the runs of
# the policy: a rerun after an interruption (Ctrl-C, the end of a session) resumes from
# CKPT with the seconds its checkpoint has not spent, and must be given the same flags
# (pretrain refuses a checkpoint of other options). OUT and its report OUT.json appear
# only once the policy is finished; a finished policy is not trained again.
# GRAPHOPT_BIN picks the program (default ./build/graphopt): a resumed policy must be
# trained on by the program that began it.
# Usage: scripts/pretrain_policy.sh OUT SECONDS CKPT [PRETRAIN_FLAG...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 OUT SECONDS CKPT [PRETRAIN_FLAG...]" >&2; exit 2; }
out="$1"; seconds="$2"; ckpt="$3"; shift 3
# A policy whose report exists is done (the report is written last).
if [ -f "$out.json" ]; then echo "=== $out: done ($out.json)"; exit 0; fi
mkdir -p "$(dirname "$out")" "$ckpt"
spent=0
if [ -f "$ckpt/pretrain_state.json" ]; then
  spent=$(python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["seconds"]))' \
    "$ckpt/pretrain_state.json")
fi
left=$(( seconds - ${spent:-0} ))
[ "$left" -gt 0 ] || left=1  # spent: one more second writes the policy out
echo "=== $out: $left s left of $seconds ($(date +%T))"
"${GRAPHOPT_BIN:-./build/graphopt}" pretrain "$@" --time-limit "$left" --checkpoint "$ckpt" --out "$out.tmp"
if grep -q '"stop_reason": "interrupted"' "$out.tmp.json"; then
  echo "=== $out interrupted: rerun the same command to resume"; exit 1
fi
mv "$out.tmp" "$out"
mv "$out.tmp.json" "$out.json"
