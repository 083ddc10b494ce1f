// Core sets for executor tests on whatever cores this process may use.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "exec/local_cluster.h"

namespace graphopt::testing {

// One core set per device: the cores this process may use, dealt round-robin.
inline std::vector<std::vector<int>> CoreSets(int devices) {
  auto cores = LocalCoreSets(0);
  EXPECT_TRUE(cores.ok()) << cores.status().ToString();
  std::vector<std::vector<int>> sets(static_cast<size_t>(devices));
  for (int d = 0; d < devices; ++d) sets[static_cast<size_t>(d)] = (*cores)[static_cast<size_t>(d) % cores->size()];
  return sets;
}

}  // namespace graphopt::testing
