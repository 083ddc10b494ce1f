// A checkpoint folder and the one schema of its state files (rl/checkpoint.h): the
// header every state carries, the checks a resume makes, and the folder's tidying.
#include "rl/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "../testing/status.h"
#include "baselines/baseline.h"
#include "core/files.h"
#include "core/version.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::ExpectErrorWith;
using testing::ScratchDir;
using Toy = testing::ChainsToy;

CheckpointIdentity Config(const std::string& config) { return CheckpointIdentity().Add("config", config); }

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(CheckpointStoreTest, StateCarriesTheHeaderAndReadsBack) {
  const ScratchDir scratch("store");
  const CheckpointStore store(scratch.path() + "/run");  // created by the write
  ASSERT_TRUE(store.Write("ppo_state.json", "ppo", Config("lr=0.001"), {{"step", 3}}).ok());
  auto text = ReadFile(store.Path("ppo_state.json"));
  ASSERT_TRUE(text.ok());
  const nlohmann::json j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["format"], "graphopt-checkpoint");
  EXPECT_EQ(j["version"], CheckpointStore::kVersion);
  EXPECT_EQ(j["part"], "ppo");
  EXPECT_EQ(j["identity"]["config"], "lr=0.001");
  EXPECT_EQ(j["identity"]["graphopt_version"], GraphoptVersion());

  auto read = store.Read("ppo_state.json", "ppo", Config("lr=0.001"));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ((*read)["step"], 3);
  ExpectErrorWith(store.Read("ppo_state.json", "ppo", Config("lr=0.01")).status(),
                  "ppo_state.json: the checkpoint is for config \"lr=0.001\", this run's is \"lr=0.01\"");
  ExpectErrorWith(store.Read("ppo_state.json", "hdp", Config("lr=0.001")).status(),
                  "ppo_state.json: the state of ppo, not of hdp");
  const Status missing = store.Read("hdp_state.json", "hdp", Config("lr=0.001")).status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  ExpectErrorWith(missing, store.Path("hdp_state.json") + " is missing");
}

TEST(CheckpointStoreTest, OtherVersionsAndEarlierFormatsAreRefusedClearly) {
  const ScratchDir scratch("versions");
  const CheckpointStore store(scratch.path());
  const CheckpointIdentity id = Config("a=1");
  // A state file of the per-part formats graphopt wrote before this schema.
  WriteText(store.Path("state.json"), R"({"format": "graphopt-go-search", "version": 3, "steps": 4})");
  const Status earlier = store.Read("state.json", "search", id).status();
  EXPECT_EQ(earlier.code(), StatusCode::kFailedPrecondition);
  ExpectErrorWith(earlier,
                  "state.json: a checkpoint of an earlier graphopt (\"graphopt-go-search\" version 3); "
                  "this graphopt reads \"graphopt-checkpoint\" version 1: resume it with the graphopt that "
                  "wrote it, or remove the folder to start afresh");
  WriteText(store.Path("state.json"), R"({"format": "graphopt-checkpoint", "version": 2, "part": "search"})");
  ExpectErrorWith(store.Read("state.json", "search", id).status(),
                  "state.json: checkpoint version 2; this graphopt reads version 1");
  WriteText(store.Path("state.json"), R"({"format": "graphopt-checkpoint", "version": "1"})");
  ExpectErrorWith(store.Read("state.json", "search", id).status(), "\"version\" must be an integer");
  WriteText(store.Path("state.json"), R"({"format": "other-tool"})");
  ExpectErrorWith(store.Read("state.json", "search", id).status(), "not a graphopt checkpoint");
  WriteText(store.Path("state.json"), "[1, 2]");
  ExpectErrorWith(store.Read("state.json", "search", id).status(), "expected a JSON object");
  WriteText(store.Path("state.json"), R"({"format": "graphopt-checkpoint", "version": 1, "part": "search"})");
  ExpectErrorWith(store.Read("state.json", "search", id).status(), "identity");
  WriteText(store.Path("state.json"), "{\"format\": ");
  EXPECT_EQ(store.Read("state.json", "search", id).status().code(), StatusCode::kParseError);
}

