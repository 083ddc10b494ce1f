// Pre-training (rl/pretrain.h), zero-shot planning (rl/zero_shot.h) and a search that
// starts from a pre-trained policy (LearnedSearchConfig::pretrained), on graphs small
// enough to train in seconds.
#include "rl/pretrain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <utility>

#include "models/load.h"
#include "policy/go_policy.h"
#include "rl/learned_search.h"
#include "rl/zero_shot.h"
#include "rl_test_util.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

using testing::ScratchDir;

// Small members of three families (about 100 to 250 ops), wide enough that compute,
// not kernel launches, dominates: the devices' speeds matter.
const char* const kTinyRnnlm = "rnnlm:layers=1,steps=2,hidden=2048,batch=256,vocab=1000";
const char* const kTinyWavenet = "wavenet:stacks=1,layers=2,batch=16,length=8192,channels=256,skip=256,quantization=64";
const char* const kTinyTransformer =
    "transformer_xl:layers=1,batch=32,segment=128,memory=128,model=1024,heads=4,inner=4096,vocab=1000,segments=1";

PretrainConfig TinyPretrain(const std::string& dir, int64_t steps) {
  PretrainConfig c;
  c.stream.families = {};
  c.stream.models = {kTinyRnnlm, kTinyWavenet};
  c.stream.clusters = {"2xV100", "1xV100+1xP100"};
  c.steps_per_task = 3;
  c.max_steps = steps;
  c.time_limit_s = 0;
  c.policy = testing::PolicyConfig(testing::kSmallGoPolicy);
  c.ppo = testing::PpoOptions("samples=4");
  c.units_per_device = 2;
  c.threads = 1;
  c.seed = 1;
  c.checkpoint_dir = dir;
  c.checkpoint_every = 1;
  return c;
}

StatusOr<PretrainResult> Pretrain(const PretrainConfig& config, const std::string& out = "") {
  GO_ASSIGN_OR_RETURN(auto p, Pretrainer::Create(config));
  GO_ASSIGN_OR_RETURN(PretrainResult r, p->Run());
  if (!out.empty()) GO_RETURN_IF_ERROR(p->SavePolicy(out));
  return r;
}

void ExpectSamePolicies(const std::string& a, const std::string& b) {
  auto pa = LoadGoPolicy(a), pb = LoadGoPolicy(b);
  ASSERT_TRUE(pa.ok() && pb.ok());
  const auto x = (*pa)->named_parameters(), y = (*pb)->named_parameters();
  ASSERT_EQ(x.size(), y.size());
  for (const auto& item : x) EXPECT_TRUE(torch::equal(item.value(), y[item.key()])) << item.key();
}

