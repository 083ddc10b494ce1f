// Why the policy decides for partition units (policy/units.h) and not per op: on a
// graph whose optimum is known on paper, samples of the untrained GO policy reach it
// with two units and cannot with one decision per op.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "../testing/clusters.h"
#include "../testing/graphs.h"
#include "../testing/policies.h"
#include "core/rng.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/rollout.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

// Best step time of 16 plans sampled from an untrained policy with at most
// `max_units` units (0: one per op).
double BestSampleUs(const Graph& g, const Cluster& c, const Simulator& sim, int max_units) {
  PolicyInputOptions options;
  options.max_units = max_units;
  auto input = BuildPolicyInput(g, c, sim.cost_model(), options);
  EXPECT_TRUE(input.ok()) << input.status().message();
  if (!input.ok()) return 0;
  const PolicyTensors tensors = ToTensors(*input);
  auto config = GoPolicyConfig::FromString(testing::kSmallGoPolicy);
  EXPECT_TRUE(config.ok());
  GoPolicy policy(*config);
  torch::NoGradGuard no_grad;
  const PolicyOutput out = policy->forward(tensors);
  Rng rng(5);
  double best = std::numeric_limits<double>::infinity();
  for (const Actions& a : policy->Sample(tensors, out, rng, 16, 1.0)) {
    auto result = sim.Simulate(ActionsToPlan(g, c, sim.cost_model(), *input, a, true));
    EXPECT_TRUE(result.ok()) << result.status().message();
    if (result.ok()) best = std::min(best, result->step_time_us);
  }
  return best;
}

TEST(UnitsSamplingTest, TwoUnitsReachTheOptimumThatPerOpSamplesMiss) {
  // Two independent chains of 12 ops, 100 us each, every tensor 4 MB. On two GPUs the
  // optimum puts one chain on each (step time about 1.2 ms, no transfer); any other
  // plan either serializes ops of both chains on one GPU or cuts a chain, paying a
  // transfer.
  const Graph g = testing::TwoTimedChains(12, 100, 1 << 20);
  const Cluster c = testing::TwoGpusOnFastLinks();
  auto sim = Simulator::Create(g, c);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  Plan optimum = DefaultPlan(g, 0);
  for (OpId o = 12; o < 24; ++o) optimum.device[static_cast<size_t>(o)] = 1;
  auto best = sim->Simulate(optimum);
  ASSERT_TRUE(best.ok());
  const double optimum_us = best->step_time_us;
  EXPECT_LT(optimum_us, 1.3e3);

  const double units_us = BestSampleUs(g, c, *sim, 2);
  const double per_op_us = BestSampleUs(g, c, *sim, 0);
  EXPECT_NEAR(units_us, optimum_us, 1e-6 * optimum_us);
  EXPECT_GT(per_op_us, 1.2 * optimum_us);
}

}  // namespace
}  // namespace graphopt
