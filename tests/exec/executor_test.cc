#include "exec/executor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "../testing/clusters.h"
#include "core/rng.h"
#include "core_sets.h"
#include "exec/local_cluster.h"
#include "models/load.h"

namespace graphopt {
namespace {

using testing::CoreSets;

Graph Load(const std::string& spec) {
  auto g = LoadModel(spec);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::move(*g);
}

Plan RandomPlan(const Graph& g, const Cluster& c, uint64_t seed, bool spread, bool fuse) {
  Rng rng(seed);
  Plan p = DefaultPlan(g);
  for (OpId o = 0; o < g.num_ops(); ++o) {
    p.device[static_cast<size_t>(o)] = spread ? static_cast<DeviceId>(rng.Uniform(2)) : 0;
    p.priority[static_cast<size_t>(o)] = static_cast<double>(rng.Uniform(5));
    p.fuse_with_producer[static_cast<size_t>(o)] = fuse && rng.Bernoulli(0.7);
  }
  MakePlanValid(g, c, &p);
  return p;
}

std::map<std::string, at::Tensor> RunOnce(const Graph& g, const Cluster& c, const Plan& p, SimResult* result = nullptr,
                                          bool timeline = false) {
  ExecOptions options;
  options.seed = 7;
  options.record_timeline = timeline;
  auto ex = Executor::Create(g, c, CoreSets(c.num_devices()), p, options);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  if (!ex.ok()) return {};
  auto r = (*ex)->RunStep();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (result != nullptr && r.ok()) *result = *r;
  std::map<std::string, at::Tensor> out;
  for (auto& [name, t] : (*ex)->Outputs()) out[name] = t.clone();
  return out;
}

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const at::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), static_cast<size_t>(x.numel()) * x.element_size()) == 0;
}

void ExpectSameOutputsUnderEveryPlan(const std::string& spec) {
  const Graph g = Load(spec);
  const Cluster c = testing::TwoLocalCores();
  const auto reference = RunOnce(g, c, DefaultPlan(g));
  ASSERT_FALSE(reference.empty());
  int parameters = 0;
  for (const Op& op : g.ops()) parameters += op.kind == OpKind::kVariable;
  EXPECT_GT(static_cast<int>(reference.size()), parameters) << "parameters and at least one loss";
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const Plan p = RandomPlan(g, c, seed, /*spread=*/true, /*fuse=*/seed != 2);
    const auto out = RunOnce(g, c, p);
    ASSERT_EQ(out.size(), reference.size()) << spec << " plan " << seed;
    for (const auto& [name, t] : reference) {
      ASSERT_TRUE(out.count(name)) << name;
      EXPECT_TRUE(SameBits(t, out.at(name))) << spec << " plan " << seed << ": " << name << " differs";
    }
  }
}

TEST(ExecutorTest, SameOutputsUnderEveryPlanRecurrent) {
  ExpectSameOutputsUnderEveryPlan("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=50");
}

TEST(ExecutorTest, SameOutputsUnderEveryPlanConvolutional) {
  ExpectSameOutputsUnderEveryPlan("wavenet:stacks=1,layers=3,batch=1,length=64,channels=8,skip=8,quantization=16");
}

TEST(ExecutorTest, ParametersChangeFromStepToStep) {
  const Graph g = Load("rnnlm:layers=1,batch=2,steps=2,hidden=8,vocab=20");
  const Cluster c = testing::TwoLocalCores();
  auto ex = Executor::Create(g, c, CoreSets(2), DefaultPlan(g));
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  ASSERT_TRUE((*ex)->RunStep().ok());
  std::map<std::string, at::Tensor> first;
  for (auto& [name, t] : (*ex)->Outputs()) first[name] = t.clone();
  ASSERT_TRUE((*ex)->RunStep().ok());
  int changed = 0;
  for (auto& [name, t] : (*ex)->Outputs()) changed += !SameBits(first.at(name), t);
  EXPECT_GT(changed, 0);
}

