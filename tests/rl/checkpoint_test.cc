// What a checkpoint belongs to and the checks a resume makes (rl/checkpoint.h), on
// the two-chains toy whose plans are simple enough to score by hand.
#include "rl/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "baselines/baseline.h"
#include "core/files.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::ScratchDir;
using testing::TwoChains;
using Toy = testing::ChainsToy;

void ExpectErrorWith(const Status& s, const std::string& fragment) {
  ASSERT_FALSE(s.ok()) << "expected an error with: " << fragment;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(CheckpointIdentityTest, RecordsAndVerifiesWhatTheCheckpointBelongsTo) {
  Toy toy;
  const CheckpointIdentity id = CheckpointIdentity::Of(toy.sim, "go", "lr=0.001", 7);
  EXPECT_EQ(id.graph, "two-chains");
  EXPECT_EQ(id.num_ops, toy.graph.num_ops());
  EXPECT_EQ(id.version, std::string(GraphoptVersion()));
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
  ExpectErrorWith(CheckpointIdentity::Of(toy.sim, "go", "a=1,lr=0.01;b", 7).Verify(
                      CheckpointIdentity::Of(toy.sim, "go", "a=1,lr=0.001;b", 7).ToJson(), "s.json"),
                  "s.json: the checkpoint is for another config: lr=0.001 in the checkpoint, lr=0.01 in this run");
  nlohmann::json old = id.ToJson();
  old["graphopt_version"] = "0.0.9";
  ExpectErrorWith(id.Verify(old, "s.json"), "s.json: written by graphopt 0.0.9, this is graphopt");
  old["graphopt_version"] = GraphoptVersion();
  old.erase("cluster");
  ExpectErrorWith(id.Verify(old, "s.json"), "s.json: identity.cluster is missing");
  ExpectErrorWith(id.Verify(nlohmann::json::array(), "s.json"), "s.json: \"identity\" must be an object");
}

bool OnSecondChain(const std::string& op_name) {
  return op_name.rfind("c1_", 0) == 0 || op_name.rfind("in1", 0) == 0;
}

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

TEST(CheckpointTest, StaleTemporariesAreRemovedOwnAndOthersKept) {
  const ScratchDir scratch("stale");
  const std::string dir = scratch.path();
  const std::string own = "c.json.tmp." + std::to_string(::getpid());
  for (const char* f : {"a.json.tmp.12345", "b.pt.tmp", own.c_str(), "d.json", "e.tmpl", "f.tmp.x1"}) {
    std::ofstream(dir + "/" + f) << "x";
  }
  EXPECT_EQ(RemoveStaleTemporaries(dir), 2);
  EXPECT_FALSE(FileExists(dir + "/a.json.tmp.12345"));
  EXPECT_FALSE(FileExists(dir + "/b.pt.tmp"));
  EXPECT_TRUE(FileExists(dir + "/" + own));  // a save of this process may be under way
  EXPECT_TRUE(FileExists(dir + "/d.json"));
  EXPECT_TRUE(FileExists(dir + "/e.tmpl"));
  EXPECT_TRUE(FileExists(dir + "/f.tmp.x1"));
  EXPECT_EQ(RemoveStaleTemporaries(dir + "/no-such-folder"), 0);
}

TEST(CheckpointTest, OrphanFilesAndMissingFilesAreRefused) {
  const ScratchDir scratch("orphans");
  const std::string dir = scratch.path();
  EXPECT_TRUE(RefuseOrphanCheckpointFiles(dir, "state.json", {"policy.pt"}).ok());  // an empty folder: a fresh run
  std::ofstream(dir + "/policy.pt") << "x";
  ExpectErrorWith(RefuseOrphanCheckpointFiles(dir, "state.json", {"best_plan.json", "policy.pt"}),
                  dir + "/state.json is missing but " + dir + "/policy.pt exists");
  std::ofstream(dir + "/state.json") << "{}";
  EXPECT_TRUE(RefuseOrphanCheckpointFiles(dir, "state.json", {"policy.pt"}).ok());

  EXPECT_TRUE(RequireCheckpointFiles(dir, {"policy.pt", "state.json"}, "why").ok());
  const Status missing = RequireCheckpointFiles(dir, {"policy.pt", "optimizer.pt"}, "the state says so");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  ExpectErrorWith(missing, dir + "/optimizer.pt is missing: the state says so");
}

}  // namespace
}  // namespace graphopt
