// Tests of the training loops' small pieces (rl/training_util.h): the seeds of a step
// and of a rank, the order of the stop reasons, and where denormals are flushed.
#include "rl/training_util.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <vector>

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

// Whether a product with a denormal operand comes out as zero on the calling thread.
bool FlushesDenormals() {
  volatile float tiny = 1e-39f;  // below FLT_MIN
  volatile float product = tiny * 1.0f;
  return product == 0.0f;
}

// Per pool thread (chunk i runs on thread i), whether it flushes denormals.
std::vector<int> PoolFlushes(int threads) {
  std::vector<int> flushes(static_cast<size_t>(threads), -1);
  at::parallel_for(0, threads, 1, [&](int64_t begin, int64_t) {
    flushes[static_cast<size_t>(begin)] = FlushesDenormals() ? 1 : 0;
  });
  return flushes;
}

// The pool's threads are created here outside any scope, as they are when other tensor
// code ran first, so they inherit "no flush"; a scope must still reach them, or the
// same seed samples other plans depending on what ran before.
TEST(TrainingUtilTest, FlushingReachesThePoolThreadsWhateverCreatedThem) {
  at::set_num_threads(2);
  const std::vector<int> created = PoolFlushes(2);
  EXPECT_EQ(created[0], 0);  // the calling thread, outside a scope
  {
    ScopedFlushDenormal flush;
    EXPECT_TRUE(FlushesDenormals());
    EXPECT_EQ(PoolFlushes(2), (std::vector<int>{1, 1}));
  }
  // The calling thread goes back to exact arithmetic (the simulator runs there).
  EXPECT_FALSE(FlushesDenormals());
}

}  // namespace
}  // namespace graphopt
