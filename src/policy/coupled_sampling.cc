#include "policy/coupled_sampling.h"

#include <algorithm>
#include <numeric>

#include "core/status.h"

namespace graphopt {

int32_t QuantileDevice(const float* p, const std::vector<int32_t>& order, double q) {
  double cumulative = 0;
  int32_t last = -1;
  for (const int32_t d : order) {
    if (!(p[d] > 0)) continue;
    last = d;
    cumulative += p[d];
    if (q < cumulative) return d;
  }
  GO_CHECK_MSG(last >= 0, "a unit's distribution has no mass");
  return last;
}

void SampleCoupledPlacement(const float* probs, int64_t num_units, int64_t num_devices, Rng& rng,
                            std::vector<Actions>* samples, const std::vector<int32_t>* unit_group,
                            double group_uniform, const std::vector<uint8_t>* allowed) {
  const double n = static_cast<double>(samples->size());
  std::vector<int32_t> order(static_cast<size_t>(num_devices));
  if (unit_group != nullptr) {
    GO_CHECK(unit_group->size() == static_cast<size_t>(num_units));
    const int32_t groups = num_units > 0 ? *std::max_element(unit_group->begin(), unit_group->end()) + 1 : 0;
    std::vector<std::vector<int32_t>> orders(static_cast<size_t>(groups), order);
    std::vector<double> q(static_cast<size_t>(groups));
    std::vector<int32_t> support;  // the devices a uniform group draw takes
    for (int32_t d = 0; d < num_devices; ++d) {
      if (allowed == nullptr || (*allowed)[static_cast<size_t>(d)]) support.push_back(d);
    }
    GO_CHECK(group_uniform <= 0 || !support.empty());
    std::vector<int32_t> uniform_device(static_cast<size_t>(groups), -1);
    for (Actions& sample : *samples) {
      for (int32_t g = 0; g < groups; ++g) {
        std::iota(orders[static_cast<size_t>(g)].begin(), orders[static_cast<size_t>(g)].end(), 0);
        rng.Shuffle(orders[static_cast<size_t>(g)]);
        q[static_cast<size_t>(g)] = rng.UniformDouble();
        if (group_uniform > 0) {
          uniform_device[static_cast<size_t>(g)] =
              rng.Bernoulli(group_uniform) ? support[rng.Uniform(support.size())] : -1;
        }
      }
      sample.unit_device.resize(static_cast<size_t>(num_units));
      for (int64_t i = 0; i < num_units; ++i) {
        const size_t g = static_cast<size_t>((*unit_group)[static_cast<size_t>(i)]);
        sample.unit_device[static_cast<size_t>(i)] =
            uniform_device[g] >= 0 ? uniform_device[g] : QuantileDevice(probs + i * num_devices, orders[g], q[g]);
      }
    }
    return;
  }
  for (size_t s = 0; s < samples->size(); ++s) {
    std::iota(order.begin(), order.end(), 0);
    rng.Shuffle(order);
    const double q = (static_cast<double>(s) + rng.UniformDouble()) / n;
    std::vector<int32_t>& unit_device = (*samples)[s].unit_device;
    unit_device.resize(static_cast<size_t>(num_units));
    for (int64_t i = 0; i < num_units; ++i) unit_device[static_cast<size_t>(i)] = QuantileDevice(probs + i * num_devices, order, q);
  }
}

}  // namespace graphopt
