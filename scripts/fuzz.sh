#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang into build-fuzz/, writes their seed
# corpus and runs each target on it, one after the other.
#   scripts/fuzz.sh --brief            each target for 5 s (CI)
#   scripts/fuzz.sh --runs N           each target for N executions
#   scripts/fuzz.sh --time S           each target for S seconds
#   ... [TARGET...]                    only these (graph onnx pipedream cluster plan
#                                      results convergence)
# Prints per target the executions, coverage (cov: edges, ft: features), corpus
# size and seconds; exits non-zero if any target reports a crash, a leak, a
# sanitizer error, an input that runs over 25 s, an allocation over 512 MB or a
# resident size over 2 GB. The offending input is kept in build-fuzz/fuzz/artifacts/,
# the grown corpus in build-fuzz/fuzz/corpus/<target>/. FUZZ_JOBS sets the build's
# parallelism (default: every core). Seeds: ../shared/data (ONNX models, PipeDream
# profiles), data/onnx_corpus, docs/results, files graphopt itself writes, and the
# inputs of fuzz/regressions/<target>/ that once crashed or hung a loader.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(graph onnx pipedream cluster plan results convergence)
LIMIT=(-max_total_time=5)
targets=()
while (($#)); do
  case "$1" in
    --brief) LIMIT=(-max_total_time=5); shift ;;
    --runs) LIMIT=(-runs="$2"); shift 2 ;;
    --time) LIMIT=(-max_total_time="$2"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")

BUILD=build-fuzz
DATA="${GRAPHOPT_DATA_DIR:-../shared/data}"
JOBS="${FUZZ_JOBS:-$(nproc)}"

mkdir -p "$BUILD"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRAPHOPT_FUZZ=ON \
    -DGRAPHOPT_BUILD_TESTS=OFF -DGRAPHOPT_BUILD_BENCH=OFF > "$BUILD/cmake.log" 2>&1 || {
    cat "$BUILD/cmake.log"; exit 1; }
fi
ninja -C "$BUILD" -j "$JOBS" fuzz

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# --- Seeds: build-fuzz/fuzz/seeds/<target>/, rewritten on every run. -----------------
SEEDS="$BUILD/fuzz/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS"/{graph,onnx,pipedream,cluster,plan,results,convergence}
"$BUILD/fuzz/fuzz_seeds" "$SEEDS"
GRAPHOPT="$BUILD/graphopt"
copy_small() {  # copy_small DEST MAX_BYTES FILE...: the files up to MAX_BYTES
  local dest="$1" max="$2"; shift 2
  for f in "$@"; do
    [[ -f "$f" && $(stat -c %s "$f") -le $max ]] && cp "$f" "$dest/"
  done
  return 0
}
if [[ -d "$DATA" ]]; then
  copy_small "$SEEDS/onnx" 262144 "$DATA"/onnx/*.onnx
  copy_small "$SEEDS/pipedream" 65536 "$DATA"/pipedream/*.txt
else
  echo "fuzz.sh: $DATA not found: seeding without the shared models and profiles" >&2
fi
copy_small "$SEEDS/onnx" 32768 data/onnx_corpus/*.onnx
# Inputs that once crashed or hung a loader (each fixed, with a test): replayed first.
for t in "${ALL_TARGETS[@]}"; do
  if [[ -d fuzz/regressions/$t ]]; then cp fuzz/regressions/$t/* "$SEEDS/$t/"; fi
done
copy_small "$SEEDS/results" 65536 docs/results/*.json docs/results/*/*.json
shopt -s nullglob
for f in "$SEEDS"/results/*.convergence.json; do mv "$f" "$SEEDS/convergence/"; done
# Graph JSON as `graphopt convert` writes it: small built-ins, an imported profile
# (measured times, attributes) and an imported ONNX model (shape ops, attributes).
FUZZ_MODEL=$(sed -n 's/.*kFuzzModel = "\(.*\)";/\1/p' fuzz/fuzz_model.h)
i=0
for model in "$FUZZ_MODEL" "rnnlm:layers=1,steps=2,batch=2,hidden=8,vocab=16" "$SEEDS/onnx/tiny_attention.onnx" \
             "$SEEDS/onnx/tiny_shape_values.onnx" "$SEEDS/pipedream/alexnet.txt"; do
  [[ "$model" == */* && ! -f "$model" ]] && continue
  dim=()
  [[ "$model" == *.onnx ]] && dim=(--dim '*=2')
  "$GRAPHOPT" convert "$model" --to json "${dim[@]}" --out "$SEEDS/graph/graph$i.json" 2> /dev/null
  "$GRAPHOPT" convert "$model" --to json "${dim[@]}" --forward --out "$SEEDS/graph/forward$i.json" 2> /dev/null
  i=$((i + 1))
