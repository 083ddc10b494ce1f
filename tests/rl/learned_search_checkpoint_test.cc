// A GO search resumed from a checkpoint that was altered, damaged or is incomplete:
// each case is an error naming the file (rl/checkpoint.h), never a silent restart or
// a trusted number.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "../testing/status.h"
#include "baselines/baseline.h"
#include "core/files.h"
#include "rl/learned_search.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::ExpectErrorWith;
using testing::ScratchDir;
using testing::ToySearch;
using Toy = testing::ChainsToy;

// `scratch`'s folder, now holding the checkpoint of a 2-step toy search.
std::string Checkpointed(const Toy& toy, const ScratchDir& scratch) {
  const std::string dir = scratch.path();
  auto search = LearnedSearch::Create(toy.sim, ToySearch(dir, 2));
  EXPECT_TRUE(search.ok()) << search.status().message();
  auto r = (*search)->Run();
  EXPECT_TRUE(r.ok()) << r.status().message();
  return dir;
}

Status Resume(const Toy& toy, const LearnedSearchConfig& config) {
  auto search = LearnedSearch::Create(toy.sim, config);
  if (!search.ok()) return search.status();
  auto r = (*search)->Run();
  return r.ok() ? Status::Ok() : r.status();
}

void EditJson(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(*ReadFile(path));
  edit(j);
  ASSERT_TRUE(WriteFileAtomic(path, j.dump()).ok());
}

TEST(LearnedSearchCheckpointTest, AnIntactCheckpointResumes) {
  Toy toy;
  const ScratchDir scratch("intact");
  const std::string dir = Checkpointed(toy, scratch);
  EXPECT_TRUE(Resume(toy, ToySearch(dir, 3)).ok());
}

TEST(LearnedSearchCheckpointTest, ABestPlanIsReSimulatedNotTrusted) {
  Toy toy;
  const ScratchDir scratch("best_plan");
  const std::string dir = Checkpointed(toy, scratch);
  // A slower plan put in place of the best: the recorded score no longer holds.
  ASSERT_TRUE(WritePlanJson(toy.graph, SingleDevicePlan(toy.graph, toy.cluster), dir + "/best_plan.json").ok());
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), dir + "/best_plan.json: the checkpoint records this plan as");
  // A device the cluster does not have.
  Plan far = SingleDevicePlan(toy.graph, toy.cluster);
  far.device[0] = 99;
  ASSERT_TRUE(WritePlanJson(toy.graph, far, dir + "/best_plan.json").ok());
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), dir + "/best_plan.json: the checkpoint's plan is not valid");
}

TEST(LearnedSearchCheckpointTest, TheTopPlansAreKeptAndReSimulated) {
  Toy toy;
  const ScratchDir scratch("top_plans");
  const std::string dir = scratch.path();
  LearnedSearchConfig config = ToySearch(dir, 2);
  config.keep_plans = 3;
  auto first = LearnedSearch::Create(toy.sim, config);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto before = (*first)->Run();
  ASSERT_TRUE(before.ok()) << before.status().message();
  ASSERT_GE(before->top_plans.size(), 2u);  // the baselines place the toy's ops differently
  EXPECT_LE(before->top_plans.size(), 3u);
  EXPECT_EQ(before->top_plans.front().plan.device, before->plan.device);
  for (size_t i = 1; i < before->top_plans.size(); ++i) {
    EXPECT_FALSE(before->top_plans[i].score.BetterThan(before->top_plans[i - 1].score));
    EXPECT_NE(before->top_plans[i].plan.device, before->top_plans[0].plan.device);
  }
  // The baselines' plans, one per placement, best first, whatever the top plans kept.
  ASSERT_GE(before->baseline_plans.size(), 2u);
  for (size_t i = 1; i < before->baseline_plans.size(); ++i) {
    EXPECT_FALSE(before->baseline_plans[i].score.BetterThan(before->baseline_plans[i - 1].score));
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(before->baseline_plans[i].plan.device, before->baseline_plans[j].plan.device);
  }
  // Resumed with no step left to take: the top plans are the checkpoint's.
  auto resumed = LearnedSearch::Create(toy.sim, config);
  ASSERT_TRUE(resumed.ok());
  auto after = (*resumed)->Run();
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(after->resumed);
  ASSERT_EQ(after->top_plans.size(), before->top_plans.size());
  for (size_t i = 0; i < after->top_plans.size(); ++i) {
    EXPECT_EQ(after->top_plans[i].plan.device, before->top_plans[i].plan.device);
    EXPECT_EQ(after->top_plans[i].source, before->top_plans[i].source);
  }
  // A resumed run makes the baselines' plans again, the same.
  ASSERT_EQ(after->baseline_plans.size(), before->baseline_plans.size());
  for (size_t i = 0; i < after->baseline_plans.size(); ++i) {
    EXPECT_EQ(after->baseline_plans[i].plan.device, before->baseline_plans[i].plan.device);
    EXPECT_EQ(after->baseline_plans[i].source, before->baseline_plans[i].source);
  }
  // A checkpoint written without top plans: the resumed run's top plans hold its best.
  const ScratchDir plain_scratch("top_plans_later");
  LearnedSearchConfig plain = ToySearch(plain_scratch.path(), 2);
  auto without = LearnedSearch::Create(toy.sim, plain);
  ASSERT_TRUE(without.ok());
  auto found = (*without)->Run();
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_TRUE(found->top_plans.empty());
  EXPECT_TRUE(found->baseline_plans.empty());
  plain.keep_plans = 3;
  auto later = LearnedSearch::Create(toy.sim, plain);
  ASSERT_TRUE(later.ok());
  auto resumed_later = (*later)->Run();
  ASSERT_TRUE(resumed_later.ok()) << resumed_later.status().message();
  ASSERT_FALSE(resumed_later->top_plans.empty());
  EXPECT_EQ(resumed_later->top_plans.front().plan.device, found->plan.device);
  // A top plan put in place of another does not simulate to its recorded score.
  ASSERT_TRUE(WritePlanJson(toy.graph, before->plan, dir + "/top_plan_" +
                                                         std::to_string(before->top_plans.size() - 1) + ".json")
                  .ok());
  auto bad = LearnedSearch::Create(toy.sim, config);
  ASSERT_TRUE(bad.ok());
  ExpectErrorWith((*bad)->Run().status(), "top_plan_");
}

