#include "exec/local_cluster.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace graphopt {
namespace {

// The cores this process may run on, as LocalCoreSets should see them.
std::vector<int> Allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(getpid(), sizeof(set), &set), 0);
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  }
  return cores;
}

TEST(LocalClusterName, AcceptsLocalAndLocalN) {
  EXPECT_TRUE(IsLocalClusterName("local"));
  EXPECT_TRUE(IsLocalClusterName("local:1"));
  EXPECT_TRUE(IsLocalClusterName("local:2"));
  EXPECT_TRUE(IsLocalClusterName("local:16"));
  for (const char* bad : {"", "Local", "local:", "local:0", "local:x", "local:2x", "local:-1", "local:01", "local: 2",
                          "local2", "locals", "cpu", "1xV100", "local:12345678901"}) {
    EXPECT_FALSE(IsLocalClusterName(bad)) << bad;
  }
}

TEST(LocalCoreSets, ByNameAsByCountAndTheSmallestDevicesCores) {
  const auto by_name = LocalCoreSets("local:1");
  const auto by_count = LocalCoreSets(1);
  ASSERT_TRUE(by_name.ok() && by_count.ok());
  EXPECT_EQ(*by_name, *by_count);
  EXPECT_EQ(CoresPerDevice(*by_name), by_name->front().size());
  EXPECT_EQ(CoresPerDevice({{0, 1, 2}, {3, 4}, {5, 6, 7}}), 2u);
  EXPECT_EQ(CoresPerDevice({}), 0u);
  const auto bad = LocalCoreSets("4xV100");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("4xV100: not a local cluster"), std::string::npos) << bad.status().message();
}

TEST(LocalCoreSets, OneDevicePerCoreCoversEveryCoreOnce) {
  const std::vector<int> cores = Allowed();
  auto sets = LocalCoreSets(0);
  ASSERT_TRUE(sets.ok()) << sets.status().ToString();
  ASSERT_EQ(sets->size(), cores.size());
  for (size_t i = 0; i < cores.size(); ++i) EXPECT_EQ((*sets)[i], std::vector<int>{cores[i]});
}

TEST(LocalCoreSets, OneDeviceHasEveryCore) {
  auto sets = LocalCoreSets(1);
  ASSERT_TRUE(sets.ok()) << sets.status().ToString();
  ASSERT_EQ(sets->size(), 1u);
  EXPECT_EQ(sets->front(), Allowed());
}

TEST(LocalCoreSets, GroupsAreConsecutiveAndEven) {
  const std::vector<int> cores = Allowed();
  for (int n = 1; n <= static_cast<int>(cores.size()); ++n) {
    auto sets = LocalCoreSets(n);
    ASSERT_TRUE(sets.ok()) << n << ": " << sets.status().ToString();
    ASSERT_EQ(static_cast<int>(sets->size()), n);
    std::vector<int> joined;
    size_t smallest = cores.size(), largest = 0;
    for (const auto& set : *sets) {
      smallest = std::min(smallest, set.size());
      largest = std::max(largest, set.size());
      joined.insert(joined.end(), set.begin(), set.end());
    }
    EXPECT_GE(smallest, 1u) << n;
    EXPECT_LE(largest - smallest, 1u) << n;
    EXPECT_EQ(joined, cores) << n;
  }
}

TEST(LocalCoreSets, MoreDevicesThanCoresIsAnError) {
  const int too_many = static_cast<int>(Allowed().size()) + 1;
  auto sets = LocalCoreSets(too_many);
  ASSERT_FALSE(sets.ok());
  EXPECT_EQ(sets.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sets.status().message().find("local:" + std::to_string(too_many)), std::string::npos) << sets.status().ToString();
  EXPECT_NE(sets.status().message().find("core"), std::string::npos) << sets.status().ToString();
  EXPECT_FALSE(LocalCoreSets(-1).ok());
}

