// How much this machine's devices slow each other down when they are busy at once.
//
// The local cluster (exec/local_cluster.h) measures each device alone. A plan split
// over the devices runs them at once, and what the machine gives two busy cores is not
// always what it gives one: the cores may share a physical core, a memory system, a
// cache, or (in a virtual machine) the host's time. MeasureConcurrency samples that,
// spread over time (the host's share can change from one second to the next), with
// three probes per sample, each on every device's cores (a thread pinned to them):
//   gemm    a 256 x 256 x 256 single-precision product (compute);
//   stream  a copy between two 32 MiB tensors (memory bandwidth, past the caches);
//   read    device 0 reading (an add into its own buffer) 2 MiB that device 1 wrote
//           just before, against the same read of 2 MiB it wrote itself (the caches
//           between devices: the executor's copies are read by the receiver).
// For gemm and stream, a sample is the median time of the probe on device 0 while
// every other device runs it in a loop, over its median time alone a moment before;
// for read, the median time of the remote read over the local one. A ratio of 1 is
// no interference, 2 is half speed.
#pragma once

#include <vector>

#include "core/status.h"
#include "sim/cluster.h"

namespace graphopt {

struct ConcurrencySample {
  double seconds = 0;  // since the measurement began
  double gemm = 0;     // time with the other devices busy / alone
  double stream = 0;
  double read = 0;  // remote read / local read; 0 when not measured
};

struct ConcurrencyOptions {
  int samples = 20;
  double pause_ms = 200;  // between samples
  int repetitions = 15;   // of each probe per sample (its median kept)
  bool read = true;       // run the read probe (false: ConcurrencySample::read stays 0)
};

// `core_sets`: the cores of each device (exec/local_cluster.h: LocalCoreSets), at
// least two devices. InvalidArgument for fewer devices or options out of range
// (samples 1..100000, pause 0..60000 ms, repetitions 1..1000); InternalError if a
// thread cannot be pinned.
StatusOr<std::vector<ConcurrencySample>> MeasureConcurrency(const std::vector<std::vector<int>>& core_sets,
                                                            const ConcurrencyOptions& options = {});

// The local cluster's Cluster::contention: the median of `samples` samples (no pause
// between them) of the gemm ratio (compute), the stream ratio (memory) and the read
// ratio (read), each at least 1 (a ratio under 1 is the noise of a machine that does
// not slow down) and at most kMaxSlowdown. Errors as MeasureConcurrency's.
StatusOr<Contention> MeasureContention(const std::vector<std::vector<int>>& core_sets, int samples = 3);

}  // namespace graphopt
