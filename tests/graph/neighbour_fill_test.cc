// Tests of FillFromNeighbours (graph/neighbour_fill.h): values flow down from producers
// first, then up from consumers, and an op with no valued neighbour keeps none.
#include "graph/neighbour_fill.h"

#include <gtest/gtest.h>

#include "graph/builder.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

OpId ProducerOf(const Graph& g, TensorId t) { return g.tensor(t).producer; }

TEST(NeighbourFillTest, ProducersFirstThenConsumers) {
  GraphBuilder b("fill");
  const TensorId x = b.Input("x", {4, 4});      // op 0: no value; its consumer a gives one
  const TensorId a = b.Relu(x);                 // valued 7
  const TensorId c = b.Tanh(a);                 // from a
  const TensorId y = b.Input("y", {4, 4});      // from its consumer d
  const TensorId d = b.Add(c, y);               // from c, its first input
  const TensorId e = b.Relu(d);                 // valued 9
  const TensorId z = b.Input("z", {4, 4});      // alone: keeps kNoId
  Graph g = b.Finish();
  std::vector<int32_t> v(static_cast<size_t>(g.num_ops()), kNoId);
  v[static_cast<size_t>(ProducerOf(g, a))] = 7;
  v[static_cast<size_t>(ProducerOf(g, e))] = 9;
  auto order = TopologicalOrder(g);
  ASSERT_TRUE(order.ok());
  FillFromNeighbours(g, *order, &v);
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, x))], 7);  // from its consumer
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, c))], 7);  // from its producer
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, d))], 7);  // producers win over consumer e's 9
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, e))], 9);  // kept
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, y))], 7);  // from its consumer d, filled first
  EXPECT_EQ(v[static_cast<size_t>(ProducerOf(g, z))], kNoId);
}

}  // namespace
}  // namespace graphopt
