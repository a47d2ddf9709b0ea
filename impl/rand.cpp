#include "impl/rand.h"

namespace storcheck {

uint64_t rand_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double rand_value(int64_t seed, int64_t index, DType d) {
  uint64_t bits = rand_bits(static_cast<uint64_t>(seed), static_cast<uint64_t>(index));
  if (is_floating(d)) return static_cast<double>(bits >> 40) * (1.0 / 16777216.0);
  if (d == DType::kBool) return static_cast<double>(bits & 1);
  return static_cast<double>(bits % 10);
}

}  // namespace storcheck