// Interrupted in the middle of a task and at a task's end, then resumed: the same
// policy and task records as one uninterrupted run (one thread, so bit for bit). With
// a teacher too (its plan, a baseline's, joins the trainer as its first best plan).
// With two graphs per step, interrupted inside a round and at its end: likewise. With
// the teacher's levels sampled (a policy that schedules too): likewise.
void ExpectExactResume(bool teacher, int graphs = 1, bool sampled_levels = false) {
  SCOPED_TRACE(teacher ? "with a teacher" : "without a teacher");
  SCOPED_TRACE(std::to_string(graphs) + " graphs per step");
  SCOPED_TRACE(sampled_levels ? "the teacher's levels sampled" : "");
  auto config = [teacher, graphs, sampled_levels](const std::string& dir, int64_t steps) {
    PretrainConfig c = TinyPretrain(dir, steps);
    c.imitate_baselines = teacher;
    c.graphs_per_step = graphs;
    c.sample_teacher_levels = sampled_levels;
    if (sampled_levels) {
      c.policy = testing::PolicyConfig(std::string(testing::kSmallGoNetwork) + ",tasks=placement+scheduling,level_prior=0");
    }
    return c;
  };
  const ScratchDir whole_scratch("pretrain_whole"), parts_scratch("pretrain_parts");
  const std::string whole = whole_scratch.path(), parts = parts_scratch.path();
  auto a = Pretrain(config(whole, 8), whole + "/out.pt");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->tasks.size(), 3u * static_cast<size_t>(graphs));  // 3 + 3 + 2 steps
  EXPECT_EQ(a->graphs_per_step, graphs);
  for (size_t i = 0; i < a->tasks.size(); ++i) EXPECT_EQ(a->tasks[i].task.index, static_cast<int64_t>(i));
  EXPECT_EQ(a->stop_reason, "steps");
  for (int64_t stop : {4, 6, 8}) {  // inside task 1, at its end, then into task 2
    auto b = Pretrain(config(parts, stop), parts + "/out.pt");
    ASSERT_TRUE(b.ok()) << b.status().message();
    EXPECT_EQ(b->resumed, stop != 4);
    EXPECT_EQ(b->steps, stop);
  }
  auto b = Pretrain(config(parts, 8));
  ASSERT_TRUE(b.ok());
  ExpectSamePolicies(whole + "/out.pt", parts + "/out.pt");
  ASSERT_EQ(b->tasks.size(), a->tasks.size());
  for (size_t i = 0; i < a->tasks.size(); ++i) {
    EXPECT_EQ(b->tasks[i].task.model, a->tasks[i].task.model);
    EXPECT_EQ(b->tasks[i].task.cluster, a->tasks[i].task.cluster);
    EXPECT_EQ(b->tasks[i].steps, a->tasks[i].steps);
    EXPECT_EQ(b->tasks[i].first_batch_us, a->tasks[i].first_batch_us);
    EXPECT_EQ(b->tasks[i].last_batch_us, a->tasks[i].last_batch_us);
    EXPECT_EQ(b->tasks[i].best_us, a->tasks[i].best_us);
  }
  EXPECT_EQ(b->plans, a->plans);
}

TEST(PretrainTest, ResumesExactlyInsideATaskAndAtItsEnd) {
  ConfigureTorchThreads(1);
  ExpectExactResume(false);
  ExpectExactResume(true);
}

TEST(PretrainTest, TwoGraphsPerStepResumeExactly) {
  ConfigureTorchThreads(1);
  ExpectExactResume(true, 2);
}

// Two graphs per step train on both graphs' gradients: not the policy of one graph per
// step, and each step samples both tasks (twice the plans of one graph per step).
TEST(PretrainTest, TwoGraphsPerStepTrainOnBoth) {
  ConfigureTorchThreads(1);
  const ScratchDir one_scratch("pretrain_g1"), two_scratch("pretrain_g2");
  const std::string one = one_scratch.path(), two = two_scratch.path();
  PretrainConfig c1 = TinyPretrain(one, 3), c2 = TinyPretrain(two, 3);
  c1.graphs_per_step = 1;
  c2.graphs_per_step = 2;
  auto a = Pretrain(c1, one + "/out.pt");
  auto b = Pretrain(c2, two + "/out.pt");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b->plans, 2 * a->plans);
  ASSERT_EQ(b->tasks.size(), 2u);
  EXPECT_EQ(b->tasks[0].steps, 3);
  EXPECT_EQ(b->tasks[1].steps, 3);
  auto pa = LoadGoPolicy(one + "/out.pt"), pb = LoadGoPolicy(two + "/out.pt");
  ASSERT_TRUE(pa.ok() && pb.ok());
  bool differ = false;
  const auto x = (*pa)->named_parameters(), y = (*pb)->named_parameters();
  for (const auto& item : x) differ = differ || !torch::equal(item.value(), y[item.key()]);
  EXPECT_TRUE(differ);
  // A checkpoint of two graphs per step resumed with another count is refused.
  c1.max_steps = 5;
  c1.checkpoint_dir = two;
  auto other = Pretrain(c1);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("the checkpoint is for graphs_per_step \"2\", this run's is \"1\""),
            std::string::npos)
      << other.status().message();
}

