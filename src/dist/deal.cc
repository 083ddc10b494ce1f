#include "dist/deal.h"

#include <algorithm>
#include <numeric>

namespace graphopt {

std::vector<int> DealByCost(const std::vector<double>& costs, int ranks) {
  std::vector<int> owner(costs.size(), 0);
  if (ranks <= 1) return owner;
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (const size_t piece : order) {
    const size_t r = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[piece] = static_cast<int>(r);
    load[r] += costs[piece];
  }
  return owner;
}

}  // namespace graphopt
