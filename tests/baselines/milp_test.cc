// The exact program of placement and order: optimal against brute force on random
// small problems, the coarsening, and plans on graphs (a limit reached, nothing that
// fits, the same plan twice).
#include "baselines/milp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "../testing/models.h"
#include "core/rng.h"
#include "sim/cluster.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

// A random DAG of `n` tasks (edges i -> j, i < j), one tensor each read by its
// successors, heterogeneous costs, links and memory.
BaechiProblem RandomProblem(Rng& rng, int n, int num_procs) {
  BaechiProblem p;
  p.num_tasks = n;
  p.num_procs = num_procs;
  const bool uniform = rng.Bernoulli(0.3);
  for (int v = 0; v < n; ++v) {
    const double base = 1 + 9 * rng.UniformDouble();
    for (int q = 0; q < num_procs; ++q) p.cost.push_back(uniform ? base : base * (0.5 + rng.UniformDouble()));
  }
  for (int v = 0; v < n; ++v) {
    BaechiTensor t;
    t.producer = v;
    t.bytes = 1 + static_cast<int64_t>(rng.UniformDouble() * 40);
    t.memory = t.bytes;
    for (int w = v + 1; w < n; ++w) {
      if (rng.Bernoulli(0.4)) t.consumers.push_back(w);
    }
    p.tensors.push_back(t);
  }
  for (int a = 0; a < num_procs; ++a) {
    for (int b = 0; b < num_procs; ++b) {
      p.latency.push_back(a == b ? 0 : uniform ? 1.0 : 2 * rng.UniformDouble());
      p.time_per_byte.push_back(a == b ? 0 : uniform ? 0.1 : 0.3 * rng.UniformDouble());
    }
  }
  p.resident.resize(static_cast<size_t>(n));
  int64_t total = 0;
  for (int v = 0; v < n; ++v) {
    p.resident[static_cast<size_t>(v)] = static_cast<int64_t>(rng.UniformDouble() * 30);
    total += p.resident[static_cast<size_t>(v)] + p.tensors[static_cast<size_t>(v)].memory;
  }
  if (rng.Bernoulli(0.5)) {  // capacities that often force a split
    for (int q = 0; q < num_procs; ++q) p.capacity.push_back(static_cast<int64_t>(total * (0.3 + 0.6 * rng.UniformDouble())));
  }
  if (rng.Bernoulli(0.4) && n >= 3) {  // one colocation pair
    p.group.assign(static_cast<size_t>(n), -1);
    p.group[0] = 0;
    p.group[static_cast<size_t>(n - 1)] = 0;
  }
  return p;
}

double Delay(const BaechiProblem& p, int from, int to, int a, int b) {
  double d = 0;
  for (const BaechiTensor& t : p.tensors) {
    if (t.producer == from && std::find(t.consumers.begin(), t.consumers.end(), to) != t.consumers.end())
      d += p.TransferTime(t.bytes, a, b);
  }
  return d;
}

bool Reads(const BaechiProblem& p, int from, int to) {
  for (const BaechiTensor& t : p.tensors) {
    if (t.producer == from && std::find(t.consumers.begin(), t.consumers.end(), to) != t.consumers.end()) return true;
  }
  return false;
}

bool FitsModel(const BaechiProblem& p, const std::vector<int32_t>& proc) {
  if (p.capacity.empty()) return true;
  const std::vector<int64_t> memory = MilpTaskMemory(p);
  std::vector<int64_t> used(static_cast<size_t>(p.num_procs), 0);
  for (size_t v = 0; v < proc.size(); ++v) used[static_cast<size_t>(proc[v])] += memory[v];
  for (int q = 0; q < p.num_procs; ++q) {
    if (used[static_cast<size_t>(q)] > p.capacity[static_cast<size_t>(q)]) return false;
  }
  return true;
}

