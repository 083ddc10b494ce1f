// Pinning the calling thread to a set of cores (a device of the local cluster).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

// The calling thread runs only on `cores` from now on (threads it starts inherit it),
// its ATen kernels on as many OpenMP threads as `cores` has, whatever the process-wide
// count is or becomes (a search that trains a policy sets that to every core, which
// would give each worker several threads on its one core:
// docs/experiments/2026-11-29-fidelity.md, "How the measurement had to be made").
Status PinThisThread(const std::vector<int>& cores);

// Runs `body` on a new thread pinned to `cores` and waits for it. What fails comes back
// as a status with `what` as its context: the pin, the status `body` returns, or an
// exception `body` throws (an ATen error).
Status RunPinned(const std::vector<int>& cores, const std::string& what, const std::function<Status()>& body);

}  // namespace graphopt
