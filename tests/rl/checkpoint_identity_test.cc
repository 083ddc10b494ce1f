// What a checkpoint belongs to and how a resume checks its plans
// (rl/checkpoint_identity.h), on the two-chains toy whose plans are simple enough to
// score by hand.
#include "rl/checkpoint_identity.h"

#include <gtest/gtest.h>

#include "../testing/status.h"
#include "baselines/baseline.h"
#include "core/version.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::ExpectErrorWith;
using testing::TwoChains;
using Toy = testing::ChainsToy;

TEST(CheckpointIdentityTest, RecordsAndVerifiesWhatTheCheckpointBelongsTo) {
  Toy toy;
  const CheckpointIdentity id = CheckpointIdentity::Of(toy.sim, "go", "lr=0.001", 7);
  EXPECT_EQ(id.Get("graph"), "two-chains");
  EXPECT_EQ(id.Get("num_ops"), std::to_string(toy.graph.num_ops()));
  EXPECT_EQ(id.Get("graphopt_version"), std::string(GraphoptVersion()));
  EXPECT_EQ(id.Get("seed"), "7");  // a string: JSON readers may hold numbers as doubles
  EXPECT_TRUE(id.ToJson()["seed"].is_string());
  EXPECT_TRUE(id.Verify(id.ToJson(), "state.json").ok());

  // The same graph name and op count, other costs: only the fingerprint tells.
  Graph longer = TwoChains(7);
  auto longer_sim = Simulator::Create(longer, toy.cluster, testing::PerfectCostModel());
  ASSERT_TRUE(longer_sim.ok());
  ExpectErrorWith(CheckpointIdentity::Of(*longer_sim, "go", "lr=0.001", 7).Verify(id.ToJson(), "state.json"),
                  "state.json: the checkpoint is for num_ops");
  nlohmann::json edited = id.ToJson();
  edited["graph_fingerprint"] = "0123456789abcdef";
  ExpectErrorWith(id.Verify(edited, "state.json"), "graph_fingerprint \"0123456789abcdef\"");
  ExpectErrorWith(id.Verify(edited, "state.json"), "the graph changed under the same name");

  const CheckpointIdentity seed8 = CheckpointIdentity::Of(toy.sim, "go", "lr=0.001", 8);
  ExpectErrorWith(seed8.Verify(id.ToJson(), "state.json"), "the checkpoint is for seed \"7\", this run's is \"8\"");
  ExpectErrorWith(CheckpointIdentity::Of(toy.sim, "hdp", "lr=0.001", 7).Verify(id.ToJson(), "s.json"), "method \"go\"");
  ExpectErrorWith(CheckpointIdentity::Of(toy.sim, "go", "a=1,lr=0.01;b", 7)
                      .Verify(CheckpointIdentity::Of(toy.sim, "go", "a=1,lr=0.001;b", 7).ToJson(), "s.json"),
                  "s.json: the checkpoint is for another config: lr=0.001 in the checkpoint, lr=0.01 in this run");
  nlohmann::json old = id.ToJson();
  old["graphopt_version"] = "0.0.9";
  ExpectErrorWith(id.Verify(old, "s.json"), "s.json: written by graphopt 0.0.9, this is graphopt");
  old["graphopt_version"] = GraphoptVersion();
  old.erase("cluster");
  ExpectErrorWith(id.Verify(old, "s.json"), "s.json: identity.cluster is missing");
  ExpectErrorWith(id.Verify(nlohmann::json::array(), "s.json"), "s.json: \"identity\" must be an object");
}

bool OnSecondChain(const std::string& op_name) { return op_name.rfind("c1_", 0) == 0 || op_name.rfind("in1", 0) == 0; }

TEST(CheckpointTest, PlanIsReSimulatedNotTrusted) {
  Toy toy;
  // One chain per device: 6 * 101 us on the paper machine (rl_test_util.h).
  Plan split = SingleDevicePlan(toy.graph, toy.cluster);
  for (int op = 0; op < toy.graph.num_ops(); ++op) {
    split.device[static_cast<size_t>(op)] = OnSecondChain(toy.graph.op(op).name) ? 1 : 0;
  }
  const PlanScore truth = PlanScore::Of(*toy.sim.Simulate(split));
  ASSERT_NEAR(truth.step_time_us, testing::TwoChainsOptimumUs(6), 3.0);
  auto ok = VerifyCheckpointPlan(toy.sim, split, truth, "best_plan.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->step_time_us, truth.step_time_us);

  PlanScore flattering = truth;
  flattering.step_time_us = truth.step_time_us / 2;
  ExpectErrorWith(VerifyCheckpointPlan(toy.sim, split, flattering, "best_plan.json").status(),
                  "best_plan.json: the checkpoint records this plan as");
  PlanScore never;
  ExpectErrorWith(VerifyCheckpointPlan(toy.sim, split, never, "best_plan.json").status(), "simulates to");

  Plan far = split;
  far.device[0] = 99;
  ExpectErrorWith(VerifyCheckpointPlan(toy.sim, far, truth, "best_plan.json").status(),
                  "best_plan.json: the checkpoint's plan is not valid");
}

TEST(CheckpointIdentityTest, FieldsOfOtherPartsAreComparedInOrder) {
  CheckpointIdentity ours;
  ours.Add("stream", "families=gnmt;max_ops=900").Add("steps_per_task", "8");
  EXPECT_EQ(ours.ToJson().size(), 3u);  // graphopt_version first, always
  EXPECT_TRUE(ours.Verify(ours.ToJson(), "p.json").ok());
  CheckpointIdentity theirs;
  theirs.Add("stream", "families=gnmt;max_ops=500").Add("steps_per_task", "4");
  ExpectErrorWith(
      ours.Verify(theirs.ToJson(), "p.json"),
      "p.json: the checkpoint is for another stream: max_ops=500 in the checkpoint, max_ops=900 in this run");
  CheckpointIdentity fewer_steps;
  fewer_steps.Add("stream", "families=gnmt;max_ops=900").Add("steps_per_task", "4");
  ExpectErrorWith(ours.Verify(fewer_steps.ToJson(), "p.json"),
                  "p.json: the checkpoint is for steps_per_task \"4\", this run's is \"8\"");
  nlohmann::json number = ours.ToJson();
  number["steps_per_task"] = 8;
  ExpectErrorWith(ours.Verify(number, "p.json"), "p.json: identity.steps_per_task");
}

}  // namespace
}  // namespace graphopt
