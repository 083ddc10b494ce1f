#include "rl/training_util.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include "core/rng.h"

namespace graphopt {

uint64_t TrainingStepSeed(uint64_t seed, int64_t step) {
  return MixBits(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ull);
}

uint64_t RankSeed(uint64_t seed, int rank) {
  if (rank == 0) return seed;
  return MixBits(seed + static_cast<uint64_t>(rank) * 0xD1B54A32D192ED03ull);
}

ScopedFlushDenormal::ScopedFlushDenormal() {
  at::globalContext().setFlushDenormal(true);
  // One chunk per pool thread (each runs its own; a nested call runs inline).
  const int64_t n = at::get_num_threads();
  at::parallel_for(0, n, 1, [](int64_t, int64_t) { at::globalContext().setFlushDenormal(true); });
}
ScopedFlushDenormal::~ScopedFlushDenormal() { at::globalContext().setFlushDenormal(false); }

std::string StopReason(const std::atomic<bool>* stop, bool time_up, int64_t steps, int64_t max_steps) {
  if (stop != nullptr && stop->load()) return "interrupted";
  if (time_up) return "time limit";
  if (max_steps > 0 && steps >= max_steps) return "steps";
  return "";
}

}  // namespace graphopt
