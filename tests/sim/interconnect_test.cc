// The interconnect as machines are built (cluster.h, "Transfers" in simulator.h): a
// transfer occupies its link and every port the link crosses, one transfer at a time
// per port. Times are computed on paper from the presets' figures: a PCIe 3.0 x16
// transfer of 15.75 MB takes 10 us latency + 15.75e6 / 15.75e9 s = 1010 us, an NVLink
// transfer of 50 MB over two V100 NVLinks 5 + 50e6 / 50e9 s = 1005 us, and one of 450
// MB out of an H100 5 + 450e6 / 450e9 s = 1005 us.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/simulator.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

constexpr int64_t kPcieBytes = 15'750'000;     // 1000 us on PCIe 3.0 x16
constexpr int64_t kNvlinkV100Bytes = 50'000'000;  // 1000 us over two NVLink 2.0 links
constexpr int64_t kNvlinkH100Bytes = 450'000'000;  // 1000 us at 450 GB/s

// Transfers that are all sent at once: per source device one kernel (its input on
// the same device) with one output of `bytes` per transfer from it, each output read
// by one kernel on the transfer's destination. Every source kernel takes the same
// time (its launch overhead), so every transfer is sent at the same time.
struct Sends {
  PaperGraph g;
  Plan plan;
  std::vector<TensorId> tensors;  // per send, in the order given

  Sends(const std::vector<std::pair<DeviceId, DeviceId>>& sends, int64_t bytes,
        const std::vector<double>& priorities = {}) {
    std::vector<DeviceId> sources;
    for (const auto& s : sends) {
      if (std::find(sources.begin(), sources.end(), s.first) == sources.end()) sources.push_back(s.first);
    }
    std::vector<OpId> producer;
    for (DeviceId src : sources) {
      std::vector<int64_t> out;
      for (const auto& s : sends) {
        if (s.first == src) out.push_back(bytes);
      }
      const TensorId in = g.Input("in" + std::to_string(src), 4);
      plan.device.push_back(src);
      producer.push_back(g.Add("send" + std::to_string(src), OpKind::kMatMul, {in}, out, 0, 0, 0));
      plan.device.push_back(src);
    }
    plan.priority.assign(plan.device.size(), 0.0);
    std::vector<size_t> next(sources.size(), 0);
    for (size_t i = 0; i < sends.size(); ++i) {
      const size_t k = static_cast<size_t>(std::find(sources.begin(), sources.end(), sends[i].first) - sources.begin());
      const TensorId t = g.Out(producer[k], next[k]++);
      tensors.push_back(t);
      g.Compute("recv" + std::to_string(i), {t}, 0, 4);
      plan.device.push_back(sends[i].second);
      plan.priority.push_back(i < priorities.size() ? priorities[i] : 0.0);
    }
  }
};

struct Transfer {
  DeviceId from, to;
  TensorId tensor;
  double start, end;
};

