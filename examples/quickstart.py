"""graphopt from Python, start to end: an ONNX model on four GPUs.

    PYTHONPATH=build/python python3 examples/quickstart.py [MODEL.onnx] [--time-limit 30] [--out DIR]

Loads the model (default: ../shared/data/onnx/transformer_seq2seq.onnx), compares the
baselines, optimizes for --time-limit seconds with every module kept on one device,
prints the plan per module, and writes the device map and a Perfetto trace to --out.
"""
import argparse
import json
import os

import graphopt

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("GRAPHOPT_DATA_DIR", os.path.join(HERE, "..", "..", "shared", "data"))

parser = argparse.ArgumentParser()
parser.add_argument("model", nargs="?", default=os.path.join(DATA, "onnx", "transformer_seq2seq.onnx"))
parser.add_argument("--cluster", default="4xV100")
parser.add_argument("--time-limit", type=float, default=30)
parser.add_argument("--out", default=".")
args = parser.parse_args()

# In [1]: the model and the machine.
graph = graphopt.load(args.model)
cluster = graphopt.cluster(args.cluster)
print(graph, "on", cluster.summary())

# In [2]: every baseline, simulated.
print("\n%-12s %10s  %s" % ("baseline", "step", "memory"))
for name in graphopt.baselines():
    result = graphopt.simulate(graph, cluster, graphopt.baseline(graph, cluster, name))
    print("%-12s %7.3f ms  %s" % (name, result.step_time_us / 1e3, result.memory))

# In [3]: the learned optimizer, every module on one device, from the shipped policy
# (as graphopt optimize: $GRAPHOPT_POLICY, else the checkout's policies/default.pt).
best = graphopt.optimize(graph, cluster, time_limit=args.time_limit, granularity="module",
                         progress=lambda p: print("\rstep %d: best %.3f ms" % (p["step"], p["best_us"] / 1e3), end=""))
print("\nfound %.3f ms (best baseline %s, %.3f ms) in %.0f s, %d steps"
      % (best.step_time_us / 1e3, best.best_baseline, best.best_baseline_us / 1e3, best.seconds, best.steps))

# In [4]: the plan per module.
device_map = best.plan.device_map(cluster)
for module, device in device_map.items():
    print("  %-32s -> %s" % (module, "cuda:%d" % device if device != "cpu" else "cpu"))

# In [5]: the device map for the PyTorch program, and the step's timeline for Perfetto.
os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "device_map.json"), "w") as f:
    json.dump(device_map, f, indent=2)
trace = os.path.join(args.out, "plan.trace.json")
graphopt.simulate(graph, cluster, best.plan, trace=trace)
best.plan.save(os.path.join(args.out, "plan.json"))
print("wrote device_map.json, plan.json and plan.trace.json (open it in Perfetto) to", args.out)
