#include "sim/cluster.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "core/files.h"

namespace graphopt {
namespace {

TEST(ClusterTest, EveryPresetIsValidWithTheHostLast) {
  for (const std::string& name : ClusterPresetNames()) {
    auto c = ClusterPreset(name);
    ASSERT_TRUE(c.ok()) << name;
    EXPECT_TRUE(c->Validate().ok()) << name << ": " << c->Validate().message();
    EXPECT_EQ(c->device(c->num_devices() - 1).kind, DeviceKind::kCpu) << name;
    EXPECT_EQ(c->name(), name);
  }
}

TEST(ClusterTest, PresetsHaveTheRequiredNames) {
  for (const char* name :
       {"1xV100", "2xP100", "4xV100", "8xV100", "8xV100-nvlink", "4xK40+cpu", "8xH100-nvlink", "cpu"}) {
    EXPECT_TRUE(ClusterPreset(name).ok()) << name;
  }
}

TEST(ClusterTest, PresetDeviceCountsAndFirstAccelerator) {
  EXPECT_EQ(ClusterPreset("8xV100")->num_devices(), 9);
  EXPECT_EQ(ClusterPreset("8xV100")->Accelerators().size(), 8u);
  EXPECT_EQ(ClusterPreset("8xV100")->FirstAccelerator(), 0);
  EXPECT_EQ(ClusterPreset("2xP100")->num_devices(), 3);
  EXPECT_EQ(ClusterPreset("cpu")->num_devices(), 1);
  // A machine of CPUs only computes on them: its CPU is its one compute device.
  EXPECT_EQ(ClusterPreset("cpu")->Accelerators(), std::vector<DeviceId>{0});
}

TEST(ClusterTest, V100FiguresAreTheDatasheetValues) {
  const Cluster c = *ClusterPreset("8xV100-nvlink");
  EXPECT_DOUBLE_EQ(c.device(0).peak_flops, 15.7e12);
  EXPECT_DOUBLE_EQ(c.device(0).memory_bandwidth, 900e9);
  EXPECT_EQ(c.device(0).memory_bytes, int64_t{16} << 30);
}

TEST(ClusterTest, Dgx1HasHybridCubeMeshNvlinks) {
  const Cluster c = *ClusterPreset("8xV100-nvlink");
  EXPECT_DOUBLE_EQ(c.link(0, 3).bandwidth, 50e9);     // two NVLinks
  EXPECT_DOUBLE_EQ(c.link(0, 1).bandwidth, 25e9);     // one NVLink
  EXPECT_DOUBLE_EQ(c.link(0, 5).bandwidth, 15.75e9);  // no NVLink: PCIe through the host
  EXPECT_DOUBLE_EQ(c.link(3, 0).bandwidth, 50e9);
  // Six NVLinks per GPU.
  for (DeviceId a = 0; a < 8; ++a) {
    double links = 0;
    for (DeviceId b = 0; b < 8; ++b) {
      if (a != b && c.link(a, b).bandwidth > 16e9) links += c.link(a, b).bandwidth / 25e9;
    }
    EXPECT_DOUBLE_EQ(links, 6) << "gpu " << a;
  }
}

TEST(ClusterTest, UnknownPresetListsThePresets) {
  auto c = ClusterPreset("3xV100");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("8xV100-nvlink"), std::string::npos);
}

TEST(ClusterTest, JsonRoundTripsEveryPreset) {
  for (const std::string& name : ClusterPresetNames()) {
    const Cluster c = *ClusterPreset(name);
    auto back = ClusterFromJson(ClusterToJson(c), "x.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->num_devices(), c.num_devices());
    for (DeviceId a = 0; a < c.num_devices(); ++a) {
      EXPECT_EQ(back->device(a).name, c.device(a).name);
      EXPECT_NEAR(back->device(a).peak_flops, c.device(a).peak_flops, 1e-6 * c.device(a).peak_flops);
      EXPECT_EQ(back->device(a).memory_bytes, c.device(a).memory_bytes);
      for (DeviceId b = 0; b < c.num_devices(); ++b) {
        if (a == b) continue;
        EXPECT_NEAR(back->link(a, b).bandwidth, c.link(a, b).bandwidth, 1e-3);
      }
    }
  }
}

constexpr const char* kTwoGpus = R"({
  "name": "two", "devices": [
    {"name": "g0", "kind": "gpu", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4},
    {"name": "g1", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4}],
  "links": [{"from": "g0", "to": "g1", "bandwidth_gb_s": 20, "latency_us": 3, "bidirectional": true}]})";

