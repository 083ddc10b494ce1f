// Tests of the two inputs that let the GO policy imitate a plan: the placement keys'
// device index (GoPolicyConfig::device_index_key), with which units can prefer one of
// several identical devices even when the device MLP gives them all the same
// embedding, and a unit's device in the plan its units were split by
// (GoPolicyConfig::unit_plan_device), with which the halves of a part the plan puts
// on two devices can be told apart. Policies saved before these keys load without
// them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "policy/actions.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "policy_fixture.h"
#include "policy_test_util.h"
#include "sim/cost_model.h"

namespace graphopt {
namespace {

GoPolicyConfig TinyConfig(bool device_index_key, bool unit_plan_device = true) {
  GoPolicyConfig c = testing::TinyPolicyConfig(5);
  c.tasks = kTaskPlacement;
  c.device_index_key = device_index_key;
  c.unit_plan_device = unit_plan_device;
  return c;
}

// A device MLP that has dropped every feature: the output layer's weights are zero,
// so every device's embedding is its bias (as the 4 V100s of the policy pre-trained
// before this key were, to within 1e-4).
void CollapseDeviceEmbeddings(GoPolicy& policy) {
  torch::NoGradGuard no_grad;
  for (auto& p : policy->named_parameters()) {
    if (p.key() == "device_mlp2.weight") p.value().zero_();
  }
}

// The mean probability per unit of `target` after `steps` Adam steps on the heads
// alone, the trunk computed once without gradient (as the warm start does); with
// blind_trunk, its op states zeroed (they then tell no unit from another).
double ImitatedProbability(GoPolicy& policy, const testing::PolicyFixture& f, const Actions& target, int steps,
                           bool blind_trunk = false) {
  PolicyOutput trunk;
  {
    torch::NoGradGuard no_grad;
    trunk = policy->forward(f.tensors);
    if (blind_trunk) trunk.node_states.zero_();
  }
  torch::optim::Adam adam(policy->HeadParameters(), torch::optim::AdamOptions(0.05));
  double prob = 0;
  for (int i = 0; i <= steps; ++i) {
    const Evaluation e = policy->Evaluate(f.tensors, policy->Heads(f.tensors, trunk), {target});
    prob = e.LeastTaskProbability();
    if (i == steps) break;
    adam.zero_grad();
    (-e.TaskMeanLogProb().mean()).backward();
    adam.step();
  }
  return prob;
}

TEST(ImitationInputsTest, UnitsTellIdenticalDevicesApartOnlyWithTheIndexKey) {
  const testing::PolicyFixture f = testing::MakePolicyFixture(testing::MlpTrainingGraph(), testing::GpuCluster(4));
  ASSERT_GE(f.input.num_units, 4);
  // Every unit on its own device in turn: a plan no placement head can express
  // unless the four identical GPUs have different keys.
  Actions target = DefaultActions(f.input);
  for (int u = 0; u < f.input.num_units; ++u) target.unit_device[static_cast<size_t>(u)] = u % 4;

  GoPolicy without(TinyConfig(false));
  CollapseDeviceEmbeddings(without);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor logits = without->forward(f.tensors).placement_logits;
    // Identical keys: every unit's logits are equal over the four GPUs.
    EXPECT_TRUE(torch::allclose(logits, logits.narrow(1, 0, 1).expand_as(logits), 1e-5, 1e-5));
  }
  EXPECT_NEAR(ImitatedProbability(without, f, target, 200), 0.25, 1e-3);

