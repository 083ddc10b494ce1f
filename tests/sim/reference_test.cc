// The simulator against a slow reference written from the semantics in
// simulator.h alone: quadratic scans instead of heaps, tensor lifetimes computed
// after the fact instead of reference counts. Random graphs with random real-valued
// costs and distinct random priorities, so that ties between kernels (whose order is
// an implementation detail) practically never happen; ties between transfers (one
// consumer's priority on two tensors, sent at once to its device's port) do, and
// follow the canonical order of simulator.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/rng.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RefResult {
  double step_time_us = 0;
  std::vector<double> busy;
  std::vector<int64_t> peak;
  std::vector<int64_t> link_bytes;
};

class Reference {
 public:
  Reference(const Graph& g, const Cluster& c, const CostModel& cm, const Plan& plan)
      : g_(g), c_(c), cm_(cm), n_(g.num_ops()), nd_(c.num_devices()), dev_(plan.device), prio_(plan.priority) {
    root_.resize(static_cast<size_t>(n_));
    for (OpId o = 0; o < n_; ++o) {
      OpId x = o;
      while (plan.fuse_with_producer[static_cast<size_t>(x)]) x = FusionProducer(g, x);
      root_[static_cast<size_t>(o)] = x;
      members_[x].push_back(o);
    }
    for (auto& [r, ms] : members_) {
      double p = -kInf;
      for (OpId m : ms) p = std::max(p, prio_[static_cast<size_t>(m)]);
      kprio_[r] = p;
    }
  }

  // Data inputs of op (free ops have none), distinct.
  std::vector<TensorId> Inputs(OpId o) const {
    std::vector<TensorId> in;
    if (IsFree(g_.op(o).kind)) return in;
    for (TensorId t : g_.op(o).inputs) {
      if (g_.tensor(t).producer != kNoId && std::find(in.begin(), in.end(), t) == in.end()) in.push_back(t);
    }
    return in;
  }
  // Consumers that wait for t (no free ops), distinct.
  std::vector<OpId> Readers(TensorId t) const {
    std::set<OpId> s;
    for (OpId c : g_.tensor(t).consumers) {
      if (!IsFree(g_.op(c).kind)) s.insert(c);
    }
    return {s.begin(), s.end()};
  }
  // A lone instant op; a fused group is always a kernel.
  bool Instant(OpId r) const { return members_.at(r).size() == 1 && cm_.IsInstant(g_.op(r)); }
  DeviceId Dev(OpId o) const { return dev_[static_cast<size_t>(o)]; }

  double Duration(OpId r) const {
    const Device& d = c_.device(Dev(r));
    const auto& ms = members_.at(r);
    if (ms.size() == 1) return cm_.OpTimeUs(g_.op(r), d);
    double compute = 0, body = 0, bytes = 0;
    auto measured = [&](OpId o) { return cm_.MeasuredTimeUs(g_.op(o), d) >= 0; };
    std::set<TensorId> read_from_outside;
    for (OpId m : ms) {
      const Op& op = g_.op(m);
      if (measured(m)) {
        body += CostModel::MeasuredBodyUs(cm_.MeasuredTimeUs(op, d), d);
        continue;
      }
      compute += cm_.ComputeTimeUs(op, d);
      bytes += static_cast<double>(op.cost.bytes_read + op.cost.bytes_written);
      const std::set<TensorId> inputs(op.inputs.begin(), op.inputs.end());
      for (TensorId t : inputs) {
        const OpId p = g_.tensor(t).producer;
        if (p == kNoId || root_[static_cast<size_t>(p)] == r) continue;
        if (!read_from_outside.insert(t).second) {
          bytes -= std::min(static_cast<double>(g_.tensor(t).bytes()), static_cast<double>(op.cost.bytes_read));
        }
      }
    }
    for (OpId m : ms) {
      for (TensorId t : g_.op(m).outputs) {
        const double tb = static_cast<double>(g_.tensor(t).bytes());
        const auto readers = Readers(t);
        bool external = false;
        for (OpId c : readers) {
          if (root_[static_cast<size_t>(c)] != r) {
            external = true;
          } else if (!measured(c)) {
            bytes -= std::min(tb, static_cast<double>(g_.op(c).cost.bytes_read));
          }
        }
        if (!external && !readers.empty() && !measured(m))
          bytes -= std::min(tb, static_cast<double>(g_.op(m).cost.bytes_written));
      }
    }
    return CostModel::FusedKernelTimeUs(compute, std::max(0.0, bytes), body, d);
  }

