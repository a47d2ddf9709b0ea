#include "impl/tensor.h"

namespace storcheck {

int64_t TensorImpl::numel() const {
  // A size-0 dim first: [2^63-1, 2, 0] exists (0 bytes) though the product
  // of its other sizes overflows (found by cow_fuzzer under UBSan).
  for (int d = 0; d < geom.rank; ++d)
    if (geom.sizes[d] == 0) return 0;
  int64_t n = 1;
  for (int d = 0; d < geom.rank; ++d) n *= geom.sizes[d];
  return n;
}

std::string format_ints(IntSpan v) {
  std::string s = "[";
  for (int k = 0; k < v.size; ++k) {
    if (k) s += ", ";
    s += std::to_string(v[k]);
  }
  return s + "]";
}

std::string format_sizes(const Geometry& g) { return format_ints(IntSpan(g.sizes.data(), g.rank)); }
std::string format_strides(const Geometry& g) {
  return format_ints(IntSpan(g.strides.data(), g.rank));
}

}  // namespace storcheck