std::vector<Transfer> Transfers(const Graph& g, const Cluster& c, const Plan& plan) {
  auto sim = Simulator::Create(g, c, PerfectCostModel());
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  SimOptions options;
  options.record_timeline = true;
  auto r = sim->Simulate(plan, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<Transfer> out;
  if (!r.ok()) return out;
  for (const TimelineEvent& e : r->timeline) {
    if (e.kind == TimelineEvent::Kind::kTransfer) out.push_back({e.device, e.to, e.tensor, e.start_us, e.end_us});
  }
  return out;
}

// From the first transfer's start to the last one's end, in us.
double TransferSpan(const Cluster& cluster, const std::vector<std::pair<DeviceId, DeviceId>>& sends, int64_t bytes) {
  Sends s(sends, bytes);
  const std::vector<Transfer> ts = Transfers(s.g.graph(), cluster, s.plan);
  EXPECT_EQ(ts.size(), sends.size());
  if (ts.empty()) return 0;
  double start = ts[0].start, end = ts[0].end;
  for (const Transfer& t : ts) {
    start = std::min(start, t.start);
    end = std::max(end, t.end);
  }
  return end - start;
}

// PaperCluster(n) (links of 1 GB/s, 2 us) where each device has one port each way,
// "devN out" / "devN in", of `port_gb_s`, crossed by every link out of (into) it.
Cluster PortedPaperCluster(int n, double port_gb_s = 1.0) {
  Cluster c = PaperCluster(n);
  std::vector<int32_t> out, in;
  for (DeviceId d = 0; d < n; ++d) {
    out.push_back(c.AddPort(c.device(d).name + " out", port_gb_s * 1e9));
    in.push_back(c.AddPort(c.device(d).name + " in", port_gb_s * 1e9));
  }
  for (DeviceId a = 0; a < n; ++a) {
    for (DeviceId b = 0; b < n; ++b) {
      if (a != b) c.SetLinkPorts(a, b, {out[static_cast<size_t>(a)], in[static_cast<size_t>(b)]});
    }
  }
  return c;
}

TEST(InterconnectTest, TwoTransfersOutOfOnePcieGpuTakeTwiceAsLongAsOne) {
  const Cluster c = *ClusterPreset("4xV100");
  EXPECT_NEAR(TransferSpan(c, {{0, 1}}, kPcieBytes), 1010, 1e-6);
  // Both cross "gpu:0 pcie out": one after the other.
  EXPECT_NEAR(TransferSpan(c, {{0, 1}, {0, 2}}, kPcieBytes), 2 * 1010, 1e-6);
}

TEST(InterconnectTest, TransfersIntoOnePcieGpuShareItsInPort) {
  const Cluster c = *ClusterPreset("4xV100");
  // gpu:1 and the host (device 4) both send to gpu:0: "gpu:0 pcie in" carries one at a time.
  EXPECT_NEAR(TransferSpan(c, {{1, 0}, {4, 0}}, kPcieBytes), 2 * 1010, 1e-6);
}

TEST(InterconnectTest, DisjointPcieGpuPairsDoNotSlowEachOther) {
  // Every GPU has its own root-port slot; the host's root complex is non-blocking.
  EXPECT_NEAR(TransferSpan(*ClusterPreset("4xV100"), {{0, 1}, {2, 3}}, kPcieBytes), 1010, 1e-6);
}

TEST(InterconnectTest, HostSendingToEveryGpuAtOnceUsesEverySlot) {
  // The host has no port of its own: four GPUs receive in parallel.
  EXPECT_NEAR(TransferSpan(*ClusterPreset("4xV100"), {{4, 0}, {4, 1}, {4, 2}, {4, 3}}, kPcieBytes), 1010, 1e-6);
}

TEST(InterconnectTest, DisjointNvlinkPairsDoNotSlowEachOther) {
  const Cluster c = *ClusterPreset("8xV100-nvlink");
  EXPECT_NEAR(TransferSpan(c, {{0, 3}}, kNvlinkV100Bytes), 1005, 1e-6);
  EXPECT_NEAR(TransferSpan(c, {{0, 3}, {4, 7}}, kNvlinkV100Bytes), 1005, 1e-6);
  // Each NVLink has wires of its own, even out of one GPU (0-3 and 0-4 are both double).
  EXPECT_NEAR(TransferSpan(c, {{0, 3}, {0, 4}}, kNvlinkV100Bytes), 1005, 1e-6);
}

TEST(InterconnectTest, NvlinkAndPcieOutOfOneDgx1GpuRunInParallel) {
  const Cluster c = *ClusterPreset("8xV100-nvlink");
  // 0->3 over NVLink (1005 us), 0->5 over PCIe (no NVLink between them: 1010 us).
  EXPECT_NEAR(TransferSpan(c, {{0, 3}, {0, 5}}, kPcieBytes), std::max(5 + 315.0, 1010.0), 1e-6);
}

TEST(InterconnectTest, Dgx1PairsWithoutNvlinkShareTheirPcieSwitchUplink) {
  const Cluster c = *ClusterPreset("8xV100-nvlink");
  // 0->5 and 1->6 have no NVLink; 0 and 1 share PCIe switch 0's uplink.
  EXPECT_NEAR(TransferSpan(c, {{0, 5}, {1, 6}}, kPcieBytes), 2 * 1010, 1e-6);
  // 0->5 and 2->7: switches 0 and 1 up, 2 and 3 down: in parallel.
  EXPECT_NEAR(TransferSpan(c, {{0, 5}, {2, 7}}, kPcieBytes), 1010, 1e-6);
}

TEST(InterconnectTest, EightH100sSendingToEightPeersRunInParallel) {
  const Cluster c = *ClusterPreset("8xH100-nvlink");
  std::vector<std::pair<DeviceId, DeviceId>> ring;
  for (DeviceId g = 0; g < 8; ++g) ring.emplace_back(g, (g + 1) % 8);
  EXPECT_NEAR(TransferSpan(c, ring, kNvlinkH100Bytes), 1005, 1e-6);
}

TEST(InterconnectTest, OneH100SendingToSevenPeersIsHeldTo450GBs) {
  const Cluster c = *ClusterPreset("8xH100-nvlink");
  std::vector<std::pair<DeviceId, DeviceId>> fan_out;
  for (DeviceId g = 1; g < 8; ++g) fan_out.emplace_back(0, g);
  // All seven cross "gpu:0 nvlink out": 7 x one transfer.
  EXPECT_NEAR(TransferSpan(c, fan_out, kNvlinkH100Bytes), 7 * 1005, 1e-6);
}

TEST(InterconnectTest, H100HostTrafficDoesNotUseNvlink) {
  const Cluster c = *ClusterPreset("8xH100-nvlink");
  EXPECT_DOUBLE_EQ(c.PathBandwidth(0, 8), 63e9);
  // 0->1 over NVLink (1005 us) and 0->host over PCIe 5.0 (10 + 450e6 / 63e9 s).
  EXPECT_NEAR(TransferSpan(c, {{0, 1}, {0, 8}}, kNvlinkH100Bytes), 10 + 450e6 / 63e9 * 1e6, 1e-6);
}

TEST(InterconnectTest, PcieSwitchPairTalksWithoutTheUplink) {
  const Cluster c = *ClusterPreset("8xV100");
  // 0->1 and 2->3 stay inside switches 0 and 1.
  EXPECT_NEAR(TransferSpan(c, {{0, 1}, {2, 3}}, kPcieBytes), 1010, 1e-6);
  // 0->1 inside switch 0 and 2->3 inside switch 1 while 4->6 crosses switches 2 and 3.
  EXPECT_NEAR(TransferSpan(c, {{0, 1}, {2, 3}, {4, 6}}, kPcieBytes), 1010, 1e-6);
}

TEST(InterconnectTest, GpusBehindOnePcieSwitchShareItsUplink) {
  const Cluster c = *ClusterPreset("8xV100");
  // 0 and 1 share switch 0's uplink (and 2 and 3 switch 1's downlink): serialised.
  EXPECT_NEAR(TransferSpan(c, {{0, 2}, {1, 3}}, kPcieBytes), 2 * 1010, 1e-6);
  // To the host too: switch 0 up.
  EXPECT_NEAR(TransferSpan(c, {{0, 8}, {1, 8}}, kPcieBytes), 2 * 1010, 1e-6);
}

TEST(InterconnectTest, SlowestPortSetsTheTransferTime) {
  // Links of 1 GB/s through ports of 0.5 GB/s: 1000 B take 2 + 2 us.
  EXPECT_DOUBLE_EQ(PortedPaperCluster(2, 0.5).PathBandwidth(0, 1), 0.5e9);
  EXPECT_NEAR(TransferSpan(PortedPaperCluster(2, 0.5), {{0, 1}}, 1000), 4, 1e-6);
  EXPECT_NEAR(TransferSpan(PaperCluster(2), {{0, 1}}, 1000), 3, 1e-6);
}

TEST(InterconnectTest, FreedPortGoesToTheHighestPriorityTransferOfAnyLink) {
  // dev0 sends x to dev1 (reader priority 1), y to dev2 (3), w to dev1 (2), 1000 B each
  // (3 us), all through "dev0 out". Link 0->1 has w then x waiting, link 0->2 y: y
  // goes first, then w, then x. The source kernel runs 0-1 (launch only).
  Sends s({{0, 1}, {0, 2}, {0, 1}}, 1000, {1, 3, 2});
  const std::vector<Transfer> ts = Transfers(s.g.graph(), PortedPaperCluster(3), s.plan);
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].tensor, s.tensors[1]);
  EXPECT_DOUBLE_EQ(ts[0].start, 1);
  EXPECT_EQ(ts[1].tensor, s.tensors[2]);
  EXPECT_DOUBLE_EQ(ts[1].start, 4);
  EXPECT_EQ(ts[2].tensor, s.tensors[0]);
  EXPECT_DOUBLE_EQ(ts[2].start, 7);
  EXPECT_DOUBLE_EQ(ts[2].end, 10);
}

