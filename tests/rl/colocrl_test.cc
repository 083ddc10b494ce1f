#include "rl/colocrl.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "policy/go_policy.h"
#include "rl/hdp_config.h"
#include "rl/learned_search.h"
#include "rl/methods.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

// `n` independent ops of 100 us: on 2 identical devices the optimum puts n / 2 on each.
Graph IndependentOps(int n) {
  PaperGraph g("independent");
  for (int i = 0; i < n; ++i) g.Compute("op" + std::to_string(i), {}, 100, 400 * (i + 1));
  return std::move(g.graph());
}

struct Toy {
  explicit Toy(int n = 8) : Toy(IndependentOps(n), PaperCluster(2)) {}
  Toy(Graph g, Cluster c) : graph(std::move(g)), cluster(std::move(c)) {}
  Graph graph;
  Cluster cluster;
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
  PolicyInput input = *BuildPolicyInput(graph, cluster, sim.cost_model());
  BatchSimulator batch{sim, 1};

  // The even split: the first half of the ops (and their inputs) on device 0.
  double OptimumUs() const {
    Plan plan = DefaultPlan(graph, 0);
    for (OpId op = 0; op < graph.num_ops(); ++op)
      plan.device[static_cast<size_t>(op)] = op < graph.num_ops() / 2 ? 0 : 1;
    return sim.Simulate(plan)->step_time_us;
  }
};

constexpr const char* kSmall = "hidden=32,attention_size=16,type_embedding=8";

std::unique_ptr<ColocRlTrainer> MakeTrainer(Toy& toy, uint64_t seed, const std::string& options = kSmall) {
  auto trainer = ColocRlTrainer::Create(toy.sim, &toy.batch, toy.input, *ColocRlConfig::FromString(options), seed);
  GO_CHECK_MSG(trainer.ok(), trainer.status().message());
  (*trainer)->set_reference_us(toy.OptimumUs());
  return std::move(*trainer);
}

void ExpectSameParameters(torch::nn::Module& a, torch::nn::Module& b) {
  auto pb = b.named_parameters();
  for (const auto& item : a.named_parameters()) EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
}

TEST(ColocRlTest, ConfigRoundTripAndOverrides) {
  const ColocRlConfig defaults;
  auto parsed = ColocRlConfig::FromString(defaults.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->ToString(), defaults.ToString());
  auto c = ColocRlConfig::FromString("samples=4,lr=0.5,attention=additive,bidirectional=1,max_groups=12");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->samples_per_step, 4);
  EXPECT_EQ(c->lr, 0.5);
  EXPECT_EQ(c->attention, "additive");
  EXPECT_TRUE(c->bidirectional);
  EXPECT_EQ(c->max_groups, 12);
}

TEST(ColocRlTest, BadOptionsNameTheKey) {
  for (const std::string text : {"bogus=1", "lr=abc", "samples=0", "attention=cosine", "bidirectional=2", "reward=log",
                                 "max_groups=-3", "oom_step_factor=0.5", "lr=nan"}) {
    auto c = ColocRlConfig::FromString(text);
    ASSERT_FALSE(c.ok()) << text;
    const std::string key = text.substr(0, text.find('='));
    EXPECT_NE(c.status().message().find(key == "samples" ? "samples" : key), std::string::npos) << c.status().message();
  }
}

TEST(ColocRlTest, GroupsAreTheUnitsWhenFewEnough) {
  Toy toy(4);
  int groups = 0;
  const std::vector<int32_t> g = ColocRlGroups(toy.input, 100, &groups);
  EXPECT_EQ(groups, toy.input.num_units);
  for (int u = 0; u < toy.input.num_units; ++u) EXPECT_EQ(g[static_cast<size_t>(u)], u);
}

TEST(ColocRlTest, ManyUnitsAreChunkedInUnitOrder) {
  Toy toy(20);
  int groups = 0;
  const std::vector<int32_t> g = ColocRlGroups(toy.input, 3, &groups);
  EXPECT_EQ(groups, 3);
  EXPECT_EQ(g.front(), 0);
  EXPECT_EQ(g.back(), groups - 1);
  std::vector<int> size(static_cast<size_t>(groups), 0);
  for (size_t u = 0; u < g.size(); ++u) {
    if (u > 0) {
      EXPECT_LE(g[u - 1], g[u]) << "unit " << u;
    }
    ++size[static_cast<size_t>(g[u])];
  }
  for (int s : size) EXPECT_GE(s, 6);
}

