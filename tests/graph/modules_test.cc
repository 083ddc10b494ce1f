// Modules from op names (graph/modules.h) on the hand-named graph of
// tests/testing/graphs.h ModuleNamedGraph.
#include "graph/modules.h"

#include <gtest/gtest.h>

#include "../testing/graphs.h"

namespace graphopt {
namespace {

using Path = std::vector<std::string>;

TEST(ModulesTest, PathsComeFromNodeNamesParametersAndForwardOps) {
  const Graph g = testing::ModuleNamedGraph();
  const std::vector<Path> p = ModulePaths(g);
  EXPECT_EQ(p[0], Path{});                     // a graph input
  EXPECT_EQ(p[1], (Path{"enc", "l0"}));        // enc.l0.weight: the longest module it names
  EXPECT_EQ(p[2], (Path{"enc", "l0"}));        // /enc/l0/MatMul
  EXPECT_EQ(p[4], (Path{"enc", "l1"}));        // onnx::MatMul_7: its reader's module
  EXPECT_EQ(p[6], Path{"enc"});                // enc.scale
  EXPECT_EQ(p[7], Path{"enc"});                // /enc/Add
  EXPECT_EQ(p[8], Path{"dec"});
  EXPECT_EQ(p[9], (Path{"enc", "l1"}));        // a gradient: its forward op's
}

// At depth 2: dec, a module with none inside, is whole; /enc/Add, an op of enc itself,
// belongs to none; enc.scale, a parameter of enc itself, is its own entry.
TEST(ModulesTest, AtADepthShallowerLeavesAreWholeOtherOpsFreeParametersTheirOwn) {
  const Graph g = testing::ModuleNamedGraph();
  auto two = ModulesAtDepth(g, 2);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->names, (std::vector<std::string>{"enc.l0", "enc.l1", "enc.scale", "dec"}));
  EXPECT_EQ(two->param_bytes, (std::vector<int64_t>{400, 800, 100, 0}));
  EXPECT_EQ(two->op_module, (std::vector<int32_t>{kNoId, 0, 0, 0, 1, 1, 2, kNoId, 3, 1}));
  auto one = ModulesAtDepth(g, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->names, (std::vector<std::string>{"enc", "dec"}));
  EXPECT_EQ(one->param_bytes, (std::vector<int64_t>{1300, 0}));
}

TEST(ModulesTest, TheAutomaticDepthIsTheShallowestWithEnoughModulesHoldingParameters) {
  const Graph g = testing::ModuleNamedGraph();
  EXPECT_EQ(ModulesAtDepth(g, 0, 1)->depth, 1);  // enc holds parameters
  EXPECT_EQ(ModulesAtDepth(g, 0, 2)->depth, 2);  // dec holds none
  EXPECT_EQ(ModulesAtDepth(g, 0, 9)->depth, 2);  // the deepest there is
}

TEST(ModulesTest, BadDepthsAndGraphsWithoutPathsAreErrors) {
  const Graph g = testing::ModuleNamedGraph();
  auto deep = ModulesAtDepth(g, 3);
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("deepest module path has 2"), std::string::npos) << deep.status().message();
  EXPECT_FALSE(ModulesAtDepth(g, -1).ok());
  auto flat = ModulesAtDepth(testing::TwoUntimedChains(3), 0);
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.status().message().find("no op name is a module path"), std::string::npos) << flat.status().message();
}

TEST(ModulesTest, ColocatingModulesMergesThemWithTheGroupsTheOpsWereIn) {
  Graph g = testing::ModuleNamedGraph();
  const int32_t group = g.NewColocationGroup();
  g.mutable_op(3).colocation_group = group;  // /enc/l0/Relu with /dec/MatMul
  g.mutable_op(8).colocation_group = group;
  const int groups = ColocateModules(*ModulesAtDepth(g, 2), &g);
  EXPECT_EQ(groups, 3);  // enc.l0 with dec, enc.l1, enc.scale
  EXPECT_EQ(g.num_colocation_groups(), 3);
  for (OpId o : {1, 2, 3, 8}) EXPECT_EQ(g.op(o).colocation_group, g.op(1).colocation_group) << o;
  for (OpId o : {4, 5, 9}) EXPECT_EQ(g.op(o).colocation_group, g.op(4).colocation_group) << o;
  EXPECT_NE(g.op(4).colocation_group, g.op(1).colocation_group);
  EXPECT_EQ(g.op(0).colocation_group, kNoId);
  EXPECT_EQ(g.op(7).colocation_group, kNoId);
}

// An exporter names a Sequential's children by their qualified names.
TEST(ModulesTest, QualifiedComponentsAreTakenAsTheyAre) {
  Graph g("resnet_like");
  Op w;
  w.name = "layer1.0.conv1.weight";
  w.kind = OpKind::kVariable;
  w.param_bytes = 64;
  w.outputs = {g.AddTensor(w.name, {4})};
  const TensorId wt = w.outputs[0];
  g.AddOp(std::move(w), false);
  Op conv;
  conv.name = "/layer1/layer1.0/conv1/Conv";
  conv.inputs = {wt};
  conv.outputs = {g.AddTensor("y", {4})};
  g.AddOp(std::move(conv), false);
  EXPECT_EQ(ModulesAtDepth(g, 2)->names, std::vector<std::string>{"layer1.0"});
  EXPECT_EQ(ModulesAtDepth(g, 3)->names, std::vector<std::string>{"layer1.0.conv1"});
  EXPECT_EQ(ModulesAtDepth(g, 3)->op_module, (std::vector<int32_t>{0, 0}));  // the weight found its module
}

}  // namespace
}  // namespace graphopt