TEST(ClusterTest, ReadsAHandWrittenFile) {
  auto c = ClusterFromJson(kTwoGpus, "two.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->name(), "two");
  EXPECT_DOUBLE_EQ(c->link(1, 0).bandwidth, 20e9);
  EXPECT_DOUBLE_EQ(c->link(0, 1).latency_us, 3);
  EXPECT_EQ(c->device(1).kind, DeviceKind::kGpu);
}

TEST(ClusterTest, MissingLinkIsAnErrorNamingTheFileAndDevices) {
  std::string text = kTwoGpus;
  text.replace(text.find(", \"bidirectional\": true"), std::string(", \"bidirectional\": true").size(), "");
  auto c = ClusterFromJson(text, "two.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("two.json"), std::string::npos);
  EXPECT_NE(c.status().message().find("no link from g1 to g0"), std::string::npos) << c.status().message();
}

TEST(ClusterTest, BadJsonErrorsNameTheFileAndField) {
  EXPECT_NE(ClusterFromJson("{", "bad.json").status().message().find("bad.json: not valid JSON"), std::string::npos);
  std::string text = kTwoGpus;
  text.replace(text.find("\"peak_tflops\": 10"), 17, "\"peak_tflops\": -1");
  auto c = ClusterFromJson(text, "neg.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("neg.json: devices[0] (g0): \"peak_tflops\" must be positive"), std::string::npos)
      << c.status().message();
  std::string unknown = kTwoGpus;
  unknown.replace(unknown.find("\"to\": \"g1\""), 10, "\"to\": \"g9\"");
  auto u = ClusterFromJson(unknown, "u.json");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("unknown device \"g9\""), std::string::npos) << u.status().message();
}

TEST(ClusterTest, NumbersBeyondADoubleAreAnError) {
  std::string text = kTwoGpus;
  text.replace(text.find("\"peak_tflops\": 10"), 17, "\"peak_tflops\": 1e999");
  auto c = ClusterFromJson(text, "huge.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("huge.json: not valid JSON"), std::string::npos) << c.status().message();
}

TEST(ClusterTest, TooManyDevicesIsAnErrorBeforeTheLinkMatrix) {
  // The links are a dense n^2 matrix: 10^5 devices (a 9 MB file) would need 160 GB.
  std::string text = R"({"format": "graphopt-cluster", "version": 1, "devices": [)";
  for (int i = 0; i <= kMaxDevices; ++i) {
    text += std::string(i ? "," : "") + R"({"name": "g)" + std::to_string(i) +
            R"(", "peak_tflops": 1, "memory_bandwidth_gb_s": 1, "memory_gib": 1, "launch_overhead_us": 0})";
  }
  text += R"(], "default_link": {"bandwidth_gb_s": 1, "latency_us": 1}})";
  auto c = ClusterFromJson(text, "big.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("big.json: \"devices\" lists 1025 devices, more than the 1024"), std::string::npos)
      << c.status().message();
}

TEST(ClusterTest, LoadClusterTakesAPresetOrAFile) {
  EXPECT_EQ(LoadCluster("4xV100")->num_devices(), 5);
  const std::string path = ::testing::TempDir() + "/cluster_" + std::to_string(getpid()) + ".json";
  ASSERT_TRUE(WriteClusterJson(*ClusterPreset("2xP100"), path).ok());
  auto c = LoadCluster(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->num_devices(), 3);
  std::remove(path.c_str());
  EXPECT_FALSE(LoadCluster("/nonexistent/x.json").ok());
}

TEST(ClusterTest, SpecsMakeMixedClustersWithTheHostLast) {
  auto c = LoadCluster("2xV100+1xP100");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->Validate().ok());
  EXPECT_EQ(c->name(), "2xV100+1xP100");
  ASSERT_EQ(c->num_devices(), 4);
  EXPECT_DOUBLE_EQ(c->device(0).peak_flops, 14.0e12);  // V100 PCIe
  EXPECT_DOUBLE_EQ(c->device(1).peak_flops, 14.0e12);
  EXPECT_DOUBLE_EQ(c->device(2).peak_flops, 9.3e12);  // P100 PCIe
  EXPECT_EQ(c->device(2).name, "gpu:2");
  EXPECT_EQ(c->device(3).kind, DeviceKind::kCpu);
  EXPECT_DOUBLE_EQ(c->link(0, 2).bandwidth, 15.75e9);
  // The same devices and links as the preset of that name.
  const Cluster spec = *ClusterFromSpec("4xV100"), preset = *ClusterPreset("4xV100");
  EXPECT_EQ(ClusterToJson(spec), ClusterToJson(preset));
  EXPECT_EQ(LoadCluster("3xK40")->Accelerators().size(), 3u);
}

