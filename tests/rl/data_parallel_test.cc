// DataParallel in one process: every sample is this rank's, a flag is its own, the
// gradients are left as they are, and the batch's moments are its own. (Over ranks:
// tests/dist/mpirun_optimize_test.sh runs the search's trainer on two processes.)
#include "rl/data_parallel.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

TEST(DataParallelTest, OneProcessKeepsEverything) {
  auto alone = DataParallel::Over(nullptr, 5);
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE(alone->distributed());
  EXPECT_EQ(alone->rank(), 0);
  EXPECT_EQ(alone->size(), 1);
  EXPECT_EQ(alone->Share(5), 5);
  EXPECT_TRUE(alone->AnyRank(true));
  EXPECT_FALSE(alone->AnyRank(false));
  torch::Tensor p = torch::ones({3}, torch::requires_grad());
  (p * 2).sum().backward();
  alone->AverageGradients({p});
  EXPECT_TRUE(torch::equal(p.grad(), torch::full({3}, 2.0f)));
}

TEST(DataParallelTest, TheBatchMomentsAreTheMeanAndTheSampleSpread) {
  const DataParallel alone;
  const DataParallel::Moments m = alone.BatchMoments({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(m.count, 3);
  EXPECT_DOUBLE_EQ(m.mean, 2.0);
  EXPECT_DOUBLE_EQ(m.spread, 1.0);
  EXPECT_EQ(alone.BatchMoments({4.0f}).spread, 0);
}

}  // namespace
}  // namespace graphopt
