// The decisions a plan holds (sim/plan.h), as the tasks an optimizer may decide:
// placement (Plan::device), scheduling (Plan::priority) and fusion
// (Plan::fuse_with_producer). A bit set; the policies, the search and the tables say
// with it which decisions are theirs (the others keep their defaults: rl/task_defaults.h).
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace graphopt {

enum PolicyTask : uint32_t {
  kTaskPlacement = 1u << 0,
  kTaskScheduling = 1u << 1,
  kTaskFusion = 1u << 2,
  kAllTasks = kTaskPlacement | kTaskScheduling | kTaskFusion,
};
// "placement+scheduling+fusion" <-> bit set; "all" is accepted.
std::string TasksToString(uint32_t tasks);
StatusOr<uint32_t> TasksFromString(const std::string& text);

}  // namespace graphopt