done
# Plans for the graph of fuzz/fuzz_model.h as `graphopt baseline --out` writes them.
for method in single tf-default expert metis scotch heft; do
  for fusion in "" --fusion; do
    "$GRAPHOPT" baseline "$FUZZ_MODEL" --cluster 4xV100 --method "$method" $fusion \
      --out "$SEEDS/plan/$method${fusion:+-fusion}.json" > /dev/null
  done
done
# A cluster with the optional parts the presets do not use.
cat > "$SEEDS/cluster/links.json" <<'EOF'
{"format": "graphopt-cluster", "version": 1, "name": "links",
 "devices": [{"name": "gpu:0", "peak_tflops": 15.7, "memory_bandwidth_gb_s": 900, "memory_gib": 16,
              "launch_overhead_us": 5},
             {"name": "gpu:1", "kind": "gpu", "model": "P100", "peak_tflops": 9.3, "memory_bandwidth_gb_s": 732,
              "memory_gib": 16, "launch_overhead_us": 5},
             {"name": "cpu:0", "kind": "cpu", "peak_tflops": 0.5, "memory_bandwidth_gb_s": 60, "memory_gib": 64,
              "launch_overhead_us": 2}],
 "default_link": {"bandwidth_gb_s": 10, "latency_us": 10},
 "links": [{"from": "gpu:0", "to": 1, "bandwidth_gb_s": 50, "latency_us": 5, "bidirectional": true},
           {"from": 2, "to": "gpu:0", "bandwidth_gb_s": 12, "latency_us": 20}]}
EOF
cat > "$SEEDS/cluster/ports.json" <<'EOF'
{"format": "graphopt-cluster", "version": 2, "name": "ports",
 "devices": [{"name": "gpu:0", "peak_tflops": 15.7, "memory_bandwidth_gb_s": 900, "memory_gib": 16,
              "launch_overhead_us": 5},
             {"name": "gpu:1", "peak_tflops": 15.7, "memory_bandwidth_gb_s": 900, "memory_gib": 16,
              "launch_overhead_us": 5}],
 "ports": [{"name": "gpu:0 pcie out", "bandwidth_gb_s": 15.75}, {"name": "bus", "bandwidth_gb_s": 8}],
 "default_link": {"bandwidth_gb_s": 15.75, "latency_us": 10},
 "links": [{"from": "gpu:0", "to": "gpu:1", "bandwidth_gb_s": 50, "latency_us": 5, "bidirectional": true,
            "ports": [1]},
           {"from": 0, "to": 1, "bandwidth_gb_s": 12, "latency_us": 20, "ports": ["gpu:0 pcie out", "bus"]}]}
EOF

# --- Runs ----------------------------------------------------------------------------
max_len() {
  case "$1" in
    onnx) echo 262144 ;;
    *) echo 65536 ;;
  esac
}
ARTIFACTS="$BUILD/fuzz/artifacts"
mkdir -p "$ARTIFACTS"
printf '%-12s %12s %7s %7s %7s %8s  %s\n' target executions cov ft corpus seconds result
failed=0
for t in "${targets[@]}"; do
  bin="$BUILD/fuzz/${t}_fuzz"
  [[ -x "$bin" ]] || { echo "fuzz.sh: no target '$t' (${ALL_TARGETS[*]})" >&2; exit 2; }
  corpus="$BUILD/fuzz/corpus/$t"
  log="$BUILD/fuzz/$t.log"
  mkdir -p "$corpus"
  dict=()
  [[ -f "fuzz/$t.dict" ]] && dict=(-dict="fuzz/$t.dict")
  start=$(date +%s%N)
  status=0
  "$bin" "$corpus" "$SEEDS/$t" "${LIMIT[@]}" "${dict[@]}" -max_len="$(max_len "$t")" \
    -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="$ARTIFACTS/$t-" > "$log" 2>&1 || status=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  units=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<< "$last")
  result=ok
  if ((status != 0)) || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|internal error:' "$log"; then
    result="FAILED (exit $status, log $log)"
    failed=1
  fi
  printf '%-12s %12s %7s %7s %7s %6d.%d  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}" \
    $((ms / 1000)) $((ms % 1000 / 100)) "$result"
  if [[ $result != ok ]]; then
    grep -E 'ERROR|SUMMARY|runtime error|internal error|Test unit written' "$log" | head -5 | sed 's/^/    /'
  fi
done
exit "$failed"