// sample_teacher_levels says how a teacher is imitated: refused without one; a run with
// it resumes exactly, and its checkpoint is refused by a run without it.
TEST(PretrainTest, SampledTeacherLevelsNeedATeacherAndResumeExactly) {
  ConfigureTorchThreads(1);
  PretrainConfig alone = TinyPretrain("", 1);
  alone.sample_teacher_levels = true;
  auto refused = Pretrainer::Create(alone);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("needs imitate_baselines"), std::string::npos)
      << refused.status().message();
  ExpectExactResume(true, 1, true);
  const ScratchDir scratch("pretrain_sampled_levels");
  const std::string dir = scratch.path();
  PretrainConfig c = TinyPretrain(dir, 2);
  c.imitate_baselines = true;
  c.sample_teacher_levels = true;
  ASSERT_TRUE(Pretrain(c).ok());
  c.sample_teacher_levels = false;
  c.max_steps = 3;
  auto other = Pretrain(c);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("the checkpoint is for sample_teacher_levels \"1\", this run's is \"0\""),
            std::string::npos)
      << other.status().message();
}

TEST(PretrainTest, ACheckpointOfOtherOptionsOrWithoutItsStateIsRefused) {
  ConfigureTorchThreads(1);
  const ScratchDir scratch("pretrain_other");
  const std::string dir = scratch.path();
  ASSERT_TRUE(Pretrain(TinyPretrain(dir, 2)).ok());
  PretrainConfig other = TinyPretrain(dir, 4);
  other.steps_per_task = 5;
  auto r = Pretrain(other);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pretrain_state.json: the checkpoint is for steps_per_task"), std::string::npos)
      << r.status().message();
  std::remove((dir + "/pretrain_state.json").c_str());
  r = Pretrain(TinyPretrain(dir, 4));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pretrain_state.json"), std::string::npos) << r.status().message();
}

// --init: a run starts from a policy file's network and weights (not the config's),
// trains them on, reports where it started, and its checkpoint resumes only with the
// same file.
TEST(PretrainTest, StartsFromAPolicyFileAndResumesOnlyWithIt) {
  ConfigureTorchThreads(1);
  const ScratchDir scratch("pretrain_init");
  const std::string dir = scratch.path();
  ASSERT_TRUE(Pretrain(TinyPretrain("", 2), dir + "/start.pt").ok());
  auto start = Pretrainer::Create(TinyPretrain("", 2));
  ASSERT_TRUE(start.ok());
  const std::string fresh = (*start)->PolicyFingerprint();

  PretrainConfig c = TinyPretrain(dir + "/ckpt", 2);
  c.policy = GoPolicyConfig();  // the network is the file's
  c.init_policy = dir + "/start.pt";
  auto p = Pretrainer::Create(c);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::string initial = (*p)->PolicyFingerprint();
  EXPECT_NE(initial, fresh);  // trained two steps from the fresh network
  auto loaded = LoadGoPolicy(dir + "/start.pt");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ((*p)->policy_config().ToString(), (*loaded)->config().ToString());
  EXPECT_NE((*p)->policy_config().ToString(), GoPolicyConfig().ToString());
  auto r = (*p)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->init_fingerprint, initial);
  EXPECT_NE((*p)->PolicyFingerprint(), initial);
  const std::string report = PretrainReportJson(c, *r, (*p)->PolicyFingerprint());
  EXPECT_NE(report.find("\"init_fingerprint\": \"" + initial + "\""), std::string::npos) << report;

  // The network's options with a file: refused.
  PretrainConfig both = c;
  both.policy = testing::PolicyConfig(testing::kSmallGoPolicy);
  auto refused = Pretrainer::Create(both);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("the network is the file's"), std::string::npos)
      << refused.status().message();
  // Its checkpoint, resumed from a fresh network of the same options: refused.
  PretrainConfig without = TinyPretrain(dir + "/ckpt", 4);
  without.policy = (*loaded)->config();
  auto resumed = Pretrain(without);
  ASSERT_FALSE(resumed.ok());
  EXPECT_NE(resumed.status().message().find("the checkpoint is for init"), std::string::npos)
      << resumed.status().message();
  // With the file: resumes.
  PretrainConfig again = c;
  again.max_steps = 3;
  auto more = Pretrain(again);
  ASSERT_TRUE(more.ok()) << more.status().message();
  EXPECT_TRUE(more->resumed);
  EXPECT_EQ(more->steps, 3);
}