TEST(CheckpointStoreTest, OpenStartsAfreshOrResumes) {
  const ScratchDir scratch("open");
  const CheckpointStore store(scratch.path() + "/new");
  auto fresh = store.Open("state.json", "search", Config("a=1"), {"best_plan.json"});
  ASSERT_TRUE(fresh.ok()) << fresh.status().message();
  EXPECT_FALSE(fresh->has_value());
  EXPECT_TRUE(IsDirectory(store.dir()));  // created, and found writable
  ASSERT_TRUE(store.Write("state.json", "search", Config("a=1"), {{"steps", 2}}).ok());
  auto resumed = store.Open("state.json", "search", Config("a=1"), {"best_plan.json"});
  ASSERT_TRUE(resumed.ok() && resumed->has_value());
  EXPECT_EQ((**resumed)["steps"], 2);
  ExpectErrorWith(store.Open("state.json", "search", Config("a=2"), {}).status(), "the checkpoint is for config");
}

TEST(CheckpointStoreTest, StaleTemporariesAreRemovedOwnAndOthersKept) {
  const ScratchDir scratch("stale");
  const CheckpointStore store(scratch.path());
  const std::string own = "c.json.tmp." + std::to_string(::getpid());
  for (const char* f : {"a.json.tmp.12345", "b.pt.tmp", own.c_str(), "d.json", "e.tmpl", "f.tmp.x1"}) {
    WriteText(store.Path(f), "x");
  }
  EXPECT_EQ(store.RemoveStaleTemporaries(), 2);
  EXPECT_FALSE(FileExists(store.Path("a.json.tmp.12345")));
  EXPECT_FALSE(FileExists(store.Path("b.pt.tmp")));
  EXPECT_TRUE(FileExists(store.Path(own)));  // a save of this process may be under way
  EXPECT_TRUE(FileExists(store.Path("d.json")));
  EXPECT_TRUE(FileExists(store.Path("e.tmpl")));
  EXPECT_TRUE(FileExists(store.Path("f.tmp.x1")));
  EXPECT_EQ(CheckpointStore(scratch.path() + "/no-such-folder").RemoveStaleTemporaries(), 0);
  // Open tidies the folder first.
  WriteText(store.Path("g.json.tmp.99999"), "x");
  ASSERT_TRUE(store.Open("state.json", "search", Config(""), {}).ok());
  EXPECT_FALSE(FileExists(store.Path("g.json.tmp.99999")));
}

TEST(CheckpointStoreTest, OrphanFilesAndMissingFilesAreRefused) {
  const ScratchDir scratch("orphans");
  const CheckpointStore store(scratch.path());
  const std::string dir = scratch.path();
  EXPECT_TRUE(store.RefuseOrphans("state.json", {"policy.pt"}).ok());  // an empty folder: a fresh run
  WriteText(store.Path("policy.pt"), "x");
  ExpectErrorWith(store.RefuseOrphans("state.json", {"best_plan.json", "policy.pt"}),
                  dir + "/state.json is missing but " + dir + "/policy.pt exists");
  ExpectErrorWith(store.Open("state.json", "search", Config(""), {"policy.pt"}).status(),
                  "the checkpoint is incomplete");
  WriteText(store.Path("state.json"), "{}");
  EXPECT_TRUE(store.RefuseOrphans("state.json", {"policy.pt"}).ok());

  EXPECT_TRUE(store.Require({"policy.pt", "state.json"}, "why").ok());
  const Status missing = store.Require({"policy.pt", "optimizer.pt"}, "the state says so");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  ExpectErrorWith(missing, dir + "/optimizer.pt is missing: the state says so");
}

TEST(CheckpointStoreTest, PlansAreReSimulatedOnRead) {
  Toy toy;
  const ScratchDir scratch("plans");
  const CheckpointStore store(scratch.path());
  const Plan plan = SingleDevicePlan(toy.graph, toy.cluster);
  const PlanScore truth = PlanScore::Of(*toy.sim.Simulate(plan));
  ASSERT_TRUE(store.WritePlan("best_plan.json", toy.graph, plan).ok());
  Plan read;
  auto score = store.ReadPlan("best_plan.json", toy.sim, truth, "the state records it", &read);
  ASSERT_TRUE(score.ok()) << score.status().message();
  EXPECT_EQ(score->step_time_us, truth.step_time_us);
  EXPECT_EQ(read.device, plan.device);
  PlanScore flattering = truth;
  flattering.step_time_us /= 2;
  ExpectErrorWith(store.ReadPlan("best_plan.json", toy.sim, flattering, "why", &read).status(),
                  "best_plan.json: the checkpoint records this plan as");
  ExpectErrorWith(store.ReadPlan("units_plan.json", toy.sim, truth, "the state records a split", &read).status(),
                  "units_plan.json is missing: the state records a split");
}

}  // namespace
}  // namespace graphopt
