#!/usr/bin/env bash
# Plans a framework can apply: for each model, the learned optimizer with every module
# kept on one device (optimize --granularity module), the same without that constraint,
# and Accelerate's balanced map (module-balanced, given greedy legal fusion and
# critical-path priorities as every baseline of the full-optimizer table is), with the
# expert for reference; the module plan written as a device map. Same seed and time
# limit for both searches. An OUT folder that holds the searches' plans is reused.
# Usage: bench/device_map.sh [SECONDS] [OUT]   (a quiet machine: nothing else running)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=${2:-$(mktemp -d)}
data=${GRAPHOPT_DATA_DIR:-../shared/data}
bin=./build/graphopt
cluster=4xV100
mkdir -p "$out"
printf "| model | ops | modules | optimize, modules whole | optimize, unconstrained | module-balanced (Accelerate's balanced map) | expert |\n"
printf "|---|---:|---|---:|---:|---:|---:|\n"
for name in transformer_seq2seq bert_encoder; do
  model="$data/onnx/$name.onnx"
  if [[ ! -f "$out/$name.free.json" ]]; then
    $bin optimize "$model" --cluster $cluster --granularity module --time-limit "$seconds" --seed 0 \
        --out "$out/$name.module.json" > "$out/$name.module.log" 2>&1
    $bin optimize "$model" --cluster $cluster --time-limit "$seconds" --seed 0 \
        --out "$out/$name.free.json" > "$out/$name.free.log" 2>&1
  fi
  $bin baseline "$model" --cluster $cluster --granularity module --method module-balanced+fusion+cp \
      --out "$out/$name.balanced.json" > "$out/$name.balanced.log" 2>&1
  $bin baseline "$model" --cluster $cluster --method expert+fusion+cp --out "$out/$name.expert.json" \
      > "$out/$name.expert.log" 2>&1
  $bin export "$model" --cluster $cluster --plan "$out/$name.module.json" --to device-map \
      --out "$out/$name.device_map.json" 2> /dev/null
  # The step times of the four plans, simulated by the Python module (milliseconds).
  PYTHONPATH=build/python /usr/bin/python3 - "$model" "$out/$name" "$cluster" <<'PY'
import sys, graphopt
model, base, cluster = sys.argv[1:]
g, c = graphopt.load(model), graphopt.cluster(cluster)
ms = lambda kind: "%.3f ms" % (graphopt.simulate(g, c, graphopt.Plan.load("%s.%s.json" % (base, kind), g)).step_time_us / 1e3)
modules = graphopt.Plan.load(base + ".module.json", g).device_map(c)
print("| %s | %d | %d | %s | %s | %s | %s |" % (g.name, g.num_ops, len(modules), ms("module"), ms("free"), ms("balanced"), ms("expert")))
PY
done
echo "plans, logs and device maps in $out"
