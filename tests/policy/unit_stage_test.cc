// Tests of the units' stage (policy/features.h, kUnitStageFeature) and of the
// network's map of it (GoPolicyConfig::unit_stage): on an unrolled recurrent net the
// units of every layer sit at the same topological position, and the stage is what
// orders the layers.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "graph/builder.h"
#include "graph/training.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "policy/units.h"
#include "policy_fixture.h"
#include "policy_test_util.h"
#include "sim/cost_model.h"

namespace graphopt {
namespace {

// Three tanh-RNN layers unrolled over six steps, built time step by time step (so
// the topological order runs across every layer at each step), a training step.
Graph UnrolledRnn() {
  GraphBuilder b("rnn");
  constexpr int kLayers = 3, kSteps = 6;
  std::vector<int32_t> layers;
  for (int l = 0; l < kLayers; ++l) layers.push_back(b.BeginLayer("rnn" + std::to_string(l)));
  std::vector<TensorId> weights, state;
  for (int l = 0; l < kLayers; ++l) {
    b.SetLayer(layers[static_cast<size_t>(l)]);
    weights.push_back(b.Variable("w" + std::to_string(l), {32, 32}));
    state.push_back(b.Input("h" + std::to_string(l), {8, 32}));
  }
  TensorId last = kNoId;
  for (int t = 0; t < kSteps; ++t) {
    b.SetLayer(layers[0]);
    TensorId below = b.Input("x" + std::to_string(t), {8, 32});
    for (int l = 0; l < kLayers; ++l) {
      b.SetLayer(layers[static_cast<size_t>(l)]);
      const size_t k = static_cast<size_t>(l);
      state[k] = b.Tanh(b.Add(b.MatMul(state[k], weights[k]), below));
      below = state[k];
    }
    last = below;
  }
  b.Reduce(OpKind::kReduceSum, last, {0, 1}, false);
  auto g = BuildTrainingGraph(b.Finish());
  if (!g.ok()) std::abort();
  return std::move(*g);
}

const float* Stage(const PolicyInput& in, int unit) {
  return &in.unit_features[static_cast<size_t>(unit) * kNumUnitFeatures + kUnitStageFeature];
}

TEST(UnitStageTest, LayerUnitsOfAnUnrolledRnnTakeTheirLayersRank) {
  const Graph g = UnrolledRnn();
  PolicyInputOptions options;
  options.max_units = 6;
  options.layer_units = kLayerUnitsAlways;
  auto in = BuildPolicyInput(g, testing::GpuCluster(3), CostModel(), options);
  ASSERT_TRUE(in.ok()) << in.status().message();
  const std::vector<int32_t> op_layer = UnitLayers(g);
  std::map<int, int> units_of_layer;
  for (int u = 0; u < in->num_units; ++u) {
    const int node = in->unit_nodes[static_cast<size_t>(in->unit_offsets[static_cast<size_t>(u)])];
    const int32_t layer = op_layer[static_cast<size_t>(in->order[static_cast<size_t>(node)])];
    ASSERT_GE(layer, 0);
    ++units_of_layer[layer];
    const float* s = Stage(*in, u);
    const double expected = layer / 2.0;  // ranks 0, 1, 2 of three layers
    EXPECT_NEAR(s[0], expected, 1e-6) << "unit " << u;
    EXPECT_NEAR(s[1], 1.0, 1e-6) << "every op carries a layer";
    for (int k = 0; k < kNumUnitStageFrequencies; ++k) {
      EXPECT_NEAR(s[2 + 2 * k], std::sin(M_PI * (k + 1) * expected), 1e-5);
      EXPECT_NEAR(s[3 + 2 * k], std::cos(M_PI * (k + 1) * expected), 1e-5);
    }
  }
  EXPECT_EQ(units_of_layer.size(), 3u);
}

TEST(UnitStageTest, WithoutLayersTheStageIsTheForwardOpsDepth) {
  const Graph g = testing::MlpTrainingGraph(4);
  PolicyInputOptions options;
  options.max_units = 4;
  auto in = BuildPolicyInput(g, testing::GpuCluster(2), CostModel(), options);
  ASSERT_TRUE(in.ok()) << in.status().message();
  double lowest = 1, highest = 0;
  for (int u = 0; u < in->num_units; ++u) {
    const float* s = Stage(*in, u);
    EXPECT_GE(s[0], 0.0f);
    EXPECT_LE(s[0], 1.0f);
    EXPECT_EQ(s[1], 0.0f) << "no op carries a layer";
    lowest = std::min(lowest, static_cast<double>(s[0]));
    highest = std::max(highest, static_cast<double>(s[0]));
  }
  EXPECT_GT(highest - lowest, 0.1) << "the units lie at different depths";
}

GoPolicyConfig PlacementConfig(bool unit_stage) {
  GoPolicyConfig c = testing::TinyPolicyConfig(5);
  c.tasks = kTaskPlacement;
  c.unit_stage = unit_stage;
  return c;
}

// The map starts at zero and its parameters come last: an untrained network decides
// as one without it does, and only learning moves it.
TEST(UnitStageTest, AnUntrainedNetworkDecidesAsOneWithoutTheStage) {
  PolicyInputOptions options;
  options.max_units = 6;
  options.layer_units = kLayerUnitsAlways;
  const testing::PolicyFixture f = testing::MakePolicyFixture(UnrolledRnn(), testing::GpuCluster(3), options);
  GoPolicy with(PlacementConfig(true)), without(PlacementConfig(false));
  torch::NoGradGuard no_grad;
  const torch::Tensor a = with->forward(f.tensors).placement_logits;
  const torch::Tensor b = without->forward(f.tensors).placement_logits;
  EXPECT_TRUE(torch::allclose(a, b)) << a << b;
}

// Units made alike in all but their stage (the trunk's states zeroed, every unit
// given the first unit's other features): with the stage the heads learn to give
// each layer its own device, without it every unit gets one distribution.
TEST(UnitStageTest, TheStageLetsTheHeadsGiveEachLayerItsDevice) {
  PolicyInputOptions options;
  options.max_units = 6;
  options.layer_units = kLayerUnitsAlways;
  testing::PolicyFixture f = testing::MakePolicyFixture(UnrolledRnn(), testing::GpuCluster(3), options);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor first = f.tensors.unit_features.narrow(1, 0, kUnitStageFeature).narrow(0, 0, 1).clone();
    f.tensors.unit_features.narrow(1, 0, kUnitStageFeature)
        .copy_(first.expand({f.input.num_units, kUnitStageFeature}));
  }
  Actions target = DefaultActions(f.input);
  for (int u = 0; u < f.input.num_units; ++u) {
    target.unit_device[static_cast<size_t>(u)] = static_cast<DeviceId>(std::lround(Stage(f.input, u)[0] * 2));
  }
  auto imitated = [&](GoPolicy& policy) {
    PolicyOutput trunk;
    {
      torch::NoGradGuard no_grad;
      trunk = policy->forward(f.tensors);
      trunk.node_states.zero_();
    }
    torch::optim::Adam adam(policy->HeadParameters(), torch::optim::AdamOptions(0.05));
    double prob = 0;
    for (int i = 0; i <= 200; ++i) {
      const Evaluation e = policy->Evaluate(f.tensors, policy->Heads(f.tensors, trunk), {target});
      prob = e.LeastTaskProbability();
      if (i == 200) break;
      adam.zero_grad();
      (-e.TaskMeanLogProb().mean()).backward();
      adam.step();
    }
    return prob;
  };
  GoPolicy with(PlacementConfig(true)), without(PlacementConfig(false));
  EXPECT_GT(imitated(with), 0.97);
  EXPECT_LT(imitated(without), 0.5);
}

TEST(UnitStageTest, SavedConfigsWithoutTheKeyLoadWithItOff) {
  std::string text = PlacementConfig(false).ToString();
  const std::string key = ",unit_stage=0";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text;
  text.erase(at, key.size());
  auto saved = GoPolicyConfig::FromSavedString(text);
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_FALSE(saved->unit_stage);
  EXPECT_TRUE(GoPolicyConfig::FromString(text + ",unit_stage=1")->unit_stage);
  EXPECT_TRUE(GoPolicyConfig::FromSavedString(PlacementConfig(true).ToString())->unit_stage);
}

}  // namespace
}  // namespace graphopt
