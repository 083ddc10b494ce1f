// Dealing pieces of work by cost (dist/deal.h), on cases checked by hand.
#include "dist/deal.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

std::vector<double> Loads(const std::vector<double>& costs, const std::vector<int>& owner, int ranks) {
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (size_t i = 0; i < costs.size(); ++i) load[static_cast<size_t>(owner[i])] += costs[i];
  return load;
}

// Round-robin would give rank 0 the pieces 10, 7 and 1 (18 against 8); by cost the
// two ranks end with 13 each.
TEST(DealTest, LargestFirstToTheLeastLoadedRank) {
  const std::vector<double> costs{10, 5, 7, 3, 1};
  const std::vector<int> owner = DealByCost(costs, 2);
  // 10 -> r0 (10); 7 -> r1 (7); 5 -> r1 (12); 3 -> r0 (13); 1 -> r1 (13).
  EXPECT_EQ(owner, (std::vector<int>{0, 1, 1, 0, 1}));
  EXPECT_EQ(Loads(costs, owner, 2), (std::vector<double>{13, 13}));
}

// Equal costs (graphs of one size): dealt in turn, as round-robin would.
TEST(DealTest, EqualCostsAreDealtInTurn) {
  EXPECT_EQ(DealByCost({2, 2, 2, 2, 2}, 2), (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(DealByCost({1, 1, 1}, 3), (std::vector<int>{0, 1, 2}));
}

TEST(DealTest, OneRankOrNoPieces) {
  EXPECT_EQ(DealByCost({4, 9, 1}, 1), (std::vector<int>{0, 0, 0}));
  EXPECT_TRUE(DealByCost({}, 4).empty());
  // More ranks than pieces: each piece its own rank, the rest idle.
  EXPECT_EQ(DealByCost({1, 3}, 4), (std::vector<int>{1, 0}));
}

}  // namespace
}  // namespace graphopt