TEST(InterconnectTest, ManyCompetingLinksStartInPriorityOrder) {
  // dev0 sends to 23 devices at once through "dev0 out", readers' priorities a
  // permutation: the transfers run one after another (3 us each), highest first.
  const int n = 24;
  std::vector<std::pair<DeviceId, DeviceId>> sends;
  std::vector<double> priorities;
  for (DeviceId d = 1; d < n; ++d) {
    sends.emplace_back(0, d);
    priorities.push_back(static_cast<double>((d * 7) % (n - 1)));
  }
  Sends s(sends, 1000, priorities);
  const std::vector<Transfer> ts = Transfers(s.g.graph(), PortedPaperCluster(n), s.plan);
  ASSERT_EQ(ts.size(), sends.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    EXPECT_DOUBLE_EQ(ts[i].start, 1 + 3.0 * static_cast<double>(i));
    if (i > 0) {
      EXPECT_GT(priorities[static_cast<size_t>(ts[i - 1].to - 1)], priorities[static_cast<size_t>(ts[i].to - 1)]);
    }
  }
}

TEST(InterconnectTest, EqualPrioritiesCrossAPortInSendOrder) {
  Sends s({{0, 1}, {0, 2}, {0, 1}}, 1000);
  const std::vector<Transfer> ts = Transfers(s.g.graph(), PortedPaperCluster(3), s.plan);
  ASSERT_EQ(ts.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ts[i].tensor, s.tensors[i]);
    EXPECT_DOUBLE_EQ(ts[i].start, 1 + 3.0 * static_cast<double>(i));
  }
}

