#include "core/rng.h"

#include <cmath>

namespace graphopt {
namespace {
uint64_t SplitMix64(uint64_t& x) { return MixBits(x += 0x9e3779b97f4a7c15ULL); }
uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = SplitMix64(x);
}

uint64_t Rng::NextU64() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Rng::Uniform(uint64_t n) {
  // Lemire's nearly-divisionless method would be faster; rejection keeps it exact.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t r;
  do r = NextU64();
  while (r >= limit);
  return r % n;
}

int64_t Rng::UniformInt(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Uniform(static_cast<uint64_t>(hi - lo) + 1)); }

double Rng::UniformDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double Rng::Normal() {
  double u1 = UniformDouble();
  while (u1 <= 0.0) u1 = UniformDouble();
  const double u2 = UniformDouble();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

int64_t Rng::Categorical(const float* p, int64_t n) {
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += p[i];
  const double u = UniformDouble() * total;
  double cum = 0;
  int64_t last = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] <= 0) continue;
    cum += p[i];
    last = i;
    if (u < cum) return i;
  }
  return last;
}

}  // namespace graphopt
