// Toy placement problems for the training tests, with optima known on paper: the
// paper machine of tests/sim (1 TFLOP/s devices, 100 MFLOP = 100 us).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../sim/sim_test_util.h"
#include "../testing/policies.h"
#include "../testing/scratch_dir.h"
#include "models/load.h"
#include "policy/features.h"
#include "rl/learned_search.h"
#include "sim/simulator.h"

namespace graphopt::testing {

// Two independent chains of `length` MatMuls of 100 us each (tiny tensors between
// them). On one device the step takes 2 * length * 101 us; the optimum puts one chain
// on each device: length * 101 us.
inline Graph TwoChains(int length) {
  PaperGraph g("two-chains");
  for (int c = 0; c < 2; ++c) {
    TensorId t = g.Input("in" + std::to_string(c), 400);
    for (int i = 0; i < length; ++i) t = g.Compute("c" + std::to_string(c) + "_" + std::to_string(i), {t}, 100, 400);
  }
  return std::move(g.graph());
}

inline double TwoChainsOptimumUs(int length) { return length * 101.0; }

// Two paper devices, device 0 ten times slower than device 1: the optimum of a chain
// puts every op on device 1 (length * 101 us).
inline Cluster SlowAndFastCluster() {
  Cluster c = PaperCluster(2);
  std::vector<Device> devices = c.devices();
  devices[0].peak_flops = 1e11;
  devices[0].name = "slow";
  Cluster out("slow-fast", devices);
  out.SetAllLinks(Link{1e9, 2});
  return out;
}

// The GO network of the toys: kSmallGoNetwork and kSmallGoPolicy of
// tests/testing/policies.h.

// Two chains of 6 on two paper devices, with its simulator and policy input.
struct ChainsToy {
  Graph graph = TwoChains(6);
  Cluster cluster = PaperCluster(2);
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
  PolicyInput input = *BuildPolicyInput(graph, cluster, sim.cost_model());
};

// A toy on `graph` and `cluster` instead of the two chains: its simulator (the paper
// machine's perfect cost model) and policy input.
inline ChainsToy ToyOn(Graph graph, Cluster cluster) {
  ChainsToy toy;
  toy.graph = std::move(graph);
  toy.cluster = std::move(cluster);
  toy.sim = std::move(Simulator::Create(toy.graph, toy.cluster, PerfectCostModel()).value());
  toy.input = *BuildPolicyInput(toy.graph, toy.cluster, toy.sim.cost_model());
  return toy;
}

// A chain of 12 MatMuls of 100 us on two paper devices, every tensor taking 100 us
// to cross between them: the consolidated placements (all on device 0, or all on 1)
// are the fastest plans.
inline ChainsToy CostlyCutsToy() {
  PaperGraph g("costly-cuts");
  TensorId t = g.Input("in", 100000);
  for (int i = 0; i < 12; ++i) t = g.Compute("c" + std::to_string(i), {t}, 100, 100000);
  return ToyOn(std::move(g.graph()), PaperCluster(2));
}

// A GO search on a toy: the small policy, 8 samples, no polish, `steps` steps, one
// thread, checkpoints in `dir` ("": none) after every step.
inline LearnedSearchConfig ToySearch(const std::string& dir, int64_t steps) {
  LearnedSearchConfig c;
  c.policy = PolicyConfig(kSmallGoPolicy);
  c.ppo = PpoOptions("samples=8,epochs=2");
  c.ingredients.polish = false;  // exact resume needs no time-sliced state
  c.budget.max_steps = steps;
  c.budget.time_limit_s = 0;
  c.budget.threads = 1;
  c.seed = 2;
  c.checkpoints.dir = dir;
  c.checkpoints.every = 1;
  c.ingredients.explore = 1;  // the phase switch has its own test
  return c;
}

// A small RNNLM (elementwise ops to fuse, layers to place) on 2xV100, with its
// simulator: for the tests of which decisions a search makes.
struct SmallRnnToy {
  Graph graph = LoadModel("rnnlm:layers=2,steps=2,hidden=64,batch=8,vocab=100").value();
  Cluster cluster = LoadCluster("2xV100").value();
  Simulator sim = std::move(Simulator::Create(graph, cluster).value());
};

}  // namespace graphopt::testing