TEST(InterconnectTest, ClustersWithoutPortsKeepIndependentLinks) {
  // PaperCluster has links only: two sends out of dev0 to two devices run at once.
  EXPECT_EQ(PaperCluster(3).num_ports(), 0);
  EXPECT_NEAR(TransferSpan(PaperCluster(3), {{0, 1}, {0, 2}}, 1000), 3, 1e-6);
  EXPECT_NEAR(TransferSpan(PortedPaperCluster(3), {{0, 1}, {0, 2}}, 1000), 6, 1e-6);
}

TEST(InterconnectTest, PresetPortsAreThoseOfTheMachine) {
  const Cluster pcie = *ClusterPreset("4xV100");
  EXPECT_EQ(pcie.num_ports(), 8);  // a PCIe port each way per GPU; none for the host
  const Cluster dgx1 = *ClusterPreset("8xV100");
  EXPECT_EQ(dgx1.num_ports(), 16 + 8);  // and four switches' uplinks each way
  auto names = [](const Cluster& c, DeviceId a, DeviceId b) {
    std::vector<std::string> out;
    for (int32_t p : c.link_ports(a, b)) out.push_back(c.port(p).name);
    return out;
  };
  EXPECT_EQ(names(dgx1, 0, 3),
            (std::vector<std::string>{"gpu:0 pcie out", "pcie switch 0 up", "pcie switch 1 down", "gpu:3 pcie in"}));
  EXPECT_EQ(names(dgx1, 0, 1), (std::vector<std::string>{"gpu:0 pcie out", "gpu:1 pcie in"}));
  EXPECT_EQ(names(dgx1, 8, 1), (std::vector<std::string>{"pcie switch 0 down", "gpu:1 pcie in"}));
  const Cluster nvlink = *ClusterPreset("8xV100-nvlink");
  EXPECT_TRUE(nvlink.link_ports(0, 3).empty());
  EXPECT_EQ(names(nvlink, 0, 5), names(dgx1, 0, 5));
  EXPECT_DOUBLE_EQ(nvlink.PathBandwidth(0, 3), 50e9);
  const Cluster h100 = *ClusterPreset("8xH100-nvlink");
  EXPECT_EQ(names(h100, 2, 5), (std::vector<std::string>{"gpu:2 nvlink out", "gpu:5 nvlink in"}));
  EXPECT_EQ(names(h100, 8, 5), (std::vector<std::string>{"gpu:5 pcie in"}));
  EXPECT_EQ(ClusterPreset("cpu")->num_ports(), 0);
}

