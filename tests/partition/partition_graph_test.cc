// Tests of the partition graph and the METIS and Scotch k-way partitions
// (partition/partition_graph.h). Placements built on them are tested in
// tests/baselines/partition_test.cc, decision units in tests/policy/units_test.cc.
#include "partition/partition_graph.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "../testing/graphs.h"

namespace graphopt {
namespace {

using testing::AddUntimedOp;
using testing::TwoUntimedChains;

TEST(PartitionGraphTest, GroupsAreContractedAndEdgesMergedBothWays) {
  // x feeds y twice (two tensors' worth: one tensor read twice counts once) and z;
  // y and z share a colocation group, so they are one vertex.
  Graph g("small");
  const OpId x = AddUntimedOp(g, "x", {}, 100);
  const TensorId tx = g.op(x).outputs[0];
  const OpId y = AddUntimedOp(g, "y", {tx, tx}, 10);
  const OpId z = AddUntimedOp(g, "z", {tx, g.op(y).outputs[0]}, 10);
  const int32_t group = g.NewColocationGroup();
  g.mutable_op(y).colocation_group = group;
  g.mutable_op(z).colocation_group = group;
  const PartitionGraph pg = BuildPartitionGraph(g, {3.0, 5.0, 7.0});
  ASSERT_EQ(pg.num_vertices(), 2);
  EXPECT_EQ(pg.vertex_of_op[static_cast<size_t>(x)], 0);
  EXPECT_EQ(pg.vertex_of_op[static_cast<size_t>(y)], 1);
  EXPECT_EQ(pg.vertex_of_op[static_cast<size_t>(z)], 1);
  EXPECT_EQ(pg.vertex_weight, (std::vector<int64_t>{3, 12}));
  // One edge, both directions, weighing tx's bytes once (y -> z is inside the group).
  ASSERT_EQ(pg.offsets, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(pg.neighbours, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(pg.edge_weight[0], g.tensor(tx).bytes());
  EXPECT_EQ(pg.edge_weight[1], g.tensor(tx).bytes());
}

// A chain whose first op outweighs the rest together, cut into nearly as many parts
// as it has ops: METIS's recursive bisection meets empty sides and says so with
// printf; none of that reaches standard output, and the parts stay valid.
TEST(PartitionGraphTest, MetisPrintsNothing) {
  Graph g("heavy_head");
  std::vector<TensorId> in;
  for (int i = 0; i < 12; ++i) in = {g.op(AddUntimedOp(g, "c" + std::to_string(i), in)).outputs[0]};
  std::vector<double> weight(12, 1.0);
  weight[0] = 1000.0;
  const PartitionGraph pg = BuildPartitionGraph(g, weight);
  ::testing::internal::CaptureStdout();
  auto parts = MetisPartition(pg, 11, /*seed=*/0);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  EXPECT_EQ(printed, "");
  for (int p : *parts) {
    EXPECT_GE(p, 0);
    EXPECT_LT(p, 11);
  }
}

TEST(PartitionGraphTest, FreeOpsWeighOne) {
  const Graph g = TwoUntimedChains(2);
  const PartitionGraph pg = BuildPartitionGraph(g, {0.0, 0.0, 4.0, -1.0});
  EXPECT_EQ(pg.vertex_weight, (std::vector<int64_t>{1, 1, 4, 1}));
}

void ExpectChainsNeverShareAPart(StatusOr<std::vector<int>> (*partition)(const PartitionGraph&, int, uint64_t)) {
  const Graph g = TwoUntimedChains(40);
  const PartitionGraph pg = BuildPartitionGraph(g, std::vector<double>(80, 10.0));
  for (int k : {2, 4, 8}) {
    auto parts = partition(pg, k, 3);
    ASSERT_TRUE(parts.ok()) << parts.status().message();
    ASSERT_EQ(parts->size(), 80u);
    std::set<int> of_a(parts->begin(), parts->begin() + 40), of_b(parts->begin() + 40, parts->end());
    for (int p : of_a) {
      EXPECT_GE(p, 0);
      EXPECT_LT(p, k);
      EXPECT_EQ(of_b.count(p), 0u) << "k=" << k << ": part " << p << " holds ops of both chains";
    }
    EXPECT_EQ(static_cast<int>(of_a.size() + of_b.size()), k) << "every part used";
    // Same inputs and seed, same partition.
    auto again = partition(pg, k, 3);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*parts, *again);
  }
}

TEST(PartitionGraphTest, MetisCutsNothingBetweenIndependentChains) { ExpectChainsNeverShareAPart(MetisPartition); }

TEST(PartitionGraphTest, ScotchCutsNothingBetweenIndependentChains) { ExpectChainsNeverShareAPart(ScotchPartition); }

}  // namespace
}  // namespace graphopt
