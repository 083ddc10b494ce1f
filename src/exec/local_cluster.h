// The local cluster: this machine's cores as devices, for plans that run for real.
//
// `local:N` splits the cores this process may run on (sched_getaffinity) into N
// groups of consecutive cores (cores / N each, the first groups one more when N does
// not divide them); `local` is one device per core. Each device is a CPU ("cpu:i",
// model "local core 0" or "local cores 0-1") whose figures are measured, not assumed,
// by a thread pinned to its cores with ATen's intra-op threads as they are
// (OMP_NUM_THREADS, which the executor sets to the cores per device): its peak FLOP/s
// from a single-precision GEMM (at least 512 x 512, the best of 5 after a warm-up),
// its memory bandwidth from a copy between two 64 MiB tensors (bytes read + written,
// the best of 3), its launch overhead from the median time of a tiny ATen op (an add
// of two 1-element tensors), its memory an equal share of MemAvailable.
//
// The links between devices carry the executor's copies (exec/executor.h: the sending
// device's worker copies a tensor into the receiver's buffer), so link (i, j) has the
// bandwidth and latency of copies made on i's cores as a step makes them: copies of
// 4 KiB .. 16 MiB of data i has just written into a buffer that device i + 1 read last
// (which costs 1.5-5x a copy between two buffers in i's own cache:
// docs/experiments/2026-12-06-local-concurrency.md), fitted by latency + bytes /
// bandwidth (least squares of the relative error, latency clamped at 0). As the copy takes the sender's stream, every device
// has copies_on_stream set. Every device has one port each way, "cpu:i out" (at its
// links' bandwidth) and "cpu:i in" (at the fastest link into it), and link (i, j)
// crosses "cpu:i out" and "cpu:j in": one copy at a time out of and into a device. And
// the cluster's contention (sim/cluster.h) is what the devices take from each other
// when they all run: the median of three samples of exec/concurrency.h's gemm ratio
// (compute) and stream ratio (memory), which the simulator applies to kernels that run
// while other devices do (sim/simulator.h, "Shared machine"). A cluster of one device
// has no links, no ports and no contention. Measuring takes a few tenths of a second
// per device, and about half a second more for the contention.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "sim/cluster.h"

namespace graphopt {

// Whether `name` is "local" or "local:N" (N a whole number from 1, no leading zero;
// whether the machine has N cores is LocalCoreSets' and LocalCluster's to say).
bool IsLocalClusterName(const std::string& name);

// The cores of each device of `local:N` (N = 0: one device per core), consecutive in
// the order of the allowed cores, group sizes differing by at most one. InvalidArgument
// if N is negative or larger than the cores available ("local:3: this machine has 2
// cores").
StatusOr<std::vector<std::vector<int>>> LocalCoreSets(int num_devices);
// The same by the cluster's name, "local" or "local:N"; InvalidArgument naming `name`
// for another name.
StatusOr<std::vector<std::vector<int>>> LocalCoreSets(const std::string& name);
// The cores of the smallest device: the OpenMP threads each device's kernels run on
// (OMP_NUM_THREADS, which ATen reads when it loads).
size_t CoresPerDevice(const std::vector<std::vector<int>>& core_sets);

// "local" or "local:N" measured on this machine, named as asked (takes a few tenths of
// a second per device; the result is kept for the rest of the process, per name, so
// every use in one run sees the same figures). InvalidArgument naming `name` for a
// malformed name or more devices than cores.
StatusOr<Cluster> LocalCluster(const std::string& name);

// The machine's own speed now, apart from any plan: the median time (us) of five
// 512 x 512 x 512 single-precision GEMMs (a few milliseconds each on one core:
// docs/experiments/2026-11-29-executor-settings.md, "The reference GEMM") on `cores`,
// after one to warm up. Timed again and again, its spread is the noise floor of any
// measurement on those cores (bench --fidelity reports it). -1 if the thread cannot
// be pinned to them.
double ReferenceGemmUs(const std::vector<int>& cores);

}  // namespace graphopt