constexpr const char* kThreeGpusV1 = R"({
  "format": "graphopt-cluster", "version": 1, "name": "three", "devices": [
    {"name": "g0", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4},
    {"name": "g1", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4},
    {"name": "g2", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4}],
  "default_link": {"bandwidth_gb_s": 10, "latency_us": 3},
  "links": [{"from": "g0", "to": "g1", "bandwidth_gb_s": 20, "latency_us": 3}]})";

TEST(InterconnectTest, Version1FilesGetAPortEachWayPerDevice) {
  auto c = ClusterFromJson(kThreeGpusV1, "three.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->num_ports(), 6);
  const int32_t g0_out = c->FindPort("g0 out"), g1_in = c->FindPort("g1 in"), g2_in = c->FindPort("g2 in");
  ASSERT_GE(g0_out, 0);
  ASSERT_GE(g1_in, 0);
  EXPECT_DOUBLE_EQ(c->port(g0_out).bandwidth, 20e9);  // its fastest outgoing link
  EXPECT_DOUBLE_EQ(c->port(g1_in).bandwidth, 20e9);   // its fastest incoming link
  EXPECT_DOUBLE_EQ(c->port(g2_in).bandwidth, 10e9);
  EXPECT_DOUBLE_EQ(c->port(c->FindPort("g2 out")).bandwidth, 10e9);
  EXPECT_EQ(c->link_ports(0, 1), (std::vector<int32_t>{g0_out, g1_in}));
  EXPECT_EQ(c->link_ports(0, 2), (std::vector<int32_t>{g0_out, g2_in}));
  EXPECT_DOUBLE_EQ(c->PathBandwidth(0, 2), 10e9);
  EXPECT_TRUE(c->Validate().ok());
}

constexpr const char* kTwoGpusV2 = R"({
  "format": "graphopt-cluster", "version": 2, "name": "two", "devices": [
    {"name": "g0", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4},
    {"name": "g1", "peak_tflops": 10, "memory_bandwidth_gb_s": 500, "memory_gib": 8, "launch_overhead_us": 4}],
  "ports": [{"name": "g0 pcie out", "bandwidth_gb_s": 15.75}, {"name": "g1 pcie in", "bandwidth_gb_s": 8}],
  "links": [{"from": "g0", "to": "g1", "bandwidth_gb_s": 20, "latency_us": 3, "ports": ["g0 pcie out", 1]},
            {"from": "g1", "to": "g0", "bandwidth_gb_s": 20, "latency_us": 3}]})";

