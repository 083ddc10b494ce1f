// A run not launched by mpirun is a world of one, without MPI (dist/world.h); the
// ranks themselves are tested by tests/dist/mpirun_test.sh and mpirun_pretrain_test.sh.
#include "dist/world.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

TEST(WorldTest, APlainRunIsAWorldOfOne) {
  ASSERT_FALSE(LaunchedByMpi());  // ctest starts the tests without mpirun
  World& world = World::Get();
  EXPECT_EQ(world.rank(), 0);
  EXPECT_EQ(world.size(), 1);
  EXPECT_EQ(world.local_size(), 1);
  EXPECT_TRUE(world.root());
  EXPECT_FALSE(world.distributed());
  EXPECT_FALSE(world.HasMessage());
  EXPECT_FALSE(world.SendToRoot("x").ok());
  EXPECT_FALSE(world.SendTo(1, "x").ok());
  EXPECT_FALSE(world.Receive().ok());
  world.Barrier();  // returns at once
}

// The collectives of a world of one: a sum over one rank is the values themselves, a
// gather the one text; and a plain run's learned work takes every core.
TEST(WorldTest, CollectivesOfAWorldOfOneAreItsOwnValues) {
  World& world = World::Get();
  std::vector<float> f{1.5f, -2.0f};
  std::vector<int64_t> i{7, int64_t{1} << 40};
  ASSERT_TRUE(world.SumAll(&f).ok());
  ASSERT_TRUE(world.SumAll(&i).ok());
  EXPECT_EQ(f, (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(i, (std::vector<int64_t>{7, int64_t{1} << 40}));
  auto texts = world.GatherToRoot("rank zero");
  ASSERT_TRUE(texts.ok());
  EXPECT_EQ(*texts, std::vector<std::string>{"rank zero"});
  auto all = world.GatherAll("every rank");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, std::vector<std::string>{"every rank"});
  std::vector<double> d{0.25, -3.0};
  ASSERT_TRUE(world.SumAll(&d).ok());
  EXPECT_EQ(d, (std::vector<double>{0.25, -3.0}));
  std::string message = "from rank 0";
  ASSERT_TRUE(world.Broadcast(&message, 0).ok());
  EXPECT_EQ(message, "from rank 0");
  auto any = world.AnyRank(true);
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(*any);
  any = world.AnyRank(false);
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(*any);
  EXPECT_EQ(ThreadsPerRank(), 0);
}

}  // namespace
}  // namespace graphopt