// Devices are inputs: pre-trained on graphs of two families on a fast and a slow GPU
// (in either order), the policy plans a graph of a third family, in one greedy pass,
// as well as everything on the fast GPU (the K40 is 15x slower than the H100 here),
// and better than the untrained network it started from.
TEST(PretrainTest, APretrainedPolicyPlansAnUnseenGraphBetterThanAnUntrainedOne) {
  ConfigureTorchThreads(1);
  const ScratchDir scratch("pretrain_transfer");
  const std::string dir = scratch.path();
  PretrainConfig c = TinyPretrain("", 60);
  c.stream.clusters = {"1xH100+1xK40", "1xK40+1xH100"};
  c.steps_per_task = 10;
  c.ppo = testing::PpoOptions("samples=8");
  c.units_per_device = 4;
  auto r = Pretrain(c, dir + "/trained.pt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The network the run started from (Pretrainer: policy seed = seed + 1).
  GoPolicyConfig initial = c.policy;
  initial.seed = c.seed + 1;
  GoPolicy untrained(initial);
  ASSERT_TRUE(SaveGoPolicy(untrained, dir + "/untrained.pt").ok());

  auto graph = LoadModel(kTinyTransformer);
  ASSERT_TRUE(graph.ok());
  auto sim = Simulator::Create(*graph, *LoadCluster("1xK40+1xH100"));
  ASSERT_TRUE(sim.ok());
  ZeroShotOptions greedy;
  greedy.samples = 0;
  greedy.coupled_samples = 0;
  greedy.single_device_plans = 0;
  greedy.budgeted_plans = 0;
  greedy.units_per_device = c.units_per_device;
  greedy.threads = 1;
  auto trained = ZeroShotPlan(*sim, dir + "/trained.pt", greedy);
  auto before = ZeroShotPlan(*sim, dir + "/untrained.pt", greedy);
  ASSERT_TRUE(trained.ok()) << trained.status().message();
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_TRUE(trained->from_greedy);
  const Plan fast_only = [&] {
    Plan p;
    p.device.assign(static_cast<size_t>(graph->num_ops()), 1);  // everything on the H100
    return p;
  }();
  const double all_fast = sim->Simulate(fast_only)->step_time_us;
  EXPECT_LT(trained->score.step_time_us, before->score.step_time_us);
  EXPECT_LT(trained->score.step_time_us, 1.02 * all_fast)
      << "untrained " << before->score.step_time_us << " us, everything on the H100 " << all_fast << " us";
}

// With a teacher, the fastest baseline plan of a task joins its first batch (one more
// plan simulated than the samples), and the run's identity records it.
TEST(PretrainTest, WithATeacherTheBestBaselinePlanJoinsTheFirstBatch) {
  ConfigureTorchThreads(1);
  PretrainConfig c = TinyPretrain("", 1);
  c.stream.models = {kTinyRnnlm};
  c.stream.clusters = {"1xK40+1xH100"};
  auto alone = Pretrain(c);
  c.imitate_baselines = true;
  auto taught = Pretrain(c);
  ASSERT_TRUE(alone.ok() && taught.ok());
  EXPECT_EQ(alone->plans, 4);  // samples=4, no best plan yet
  EXPECT_EQ(taught->plans, 5);
  const ScratchDir scratch("pretrain_teacher");
  const std::string dir = scratch.path();
  c.checkpoint_dir = dir;
  ASSERT_TRUE(Pretrain(c).ok());
  c.imitate_baselines = false;
  c.max_steps = 2;
  auto resumed = Pretrain(c);
  ASSERT_FALSE(resumed.ok());
  EXPECT_NE(resumed.status().message().find("the checkpoint is for imitate_baselines \"1\", this run's is \"0\""),
            std::string::npos)
      << resumed.status().message();
}

TEST(ZeroShotTest, RefusesACorruptOrForeignPolicyFile) {
  testing::ChainsToy toy;
  const ScratchDir scratch("zero_shot_bad");
  const std::string dir = scratch.path();
  std::ofstream(dir + "/garbage.pt") << "not a policy";
  auto r = ZeroShotPlan(toy.sim, dir + "/garbage.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(dir + "/garbage.pt"), std::string::npos) << r.status().message();
  {  // a policy file of another feature version
    torch::serialize::OutputArchive archive;
    archive.write("graphopt_format", c10::IValue(std::string("graphopt-go-policy")));
    archive.write("graphopt_version", c10::IValue(int64_t{2}));
    archive.write("graphopt_feature_version", c10::IValue(int64_t{kFeatureVersion + 1}));
    archive.save_to(dir + "/future.pt");
  }
  r = ZeroShotPlan(toy.sim, dir + "/future.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("feature version"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(dir + "/future.pt"), std::string::npos);
}

// The policy alone for `steps` steps from the pre-trained policy in `file`.
LearnedSearchConfig PretrainedSearch(const std::string& file, int64_t steps) {
  LearnedSearchConfig c = testing::ToySearch("", steps);
  c.policy.reset();
  c.pretrained.file = file;
  c.ingredients.baselines = false;
  c.ingredients.warm_start = false;
  return c;
}

// The result of a search on `sim` with `c` (a failure fails the test).
LearnedSearchResult RunSearch(const Simulator& sim, const LearnedSearchConfig& c) {
  auto search = LearnedSearch::Create(sim, c);
  EXPECT_TRUE(search.ok()) << search.status().message();
  if (!search.ok()) return LearnedSearchResult();
  auto r = (*search)->Run();
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LearnedSearchResult();
}

// `c` (c.max_steps steps) interrupted one step before its end and resumed from a
// checkpoint in `dir` ends at `whole`, the uninterrupted run's plan.
void ExpectResumedSearchEndsAt(const Simulator& sim, LearnedSearchConfig c, const std::string& dir,
                               const LearnedSearchResult& whole) {
  c.checkpoints.dir = dir;
  const int64_t steps = c.budget.max_steps;
  c.budget.max_steps = steps - 1;
  RunSearch(sim, c);
  c.budget.max_steps = steps;
  const LearnedSearchResult resumed = RunSearch(sim, c);
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.plan.priority, whole.plan.priority);
  EXPECT_EQ(resumed.plan.device, whole.plan.device);
  EXPECT_EQ(resumed.plans_simulated, whole.plans_simulated);
}

// Runs of the same config and seed: the same plan.
void ExpectSamePlan(const LearnedSearchResult& a, const LearnedSearchResult& b) {
  EXPECT_EQ(a.plan.priority, b.plan.priority);
  EXPECT_EQ(a.plan.device, b.plan.device);
  EXPECT_EQ(a.score.step_time_us, b.score.step_time_us);
}

// `c` with the option `*option` (named `key`) on, interrupted one step before its end
// and resumed from `dir`, ends at `whole`; a run without the option refuses that
// checkpoint, naming the option.
void ExpectOptionResumesAndOwnsItsCheckpoint(const Simulator& sim, LearnedSearchConfig c,
                                             const std::function<bool&(LearnedSearchConfig&)>& option,
                                             const std::string& key,
                                             const std::string& dir, const LearnedSearchResult& whole) {
  option(c) = true;
  ExpectResumedSearchEndsAt(sim, c, dir, whole);
  option(c) = false;
  c.checkpoints.dir = dir;
  c.budget.max_steps += 1;
  auto refused = LearnedSearch::Create(sim, c);
  const Status status = refused.ok() ? (*refused)->Run().status() : refused.status();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(key), std::string::npos) << status.message();
}

// A search from a pre-trained policy starts from the policy's zero-shot plan (a plan
// of the policy: the policy alone may use it) and keeps the file's network.
TEST(LearnedSearchPretrainedTest, StartsFromTheZeroShotPlanAndKeepsTheFilesNetwork) {
  ConfigureTorchThreads(1);
  testing::ChainsToy toy;
  const ScratchDir scratch("search_pretrained");
  const std::string dir = scratch.path();
  GoPolicyConfig pc = *GoPolicyConfig::FromString(testing::kSmallGoPolicy);
  GoPolicy policy(pc);
  ASSERT_TRUE(SaveGoPolicy(policy, dir + "/policy.pt").ok());
  LearnedSearchConfig c = PretrainedSearch(dir + "/policy.pt", 2);
  auto search = LearnedSearch::Create(toy.sim, c);
  ASSERT_TRUE(search.ok()) << search.status().message();
  auto r = (*search)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->trace.empty());
  EXPECT_EQ(r->trace.front().source, "zero-shot");
  EXPECT_TRUE(r->zero_shot_score.scored());
  EXPECT_LE(r->score.step_time_us, r->zero_shot_score.step_time_us);
  for (const ConvergencePoint& p : r->trace) EXPECT_TRUE(p.source == "zero-shot" || p.source == "policy") << p.source;

  c.policy = testing::PolicyConfig("hidden=32");
  auto conflicting = LearnedSearch::Create(toy.sim, c);
  ASSERT_FALSE(conflicting.ok());
  EXPECT_NE(conflicting.status().message().find("cannot be combined with a pre-trained policy"), std::string::npos);
  c.policy.reset();
  c.pretrained.file = dir + "/missing.pt";
  auto missing = LearnedSearch::Create(toy.sim, c);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(dir + "/missing.pt"), std::string::npos);
}

