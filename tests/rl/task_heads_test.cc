// The GO policy's scheduling and fusion heads, each trained alone by PPO on a graph
// whose best schedule or best fusion is known on paper (tests/sim's paper machine:
// 1 MFLOP = 1 us, 1000 bytes = 1 us, 1 us launch; everything on one device).
#include <gtest/gtest.h>

#include "policy/features.h"
#include "rl/ppo.h"
#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

struct HeadToy {
  PaperGraph g;
  Cluster cluster;
  std::unique_ptr<Simulator> sim;
  PolicyInput input;
  void Finish(Cluster c) {
    cluster = std::move(c);
    sim = std::make_unique<Simulator>(std::move(Simulator::Create(g.graph(), cluster, PerfectCostModel()).value()));
    input = *BuildPolicyInput(g.graph(), cluster, sim->cost_model());
  }
};

// Trains a policy deciding `task` alone for up to `steps` PPO steps; returns its
// greedy plan's simulation.
SimResult TrainGreedy(HeadToy& toy, const std::string& task, int steps, double reference_us) {
  ConfigureTorchThreads(1);
  BatchSimulator batch(*toy.sim, 1);
  PpoConfig ppo;
  ppo.samples_per_step = 16;
  ppo.epochs = 4;
  ppo.lr = 0.01;
  ppo.include_best = false;  // the policy must learn from its own samples
  auto policy = GoPolicyConfig::FromString(std::string(testing::kSmallGoNetwork) + ",tasks=" + task);
  PpoTrainer trainer(*toy.sim, &batch, toy.input, GoPolicy(*policy), ppo, 7);
  trainer.set_reference_us(reference_us);
  for (int i = 0; i < steps; ++i) trainer.Step();
  return *toy.sim->Simulate(trainer.GreedyPlan());
}

// Two branches on one device of 8000 B: a, b (10 MFLOP, 5000 B each) read `in` (1000
// B); a2, b2 (1 MFLOP, 100 B) read a and b. By the critical path (and in ready order) b
// runs before a2: in, a and b live together, 11000 B, out of memory. Running a2 right
// after a frees a first: 6100 B. Every order takes 26 us; only the schedule decides
// whether the step fits.
TEST(TaskHeadsTest, TheSchedulingHeadLearnsTheOrderThatFits) {
  HeadToy toy;
  const TensorId in = toy.g.Input("input", 1000);
  const TensorId a = toy.g.Compute("a", {in}, 10, 5000);
  const TensorId b = toy.g.Compute("b", {in}, 10, 5000);
  toy.g.Compute("a2", {a}, 1, 100);
  toy.g.Compute("b2", {b}, 1, 100);
  toy.Finish(PaperCluster(1, /*memory_bytes=*/8000));
  ASSERT_TRUE(toy.sim->Simulate(Plan())->oom);
  EXPECT_TRUE(TrainGreedy(toy, "scheduling", 0, 26).oom);  // untrained: the critical path's order
  const SimResult greedy = TrainGreedy(toy, "scheduling", 30, 26);
  EXPECT_FALSE(greedy.oom) << "peak " << greedy.device_peak_memory[0];
  EXPECT_EQ(greedy.device_peak_memory[0], 6100);
  EXPECT_DOUBLE_EQ(greedy.step_time_us, 26);
}

// A chain of four elementwise ops, each reading and writing 1000 B: unfused 4 x (1 + 2)
// = 12 us; e2, e3 and e4 fused into e1 (e1 reads a source: nothing to fuse into) is one
// kernel reading 1000 B and writing 1000 B: 1 + 2 = 3 us, the optimum.
TEST(TaskHeadsTest, TheFusionHeadLearnsToFuseTheChain) {
  HeadToy toy;
  TensorId t = toy.g.Input("input", 1000);
  for (int i = 1; i <= 4; ++i) t = toy.g.Out(toy.g.Add("e" + std::to_string(i), OpKind::kRelu, {t}, {1000}, 0, 1000, 1000));
  toy.Finish(PaperCluster(1));
  ASSERT_DOUBLE_EQ(toy.sim->Simulate(Plan())->step_time_us, 12);
  EXPECT_GT(TrainGreedy(toy, "fusion", 0, 3).step_time_us, 3);  // untrained
  const SimResult greedy = TrainGreedy(toy, "fusion", 30, 3);
  EXPECT_DOUBLE_EQ(greedy.step_time_us, 3);
  EXPECT_EQ(greedy.num_kernels, 1);
}

}  // namespace
}  // namespace graphopt
