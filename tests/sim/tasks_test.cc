// The tasks an optimizer decides, as a bit set and as text.
#include "sim/tasks.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

TEST(TasksTest, TextRoundTrip) {
  EXPECT_EQ(*TasksFromString("placement+fusion"), static_cast<uint32_t>(kTaskPlacement | kTaskFusion));
  EXPECT_EQ(*TasksFromString("all"), static_cast<uint32_t>(kAllTasks));
  EXPECT_EQ(TasksToString(kAllTasks), "placement+scheduling+fusion");
  EXPECT_EQ(TasksToString(kTaskScheduling), "scheduling");
  EXPECT_EQ(TasksToString(0), "none");
  for (uint32_t t = 1; t <= kAllTasks; ++t) EXPECT_EQ(*TasksFromString(TasksToString(t)), t);
  auto bad = TasksFromString("placing");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown task \"placing\""), std::string::npos);
  EXPECT_FALSE(TasksFromString("").ok());
}

}  // namespace
}  // namespace graphopt
