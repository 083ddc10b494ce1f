// Coupled sampling of placements: the units of one sample draw their devices from
// one shared quantile instead of independently (GoPolicyImpl::Sample with
// `coupled`). Independent draws almost never put many units on the same device even
// when each unit favours it (14 units at 0.5 each: once in 16,000 samples), so the
// best of a few samples of a policy that spreads a little stays spread; a
// consolidated plan, or a contiguous split of the graph, is a whole-sample event.
// A coupled sample takes a random order of the devices and a quantile q; each unit
// takes the device at which its cumulative probability, in that order, first
// exceeds q. A unit's device is still drawn from that unit's own distribution when
// q is uniform (the stratified q of a batch is uniform over the batch), so a device
// the policy gives a unit no mass is never drawn for it, and a device it gives 1%
// takes that unit in 1% of the samples, coupled or not. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "policy/actions.h"

namespace graphopt {

// The device at quantile q in [0, 1) of the distribution p[0..n) taken in `order` (a
// permutation of 0..n-1): the first device of `order` whose cumulative probability
// exceeds q; devices of probability 0 are never returned (if rounding leaves q past
// the total, the last device with mass is).
int32_t QuantileDevice(const float* p, const std::vector<int32_t>& order, double q);

// Fills unit_device of every sample: probs is [num_units x num_devices] row-major
// (each row a distribution); sample s gets its own random device order and
// q = (s + u) / samples->size() with u uniform in [0, 1).
// With unit_group (one group id >= 0 per unit), the coupling is within each group:
// in each sample, every group takes a random device order and a quantile of its
// own, uniform in [0, 1), so a group's units move together and the groups apart
// (the units of one layer, policy/features.h PolicyInput::unit_layer: a sample moves
// a whole layer to another device as often as the policy gives one of its units
// that device, not that probability to the power of the layer's units).
// With group_uniform > 0 (groups only), each group of each sample takes, with that
// probability, one device drawn uniformly from the `allowed` ones (1 where a unit may
// go; every device if null) for all its units instead: a sample of the mixture of
// the policy and a uniform choice per group, so that a layer reaches a device the
// policy has stopped giving it mass (on 8 GPUs, a policy that puts two layers on one
// device and leaves another idle). group_uniform = 0 draws nothing more from rng.
void SampleCoupledPlacement(const float* probs, int64_t num_units, int64_t num_devices, Rng& rng,
                            std::vector<Actions>* samples, const std::vector<int32_t>* unit_group = nullptr,
                            double group_uniform = 0, const std::vector<uint8_t>* allowed = nullptr);

}  // namespace graphopt
