// The pre-trained policy `graphopt optimize` starts from when no --pretrained is given:
// the file named by GRAPHOPT_POLICY (a path, or "none"), else the one shipped with the
// program, policies/default.pt beside the build folder (<folder of graphopt>/../policies).
#pragma once

#include <string>

#include "core/status.h"

namespace graphopt {

struct DefaultPolicy {
  std::string path;    // empty: none (train a new policy)
  std::string origin;  // where it came from, for the run's header
};

// A GRAPHOPT_POLICY naming a file that is not there is an error naming it; no shipped
// file is not (the program then trains a new policy from scratch).
StatusOr<DefaultPolicy> FindDefaultPolicy();

}  // namespace graphopt
