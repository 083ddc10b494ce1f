// HeadTuning: on a frozen trunk only the heads and this graph's biases learn, the
// biases only for the tasks the policy decides, and their files are checked against
// the graph.
#include "rl/head_tuning.h"

#include <gtest/gtest.h>

#include <string>

#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::ChainsToy;

PpoConfig BiasConfig() { return testing::PpoOptions("frozen_trunk=1,unit_bias=1,fusion_bias=1"); }

GoPolicy PolicyWith(const std::string& tasks) {
  return GoPolicy(testing::PolicyConfig(std::string(testing::kSmallGoNetwork) + ",tasks=" + tasks));
}

TEST(HeadTuningTest, FrozenTheHeadsAndTheBiasesAloneLearn) {
  const ChainsToy toy;
  GoPolicy policy = PolicyWith("placement+fusion");
  const PolicyTensors tensors = ToTensors(toy.input);
  HeadTuning tuning(toy.input, BiasConfig(), policy->config().tasks);
  EXPECT_FALSE(tuning.frozen());
  EXPECT_EQ(tuning.Parameters(policy).size(), policy->parameters().size());
  tuning.Freeze(policy, tensors);
  ASSERT_TRUE(tuning.frozen());
  EXPECT_TRUE(tuning.has_unit_bias());
  EXPECT_TRUE(tuning.has_fusion_bias());
  const std::vector<torch::Tensor> learned = tuning.Parameters(policy);
  EXPECT_EQ(learned.size(), policy->HeadParameters().size() + 2);
  tuning.Freeze(policy, tensors);  // idempotent: the same biases
  EXPECT_TRUE(tuning.Parameters(policy).back().is_same(learned.back()));
  tuning.Thaw();
  EXPECT_FALSE(tuning.has_unit_bias());
  EXPECT_EQ(tuning.Parameters(policy).size(), policy->parameters().size());
}

TEST(HeadTuningTest, BiasesOnlyForTheTasksThePolicyDecides) {
  const ChainsToy toy;
  GoPolicy policy = PolicyWith("placement");
  HeadTuning tuning(toy.input, BiasConfig(), policy->config().tasks);
  EXPECT_TRUE(tuning.UsesUnitBias());
  EXPECT_FALSE(tuning.UsesFusionBias());
  tuning.Freeze(policy, ToTensors(toy.input));
  EXPECT_TRUE(tuning.has_unit_bias());
  EXPECT_FALSE(tuning.has_fusion_bias());
}

TEST(HeadTuningTest, TheUnitBiasIsAddedToThePlacementLogits) {
  const ChainsToy toy;
  GoPolicy policy = PolicyWith("placement");
  const PolicyTensors tensors = ToTensors(toy.input);
  HeadTuning tuning(toy.input, BiasConfig(), policy->config().tasks);
  tuning.Freeze(policy, tensors);
  torch::NoGradGuard no_grad;
  const torch::Tensor before = tuning.Forward(policy, tensors).placement_logits.clone();
  HeadTuning::Biases b;
  b.unit = torch::full({toy.input.num_units, toy.input.num_devices}, 3.0f);
  tuning.SetBiases(b);
  const torch::Tensor after = tuning.Forward(policy, tensors).placement_logits;
  EXPECT_TRUE(torch::allclose(after - before, torch::full_like(before, 3.0f)));
}

TEST(HeadTuningTest, BiasFilesRoundTripAndAreCheckedAgainstTheGraph) {
  const ChainsToy toy;
  GoPolicy policy = PolicyWith("placement+fusion");
  const PolicyTensors tensors = ToTensors(toy.input);
  HeadTuning tuning(toy.input, BiasConfig(), policy->config().tasks);
  tuning.Freeze(policy, tensors);
  HeadTuning::Biases set;
  set.unit = torch::rand({toy.input.num_units, toy.input.num_devices});
  set.fusion = torch::rand({toy.input.num_ops});
  tuning.SetBiases(set);
  const testing::ScratchDir scratch("head_tuning_biases");
  ASSERT_TRUE(tuning.SaveBiases(CheckpointStore(scratch.path())).ok());
  auto read = tuning.ReadBiases(CheckpointStore(scratch.path()), true, true);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_TRUE(torch::equal(read->unit, set.unit));
  EXPECT_TRUE(torch::equal(read->fusion, set.fusion));
  // Another graph's tuning refuses this graph's biases, naming the file and the shape.
  const ChainsToy other = testing::ToyOn(testing::TwoChains(9), testing::PaperCluster(2));
  const HeadTuning other_tuning(other.input, BiasConfig(), policy->config().tasks);
  auto wrong = other_tuning.ReadBiases(CheckpointStore(scratch.path()), true, false);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("unit_bias.pt: unit_bias has shape"), std::string::npos)
      << wrong.status().message();
  const testing::ScratchDir empty("head_tuning_none");
  auto missing = tuning.ReadBiases(CheckpointStore(empty.path()), false, true);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("fusion_bias.pt"), std::string::npos) << missing.status().message();
}

}  // namespace
}  // namespace graphopt