  RefResult Run() {
    RefResult res;
    res.busy.assign(static_cast<size_t>(nd_), 0);
    res.peak.assign(static_cast<size_t>(nd_), 0);
    res.link_bytes.assign(static_cast<size_t>(nd_ * nd_), 0);
    std::vector<double> device_free(static_cast<size_t>(nd_), 0);
    std::vector<bool> device_busy(static_cast<size_t>(nd_), false), link_busy(static_cast<size_t>(nd_ * nd_), false);
    std::vector<bool> port_busy(static_cast<size_t>(c_.num_ports()), false);
    struct Pending {
      double priority;
      int64_t seq;
      OpId r;
      TensorId t;
      DeviceId to;
      double sent;  // transfers: the send time
    };
    std::vector<Pending> ready, queue;
    struct Ev {
      double end;
      int64_t seq;
      OpId r;  // kernel, or kNoId for a transfer
      TensorId t;
      DeviceId from, to;
    };
    std::vector<Ev> events;
    int64_t seq = 0;
    double now = 0;

    auto publish = [&](OpId r, double time) {
      kernel_end_[r] = time;
      for (OpId m : members_.at(r)) {
        for (TensorId t : g_.op(m).outputs) {
          present_[{t, Dev(r)}] = time;
          std::map<DeviceId, double> dests;
          for (OpId c : Readers(t)) {
            if (Dev(c) == Dev(r)) continue;
            auto it = dests.emplace(Dev(c), -kInf).first;
            it->second = std::max(it->second, kprio_[root_[static_cast<size_t>(c)]]);
          }
          for (auto [to, p] : dests) queue.push_back({p, seq++, kNoId, t, to, time});
        }
      }
    };
    auto scan_ready = [&]() {
      bool again = true;
      while (again) {
        again = false;
        for (auto& [r, ms] : members_) {
          if (state_[r] != 0) continue;
          bool ok = true;
          for (OpId m : ms) {
            for (TensorId t : Inputs(m)) {
              if (root_[static_cast<size_t>(g_.tensor(t).producer)] == r) continue;
              ok &= present_.count({t, Dev(r)}) > 0;
            }
          }
          if (!ok) continue;
          if (Instant(r)) {
            state_[r] = 2;
            kernel_start_[r] = now;
            publish(r, now);
            again = true;
          } else {
            state_[r] = 1;
            ready.push_back({kprio_[r], seq++, r, kNoId, kNoId, 0.0});
          }
        }
      }
    };
    for (auto& [r, ms] : members_) state_[r] = 0;
    while (true) {
      scan_ready();
      for (DeviceId d = 0; d < nd_; ++d) {
        if (device_busy[static_cast<size_t>(d)]) continue;
        auto best = ready.end();
        for (auto it = ready.begin(); it != ready.end(); ++it) {
          if (Dev(it->r) != d) continue;
          if (best == ready.end() || it->priority > best->priority ||
              (it->priority == best->priority && it->seq < best->seq))
            best = it;
        }
        if (best == ready.end()) continue;
        const OpId r = best->r;
        ready.erase(best);
        const double dur = Duration(r);
        kernel_start_[r] = now;
        res.busy[static_cast<size_t>(d)] += dur;
        device_busy[static_cast<size_t>(d)] = true;
        events.push_back({now + dur, seq++, r, kNoId, d, d});
      }
      // Transfers: over and over, among the waiting transfers whose link is idle and
      // whose ports are all free, start the one of highest priority (then the earliest
      // sent, the lowest tensor id, the lowest destination).
      while (true) {
        auto best = queue.end();
        for (auto it = queue.begin(); it != queue.end(); ++it) {
          const DeviceId a = Dev(g_.tensor(it->t).producer), b = it->to;
          if (link_busy[static_cast<size_t>(a * nd_ + b)]) continue;
          bool free = true;
          for (int32_t p : c_.link_ports(a, b)) free &= !port_busy[static_cast<size_t>(p)];
          if (!free) continue;
          if (best == queue.end() ||
              std::make_tuple(-it->priority, it->sent, it->t, it->to) <
                  std::make_tuple(-best->priority, best->sent, best->t, best->to))
            best = it;
        }
        if (best == queue.end()) break;
        const TensorId t = best->t;
        const DeviceId a = Dev(g_.tensor(t).producer), b = best->to;
        queue.erase(best);
        const Link& l = c_.link(a, b);
        const int64_t bytes = g_.tensor(t).bytes();
        sent_[{t, b}] = now;
        res.link_bytes[static_cast<size_t>(a * nd_ + b)] += bytes;
        link_busy[static_cast<size_t>(a * nd_ + b)] = true;
        for (int32_t p : c_.link_ports(a, b)) port_busy[static_cast<size_t>(p)] = true;
        events.push_back({now + l.latency_us + static_cast<double>(bytes) * (1e6 / c_.PathBandwidth(a, b)), seq++,
                          kNoId, t, a, b});
      }
      if (events.empty()) break;
      // Every end at the next time, in start order, before anything starts.
      now = std::min_element(events.begin(), events.end(), [](const Ev& x, const Ev& y) { return x.end < y.end; })->end;
      while (true) {
        auto next = std::min_element(events.begin(), events.end(), [&](const Ev& x, const Ev& y) {
          return (x.end == now) > (y.end == now) || ((x.end == now) == (y.end == now) && x.seq < y.seq);
        });
        if (next == events.end() || next->end != now) break;
        const Ev e = *next;
        events.erase(next);
        if (e.r != kNoId) {
          device_busy[static_cast<size_t>(e.from)] = false;
          publish(e.r, now);
        } else {
          link_busy[static_cast<size_t>(e.from * nd_ + e.to)] = false;
          for (int32_t p : c_.link_ports(e.from, e.to)) port_busy[static_cast<size_t>(p)] = false;
          present_[{e.t, e.to}] = now;
          arrived_[{e.t, e.to}] = now;
        }
      }
      res.step_time_us = now;
    }
    ComputeMemory(&res);
    return res;
  }