// From the executor's own trace: tasks start after their inputs arrive, one task at a
// time per device, one copy per tensor and destination.
TEST(ExecutorTest, TraceRespectsDependenciesAndCopiesOncePerDestination) {
  const Graph g = Load("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=50");
  const Cluster c = testing::TwoLocalCores();
  const Plan p = RandomPlan(g, c, 5, true, true);
  SimResult r;
  RunOnce(g, c, p, &r, /*timeline=*/true);
  ASSERT_TRUE(r.has_timeline);
  std::map<OpId, const TimelineEvent*> kernel_of_root;
  std::map<std::pair<TensorId, DeviceId>, int> copies;
  for (const TimelineEvent& e : r.timeline) {
    if (e.kind == TimelineEvent::Kind::kKernel) kernel_of_root[e.op] = &e;
    if (e.kind == TimelineEvent::Kind::kTransfer) ++copies[{e.tensor, e.to}];
  }
  // The group root of an op, as the executor forms tasks.
  auto root_of = [&](OpId o) {
    while (p.fuse_with_producer[static_cast<size_t>(o)] && FusionProducer(g, o) != kNoId) o = FusionProducer(g, o);
    return o;
  };
  std::set<std::pair<TensorId, DeviceId>> needed;
  int checked = 0;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (IsFree(g.op(o).kind)) continue;
    const auto it = kernel_of_root.find(root_of(o));
    ASSERT_NE(it, kernel_of_root.end()) << g.op(o).name << " never ran";
    const TimelineEvent& k = *it->second;
    for (TensorId t : g.op(o).inputs) {
      const OpId prod = g.tensor(t).producer;
      if (IsFree(g.op(prod).kind) || root_of(prod) == root_of(o)) continue;
      const DeviceId dp = p.device[static_cast<size_t>(prod)];
      const TimelineEvent& pk = *kernel_of_root.at(root_of(prod));
      EXPECT_GE(k.start_us, pk.end_us) << g.op(o).name << " started before its input's producer ended";
      if (dp != k.device) needed.insert({t, k.device});
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  for (const auto& [key, n] : copies) EXPECT_EQ(n, 1) << g.tensor(key.first).name;
  for (const auto& key : needed) EXPECT_EQ(copies.count(key), 1u) << g.tensor(key.first).name << " not copied";
  // One task at a time per device.
  std::map<DeviceId, std::vector<std::pair<double, double>>> spans;
  for (const TimelineEvent& e : r.timeline) spans[e.device].push_back({e.start_us, e.end_us});
  for (auto& [d, v] : spans) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) EXPECT_GE(v[i].first, v[i - 1].second) << "device " << d << " overlaps";
  }
  EXPECT_GT(r.step_time_us, 0);
  EXPECT_GT(r.num_transfers, 0);
}

// On one device every push happens in the worker's own thread, so the trace shows
// exactly which tasks were ready when each one started: none of higher priority.
TEST(ExecutorTest, OneDeviceRunsTheReadyTaskOfHighestPriority) {
  const Graph g = Load("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=50");
  const Cluster c = testing::TwoLocalCores();
  const Plan p = RandomPlan(g, c, 9, /*spread=*/false, /*fuse=*/false);
  SimResult r;
  RunOnce(g, c, p, &r, true);
  std::map<OpId, const TimelineEvent*> event;
  for (const TimelineEvent& e : r.timeline) event[e.op] = &e;
  // Ready time of an op: the end of its last non-free producer (0 if none).
  auto ready_at = [&](OpId o) {
    double t = 0;
    for (TensorId in : g.op(o).inputs) {
      const OpId prod = g.tensor(in).producer;
      if (!IsFree(g.op(prod).kind)) t = std::max(t, event.at(prod)->end_us);
    }
    return t;
  };
  int violations = 0, compared = 0;
  for (const auto& [o, k] : event) {
    for (const auto& [j, e] : event) {
      if (e->start_us <= k->start_us || ready_at(j) > k->start_us) continue;
      // Updates also wait for the other readers of their parameter.
      if (g.op(j).kind == OpKind::kApplyGradient) continue;
      ++compared;
      violations += p.priority[static_cast<size_t>(j)] > p.priority[static_cast<size_t>(o)];
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_EQ(violations, 0);
}

// A fused group that holds a parameter's update and a tensor that a reader of that
// parameter needs: the update waits for the reader, the reader for the group. Such a
// plan is refused when the executor is made, naming both; every other plan runs.
TEST(ExecutorTest, RefusesAPlanWhoseUpdateWaitsForItsOwnGroup) {
  const Graph g = Load("gnmt:layers=2,batch=2,steps=3,hidden=8,vocab=20");
  const Cluster c = testing::TwoLocalCores();
  int refused = 0, ran = 0;
  for (uint64_t seed = 1; seed <= 40 && refused == 0; ++seed) {
    const Plan p = RandomPlan(g, c, seed, /*spread=*/true, /*fuse=*/true);
    auto ex = Executor::Create(g, c, CoreSets(2), p);
    if (!ex.ok()) {
      EXPECT_NE(ex.status().message().find("cannot run: the update"), std::string::npos) << ex.status().message();
      ++refused;
      continue;
    }
    auto r = (*ex)->RunStep();
    EXPECT_TRUE(r.ok()) << "seed " << seed << ": " << r.status().message();
    ++ran;
  }
  EXPECT_EQ(refused, 1) << ran << " plans ran";
}

TEST(ExecutorTest, RefusesAPlanOverADevicesMemory) {
  const Graph g = Load("rnnlm:layers=1,batch=2,steps=2,hidden=8,vocab=20");
  const Cluster c = testing::TwoLocalCores(/*memory_bytes=*/1024);
  auto ex = Executor::Create(g, c, CoreSets(2), DefaultPlan(g));
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("does not fit"), std::string::npos) << ex.status().ToString();
  EXPECT_NE(ex.status().message().find("cpu:0"), std::string::npos) << ex.status().ToString();
}

TEST(ExecutorTest, RefusesWrongCoreSetsAndInvalidPlans) {
  const Graph g = Load("rnnlm:layers=1,batch=2,steps=2,hidden=8,vocab=20");
  const Cluster c = testing::TwoLocalCores();
  EXPECT_FALSE(Executor::Create(g, c, CoreSets(1), DefaultPlan(g)).ok());
  Plan p = DefaultPlan(g);
  p.device[0] = 5;
  auto ex = Executor::Create(g, c, CoreSets(2), p);
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("device"), std::string::npos) << ex.status().ToString();
}

}  // namespace
}  // namespace graphopt
