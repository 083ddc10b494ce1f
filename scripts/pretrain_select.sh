#!/usr/bin/env bash
# One pre-trained policy, kept at its best point on validation rows, resumably: the run
# (scripts/pretrain_policy.sh, checkpointing in CKPT/run) stops every CHUNK seconds of
# its SECONDS to leave a snapshot CKPT/snapshots/snap-K.pt; each snapshot plans the
# validation ROWS zero-shot (`graphopt bench --methods zero-shot --decisions all`, into
# snap-K.val.json, scripts/bench_rows.sh); with `--init FILE` among the flags, FILE is
# snapshot 0. OUT is the snapshot that plans the rows best (scripts/select_policy.py:
# most plans that fit, then the lowest geometric mean of step times), with the report
# of the run up to it (OUT.json) and the selection (OUT.selection.json). Rows of the
# graphs a policy is to be judged on make its figures selected on themselves: give rows
# of other graphs (a leave-one-out policy: rows of the families it trains on).
# A rerun after an interruption goes on where it stopped; a finished OUT is kept.
# Usage: scripts/pretrain_select.sh OUT SECONDS CKPT CHUNK "ROW ROW ..." [PRETRAIN_FLAG...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 5 ] || { echo "usage: $0 OUT SECONDS CKPT CHUNK \"ROW ROW ...\" [PRETRAIN_FLAG...]" >&2; exit 2; }
out="$1"; seconds="$2"; ckpt="$3"; chunk="$4"; rows="$5"; shift 5
[[ "$seconds" =~ ^[0-9]+$ && "$chunk" =~ ^[0-9]+$ && "$chunk" -gt 0 ]] ||
  { echo "$0: SECONDS and CHUNK must be whole numbers of seconds, CHUNK above 0" >&2; exit 2; }
[ -n "${rows// /}" ] || { echo "$0: no validation rows" >&2; exit 2; }
if [ -f "$out.json" ] && [ -f "$out.selection.json" ]; then echo "=== $out: done ($out.selection.json)"; exit 0; fi
init=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[$i]}" = "--init" ] && [ $((i + 1)) -lt ${#args[@]} ]; then init="${args[$((i + 1))]}"; fi
done
[ -z "$init" ] || [ -f "$init" ] || { echo "$0: no policy $init to start from" >&2; exit 2; }
snaps="$ckpt/snapshots"
mkdir -p "$snaps" "$(dirname "$out")"
validate() {  # validate POLICY RESULTS
  scripts/bench_rows.sh "$2" "$rows" --methods zero-shot --decisions all --pretrained "$1"
}
pairs=()
if [ -n "$init" ]; then
  validate "$init" "$snaps/snap-0.val.json"
  pairs+=("$init=$snaps/snap-0.val.json")
fi
n=$(( (seconds + chunk - 1) / chunk ))
for ((k = 1; k <= n; k++)); do
  upto=$(( k * chunk < seconds ? k * chunk : seconds ))
  scripts/pretrain_policy.sh "$snaps/snap-$k.pt" "$upto" "$ckpt/run" "$@"
  validate "$snaps/snap-$k.pt" "$snaps/snap-$k.val.json"
  pairs+=("$snaps/snap-$k.pt=$snaps/snap-$k.val.json")
done
python3 scripts/select_policy.py "$out.selection.json.tmp" "${pairs[@]}"
chosen=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["chosen"])' "$out.selection.json.tmp")
cp "$chosen" "$out.tmp"
mv "$out.tmp" "$out"
if [ -f "$chosen.json" ]; then cp "$chosen.json" "$out.json.tmp"; else echo '{}' > "$out.json.tmp"; fi
mv "$out.selection.json.tmp" "$out.selection.json"
mv "$out.json.tmp" "$out.json"
echo "=== $out: $chosen ($(date +%T))"