TEST(ColocRlTest, GroupFeaturesHaveTheDocumentedLayout) {
  // A chain in -> a -> b: three units, two edges.
  PaperGraph pg("chain");
  pg.Compute("b", {pg.Compute("a", {pg.Input("in", 400)}, 100, 400)}, 100, 400);
  Graph graph = std::move(pg.graph());
  Cluster cluster = PaperCluster(2);
  PolicyInput input = *BuildPolicyInput(graph, cluster, PerfectCostModel());
  const std::vector<int32_t> group_of_node = {0, 1, 2};
  const torch::Tensor f = GroupFeatures(input, OpShapeFeatures(graph, input), group_of_node, 3);
  ASSERT_EQ(f.sizes(), (std::vector<int64_t>{3, kGroupFixedFeatures + 6}));
  for (int g = 0; g < 3; ++g) EXPECT_FLOAT_EQ(f[g].narrow(0, 0, kNumKindIndices).sum().item<float>(), 1.0f);
  // Shapes: one output of 100 elements.
  EXPECT_NEAR(f[1][kNumKindIndices].item<float>(), std::log1p(100.0) / 10, 1e-6);
  EXPECT_FLOAT_EQ(f[1][kNumKindIndices + 1].item<float>(), 0.0f);
  // Adjacency: node 1 gets an edge from node 0 and sends one to node 2.
  EXPECT_FLOAT_EQ(f[1][kGroupFixedFeatures + 2].item<float>(), 1.0f);      // out to 2
  EXPECT_FLOAT_EQ(f[1][kGroupFixedFeatures + 3 + 0].item<float>(), 1.0f);  // in from 0
  EXPECT_FLOAT_EQ(f[1][kGroupFixedFeatures + 0].item<float>(), 0.0f);
}

TEST(ColocRlTest, TrainerShapes) {
  Toy toy(6);
  auto trainer = MakeTrainer(toy, 1, std::string(kSmall) + ",max_groups=5");
  EXPECT_EQ(trainer->num_groups(), 5);
  EXPECT_EQ(trainer->group_features().sizes(), (std::vector<int64_t>{5, kGroupFixedFeatures + 10}));
  const torch::Tensor inputs = trainer->model()->Inputs(trainer->group_features());
  EXPECT_EQ(inputs.sizes(), (std::vector<int64_t>{1, 5, 8 + kShapeFeatures + 1 + 10}));
  const TrainerStepStats s = trainer->Step();
  EXPECT_EQ(s.step, 1);
  EXPECT_EQ(trainer->plans_simulated(), 8);
  EXPECT_TRUE(trainer->best_score().fits());
  EXPECT_TRUE(ValidatePlan(toy.graph, toy.cluster, trainer->best_plan()).ok());
  EXPECT_GT(s.entropy, 0.0);
  EXPECT_LE(s.entropy, std::log(2.0) + 1e-6);
}

// REINFORCE on 6 independent ops on 2 identical devices: the trainer must find the
// even split and the policy must learn it (its greedy plan). The uniform policy is
// a stationary point here (swapping the devices changes nothing), so the decoder has
// to learn from its feedback of the previous device to alternate.
TEST(ColocRlTest, LearnsToSplitIndependentOpsEvenly) {
  ConfigureTorchThreads(1);
  Toy toy(6);
  const double optimum = toy.OptimumUs();
  auto trainer = MakeTrainer(toy, 5);
  double first = 0, last = 0;
  auto mean_step = [&](const TrainerStepStats& s) {
    const double r = -s.mean_reward;  // sqrt(step / optimum), OOM-free here
    return r * r * optimum;
  };
  constexpr int kSteps = 60;
  for (int i = 0; i < kSteps; ++i) {
    const TrainerStepStats s = trainer->Step();
    if (i < 5) first += mean_step(s) / 5;
    if (i >= kSteps - 5) last += mean_step(s) / 5;
    if (std::getenv("GRAPHOPT_TEST_VERBOSE")) {
      std::printf("step %d mean %.1f best %.1f entropy %.3f\n", i, mean_step(s), s.best_step_us_in_batch, s.entropy);
    }
  }
  EXPECT_LT(trainer->best_score().step_time_us, 1.03 * optimum);
  EXPECT_LT(last, first - 0.5 * (first - optimum)) << "first " << first << " last " << last << " optimum " << optimum;
  EXPECT_LT(toy.sim.Simulate(trainer->GreedyPlan())->step_time_us, 1.03 * optimum);
}

