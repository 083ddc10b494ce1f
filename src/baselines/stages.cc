#include "baselines/stages.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/status.h"

namespace graphopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Exact split of n >= k items: first the smallest bottleneck, then, among the
// splits whose stages all stay within it, the smallest sum of squared stage costs.
std::vector<int> ExactStages(const std::vector<double>& prefix, int k) {
  const int n = static_cast<int>(prefix.size()) - 1;
  auto sum = [&](int from, int to) { return prefix[static_cast<size_t>(to)] - prefix[static_cast<size_t>(from)]; };
  const size_t width = static_cast<size_t>(n) + 1;
  // Phase 1: bottleneck[j * width + i] = smallest max stage cost of items [0, i) in j stages.
  std::vector<double> bottleneck(static_cast<size_t>(k + 1) * width, kInf);
  for (int i = 1; i <= n; ++i) bottleneck[width + static_cast<size_t>(i)] = sum(0, i);
  for (int j = 2; j <= k; ++j) {
    for (int i = j; i <= n; ++i) {
      double best = kInf;
      for (int m = j - 1; m < i; ++m) {
        best = std::min(best,
                        std::max(bottleneck[static_cast<size_t>(j - 1) * width + static_cast<size_t>(m)], sum(m, i)));
      }
      bottleneck[static_cast<size_t>(j) * width + static_cast<size_t>(i)] = best;
    }
  }
  const double limit = bottleneck[static_cast<size_t>(k) * width + static_cast<size_t>(n)] * (1 + 1e-9) + 1e-12;

  // Phase 2: squares[j * width + i] = smallest sum of squared stage costs of items
  // [0, i) in j stages of at most `limit` each; cut[] remembers where the last stage starts.
  std::vector<double> squares(static_cast<size_t>(k + 1) * width, kInf);
  std::vector<int> cut(static_cast<size_t>(k + 1) * width, -1);
  for (int i = 1; i <= n; ++i) {
    const double s = sum(0, i);
    if (s <= limit) squares[width + static_cast<size_t>(i)] = s * s;
    cut[width + static_cast<size_t>(i)] = 0;
  }
  for (int j = 2; j <= k; ++j) {
    for (int i = j; i <= n; ++i) {
      double best = kInf;
      int best_cut = -1;
      for (int m = j - 1; m < i; ++m) {
        const double s = sum(m, i);
        const double before = squares[static_cast<size_t>(j - 1) * width + static_cast<size_t>(m)];
        if (s > limit || before == kInf) continue;
        if (before + s * s < best) {
          best = before + s * s;
          best_cut = m;
        }
      }
      squares[static_cast<size_t>(j) * width + static_cast<size_t>(i)] = best;
      cut[static_cast<size_t>(j) * width + static_cast<size_t>(i)] = best_cut;
    }
  }
  GO_CHECK(squares[static_cast<size_t>(k) * width + static_cast<size_t>(n)] < kInf);
  std::vector<int> stage(static_cast<size_t>(n), 0);
  int end = n;
  for (int j = k; j >= 1; --j) {
    const int begin = cut[static_cast<size_t>(j) * width + static_cast<size_t>(end)];
    GO_CHECK(begin >= 0 && begin < end);
    for (int i = begin; i < end; ++i) stage[static_cast<size_t>(i)] = j - 1;
    end = begin;
  }
  return stage;
}

// Left-to-right packing of items into stages of at most `limit`, starting a new
// stage early when the items left are just enough to give every remaining stage
// one. Returns the number of stages used (may exceed k when limit is too small).
int Pack(const std::vector<double>& costs, int k, double limit, std::vector<int>* stage) {
  const int n = static_cast<int>(costs.size());
  int current = 0;
  double load = 0;
  bool empty = true;
  for (int i = 0; i < n; ++i) {
    const double c = costs[static_cast<size_t>(i)];
    const bool over = load + c > limit;
    const bool must_spread = n - i <= k - 1 - current;
    if (!empty && (over || must_spread)) {
      ++current;
      load = 0;
    }
    if (stage != nullptr) (*stage)[static_cast<size_t>(i)] = current;
    load += c;
    empty = false;
  }
  return current + 1;
}

// Binary search on the bottleneck, then greedy packing: for long sequences.
std::vector<int> GreedyStages(const std::vector<double>& costs, double total, int k) {
  double lo = std::max(*std::max_element(costs.begin(), costs.end()), total / k);
  double hi = total;
  const double tolerance = 1e-9 * total;
  if (Pack(costs, k, lo * (1 + 1e-12), nullptr) <= k) hi = lo;
  for (int iter = 0; iter < 200 && hi - lo > tolerance; ++iter) {
    const double mid = 0.5 * (lo + hi);
    if (Pack(costs, k, mid, nullptr) <= k) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  std::vector<int> stage(costs.size(), 0);
  const int used = Pack(costs, k, hi * (1 + 1e-12), &stage);
  GO_CHECK(used <= k);
  return stage;
}

}  // namespace

std::vector<int> BalancedContiguousStages(const std::vector<double>& costs, int num_stages) {
  GO_CHECK(num_stages >= 1);
  const int n = static_cast<int>(costs.size());
  std::vector<int> stage(costs.size(), 0);
  if (n == 0 || num_stages == 1) return stage;
  if (n <= num_stages) {
    for (int i = 0; i < n; ++i) stage[static_cast<size_t>(i)] = i;
    return stage;
  }
  double total = 0;
  for (double c : costs) {
    GO_CHECK_MSG(c >= 0, "stage costs must be non-negative");
    total += c;
  }
  const std::vector<double> units(costs.size(), 1.0);
  const std::vector<double>& used = total > 0 ? costs : units;
  if (total <= 0) total = n;
  if (n <= kExactStageItems) {
    std::vector<double> prefix(static_cast<size_t>(n) + 1, 0);
    for (int i = 0; i < n; ++i) {
      prefix[static_cast<size_t>(i) + 1] = prefix[static_cast<size_t>(i)] + used[static_cast<size_t>(i)];
    }
    return ExactStages(prefix, num_stages);
  }
  return GreedyStages(used, total, num_stages);
}

int EvenStage(int index, int count, int num_stages) {
  GO_CHECK(count > 0 && index >= 0 && index < count && num_stages >= 1);
  return static_cast<int>(static_cast<int64_t>(index) * num_stages / count);
}

}  // namespace graphopt