 private:
  // Peak memory from lifetimes: a copy lives from its allocation (producer start or
  // transfer start) to the end of the last kernel on its device that reads it
  // (directly or through a view aliasing it) and of its outgoing transfers.
  void ComputeMemory(RefResult* res) {
    std::vector<int64_t> resident(static_cast<size_t>(nd_), 0);
    for (OpId o = 0; o < n_; ++o) {
      const Op& op = g_.op(o);
      int64_t b = op.param_bytes;
      if (op.kind == OpKind::kVariable) {
        int64_t out = 0;
        for (TensorId t : op.outputs) out += g_.tensor(t).bytes();
        b = std::max(b, out);
      }
      resident[static_cast<size_t>(Dev(o))] += b;
    }
    // Which copy does a lone view's output alias?
    auto alias_of = [&](TensorId y) -> TensorId {
      const OpId v = g_.tensor(y).producer;
      const Op& op = g_.op(v);
      if (members_.at(root_[static_cast<size_t>(v)]).size() != 1 || !cm_.IsInstant(op) ||
          CategoryOf(op.kind) != OpCategory::kView)
        return kNoId;
      if (op.outputs.size() != 1 || op.inputs.empty() || g_.tensor(op.inputs[0]).producer == kNoId) return kNoId;
      if (g_.tensor(op.outputs[0]).bytes() > g_.tensor(op.inputs[0]).bytes()) return kNoId;
      return op.inputs[0];
    };
    // End of the life of copy (t, d).
    std::function<double(TensorId, DeviceId)> end_of = [&](TensorId t, DeviceId d) {
      const OpId p = g_.tensor(t).producer;
      double end = Dev(p) == d ? kernel_end_.at(root_[static_cast<size_t>(p)]) : arrived_.at({t, d});
      for (OpId c : Readers(t)) {
        if (Dev(c) == d && root_[static_cast<size_t>(c)] != root_[static_cast<size_t>(p)]) {
          end = std::max(end, kernel_end_.at(root_[static_cast<size_t>(c)]));
          for (TensorId y : g_.op(c).outputs) {
            if (alias_of(y) == t) end = std::max(end, end_of(y, d));
          }
        }
        if (Dev(p) == d && Dev(c) != d) end = std::max(end, arrived_.at({t, Dev(c)}));
      }
      return end;
    };
    struct Change {
      double time;
      // At one time: frees (0), then what instant kernels allocate (1) and free at once (2),
      // then what starting kernels and transfers allocate (3).
      int order;
      DeviceId d;
      int64_t delta;
    };
    std::vector<Change> changes;
    for (TensorId t = 0; t < g_.num_tensors(); ++t) {
      const OpId p = g_.tensor(t).producer;
      if (p == kNoId) continue;
      const OpId r = root_[static_cast<size_t>(p)];
      const DeviceId d = Dev(p);
      const int64_t b = g_.tensor(t).bytes();
      const auto readers = Readers(t);
      bool internal = !readers.empty();
      for (OpId c : readers) internal &= root_[static_cast<size_t>(c)] == r;
      const bool local =
          g_.op(p).kind != OpKind::kVariable && alias_of(t) == kNoId && !(members_.at(r).size() > 1 && internal);
      if (local) {
        const double start = kernel_start_.at(r), end = end_of(t, d);
        changes.push_back({start, Instant(r) ? 1 : 3, d, b});
        changes.push_back({end, end == start ? 2 : 0, d, -b});
      }
      std::set<DeviceId> dests;
      for (OpId c : readers) {
        if (Dev(c) != d) dests.insert(Dev(c));
      }
      for (DeviceId to : dests) {
        changes.push_back({sent_.at({t, to}), 3, to, b});
        changes.push_back({end_of(t, to), 0, to, -b});
      }
    }
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
      return a.time < b.time || (a.time == b.time && a.order < b.order);
    });
    std::vector<int64_t> cur = resident;
    res->peak = resident;
    for (const Change& ch : changes) {
      cur[static_cast<size_t>(ch.d)] += ch.delta;
      res->peak[static_cast<size_t>(ch.d)] =
          std::max(res->peak[static_cast<size_t>(ch.d)], cur[static_cast<size_t>(ch.d)]);
    }
  }

  const Graph& g_;
  const Cluster& c_;
  const CostModel& cm_;
  const int n_, nd_;
  std::vector<DeviceId> dev_;
  std::vector<double> prio_;
  std::vector<OpId> root_;
  std::map<OpId, std::vector<OpId>> members_;
  std::map<OpId, double> kprio_;
  std::map<OpId, int> state_;
  std::map<OpId, double> kernel_start_, kernel_end_;
  std::map<std::pair<TensorId, DeviceId>, double> present_, sent_, arrived_;
};