// fresh_priority: the pre-trained policy's scheduling head, here certain of level 0,
// samples no other level in training without it and does with it; the zero-shot plan
// is the file's either way, and the same seed gives the same plan.
TEST(LearnedSearchPretrainedTest, FreshPriorityRestartsTheSchedulingHeadAfterTheZeroShotPlan) {
  ConfigureTorchThreads(1);
  testing::ChainsToy toy;
  const ScratchDir scratch("search_fresh_priority");
  const std::string dir = scratch.path();
  GoPolicy policy(*GoPolicyConfig::FromString(testing::kSmallGoNetwork));
  {
    torch::NoGradGuard no_grad;
    policy->named_parameters()["priority_out.bias"][0].add_(100.0);
  }
  ASSERT_TRUE(SaveGoPolicy(policy, dir + "/policy.pt").ok());
  LearnedSearchConfig c = PretrainedSearch(dir + "/policy.pt", 3);
  auto run = [&](bool fresh) {
    c.pretrained.fresh_priority = fresh;
    return RunSearch(toy.sim, c);
  };
  const LearnedSearchResult kept = run(false), fresh = run(true), again = run(true);
  EXPECT_EQ(kept.explore_distance.steps, 3);
  EXPECT_EQ(kept.explore_distance.levels, 0.0);
  EXPECT_GT(fresh.explore_distance.levels, 0.0);
  EXPECT_EQ(fresh.zero_shot_score.step_time_us, kept.zero_shot_score.step_time_us);
  ExpectSamePlan(fresh, again);
  // Interrupted after 2 steps and resumed (the restarted layer comes back from the
  // checkpoint, not drawn again): the uninterrupted run's plan. A checkpoint of the
  // option is refused without it.
  ExpectOptionResumesAndOwnsItsCheckpoint(
      toy.sim, c, [](LearnedSearchConfig& x) -> bool& { return x.pretrained.fresh_priority; }, "fresh_priority",
                                          dir + "/ckpt", fresh);
}