TEST(LocalCluster, BadNamesAreErrorsNamingThem) {
  const std::string too_many = "local:" + std::to_string(Allowed().size() + 1);
  for (const std::string& bad : {std::string("local:x"), std::string("local:0"), std::string("local:"), too_many}) {
    auto c = LocalCluster(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(c.status().message().find(bad), std::string::npos) << c.status().ToString();
  }
}

// Measures once (the figures are printed for the record) and checks the shape, the
// plausibility of each figure and that a second call returns the same cluster.
TEST(LocalCluster, MeasuresOneDevicePerCoreOnce) {
  const std::vector<int> cores = Allowed();
  const auto start = std::chrono::steady_clock::now();
  auto c = LocalCluster("local");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->Validate().ok()) << c->Validate().ToString();
  EXPECT_EQ(c->name(), "local");
  const int n = c->num_devices();
  ASSERT_EQ(n, static_cast<int>(cores.size()));
  std::printf("local measured in %.3f s\n", seconds);
  for (DeviceId d = 0; d < n; ++d) {
    const Device& dev = c->device(d);
    EXPECT_EQ(dev.name, "cpu:" + std::to_string(d));
    EXPECT_EQ(dev.kind, DeviceKind::kCpu);
    EXPECT_EQ(dev.model, "local core " + std::to_string(cores[static_cast<size_t>(d)]));
    EXPECT_TRUE(dev.copies_on_stream);
    // One core: between 1 GFLOP/s and 1 TFLOP/s, 0.5 .. 500 GB/s, a tiny op well
    // under a millisecond.
    EXPECT_GT(dev.peak_flops, 1e9) << dev.name;
    EXPECT_LT(dev.peak_flops, 1e12) << dev.name;
    EXPECT_GT(dev.memory_bandwidth, 0.5e9) << dev.name;
    EXPECT_LT(dev.memory_bandwidth, 500e9) << dev.name;
    EXPECT_GT(dev.launch_overhead_us, 0) << dev.name;
    EXPECT_LT(dev.launch_overhead_us, 1000) << dev.name;
    EXPECT_GT(dev.memory_bytes, 0) << dev.name;
    std::printf("  %s (%s): %.1f GFLOP/s, %.2f GB/s memory, %.2f us launch, %.2f GiB", dev.name.c_str(), dev.model.c_str(),
                dev.peak_flops / 1e9, dev.memory_bandwidth / 1e9, dev.launch_overhead_us,
                static_cast<double>(dev.memory_bytes) / (1 << 30));
    if (n > 1) {
      const Link& l = c->link(d, (d + 1) % n);
      std::printf(", link out %.2f GB/s + %.3f us", l.bandwidth / 1e9, l.latency_us);
    }
    std::printf("\n");
  }
  // Links and ports: i -> j has i's copy figures and crosses "cpu:i out", "cpu:j in".
  if (n > 1) {
    EXPECT_EQ(c->num_ports(), 2 * n);
    for (DeviceId i = 0; i < n; ++i) {
      const int32_t out = c->FindPort("cpu:" + std::to_string(i) + " out");
      ASSERT_GE(out, 0);
      ASSERT_GE(c->FindPort("cpu:" + std::to_string(i) + " in"), 0);
      for (DeviceId j = 0; j < n; ++j) {
        if (i == j) continue;
        const Link& l = c->link(i, j);
        EXPECT_GT(l.bandwidth, 0.5e9) << i << " -> " << j;
        EXPECT_LT(l.bandwidth, 500e9) << i << " -> " << j;
        EXPECT_GE(l.latency_us, 0) << i << " -> " << j;
        EXPECT_LT(l.latency_us, 1000) << i << " -> " << j;
        const Link& first = c->link(i, i == 0 ? 1 : 0);  // every link out of i is i's copy
        EXPECT_EQ(l.bandwidth, first.bandwidth);
        EXPECT_EQ(l.latency_us, first.latency_us);
        const int32_t in = c->FindPort("cpu:" + std::to_string(j) + " in");
        EXPECT_EQ(c->link_ports(i, j), (std::vector<int32_t>{out, in})) << i << " -> " << j;
        EXPECT_EQ(c->port(out).bandwidth, l.bandwidth);
        EXPECT_GE(c->port(in).bandwidth, l.bandwidth);
        EXPECT_DOUBLE_EQ(c->PathBandwidth(i, j), l.bandwidth);
      }
    }
  } else {
    EXPECT_EQ(c->num_ports(), 0);
  }

  // The second call is the first's figures, at once.
  const auto again_start = std::chrono::steady_clock::now();
  auto again = LocalCluster("local");
  const double again_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - again_start).count();
  ASSERT_TRUE(again.ok());
  EXPECT_LT(again_seconds, 0.05);
  ASSERT_EQ(again->num_devices(), n);
  for (DeviceId d = 0; d < n; ++d) {
    EXPECT_EQ(again->device(d).peak_flops, c->device(d).peak_flops);
    EXPECT_EQ(again->device(d).memory_bandwidth, c->device(d).memory_bandwidth);
    EXPECT_EQ(again->device(d).launch_overhead_us, c->device(d).launch_overhead_us);
    EXPECT_EQ(again->device(d).memory_bytes, c->device(d).memory_bytes);
    for (DeviceId e = 0; e < n; ++e) {
      if (d == e) continue;
      EXPECT_EQ(again->link(d, e).bandwidth, c->link(d, e).bandwidth);
      EXPECT_EQ(again->link(d, e).latency_us, c->link(d, e).latency_us);
    }
  }
}

TEST(LocalCluster, OneDeviceOfAllCores) {
  const std::vector<int> cores = Allowed();
  auto c = LocalCluster("local:1");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->Validate().ok()) << c->Validate().ToString();
  EXPECT_EQ(c->name(), "local:1");
  ASSERT_EQ(c->num_devices(), 1);
  EXPECT_EQ(c->num_ports(), 0);
  EXPECT_EQ(c->device(0).name, "cpu:0");
  if (cores.size() > 1) {
    EXPECT_EQ(c->device(0).model.rfind("local cores ", 0), 0u) << c->device(0).model;
  }
  EXPECT_GT(c->device(0).peak_flops, 1e9);
}

}  // namespace
}  // namespace graphopt