TEST(ClusterTest, PartKeepsTheDevicesGivenAndTheirLinks) {
  const Cluster c = *LoadCluster("1xV100+2xP100");  // gpu:0 V100, gpu:1-2 P100, host cpu:0
  const Cluster part = c.Part({2, 3});
  EXPECT_TRUE(part.Validate().ok());
  EXPECT_EQ(part.name(), "1xV100+2xP100[2,3]");
  ASSERT_EQ(part.num_devices(), 2);
  EXPECT_EQ(part.device(0).name, "gpu:2");
  EXPECT_DOUBLE_EQ(part.device(0).peak_flops, 9.3e12);
  EXPECT_EQ(part.device(1).kind, DeviceKind::kCpu);
  EXPECT_DOUBLE_EQ(part.link(0, 1).bandwidth, c.link(2, 3).bandwidth);
  EXPECT_DOUBLE_EQ(part.link(1, 0).latency_us, c.link(3, 2).latency_us);
  EXPECT_EQ(part.Accelerators(), std::vector<DeviceId>{0});
}

TEST(ClusterTest, BadSpecsNameTheSpecAndThePart) {
  for (const char* spec : {"2xV100+", "0xV100", "2xA100", "x", "2xV100+3", "1xV100+9999xP100"}) {
    auto c = ClusterFromSpec(spec);
    ASSERT_FALSE(c.ok()) << spec;
    EXPECT_NE(c.status().message().find(std::string("\"") + spec + "\""), std::string::npos) << c.status().message();
  }
  EXPECT_NE(ClusterFromSpec("2xA100").status().message().find("known: V100, P100, K40, H100"), std::string::npos);
}

// Issue 14: wrongly typed fields are errors naming the file and field, not an
// uncaught nlohmann type_error.
TEST(ClusterTest, WronglyTypedFieldsAreCleanErrors) {
  struct Case {
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"\"kind\": \"gpu\"", "\"kind\": 5", "t.json: devices[0] (g0): \"kind\": must be a string, got 5"},
      {"\"kind\": \"gpu\"", "\"kind\": null", "t.json: devices[0] (g0): \"kind\": must be a string, got null"},
      {"\"bidirectional\": true", "\"bidirectional\": \"yes\"",
       "t.json: links[0]: \"bidirectional\": must be true or false, got \"yes\""},
      {"\"bidirectional\": true", "\"bidirectional\": 1", "t.json: links[0]: \"bidirectional\": must be true or false"},
      {"\"latency_us\": 3", "\"latency_us\": \"3\"", "t.json: links[0]: \"latency_us\": must be a number"},
  };
  for (const Case& c : cases) {
    std::string text = kTwoGpus;
    text.replace(text.find(c.from), std::string(c.from).size(), c.to);
    auto cluster = ClusterFromJson(text, "t.json");
    ASSERT_FALSE(cluster.ok()) << c.to;
    EXPECT_NE(cluster.status().message().find(c.expect), std::string::npos) << cluster.status().message();
  }
}