TEST(InterconnectTest, Version2FilesNamePortsByNameOrIndex) {
  auto c = ClusterFromJson(kTwoGpusV2, "two.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->num_ports(), 2);
  EXPECT_EQ(c->link_ports(0, 1), (std::vector<int32_t>{0, 1}));
  EXPECT_TRUE(c->link_ports(1, 0).empty());
  EXPECT_DOUBLE_EQ(c->PathBandwidth(0, 1), 8e9);
  EXPECT_DOUBLE_EQ(c->PathBandwidth(1, 0), 20e9);
}

TEST(InterconnectTest, BadPortReferenceNamesTheFileAndField) {
  struct Case {
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"\"ports\": [\"g0 pcie out\", 1]", "\"ports\": [\"g0 pcie out\", \"nvlink\"]",
       "bad.json: links[0]: \"ports\"[1] names unknown port \"nvlink\""},
      {"\"ports\": [\"g0 pcie out\", 1]", "\"ports\": [\"g0 pcie out\", 7]", "bad.json: links[0]: \"ports\"[1]"},
      {"\"ports\": [\"g0 pcie out\", 1]", "\"ports\": [0, \"g0 pcie out\"]",
       "bad.json: links[0]: \"ports\"[1]: port \"g0 pcie out\" listed twice"},
      {"\"ports\": [\"g0 pcie out\", 1]", "\"ports\": \"g0 pcie out\"", "bad.json: links[0]: \"ports\" must be an array"},
      {"\"bandwidth_gb_s\": 8}", "\"bandwidth_gb_s\": 1e300}", "bad.json: ports[1] (g1 pcie in): \"bandwidth_gb_s\""},
      {"{\"name\": \"g1 pcie in\"", "{\"name\": \"g0 pcie out\"", "bad.json: ports[1] (g0 pcie out): duplicate port name"},
      {"\"version\": 2", "\"version\": 1", "bad.json: \"ports\" needs version 2"},
      {"\"version\": 2", "\"version\": 3", "bad.json: unsupported cluster version 3"},
  };
  for (const Case& c : cases) {
    std::string text = kTwoGpusV2;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, std::string(c.from).size(), c.to);
    auto cluster = ClusterFromJson(text, "bad.json");
    ASSERT_FALSE(cluster.ok()) << c.to;
    EXPECT_NE(cluster.status().message().find(c.expect), std::string::npos) << cluster.status().message();
  }
}

