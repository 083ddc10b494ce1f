// The median of a series, the one definition every measurement uses: Median, its middle
// value or the mean of its two middle values; UpperMedian, a value the series holds
// (the upper of the two middle values of an even series), for a figure that must be
// one of the times measured. Both are 0 for an empty series.
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

inline double UpperMedian(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace graphopt
