// The pre-trained policy a GO search starts from when none is named (`graphopt
// optimize`, the fidelity bench, the Python module's optimize): the file named by
// GRAPHOPT_POLICY (a path, or "none"), else the one shipped with the program,
// policies/default.pt in the checkout it was built in. No LibTorch here.
#pragma once

#include <optional>
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

// The policy a search of `method` starts from, the one rule of every front end:
// `given` if set (a file; "none": a new policy); else a new one for a method that does
// not plan with GO's policy (`go_policy` false) or brings network options of its own
// (`own_network`); else the default (FindDefaultPolicy on `checkout`). `flag` names
// the setting in the origin ("--pretrained", "pretrained=").
StatusOr<DefaultPolicy> ChoosePretrained(const std::optional<std::string>& given, const std::string& flag,
                                         const std::string& method, bool go_policy, bool own_network,
                                         const std::string& checkout);

// The checkout of the running program: the parent of the folder of /proc/self/exe
// ("" if it cannot be read).
std::string ProgramCheckout();

}  // namespace graphopt