// sample_offered_levels: the zero-shot plan the trainer imitates has no levels of its
// own. Without the option the warm start teaches level 0 for every op, and the samples
// that follow put (almost) every op there; with it, placement and fusion are imitated
// and the samples keep the policy's levels. The zero-shot plan is the same; the same
// seed gives the same plan, and a run interrupted and resumed the uninterrupted one's.
TEST(LearnedSearchPretrainedTest, SampledOfferedLevelsKeepThePolicysSchedulesThroughTheWarmStart) {
  ConfigureTorchThreads(1);
  testing::ChainsToy toy;
  const ScratchDir scratch("search_sampled_levels");
  const std::string dir = scratch.path();
  GoPolicy untrained(*GoPolicyConfig::FromString(std::string(testing::kSmallGoNetwork) + ",level_prior=0"));
  ASSERT_TRUE(SaveGoPolicy(untrained, dir + "/policy.pt").ok());
  LearnedSearchConfig c = PretrainedSearch(dir + "/policy.pt", 3);
  c.ingredients.warm_start = true;
  c.ingredients.explore = 0;  // imitation from the start
  auto run = [&](bool sampled) {
    c.sampling.sample_offered_levels = sampled;
    return RunSearch(toy.sim, c);
  };
  const LearnedSearchResult level0 = run(false), sampled = run(true), again = run(true);
  if (std::getenv("GRAPHOPT_TEST_VERBOSE")) {
    std::printf("levels off: %.3f level 0, %.3f sampled\n", level0.imitate_distance.levels, sampled.imitate_distance.levels);
  }
  EXPECT_EQ(sampled.imitate_distance.steps, 3);
  EXPECT_LT(level0.imitate_distance.levels, 0.05);
  EXPECT_GT(sampled.imitate_distance.levels, 0.2);
  EXPECT_EQ(sampled.zero_shot_score.step_time_us, level0.zero_shot_score.step_time_us);
  ExpectSamePlan(sampled, again);
  c.sampling.sample_offered_levels = true;
  ExpectResumedSearchEndsAt(toy.sim, c, dir + "/ckpt", sampled);
}