// A chain of 6 ops on a slow and a fast device: the policy must learn to use the fast one.
TEST(ColocRlTest, LearnsToUseTheFastDevice) {
  ConfigureTorchThreads(1);
  Toy toy(testing::TwoChains(3), testing::SlowAndFastCluster());
  const double optimum = 2 * testing::TwoChainsOptimumUs(3);
  auto trainer = MakeTrainer(toy, 3);
  trainer->set_reference_us(optimum);
  double first = 0, last = 0;
  for (int i = 0; i < 40; ++i) {
    const TrainerStepStats s = trainer->Step();
    if (i < 5) first += s.mean_reward / 5;
    if (i >= 35) last += s.mean_reward / 5;
    if (std::getenv("GRAPHOPT_TEST_VERBOSE")) {
      std::printf("step %d reward %.3f best %.1f entropy %.3f\n", i, s.mean_reward, s.best_step_us_in_batch, s.entropy);
    }
  }
  EXPECT_GT(last, first);
  EXPECT_LT(toy.sim.Simulate(trainer->GreedyPlan())->step_time_us, 1.05 * optimum);
}

TEST(ColocRlTest, SameSeedSameRun) {
  ConfigureTorchThreads(1);
  Toy toy(6);
  auto a = MakeTrainer(toy, 11);
  auto b = MakeTrainer(toy, 11);
  for (int i = 0; i < 3; ++i) {
    const TrainerStepStats sa = a->Step();
    const TrainerStepStats sb = b->Step();
    EXPECT_EQ(sa.mean_reward, sb.mean_reward);
    EXPECT_EQ(sa.loss, sb.loss);
  }
  EXPECT_EQ(a->best_plan().device, b->best_plan().device);
  ExpectSameParameters(*a->model(), *b->model());
  auto c = MakeTrainer(toy, 12);
  c->Step();
  EXPECT_FALSE(torch::equal(c->model()->named_parameters()["placer.out.weight"],
                            a->model()->named_parameters()["placer.out.weight"]));
}

TEST(ColocRlTest, CheckpointRoundTripContinuesExactly) {
  ConfigureTorchThreads(1);
  Toy toy(6);
  const testing::ScratchDir scratch("colocrl_roundtrip");
  const std::string dir = scratch.path();
  auto a = MakeTrainer(toy, 3);
  a->Step();
  a->Step();
  ASSERT_TRUE(a->SaveCheckpoint(dir).ok());
  auto b = MakeTrainer(toy, 3);
  b->set_reference_us(1);  // restored from the checkpoint
  const Status loaded = b->LoadCheckpoint(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(b->step(), 2);
  EXPECT_EQ(b->reference_us(), a->reference_us());
  EXPECT_EQ(b->best_plan().device, a->best_plan().device);
  EXPECT_EQ(b->best_score().step_time_us, a->best_score().step_time_us);
  const TrainerStepStats sa = a->Step();
  const TrainerStepStats sb = b->Step();
  EXPECT_EQ(sa.mean_reward, sb.mean_reward);
  EXPECT_EQ(sa.loss, sb.loss);
  ExpectSameParameters(*a->model(), *b->model());
}

// tasks=placement: every plan it scores runs in ready order with the default fusion
// (as a placement table scores it), its checkpoint's best plan rebuilt the same way;
// the published default keeps the critical-path priorities.
TEST(ColocRlTest, PlacementAloneTakesTheFrameworksDefaults) {
  ConfigureTorchThreads(1);
  Toy toy(6);
  auto plain = MakeTrainer(toy, 3);
  plain->Step();
  EXPECT_NE(plain->best_plan().priority, std::vector<double>(plain->best_plan().priority.size(), 0.0));
  const std::string options = std::string(kSmall) + ",tasks=placement";
  auto a = MakeTrainer(toy, 3, options);
  a->Step();
  a->Step();
  EXPECT_EQ(a->best_plan().priority, std::vector<double>(a->best_plan().priority.size(), 0.0));
  Plan fused = a->best_plan();
  ApplyDefaultFusion(toy.graph, &fused);
  EXPECT_EQ(a->best_plan().fuse_with_producer, fused.fuse_with_producer);
  const testing::ScratchDir scratch("colocrl_placement_alone");
  ASSERT_TRUE(a->SaveCheckpoint(scratch.path()).ok());
  auto b = MakeTrainer(toy, 3, options);
  const Status loaded = b->LoadCheckpoint(scratch.path());
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(b->best_plan().priority, a->best_plan().priority);
  EXPECT_EQ(b->best_score().step_time_us, a->best_score().step_time_us);
  EXPECT_FALSE(ColocRlConfig::FromString("tasks=scheduling").ok());
}

TEST(ColocRlTest, LoadFailsClearly) {
  Toy toy(4);
  auto trainer = MakeTrainer(toy, 1);
  const Status missing = trainer->LoadCheckpoint("/nonexistent/graphopt");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("colocrl_state.json"), std::string::npos) << missing.message();

  const testing::ScratchDir scratch("colocrl_mismatch");
  const std::string dir = scratch.path();
  ASSERT_TRUE(trainer->SaveCheckpoint(dir).ok());
  auto other = MakeTrainer(toy, 1, std::string(kSmall) + ",lr=0.5");
  const Status config = other->LoadCheckpoint(dir);
  EXPECT_EQ(config.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(config.message().find("config"), std::string::npos) << config.message();

  std::FILE* f = std::fopen((dir + "/colocrl_policy.pt").c_str(), "w");
  std::fputs("not an archive", f);
  std::fclose(f);
  const Status corrupt = trainer->LoadCheckpoint(dir);
  EXPECT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.message().find("colocrl_policy.pt"), std::string::npos) << corrupt.message();
}