TEST(InterconnectTest, JsonRoundTripKeepsPortsAndLinkPorts) {
  for (const std::string& name : ClusterPresetNames()) {
    const Cluster c = *ClusterPreset(name);
    const std::string text = ClusterToJson(c);
    EXPECT_NE(text.find("\"version\": 2"), std::string::npos);
    auto back = ClusterFromJson(text, name + ".json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->num_ports(), c.num_ports()) << name;
    for (int32_t p = 0; p < c.num_ports(); ++p) {
      EXPECT_EQ(back->port(p).name, c.port(p).name);
      EXPECT_NEAR(back->port(p).bandwidth, c.port(p).bandwidth, 1e-3);
    }
    for (DeviceId a = 0; a < c.num_devices(); ++a) {
      for (DeviceId b = 0; b < c.num_devices(); ++b) {
        if (a == b) continue;
        EXPECT_EQ(back->link_ports(a, b), c.link_ports(a, b)) << name << " " << a << "->" << b;
        EXPECT_NEAR(back->link(a, b).bandwidth, c.link(a, b).bandwidth, 1e-3);
        EXPECT_DOUBLE_EQ(back->link(a, b).latency_us, c.link(a, b).latency_us);
      }
    }
  }
}

TEST(InterconnectTest, PartKeepsThePortsOfTheKeptLinks) {
  const Cluster c = *ClusterPreset("8xV100");
  const Cluster part = c.Part({2, 0, 8});  // gpu:2, gpu:0, the host
  EXPECT_TRUE(part.Validate().ok()) << part.Validate().message();
  // gpu:0 and gpu:2 each way, switches 0 and 1 each way.
  ASSERT_EQ(part.num_ports(), 8);
  for (DeviceId a = 0; a < 3; ++a) {
    for (DeviceId b = 0; b < 3; ++b) {
      if (a == b) continue;
      const DeviceId ca = std::vector<DeviceId>{2, 0, 8}[static_cast<size_t>(a)];
      const DeviceId cb = std::vector<DeviceId>{2, 0, 8}[static_cast<size_t>(b)];
      ASSERT_EQ(part.link_ports(a, b).size(), c.link_ports(ca, cb).size());
      for (size_t i = 0; i < part.link_ports(a, b).size(); ++i) {
        EXPECT_EQ(part.port(part.link_ports(a, b)[i]).name, c.port(c.link_ports(ca, cb)[i]).name);
      }
      EXPECT_DOUBLE_EQ(part.PathBandwidth(a, b), c.PathBandwidth(ca, cb));
    }
  }
  // A part without links keeps no ports.
  EXPECT_EQ(c.Part({3}).num_ports(), 0);
}

TEST(InterconnectTest, ValidateRefusesBadPorts) {
  Cluster c = PortedPaperCluster(2);
  c.SetLinkPorts(0, 1, {0, 0});
  EXPECT_NE(c.Validate().message().find("crosses port \"dev0 out\" twice"), std::string::npos) << c.Validate().message();
  c.SetLinkPorts(0, 1, {9});
  EXPECT_NE(c.Validate().message().find("port 9 out of range"), std::string::npos) << c.Validate().message();
  Cluster slow = PortedPaperCluster(2, 1e-9);
  EXPECT_NE(slow.Validate().message().find("port \"dev0 out\": bandwidth"), std::string::npos)
      << slow.Validate().message();
  Cluster dup = PortedPaperCluster(2);
  dup.AddPort("dev0 out", 1e9);
  EXPECT_NE(dup.Validate().message().find("duplicate name"), std::string::npos) << dup.Validate().message();
}

// A device whose copies take its own stream (a CPU core copying: the local cluster)
// starts its next kernel only when its copies out have ended. A (10 us, dev0) sends
// 1000 bytes (2 us latency + 1 us) to B on dev1; C on dev0 (lower priority, ready at
// 0) runs after A: at 10 us with a copy engine, at 13 us when the stream copies.
TEST(InterconnectTest, CopiesOnTheStreamHoldTheSendersNextKernel) {
  for (bool on_stream : {false, true}) {
    PaperGraph g;
    const TensorId in = g.Input("in", 4);
    const TensorId a = g.Compute("A", {in}, 9, 1000);  // 9 us + 1 us launch
    g.Compute("B", {a}, 0, 4);
    g.Compute("C", {in}, 9, 4);
    Cluster c = PaperCluster(2);
    std::vector<Device> devices = c.devices();
    for (Device& d : devices) d.copies_on_stream = on_stream;
    Cluster cluster("paper", devices);
    cluster.SetAllLinks(Link{1e9, 2});
    Plan plan = DefaultPlan(g.graph());
    plan.device = {0, 0, 1, 0};
    plan.priority = {0, 1, 0, 0};
    auto sim = Simulator::Create(g.graph(), cluster, PerfectCostModel());
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    SimOptions options;
    options.record_timeline = true;
    auto r = sim->Simulate(plan, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    double c_start = -1, b_start = -1;
    for (const TimelineEvent& e : r->timeline) {
      if (e.kind != TimelineEvent::Kind::kKernel) continue;
      if (e.op == 3) c_start = e.start_us;
      if (e.op == 2) b_start = e.start_us;
    }
    EXPECT_DOUBLE_EQ(b_start, 13.0) << "on stream " << on_stream;
    EXPECT_DOUBLE_EQ(c_start, on_stream ? 13.0 : 10.0) << "on stream " << on_stream;
  }
}

}  // namespace
}  // namespace graphopt
