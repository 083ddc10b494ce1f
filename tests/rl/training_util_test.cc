// Tests of the training loops' small pieces (rl/training_util.h): the seeds of a step
// and of a rank, and the order of the stop reasons.
#include "rl/training_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>

namespace graphopt {
namespace {

// Rank 0 draws what one process draws; every other rank draws its own, and the same
// rank the same on every run.
TEST(TrainingUtilTest, RankZeroKeepsTheSeedAndOtherRanksGetTheirOwn) {
  EXPECT_EQ(RankSeed(42, 0), 42u);
  std::set<uint64_t> seeds{RankSeed(42, 0)};
  for (int rank = 1; rank < 64; ++rank) seeds.insert(RankSeed(42, rank));
  EXPECT_EQ(seeds.size(), 64u);
  EXPECT_EQ(RankSeed(42, 5), RankSeed(42, 5));
  EXPECT_NE(RankSeed(42, 5), RankSeed(43, 5));
  EXPECT_NE(TrainingStepSeed(RankSeed(42, 1), 0), TrainingStepSeed(42, 0));
}

TEST(TrainingUtilTest, StopReasonsInOrder) {
  std::atomic<bool> stop{true};
  EXPECT_EQ(StopReason(&stop, true, 5, 5), "interrupted");
  stop = false;
  EXPECT_EQ(StopReason(&stop, true, 5, 5), "time limit");
  EXPECT_EQ(StopReason(nullptr, false, 5, 5), "steps");
  EXPECT_EQ(StopReason(nullptr, false, 4, 5), "");
  EXPECT_EQ(StopReason(nullptr, false, 99, 0), "");
}

}  // namespace
}  // namespace graphopt
