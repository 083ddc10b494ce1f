// Profiler: each op's time measured on this machine, for the simulator to use instead
// of its roofline (graphopt profile MODEL --cluster local --out profile.json).
//
// What an op's time is, as in PyTorch's profiler ("CPU time" of an operator): the
// wall time of the op's kernel call (exec/kernels.h: RunKernel) on the device's
// cores, measured in isolation on the step's own data: the ops run once in graph
// order on one device's cores, and each op whose kind, attributes, input and output
// shapes and dtypes were not measured yet is then run again: warm-ups, repetitions
// (at least 5, up to 50 or about 20 ms), the median kept, each repetition after the
// core's private cache was overwritten: in a step other ops run between two of the
// same kind. (That closes part of the gap between isolated and in-step op times, not
// all of it: docs/experiments/2026-11-28-executor.md, "Results".) Ops
// of the same signature share the figure. The links' bandwidth and latency are the local cluster's
// (exec/local_cluster.h: a least-squares fit of copies of several sizes), and the
// profile stores that cluster, so a later run plans on the same figures.
//
// Measured times in a graph (Op::measured_time_us) are those of the cost model's
// reference device (sim/cost_model.h: measured_reference_flops, scaled on CPUs by
// reference / peak): ApplyProfile writes time x peak / reference, which the
// simulator turns back into the measured time on a device of the profiled peak.
//
// JSON ("graphopt-profile", version 1):
//   {"format": "graphopt-profile", "version": 1, "graph": "rnnlm_2l", "num_ops": 1691,
//    "threads": 1, "signatures": 210, "cluster": {a graphopt-cluster},
//    "ops": [{"name": "lstm/matmul", "time_us": 41.5}, ...]}   (free ops: -1)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {

struct ProfileOptions {
  uint64_t seed = 0;  // of the data (exec/kernels.h: MakeSourceTensor)
  int warmup = 2;
  int min_repetitions = 5;
  int max_repetitions = 50;
  double target_us = 20000;  // repetitions of an op: about this long in all
  // Before each repetition, write over twice the core's L2 cache (see above).
  bool evict_caches = true;
  // Called after each op: (ops done, ops in all).
  std::function<void(int, int)> progress;
  const std::atomic<bool>* interrupt = nullptr;  // set: stop with Cancelled
};

struct Profile {
  std::string graph;
  int num_ops = 0;
  int threads = 1;     // ATen's intra-op threads during the measurement
  int signatures = 0;  // distinct ops measured
  Cluster cluster;     // the local cluster it was measured on
  std::vector<double> op_time_us;  // per op; -1 for free ops
};

// Measures every op of `graph` on the cores `cores` (one device of `cluster`).
StatusOr<Profile> ProfileGraph(const Graph& graph, const Cluster& cluster, const std::vector<int>& cores,
                               const ProfileOptions& options = {});

// Op times taken inside executed steps, as TensorFlow's step stats are: every op on
// the first device of `cluster` (its cores `cores`), unfused, in the simulator's
// default order, `options.warmup` steps and then `steps` steps executed
// (exec/executor.h), each op's time the median of its task's times over those steps.
// What isolation cannot show is in them: the caches as the ops before left them, the
// allocator, the step's own memory traffic (docs/experiments/2026-11-28-executor.md,
// "Follow-up: op times taken inside an executed step").
StatusOr<Profile> ProfileInStep(const Graph& graph, const Cluster& cluster, const std::vector<int>& cores, int steps,
                                const ProfileOptions& options = {});
// The same from steps already executed (each with its timeline) of a plan whose
// tasks are single ops: per op, the median over the steps of its time, from the end of
// the task before it on its device to its own end: its kernel and the executor's
// dispatch of it (the ready queue, the bookkeeping: a few percent of a step;
// docs/experiments/2026-11-29-executor-settings.md, "The dispatch gap"), which every
// task of every plan pays, as a framework's per-op overhead. On a
// device that runs every op, one is always ready, so no wait is counted. Free ops -1. InvalidArgument if a step has no timeline or a fused task, or if an op that
// is not free never ran.
StatusOr<Profile> ProfileFromSteps(const Graph& graph, const Cluster& cluster, const std::vector<SimResult>& steps);

// Sets every profiled op's measured time (see above); fails if the profile is of
// another graph (name, op count or an op's name).
Status ApplyProfile(const Profile& profile, double reference_flops, Graph* graph);

std::string ProfileToJson(const Graph& graph, const Profile& profile);
Status WriteProfileJson(const Graph& graph, const Profile& profile, const std::string& path);
// Reads a profile of `graph`; errors name the file.
StatusOr<Profile> ReadProfileJson(const std::string& path, const Graph& graph);

}  // namespace graphopt