TEST(LearnedSearchCheckpointTest, ImpossibleOrOutOfRangeStateValuesAreErrors) {
  Toy toy;
  const ScratchDir scratch("ranges");
  const std::string dir = Checkpointed(toy, scratch);
  const std::string state = dir + "/state.json";
  const std::string saved = *ReadFile(state);
  auto restore = [&] { ASSERT_TRUE(WriteFileAtomic(state, saved).ok()); };
  EditJson(state, [](nlohmann::json& j) { j["best"]["step_time_us"] = 0; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), "state.json: best.step_time_us: 0");
  restore();
  EditJson(state, [](nlohmann::json& j) { j["steps"] = -5; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), "state.json: steps: -5 is out of range");
  restore();
  EditJson(state, [](nlohmann::json& j) { j["seconds"] = 1e300; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), "state.json: seconds: 1e+300 is out of range");
  restore();
  EditJson(state, [](nlohmann::json& j) { j["plans_simulated"] = "many"; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), "state.json: plans_simulated: must be an integer");
  restore();
  EditJson(state, [](nlohmann::json& j) { j["identity"]["seed"] = "3"; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), "state.json: the checkpoint is for seed \"3\", this run's is \"2\"");
  restore();
  // Another seed, or other decisions, for this run: the checkpoint is not its own.
  LearnedSearchConfig other_seed = ToySearch(dir, 4);
  other_seed.seed = 5;
  ExpectErrorWith(Resume(toy, other_seed), "the checkpoint is for seed \"2\", this run's is \"5\"");
  LearnedSearchConfig other_ppo = ToySearch(dir, 4);
  other_ppo.ppo = testing::PpoOptions("samples=4,epochs=2");
  ExpectErrorWith(
      Resume(toy, other_ppo),
      "state.json: the checkpoint is for another config: ppo=samples=8 in the checkpoint, ppo=samples=4 in this run");
  // The trainer's own state is checked the same way.
  EditJson(dir + "/ppo_state.json",
           [](nlohmann::json& j) { j["best"]["step_time_us"] = j["best"]["step_time_us"].get<double>() / 2; });
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), dir + "/ppo_best_plan.json: the checkpoint records this plan");
}

TEST(LearnedSearchCheckpointTest, MissingFilesAreErrorsNotSilentRestarts) {
  Toy toy;
  const ScratchDir scratch("missing");
  const std::string dir = Checkpointed(toy, scratch);
  std::filesystem::remove(dir + "/optimizer.pt");
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), dir + "/optimizer.pt is missing");
  // Without its state the folder is not a fresh one: the policy would be overwritten.
  std::filesystem::remove(dir + "/state.json");
  const std::string policy_before = *ReadFile(dir + "/policy.pt");
  ExpectErrorWith(Resume(toy, ToySearch(dir, 4)), dir + "/state.json is missing but " + dir + "/best_plan.json exists");
  EXPECT_EQ(*ReadFile(dir + "/policy.pt"), policy_before);
}

TEST(LearnedSearchCheckpointTest, ATruncatedOptimizerStateIsBlamedOnItsFile) {
  Toy toy;
  const ScratchDir scratch("truncated");
  const std::string dir = Checkpointed(toy, scratch);
  const std::string path = dir + "/optimizer.pt";
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const Status s = Resume(toy, ToySearch(dir, 4));
  ExpectErrorWith(s, path + ": not a readable archive");
  EXPECT_EQ(s.message().find("ppo_state.json"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("Exception raised from"), std::string::npos) << s.message();  // no backtrace
}

TEST(LearnedSearchCheckpointTest, StaleTemporariesAreRemovedOnResume) {
  Toy toy;
  const ScratchDir scratch("stale");
  const std::string dir = Checkpointed(toy, scratch);
  std::ofstream(dir + "/state.json.tmp.99999") << "{\"half";
  std::ofstream(dir + "/optimizer.pt.tmp") << "half";
  ASSERT_TRUE(Resume(toy, ToySearch(dir, 3)).ok());
  EXPECT_FALSE(FileExists(dir + "/state.json.tmp.99999"));
  EXPECT_FALSE(FileExists(dir + "/optimizer.pt.tmp"));
}

TEST(LearnedSearchCheckpointTest, AnUnwritableFolderFailsBeforeTheFirstStep) {
  Toy toy;
  const Status s = Resume(toy, ToySearch("/nonexistent-graphopt-parent/checkpoint", 1000000));
  ExpectErrorWith(s, "--checkpoint");
  ExpectErrorWith(s, "/nonexistent-graphopt-parent");
}

}  // namespace
}  // namespace graphopt
