// Integer ids shared by the graph, the simulator, the baselines and the policy:
// every module indexes the same arrays with them.
#pragma once

#include <cstdint>

namespace graphopt {

using OpId = int32_t;
using TensorId = int32_t;
using DeviceId = int32_t;
inline constexpr int32_t kNoId = -1;

}  // namespace graphopt
