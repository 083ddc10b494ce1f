// Pinning the calling thread to a set of cores (a device of the local cluster).
#pragma once

#include <vector>

#include "core/status.h"

namespace graphopt {

// The calling thread runs only on `cores` from now on (threads it starts inherit it).
Status PinThisThread(const std::vector<int>& cores);

}  // namespace graphopt
