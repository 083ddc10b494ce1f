#include "sim/tasks.h"

#include "core/strings.h"

namespace graphopt {

std::string TasksToString(uint32_t tasks) {
  std::string s;
  if (tasks & kTaskPlacement) s += "placement";
  if (tasks & kTaskScheduling) s += std::string(s.empty() ? "" : "+") + "scheduling";
  if (tasks & kTaskFusion) s += std::string(s.empty() ? "" : "+") + "fusion";
  return s.empty() ? "none" : s;
}

StatusOr<uint32_t> TasksFromString(const std::string& text) {
  if (text == "all") return static_cast<uint32_t>(kAllTasks);
  uint32_t tasks = 0;
  for (const std::string& part : Split(text, '+')) {
    const std::string t = Trim(part);
    if (t == "placement") {
      tasks |= kTaskPlacement;
    } else if (t == "scheduling") {
      tasks |= kTaskScheduling;
    } else if (t == "fusion") {
      tasks |= kTaskFusion;
    } else {
      return InvalidArgument("unknown task \"" + t + "\" in \"" + text +
                             "\" (tasks: placement, scheduling, fusion, all; join with +)");
    }
  }
  if (tasks == 0) return InvalidArgument("no task in \"" + text + "\"");
  return tasks;
}

}  // namespace graphopt