// Issue 14: non-finite or absurd physical values are refused at load (a default_link
// latency of 1e308 used to trip heft.cc's "best >= 0" check).
TEST(ClusterTest, AbsurdPhysicalValuesAreRefusedAtLoad) {
  struct Case {
    const char* from;
    const char* to;
    const char* field;
  } cases[] = {
      {"\"latency_us\": 3", "\"latency_us\": 1e308", "links[0]: \"latency_us\""},
      {"\"latency_us\": 3", "\"latency_us\": 2e6", "links[0]: \"latency_us\""},
      {"\"bandwidth_gb_s\": 20", "\"bandwidth_gb_s\": 1e-300", "links[0]: \"bandwidth_gb_s\""},
      {"\"bandwidth_gb_s\": 20", "\"bandwidth_gb_s\": 1e300", "links[0]: \"bandwidth_gb_s\""},
      {"\"peak_tflops\": 10", "\"peak_tflops\": 1e-300", "devices[0] (g0): \"peak_tflops\""},
      {"\"peak_tflops\": 10", "\"peak_tflops\": 1e300", "devices[0] (g0): \"peak_tflops\""},
      {"\"memory_bandwidth_gb_s\": 500", "\"memory_bandwidth_gb_s\": 1e-300", "devices[0] (g0): \"memory_bandwidth_gb_s\""},
      {"\"memory_gib\": 8", "\"memory_gib\": 1e300", "devices[0] (g0): \"memory_gib\""},
      {"\"launch_overhead_us\": 4", "\"launch_overhead_us\": 1e308", "devices[0] (g0): \"launch_overhead_us\""},
  };
  for (const Case& c : cases) {
    std::string text = kTwoGpus;
    text.replace(text.find(c.from), std::string(c.from).size(), c.to);
    auto cluster = ClusterFromJson(text, "p.json");
    ASSERT_FALSE(cluster.ok()) << c.to;
    EXPECT_NE(cluster.status().message().find(std::string("p.json: ") + c.field), std::string::npos)
        << cluster.status().message();
    EXPECT_NE(cluster.status().message().find("outside the physical range"), std::string::npos)
        << cluster.status().message();
  }
  // The default link of the issue's report.
  std::string text = kTwoGpus;
  text.replace(text.find("\"links\""), 0, "\"default_link\": {\"bandwidth_gb_s\": 10, \"latency_us\": 1e308}, ");
  auto d = ClusterFromJson(text, "dl.json");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("dl.json: default_link: \"latency_us\""), std::string::npos) << d.status().message();
  // The edges of the ranges are accepted; every preset is within them.
  std::string edge = kTwoGpus;
  edge.replace(edge.find("\"latency_us\": 3"), std::string("\"latency_us\": 3").size(), "\"latency_us\": 1e6");
  auto e = ClusterFromJson(edge, "e.json");
  EXPECT_TRUE(e.ok()) << e.status().message();
  for (const std::string& name : ClusterPresetNames()) EXPECT_TRUE(ClusterPreset(name)->Validate().ok()) << name;
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

// A measured figure (any double) does not always survive FLOP/s -> TFLOP/s -> FLOP/s,
// but the figures a file gives back do: a cluster read from its file writes and reads
// back to the same bits (what a measured cluster is made of: exec/local_cluster.cc).
TEST(ClusterTest, FiguresReadFromAFileRoundTripBitForBit) {
  Cluster c = *ClusterPreset("4xV100");
  Device d = c.device(0);
  d.peak_flops = 32956212316.54795;  // (x / 1e12) * 1e12 != x
  d.memory_bandwidth = 12345678901.234567;
  Cluster odd("odd", {d, c.device(1)});
  odd.SetAllLinks(Link{8.37e9 + 0.123456789, 0.53});
  ASSERT_NE(d.peak_flops / 1e12 * 1e12, d.peak_flops);
  auto once = ClusterFromJson(ClusterToJson(odd), "once");
  ASSERT_TRUE(once.ok()) << once.status().message();
  auto twice = ClusterFromJson(ClusterToJson(*once), "twice");
  ASSERT_TRUE(twice.ok());
  for (DeviceId i = 0; i < once->num_devices(); ++i) {
    EXPECT_EQ(twice->device(i).peak_flops, once->device(i).peak_flops);
    EXPECT_EQ(twice->device(i).memory_bandwidth, once->device(i).memory_bandwidth);
    EXPECT_EQ(twice->device(i).memory_bytes, once->device(i).memory_bytes);
  }
  EXPECT_EQ(twice->link(0, 1).bandwidth, once->link(0, 1).bandwidth);
  EXPECT_EQ(twice->link(0, 1).latency_us, once->link(0, 1).latency_us);
}

TEST(ClusterTest, MedianContentionTakesEachPartsMedian) {
  EXPECT_FALSE(MedianContention({}).any());
  const Contention one = MedianContention({{1.5, 2.0}});
  EXPECT_EQ(one.compute, 1.5);
  EXPECT_EQ(one.memory, 2.0);
  // Each part on its own: compute's middle two are 1.2 and 1.4, memory's 1.3 and 1.6.
  const Contention c = MedianContention({{1.0, 1.6, 1.9}, {1.2, 1.3, 1.0}, {3.0, 1.1, 1.2}, {1.4, 2.0, 1.4}});
  EXPECT_DOUBLE_EQ(c.compute, 1.3);
  EXPECT_DOUBLE_EQ(c.memory, 1.45);
  EXPECT_DOUBLE_EQ(c.read, 1.3);  // 1.2 and 1.4
}

}  // namespace
}  // namespace graphopt
