// Tests of coupled placement sampling (policy/coupled_sampling.h) on distributions
// small enough to check by hand.
#include "policy/coupled_sampling.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.h"
#include "policy/actions.h"

namespace graphopt {
namespace {

TEST(CoupledSamplingTest, QuantileDeviceWalksTheGivenOrder) {
  const float p[] = {0.25f, 0.5f, 0.25f};
  const std::vector<int32_t> identity = {0, 1, 2};
  EXPECT_EQ(QuantileDevice(p, identity, 0.0), 0);
  EXPECT_EQ(QuantileDevice(p, identity, 0.1), 0);
  EXPECT_EQ(QuantileDevice(p, identity, 0.25), 1);  // 0.25 is where device 0's mass ends
  EXPECT_EQ(QuantileDevice(p, identity, 0.74), 1);
  EXPECT_EQ(QuantileDevice(p, identity, 0.75), 2);
  const std::vector<int32_t> rotated = {2, 0, 1};
  EXPECT_EQ(QuantileDevice(p, rotated, 0.1), 2);
  EXPECT_EQ(QuantileDevice(p, rotated, 0.3), 0);
  EXPECT_EQ(QuantileDevice(p, rotated, 0.6), 1);
}

TEST(CoupledSamplingTest, DevicesWithoutMassAreNeverTaken) {
  const float one[] = {0.0f, 1.0f, 0.0f};
  for (const double q : {0.0, 0.3, 0.999}) EXPECT_EQ(QuantileDevice(one, {0, 1, 2}, q), 1);
  // Rounding: a total below q ends at the last device with mass in the order.
  const float short_total[] = {0.3f, 0.3f, 0.3f, 0.0f};
  EXPECT_EQ(QuantileDevice(short_total, {1, 3, 2, 0}, 0.95), 0);
  EXPECT_EQ(QuantileDevice(short_total, {0, 1, 2, 3}, 0.95), 2);
}

std::vector<Actions> Samples(int n) { return std::vector<Actions>(static_cast<size_t>(n)); }

// Over a batch, each unit's devices follow its own distribution, as independent
// draws do.
TEST(CoupledSamplingTest, EachUnitKeepsItsOwnDistribution) {
  const std::vector<float> probs = {0.7f, 0.2f, 0.1f,   //
                                    0.1f, 0.1f, 0.8f,   //
                                    0.0f, 0.5f, 0.5f,   //
                                    0.25f, 0.25f, 0.5f};
  const int units = 4, devices = 3, n = 6000;
  std::vector<Actions> batch = Samples(n);
  Rng rng(3);
  SampleCoupledPlacement(probs.data(), units, devices, rng, &batch);
  std::vector<int> count(static_cast<size_t>(units * devices), 0);
  for (const Actions& a : batch) {
    ASSERT_EQ(a.unit_device.size(), static_cast<size_t>(units));
    for (int u = 0; u < units; ++u) ++count[static_cast<size_t>(u * devices + a.unit_device[static_cast<size_t>(u)])];
  }
  for (size_t i = 0; i < count.size(); ++i) EXPECT_NEAR(count[i] / static_cast<double>(n), probs[i], 0.02) << i;
  EXPECT_EQ(count[2 * devices + 0], 0);  // no mass, never drawn
}

// 14 units that each give device 0 half their mass and the rest unevenly, {0.5, 0.3,
// 0.1, 0.1} and {0.5, 0.1, 0.1, 0.3} in turn: independent draws put every unit on one
// device in about 6e-5 of the samples; coupled ones in 0.7 of them (over the 24
// device orders, the share of q where both kinds of unit take the same device).
TEST(CoupledSamplingTest, UnitsMoveTogether) {
  const int units = 14, devices = 4, n = 512;
  std::vector<float> probs;
  for (int u = 0; u < units; ++u) {
    if (u % 2 == 0) probs.insert(probs.end(), {0.5f, 0.3f, 0.1f, 0.1f});
    if (u % 2 == 1) probs.insert(probs.end(), {0.5f, 0.1f, 0.1f, 0.3f});
  }
  auto consolidated = [&](const std::vector<Actions>& batch) {
    int count = 0;
    for (const Actions& a : batch) {
      bool same = true;
      for (int u = 1; u < units; ++u) same = same && a.unit_device[static_cast<size_t>(u)] == a.unit_device[0];
      count += same;
    }
    return count;
  };
  std::vector<Actions> coupled = Samples(n);
  Rng rng(5);
  SampleCoupledPlacement(probs.data(), units, devices, rng, &coupled);
  EXPECT_GT(consolidated(coupled), n * 6 / 10);
  EXPECT_LT(consolidated(coupled), n * 8 / 10);
  std::vector<Actions> independent = Samples(n);
  for (Actions& a : independent) {
    for (int u = 0; u < units; ++u) a.unit_device.push_back(static_cast<int32_t>(rng.Categorical(probs.data() + u * devices, devices)));
  }
  EXPECT_EQ(consolidated(independent), 0);
}

// Two layers of three units, every unit {0.9, 0.1}: coupled within its layer, a
// layer moves whole to device 1 in a tenth of the samples (independent draws: one in
// a thousand), and the two layers move apart (both at once: a hundredth).
TEST(CoupledSamplingTest, GroupsMoveWholeAndApart) {
  const int units = 6, n = 4000;
  std::vector<float> probs;
  for (int u = 0; u < units; ++u) probs.insert(probs.end(), {0.9f, 0.1f});
  const std::vector<int32_t> layer = {0, 0, 0, 1, 1, 1};
  std::vector<Actions> batch = Samples(n);
  Rng rng(7);
  SampleCoupledPlacement(probs.data(), units, 2, rng, &batch, &layer);
  int first_moved = 0, both_moved = 0;
  for (const Actions& a : batch) {
    for (int u = 1; u < 3; ++u) ASSERT_EQ(a.unit_device[static_cast<size_t>(u)], a.unit_device[0]);
    for (int u = 4; u < 6; ++u) ASSERT_EQ(a.unit_device[static_cast<size_t>(u)], a.unit_device[3]);
    first_moved += a.unit_device[0] == 1;
    both_moved += a.unit_device[0] == 1 && a.unit_device[3] == 1;
  }
  EXPECT_NEAR(first_moved, n / 10, n / 50);
  EXPECT_NEAR(both_moved, n / 100, n / 200);
}

// group_uniform: a group takes a uniformly drawn allowed device, whole, that often,
// even one its units give no mass; a device not allowed never; 0 draws as before.
TEST(CoupledSamplingTest, UniformGroupsReachDevicesWithoutMass) {
  const int units = 4, devices = 4, n = 8000;
  std::vector<float> probs;
  for (int u = 0; u < units; ++u) probs.insert(probs.end(), {1.0f, 0.0f, 0.0f, 0.0f});
  const std::vector<int32_t> layer = {0, 0, 1, 1};
  const std::vector<uint8_t> allowed = {1, 1, 1, 0};
  std::vector<Actions> batch = Samples(n);
  Rng rng(3);
  SampleCoupledPlacement(probs.data(), units, devices, rng, &batch, &layer, 0.3, &allowed);
  std::vector<int> count(devices, 0);
  for (const Actions& a : batch) {
    ASSERT_EQ(a.unit_device[1], a.unit_device[0]);
    ASSERT_EQ(a.unit_device[3], a.unit_device[2]);
    ++count[static_cast<size_t>(a.unit_device[0])];
  }
  EXPECT_EQ(count[3], 0);
  EXPECT_NEAR(count[1], n * 0.1, n * 0.02);  // 0.3 of the draws, a third of them each
  EXPECT_NEAR(count[2], n * 0.1, n * 0.02);
  EXPECT_NEAR(count[0], n * 0.8, n * 0.02);

  std::vector<Actions> plain = Samples(64), zero = Samples(64);
  Rng ra(5), rb(5);
  SampleCoupledPlacement(probs.data(), units, devices, ra, &plain, &layer);
  SampleCoupledPlacement(probs.data(), units, devices, rb, &zero, &layer, 0.0, &allowed);
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(plain[i].unit_device, zero[i].unit_device);
  EXPECT_EQ(ra.Uniform(1u << 30), rb.Uniform(1u << 30));
}

TEST(CoupledSamplingTest, SameSeedSameSamples) {
  const std::vector<float> probs = {0.4f, 0.6f, 0.9f, 0.1f, 0.5f, 0.5f};
  std::vector<Actions> a = Samples(32), b = Samples(32);
  Rng ra(11), rb(11);
  SampleCoupledPlacement(probs.data(), 3, 2, ra, &a);
  SampleCoupledPlacement(probs.data(), 3, 2, rb, &b);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].unit_device, b[i].unit_device);
}

}  // namespace
}  // namespace graphopt