// frozen_start: the exploring steps from a pre-trained policy train its heads alone
// (and a logit per unit), the trunk as the file has it; without it, the whole network.
// The same seed gives the same plan, and a run interrupted and resumed the
// uninterrupted one's; a checkpoint of the option is refused without it.
TEST(LearnedSearchPretrainedTest, FrozenStartTrainsTheHeadsAloneFromTheFirstStep) {
  ConfigureTorchThreads(1);
  testing::ChainsToy toy;
  const ScratchDir scratch("search_frozen_start");
  const std::string dir = scratch.path();
  GoPolicy pretrained(*GoPolicyConfig::FromString(testing::kSmallGoNetwork));
  ASSERT_TRUE(SaveGoPolicy(pretrained, dir + "/policy.pt").ok());
  LearnedSearchConfig c = PretrainedSearch(dir + "/policy.pt", 3);
  c.ppo = testing::PpoOptions("unit_bias=1");
  // Trunk and head parameters of the policy the run's checkpoint holds that differ
  // from the file's.
  auto run = [&](bool frozen, const std::string& ckpt) {
    c.pretrained.frozen_start = frozen;
    c.checkpoints.dir = ckpt;
    const LearnedSearchResult r = RunSearch(toy.sim, c);
    EXPECT_EQ(r.explore_distance.steps, 3);
    auto trained = LoadGoPolicy(ckpt + "/policy.pt");
    EXPECT_TRUE(trained.ok()) << trained.status().message();
    std::pair<int, int> changed{0, 0};
    if (!trained.ok()) return std::make_pair(r, changed);
    const std::vector<torch::Tensor> heads = (*trained)->HeadParameters();
    auto original = pretrained->named_parameters();
    for (const auto& item : (*trained)->named_parameters()) {
      const bool head = std::any_of(heads.begin(), heads.end(), [&](const torch::Tensor& h) { return h.is_same(item.value()); });
      if (!torch::equal(original[item.key()], item.value())) ++(head ? changed.second : changed.first);
    }
    return std::make_pair(r, changed);
  };
  const auto [whole, whole_changed] = run(false, dir + "/whole");
  const auto [frozen, frozen_changed] = run(true, dir + "/frozen");
  const auto [again, again_changed] = run(true, dir + "/again");
  EXPECT_GT(whole_changed.first, 0);
  EXPECT_EQ(frozen_changed.first, 0);
  EXPECT_GT(frozen_changed.second, 0);
  EXPECT_EQ(frozen.zero_shot_score.step_time_us, whole.zero_shot_score.step_time_us);
  ExpectSamePlan(frozen, again);
  ExpectOptionResumesAndOwnsItsCheckpoint(
      toy.sim, c, [](LearnedSearchConfig& x) -> bool& { return x.pretrained.frozen_start; }, "frozen_start", dir + "/ckpt",
                                          frozen);
}

}  // namespace
}  // namespace graphopt
