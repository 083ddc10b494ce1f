// A run not launched by mpirun is a world of one, without MPI (dist/world.h); the
// ranks themselves are tested by tests/dist/mpirun_test.sh.
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
  EXPECT_FALSE(world.Receive().ok());
  world.Barrier();  // returns at once
}

}  // namespace
}  // namespace graphopt