  GoPolicy with(TinyConfig(true));
  CollapseDeviceEmbeddings(with);
  EXPECT_GT(ImitatedProbability(with, f, target, 200), 0.9);
}

TEST(ImitationInputsTest, TheIndexReadIsTheLastPairOfDeviceFeatures) {
  EXPECT_EQ(DeviceFeatureNames()[kDeviceIndexFeature], "index_cos");
  EXPECT_EQ(DeviceFeatureNames()[kDeviceIndexFeature + 1], "index_sin");
  EXPECT_EQ(kDeviceIndexFeature + kNumDeviceIndexFeatures, kNumDeviceFeatures);
}

// The split plan's device of every unit, on the circle; zeros without a split plan.
TEST(ImitationInputsTest, UnitFeaturesCarryTheSplitPlansDevice) {
  const Graph graph = testing::MlpTrainingGraph();
  const Cluster cluster = testing::GpuCluster(4);
  PolicyInputOptions options;
  for (OpId op = 0; op < graph.num_ops(); ++op) options.split_by_device.push_back(op % 4);
  auto split = BuildPolicyInput(graph, cluster, CostModel(), options);
  ASSERT_TRUE(split.ok()) << split.status().message();
  auto plain = BuildPolicyInput(graph, cluster, CostModel(), {});
  ASSERT_TRUE(plain.ok());
  for (int u = 0; u < split->num_units; ++u) {
    const int node = split->unit_nodes[static_cast<size_t>(split->unit_offsets[static_cast<size_t>(u)])];
    const double angle = 2 * M_PI * (split->order[static_cast<size_t>(node)] % 4) / 4;
    const float* f = &split->unit_features[static_cast<size_t>(u) * kNumUnitFeatures];
    EXPECT_NEAR(f[kUnitPlanFeature], std::cos(angle), 1e-6) << u;
    EXPECT_NEAR(f[kUnitPlanFeature + 1], std::sin(angle), 1e-6) << u;
  }
  for (int u = 0; u < plain->num_units; ++u) {
    EXPECT_EQ(plain->unit_features[static_cast<size_t>(u) * kNumUnitFeatures + kUnitPlanFeature], 0.0f);
    EXPECT_EQ(plain->unit_features[static_cast<size_t>(u) * kNumUnitFeatures + kUnitPlanFeature + 1], 0.0f);
  }
}

// Units split by a plan that deals the ops to the four GPUs in turn, made alike in
// everything else: the trunk's op states zeroed and every unit given the first
// unit's features (its stage too) but the plan's device. With that device as an input, the heads
// learn the plan; without, every unit gets the same distribution, and the best one
// for units a quarter on each GPU is uniform (1/4 per placement).
TEST(ImitationInputsTest, TheSplitPlansDeviceLetsTheHeadsImitateThePlan) {
  const Graph graph = testing::MlpTrainingGraph();
  PolicyInputOptions options;
  for (OpId op = 0; op < graph.num_ops(); ++op) options.split_by_device.push_back(op % 4);
  testing::PolicyFixture f = testing::MakePolicyFixture(graph, testing::GpuCluster(4), options);
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor first = f.tensors.unit_features.narrow(1, 0, kUnitPlanFeature).narrow(0, 0, 1).clone();
    f.tensors.unit_features.narrow(1, 0, kUnitPlanFeature).copy_(first.expand({f.input.num_units, kUnitPlanFeature}));
    const torch::Tensor stage =
        f.tensors.unit_features.narrow(1, kUnitStageFeature, kNumUnitStageFeatures).narrow(0, 0, 1).clone();
    f.tensors.unit_features.narrow(1, kUnitStageFeature, kNumUnitStageFeatures)
        .copy_(stage.expand({f.input.num_units, kNumUnitStageFeatures}));
  }
  Actions target = DefaultActions(f.input);
  std::vector<int> per_device(4, 0);
  for (int u = 0; u < f.input.num_units; ++u) {
    const int node = f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[static_cast<size_t>(u)])];
    target.unit_device[static_cast<size_t>(u)] = f.input.order[static_cast<size_t>(node)] % 4;
    ++per_device[static_cast<size_t>(target.unit_device[static_cast<size_t>(u)])];
  }
  for (int d = 0; d < 4; ++d) ASSERT_GT(per_device[static_cast<size_t>(d)], 0);
  GoPolicy with(TinyConfig(true, true)), without(TinyConfig(true, false));
  EXPECT_GT(ImitatedProbability(with, f, target, 200, /*blind_trunk=*/true), 0.97);
  EXPECT_LT(ImitatedProbability(without, f, target, 200, /*blind_trunk=*/true), 0.3);
}

TEST(ImitationInputsTest, SavedConfigsWithoutTheKeysLoadWithThemOff) {
  GoPolicyConfig old = TinyConfig(false, false);
  std::string text = old.ToString();
  for (const std::string key : {",device_index_key=0", ",unit_plan_device=0"}) {
    const size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << text;
    text.erase(at, key.size());  // the config string of a policy saved before the keys
  }
  auto saved = GoPolicyConfig::FromSavedString(text);
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_FALSE(saved->device_index_key);
  EXPECT_FALSE(saved->unit_plan_device);
  EXPECT_TRUE(GoPolicyConfig::FromString(text)->device_index_key);  // new networks have them
  EXPECT_TRUE(GoPolicyConfig::FromString(text)->unit_plan_device);
  EXPECT_TRUE(GoPolicyConfig::FromSavedString(TinyConfig(true).ToString())->device_index_key);
  EXPECT_TRUE(GoPolicyConfig::FromSavedString(TinyConfig(true).ToString())->unit_plan_device);

  // A policy with the key saves and loads with it, and its logits round-trip.
  GoPolicy with(TinyConfig(true));
  const std::string path = ::testing::TempDir() + "/device_index_key.pt";
  ASSERT_TRUE(SaveGoPolicy(with, path).ok());
  auto loaded = LoadGoPolicy(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE((*loaded)->config().device_index_key);
  const testing::PolicyFixture f = testing::MakePolicyFixture(testing::MlpTrainingGraph(), testing::GpuCluster(2));
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(with->forward(f.tensors).placement_logits, (*loaded)->forward(f.tensors).placement_logits));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace graphopt
