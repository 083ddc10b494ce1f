// Small pieces every trainer (rl/ppo.h, rl/colocrl.h, rl/hdp.h) and training loop
// (rl/learned_search.h, rl/pretrain.h) uses.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace graphopt {

// The rng seed of training step `step` (splitmix64 of the seed and the step), so a
// resumed trainer draws exactly what an uninterrupted one would.
uint64_t TrainingStepSeed(uint64_t seed, int64_t step);

// The seed of rank `rank`'s own draws in data-parallel work (dist/world.h): rank 0's is
// `seed` itself, so a world of one draws what a plain run does; the others' are
// mixed from the seed and the rank.
uint64_t RankSeed(uint64_t seed, int rank);

// Why a training loop stops before its next step, in the order the loops check:
// "interrupted" (stop set; stop may be null), "time limit", "steps" (max_steps > 0
// reached); "" to go on.
std::string StopReason(const std::atomic<bool>* stop, bool time_up, int64_t steps, int64_t max_steps);

// Flushes denormals to zero on the calling thread while alive, and on every thread of
// LibTorch's intra-op pool (which runs only tensor code) for good. A confident policy
// produces probabilities and gradients far below FLT_MIN, and denormal arithmetic
// makes LibTorch's BLAS kernels 10-30x slower. The flag is per thread and global to
// it, and the simulator and the baselines (HEFT's interval tree steps by
// nextafter(0)) must run without it, so on the calling thread it is scoped to tensor
// code. A new thread inherits its creator's flag, so without setting the pool's
// threads here they would flush or not depending on whether the pool happened to be
// created inside such a scope: the same seed gave other plans after other work.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;
};

}  // namespace graphopt
