// The small GO policy network of the tests: big enough to learn the toys of
// tests/rl/rl_test_util.h, small enough to train in a test's time.
#pragma once

#include <string>

#include "core/status.h"
#include "policy/go_policy_config.h"
#include "rl/ppo_config.h"

namespace graphopt::testing {

// The network (every task unless a test picks them).
inline constexpr const char* kSmallGoNetwork =
    "hidden=16,heads=2,sage_layers=1,attention_layers=1,segment=16,memory=16";
// That network placing only: the toys' GO policy.
inline const std::string kSmallGoPolicy = std::string(kSmallGoNetwork) + ",tasks=placement";

// The configs of option strings the tests write out ("hidden=16,tasks=placement");
// a bad string stops the test binary with the parser's message.
inline GoPolicyConfig PolicyConfig(const std::string& text) {
  StatusOr<GoPolicyConfig> c = GoPolicyConfig::FromString(text);
  GO_CHECK_MSG(c.ok(), c.status().message());
  return *c;
}
inline PpoConfig PpoOptions(const std::string& text) {
  StatusOr<PpoConfig> c = PpoConfig::FromString(text);
  GO_CHECK_MSG(c.ok(), c.status().message());
  return *c;
}

}  // namespace graphopt::testing
