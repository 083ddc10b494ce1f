// Small pieces every trainer (rl/ppo.h, rl/colocrl.h, rl/hdp.h) uses.
#pragma once

#include <cstdint>

namespace graphopt {

// The rng seed of training step `step` (splitmix64 of the seed and the step), so a
// resumed trainer draws exactly what an uninterrupted one would.
uint64_t TrainingStepSeed(uint64_t seed, int64_t step);

// Flushes denormals to zero on the calling thread while alive. A confident policy
// produces probabilities and gradients far below FLT_MIN, and denormal arithmetic
// makes LibTorch's BLAS kernels 10-30x slower. The flag is per thread and global to
// it, and the simulator and the baselines (HEFT's interval tree steps by
// nextafter(0)) must run without it, so keep it scoped to tensor code.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;
};

}  // namespace graphopt
