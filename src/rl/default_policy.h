// The pre-trained policy a GO search starts from when none is named (`graphopt
// optimize`, the fidelity bench, the Python module's optimize): the file named by
// GRAPHOPT_POLICY (a path, or "none"), else the one shipped with the program,
// policies/default.pt in the checkout it was built in. No LibTorch here.
#pragma once

#include <string>

#include "core/status.h"

namespace graphopt {

struct DefaultPolicy {
  std::string path;    // empty: none (train a new policy)
  std::string origin;  // where it came from, for the run's header
};

// `checkout` is the folder that holds policies/ (for a program built in
// <checkout>/build/, that folder's parent). A GRAPHOPT_POLICY naming a file that is not
// there is an error naming it; no shipped file is not (then a new policy is trained).
StatusOr<DefaultPolicy> FindDefaultPolicy(const std::string& checkout);

// The checkout of the running program: the parent of the folder of /proc/self/exe
// ("" if it cannot be read).
std::string ProgramCheckout();

}  // namespace graphopt