TEST(ReferenceTest, SimulatorAgreesWithTheSlowReference) {
  int compared = 0, fused_plans = 0;
  // Presets with every kind of port (PCIe slots, switch uplinks, NVLink pairs without
  // ports, NVSwitch ports), one without ports (links only), and 11 devices (more links
  // than one 64-bit word of the simulator's link sets).
  const char* clusters[] = {"10xV100", "8xV100-nvlink", "4xK40+cpu", "8xV100", "8xH100-nvlink", "4xV100"};
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    RandomGraphOptions o;
    o.num_ops = 60 + static_cast<int>(seed) * 8;
    o.width = 2 + static_cast<int>(seed % 4);
    Graph g = RandomLayeredGraph(o, seed);
    Rng rng(seed * 977);
    if (seed % 3 == 0) {  // some measured ops too
      for (OpId op = 0; op < g.num_ops(); ++op) {
        if (!IsFree(g.op(op).kind) && rng.Bernoulli(0.3)) g.mutable_op(op).measured_time_us = 40 * rng.UniformDouble();
      }
    }
    Cluster cluster = *LoadCluster(clusters[seed % 6]);
    if (seed % 6 == 5) {
      for (DeviceId a = 0; a < cluster.num_devices(); ++a) {
        for (DeviceId b = 0; b < cluster.num_devices(); ++b) {
          if (a != b) cluster.SetLinkPorts(a, b, {});
        }
      }
    }
    const CostModel cm;
    auto sim = Simulator::Create(g, cluster, cm);
    ASSERT_TRUE(sim.ok());
    for (int i = 0; i < 4; ++i) {
      RandomPlanOptions po;
      po.accelerators_only = i != 3;
      po.fuse_probability = i == 0 ? 0.0 : 0.5;
      const Plan plan = RandomPlan(g, cluster, po, rng);
      for (uint8_t f : plan.fuse_with_producer) fused_plans += f;
      auto got = sim->Simulate(plan);
      ASSERT_TRUE(got.ok()) << got.status().message();
      const RefResult want = Reference(g, cluster, cm, plan).Run();
      EXPECT_NEAR(got->step_time_us, want.step_time_us, 1e-9 * want.step_time_us) << "seed " << seed << " plan " << i;
      for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
        EXPECT_NEAR(got->device_busy_us[static_cast<size_t>(d)], want.busy[static_cast<size_t>(d)],
                    1e-9 * want.step_time_us)
            << "seed " << seed << " plan " << i << " device " << d;
        EXPECT_EQ(got->device_peak_memory[static_cast<size_t>(d)], want.peak[static_cast<size_t>(d)])
            << "seed " << seed << " plan " << i << " device " << d;
      }
      EXPECT_EQ(got->link_bytes, want.link_bytes) << "seed " << seed << " plan " << i;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 96);
  EXPECT_GT(fused_plans, 0);
}

}  // namespace
}  // namespace graphopt