// The shortest schedule of the model by enumeration: every placement that keeps the
// colocation groups together and fits, every order of the tasks (each processor runs
// its tasks in that order, each at its earliest). Infinity if no placement fits.
double BruteForceOptimum(const BaechiProblem& p) {
  const int n = p.num_tasks, np = p.num_procs;
  double best = std::numeric_limits<double>::infinity();
  // Who reads whom, and the transfer times per edge and pair of processors, once.
  std::vector<std::vector<bool>> reads(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n)));
  std::vector<double> delay(static_cast<size_t>(n * n * np * np), 0);
  for (int u = 0; u < n; ++u) {
    for (int v = 0; v < n; ++v) {
      reads[static_cast<size_t>(u)][static_cast<size_t>(v)] = Reads(p, u, v);
      for (int a = 0; a < np; ++a) {
        for (int b = 0; b < np; ++b) delay[static_cast<size_t>(((u * n + v) * np + a) * np + b)] = Delay(p, u, v, a, b);
      }
    }
  }
  std::vector<int32_t> proc(static_cast<size_t>(n), 0);
  int placements = 1;
  for (int v = 0; v < n; ++v) placements *= np;
  for (int code = 0; code < placements; ++code) {
    int c = code;
    for (int v = 0; v < n; ++v) proc[static_cast<size_t>(v)] = c % np, c /= np;
    if (!p.group.empty() && p.group[0] == 0 && proc[0] != proc[static_cast<size_t>(n - 1)]) continue;
    if (!FitsModel(p, proc)) continue;
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    do {
      std::vector<int> position(static_cast<size_t>(n));
      for (int k = 0; k < n; ++k) position[static_cast<size_t>(order[static_cast<size_t>(k)])] = k;
      bool topological = true;
      for (int i = 0; i < n && topological; ++i) {
        for (int j = 0; j < n && topological; ++j) {
          if (reads[static_cast<size_t>(i)][static_cast<size_t>(j)] &&
              position[static_cast<size_t>(i)] > position[static_cast<size_t>(j)])
            topological = false;
        }
      }
      if (!topological) continue;
      std::vector<double> finish(static_cast<size_t>(n), 0), free_at(static_cast<size_t>(np), 0);
      double makespan = 0;
      for (int v : order) {
        const int b = proc[static_cast<size_t>(v)];
        double t = free_at[static_cast<size_t>(b)];
        for (int u = 0; u < n; ++u) {
          if (reads[static_cast<size_t>(u)][static_cast<size_t>(v)]) {
            const int a = proc[static_cast<size_t>(u)];
            t = std::max(t, finish[static_cast<size_t>(u)] + delay[static_cast<size_t>(((u * n + v) * np + a) * np + b)]);
          }
        }
        finish[static_cast<size_t>(v)] = t + p.Cost(v, b);
        free_at[static_cast<size_t>(b)] = finish[static_cast<size_t>(v)];
        makespan = std::max(makespan, finish[static_cast<size_t>(v)]);
      }
      best = std::min(best, makespan);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  return best;
}

// The schedule keeps the model's rules: dependencies with their transfers, one task at
// a time per processor, colocation, memory; and its makespan is its last finish.
void ExpectValidSchedule(const BaechiProblem& p, const MilpSchedule& s) {
  const int n = p.num_tasks;
  ASSERT_EQ(s.proc.size(), static_cast<size_t>(n));
  double makespan = 0;
  for (int v = 0; v < n; ++v) {
    const double fv = s.start[static_cast<size_t>(v)] + p.Cost(v, s.proc[static_cast<size_t>(v)]);
    makespan = std::max(makespan, fv);
    for (int w = 0; w < n; ++w) {
      if (w == v) continue;
      const double fw = s.start[static_cast<size_t>(w)] + p.Cost(w, s.proc[static_cast<size_t>(w)]);
      if (Reads(p, v, w)) {
        EXPECT_GE(s.start[static_cast<size_t>(w)] + 1e-9,
                  fv + Delay(p, v, w, s.proc[static_cast<size_t>(v)], s.proc[static_cast<size_t>(w)]));
      }
      if (s.proc[static_cast<size_t>(v)] == s.proc[static_cast<size_t>(w)] && v < w) {
        EXPECT_TRUE(fv <= s.start[static_cast<size_t>(w)] + 1e-9 || fw <= s.start[static_cast<size_t>(v)] + 1e-9)
            << "tasks " << v << " and " << w << " overlap";
      }
    }
  }
  if (!p.group.empty() && p.group[0] == 0) {
    EXPECT_EQ(s.proc[0], s.proc[static_cast<size_t>(n - 1)]);
  }
  EXPECT_TRUE(FitsModel(p, s.proc));
  EXPECT_NEAR(s.makespan_us, makespan, 1e-9 * std::max(1.0, makespan));
}

TEST(MilpTest, OptimalOnRandomSmallProblemsAsBruteForceFindsAndItsBoundHolds) {
  Rng rng(7);
  int checked = 0, infeasible = 0, improved_on_start = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = static_cast<int>(rng.UniformInt(3, 6));  // 3..6 tasks
    const int np = static_cast<int>(rng.UniformInt(2, 3));  // 2..3 processors
    const BaechiProblem p = RandomProblem(rng, n, np);
    const double optimum = BruteForceOptimum(p);
    // Warm start: everything on processor 0 (it may not fit).
    MilpOptions options;
    options.time_limit_s = 0;
    StatusOr<MilpResult> r = SolveMilp(p, {std::vector<int32_t>(static_cast<size_t>(n), 0)}, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (std::isinf(optimum)) {
      EXPECT_FALSE(r->schedule.fits) << "trial " << trial;
      EXPECT_TRUE(r->infeasible) << "trial " << trial;
      ++infeasible;
      continue;
    }
    ASSERT_TRUE(r->schedule.fits) << "trial " << trial;
    EXPECT_TRUE(r->optimal) << "trial " << trial;
    EXPECT_NEAR(r->schedule.makespan_us, optimum, 1e-6 * optimum) << "trial " << trial;
    EXPECT_LE(r->lower_bound_us, optimum * (1 + 1e-9)) << "trial " << trial;
    EXPECT_NEAR(r->gap, 0, 1e-6) << "trial " << trial;
    ExpectValidSchedule(p, r->schedule);
    if (r->source == "cbc") ++improved_on_start;
    ++checked;
  }
  EXPECT_GE(checked, 100);
  EXPECT_GT(infeasible, 0);  // the generator makes some problems that fit nowhere
  EXPECT_GT(improved_on_start, 50);
}

TEST(MilpTest, ScheduleOfAPlacementIsValidAndRejectsBadPlacements) {
  Rng rng(3);
  const BaechiProblem p = RandomProblem(rng, 6, 2);
  StatusOr<MilpSchedule> s = MilpScheduleOf(p, {0, 1, 0, 1, 0, 0});
  ASSERT_TRUE(s.ok()) << s.status().message();
  BaechiProblem unlimited = p;  // the schedule of a placement need not fit
  unlimited.capacity.clear();
  ExpectValidSchedule(unlimited, *s);
  EXPECT_FALSE(MilpScheduleOf(p, {0, 1}).ok());
  EXPECT_FALSE(MilpScheduleOf(p, {0, 2, 0, 0, 0, 0}).ok());
}

TEST(MilpTest, CoarseningKeepsTheGraphAcyclicAndWithinTheGroups) {
  RandomGraphOptions o;
  o.num_ops = 400;
  const Graph g = RandomLayeredGraph(o, 5);
  const Cluster cluster = *ClusterPreset("4xV100");
  std::vector<DeviceId> devices;
  StatusOr<BaechiProblem> p = BaechiProblemFromGraph(g, cluster, CostModel(), &devices);
  ASSERT_TRUE(p.ok()) << p.status().message();
  std::vector<int32_t> labels(static_cast<size_t>(p->num_tasks));
  for (size_t v = 0; v < labels.size(); ++v) labels[v] = static_cast<int32_t>(v % 4);
  for (int max_groups : {1, 8, 40, 120}) {
    StatusOr<MilpCoarsening> c = CoarsenForMilp(*p, {labels}, max_groups);
    ASSERT_TRUE(c.ok()) << c.status().message();  // the coarsened problem is validated: acyclic
    EXPECT_LE(c->problem.num_tasks, max_groups);
    EXPECT_GE(c->problem.num_tasks, 1);
    ASSERT_EQ(c->group_of_task.size(), static_cast<size_t>(p->num_tasks));
    double cost = 0, coarse_cost = 0;
    for (int v = 0; v < p->num_tasks; ++v) {
      EXPECT_GE(c->group_of_task[static_cast<size_t>(v)], 0);
      EXPECT_LT(c->group_of_task[static_cast<size_t>(v)], c->problem.num_tasks);
      cost += p->Cost(v, 0);
    }
    for (int v = 0; v < c->problem.num_tasks; ++v) coarse_cost += c->problem.Cost(v, 0);
    EXPECT_NEAR(cost, coarse_cost, 1e-9 * cost);
    if (max_groups >= 40) {
      EXPECT_GT(c->problem.num_tasks, max_groups / 4);  // not needlessly coarse
    }
  }
  EXPECT_FALSE(CoarsenForMilp(*p, {{1, 2}}, 8).ok());
  EXPECT_FALSE(CoarsenForMilp(*p, {labels}, 0).ok());
}

TEST(MilpTest, PlanOfAGraphIsValidAndTheSameTwice) {
  const Graph g = testing::Training("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40");
  const Cluster cluster = *ClusterPreset("2xP100");
  MilpOptions options;
  options.max_groups = 16;
  options.time_limit_s = 0;
  options.max_nodes = 2000;
  StatusOr<MilpPlanResult> a = MilpPlan(g, cluster, CostModel(), options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, a->plan).ok());
  EXPECT_LE(a->num_groups, 16);
  EXPECT_TRUE(a->result.schedule.fits);
  EXPECT_LE(a->result.lower_bound_us, a->result.schedule.makespan_us);
  auto sim = Simulator::Create(g, cluster);
  ASSERT_TRUE(sim.ok());
  EXPECT_TRUE(sim->Simulate(a->plan).ok());
  StatusOr<MilpPlanResult> b = MilpPlan(g, cluster, CostModel(), options);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->plan.device, b->plan.device);
  EXPECT_EQ(a->plan.priority, b->plan.priority);
}

