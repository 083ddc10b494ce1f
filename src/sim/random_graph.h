// Random graphs and plans: the fidelity report's random plan (cli/fidelity_command.cc),
// and the tests and benchmarks of the simulator and of anything that consumes plans
// (baselines, policies). Seeded, so a failure reproduces.
//
// RandomLayeredGraph builds a layered DAG that looks like a training graph to the
// simulator: an input, parameters (Variables in colocation groups of their own, each
// with an ApplyGradient update in its group), and layers of contractions, recurrent
// cells, elementwise ops, reductions, concats, views and the odd metadata op, each
// reading 1..max_inputs tensors of the previous few layers, with explicit costs
// (FLOPs and bytes). Shapes are 1-D; elementwise maps and views keep their first
// input's size, other kinds take random sizes: the graph is for the simulator, not
// for VerifyGraph's shape rules.
#pragma once

#include <cstdint>

#include "core/rng.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/plan.h"

namespace graphopt {

struct RandomGraphOptions {
  int num_ops = 1000;  // compute ops (sources and updates come on top)
  int width = 8;       // ops per layer
  int lookback = 3;    // an input comes from at most this many layers back
  int max_inputs = 3;
  double param_fraction = 0.3;  // share of contractions and cells that read a new parameter
  double max_flops = 2e9;       // per contraction
  int64_t max_tensor_bytes = 4 << 20;
};

Graph RandomLayeredGraph(const RandomGraphOptions& options, uint64_t seed);

struct RandomPlanOptions {
  bool accelerators_only = true;  // never place on a CPU (unless the cluster has only CPUs)
  bool random_priorities = true;  // else all 0 (ready order)
  double fuse_probability = 0.3;  // per op that may fuse; illegal fusions are dropped
};

// A valid plan: random devices (colocation respected), priorities and fusions.
Plan RandomPlan(const Graph& graph, const Cluster& cluster, const RandomPlanOptions& options, Rng& rng);

}  // namespace graphopt
