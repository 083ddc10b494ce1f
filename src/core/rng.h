// Rng: a small, seedable, platform-independent random generator (xoshiro256**
// seeded by splitmix64). Everything random in graphopt takes one of these, so the
// same seed gives the same result on every machine and standard library.
#pragma once

#include <cstdint>
#include <cstddef>
#include <utility>
#include <vector>

namespace graphopt {

// splitmix64's output function: a bijection of 64-bit values whose every output bit
// depends on every input bit. Derived seeds (a step's, a rank's, a task's) are it
// applied to a combination of the seed and the index.
inline uint64_t MixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0);
  uint64_t NextU64();
  // Uniform integer in [0, n); n > 0.
  uint64_t Uniform(uint64_t n);
  // Uniform integer in [lo, hi].
  int64_t UniformInt(int64_t lo, int64_t hi);
  // Uniform double in [0, 1).
  double UniformDouble();
  // An index drawn from unnormalized probabilities p[0..n) (non-negative); entries
  // with p = 0 are never drawn (if u lands past the last positive one by rounding,
  // that one is returned).
  int64_t Categorical(const float* p, int64_t n);
  double Normal();
  bool Bernoulli(double p) { return UniformDouble() < p; }
  // Fisher-Yates shuffle.
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[Uniform(i)]);
  }

 private:
  uint64_t s_[4];
};

}  // namespace graphopt