TEST(MilpTest, AGraphTooLargeToProveStopsAtItsLimitWithItsBestAndGap) {
  RandomGraphOptions o;
  o.num_ops = 600;
  const Graph g = RandomLayeredGraph(o, 11);
  const Cluster cluster = *ClusterPreset("4xV100");
  MilpOptions options;
  options.max_groups = 48;
  options.time_limit_s = 60;
  options.max_nodes = 1;  // a limit that the search reaches on every machine
  StatusOr<MilpPlanResult> r = MilpPlan(g, cluster, CostModel(), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, r->plan).ok());
  EXPECT_TRUE(r->result.limit_reached);
  EXPECT_FALSE(r->result.optimal);
  EXPECT_GT(r->result.gap, 0);
  EXPECT_LT(r->result.seconds, 30);
}

TEST(MilpTest, NothingFitsIsSaidAndAPlanStillComes) {
  const Graph g = testing::Training("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40");
  const Cluster preset = *ClusterPreset("2xP100");
  std::vector<Device> devices = preset.devices();
  for (Device& d : devices) d.memory_bytes = 1;
  Cluster cluster("no-memory", devices);
  cluster.SetAllLinks(preset.link(0, 1));
  MilpOptions options;
  options.max_groups = 8;
  options.time_limit_s = 10;
  StatusOr<MilpPlanResult> r = MilpPlan(g, cluster, CostModel(), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->result.schedule.fits);
  EXPECT_TRUE(r->result.infeasible);
  EXPECT_TRUE(ValidatePlan(g, cluster, r->plan).ok());
}

}  // namespace
}  // namespace graphopt
