// The small GO policy network of the tests: big enough to learn the toys of
// tests/rl/rl_test_util.h, small enough to train in a test's time.
#pragma once

#include <string>

namespace graphopt::testing {

// The network (every task unless a test picks them).
inline constexpr const char* kSmallGoNetwork =
    "hidden=16,heads=2,sage_layers=1,attention_layers=1,segment=16,memory=16";
// That network placing only: the toys' GO policy.
inline const std::string kSmallGoPolicy = std::string(kSmallGoNetwork) + ",tasks=placement";

}  // namespace graphopt::testing
