// The median of a series: its middle value, or the mean of its two middle values
// (0 for an empty series).
#pragma once

#include <algorithm>
#include <vector>

namespace graphopt {

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace graphopt