TEST(ColocRlTest, IgnoresOfferedPlans) {
  Toy toy(4);
  auto trainer = MakeTrainer(toy, 1);
  const Plan plan = DefaultPlan(toy.graph, 0);
  const PlanScore score = PlanScore::Of(*toy.sim.Simulate(plan));
  EXPECT_FALSE(trainer->OfferPlan(plan, score));
  EXPECT_FALSE(trainer->best_score().scored());
}

// The options of `method`, parsed over its defaults.
StatusOr<LearnedSearchConfig> MethodOptions(const std::string& method, const std::string& options) {
  GO_ASSIGN_OR_RETURN(LearnedSearchConfig c, DefaultSearchConfig(method));
  return ParseLearnedSearchOptions(options, c);
}

TEST(ColocRlMethodsTest, ValidateAndCreateByName) {
  EXPECT_TRUE(MethodOptions("colocrl", "samples=4").ok());
  EXPECT_TRUE(MethodOptions("hdp", "placements=2").ok());
  EXPECT_TRUE(MethodOptions("go", "").ok());
  const Status bad_key = MethodOptions("colocrl", "bogus=1").status();
  EXPECT_NE(bad_key.message().find("bogus"), std::string::npos) << bad_key.message();
  const Status bad_value = MethodOptions("hdp", "lr=-1").status();
  EXPECT_NE(bad_value.message().find("lr"), std::string::npos) << bad_value.message();
  const Status unknown = MethodOptions("placeto", "").status();
  EXPECT_NE(unknown.message().find("placeto"), std::string::npos);
  EXPECT_NE(unknown.message().find("colocrl"), std::string::npos) << unknown.message();

  Toy toy(4);
  for (const std::string method : {"colocrl", "hdp"}) {
    auto c = MethodOptions(method, "hidden=16");
    ASSERT_TRUE(c.ok()) << c.status().message();
    c->seed = 1;
    auto t = CreateMethodTrainer(*c, toy.sim, &toy.batch, toy.input);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ((*t)->method(), method);
  }
  EXPECT_FALSE(MethodOptions("colocrl", "hidden=x").ok());
  // A config of another method's type, or of the GO policy (the driver's), is refused.
  LearnedSearchConfig swapped = *MethodOptions("colocrl", "");
  swapped.method_config = HdpConfig{};
  const Status wrong = CreateMethodTrainer(swapped, toy.sim, &toy.batch, toy.input).status();
  EXPECT_NE(wrong.message().find("not colocrl's"), std::string::npos) << wrong.message();
  EXPECT_FALSE(CreateMethodTrainer(*MethodOptions("go", ""), toy.sim, &toy.batch, toy.input).ok());
}

}  // namespace
}  // namespace graphopt
