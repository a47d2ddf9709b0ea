#include "impl/tensor.h"

namespace storcheck {

int64_t TensorImpl::numel() const {
  // Geometry::numel: a size-0 dim first ([2^63-1, 2, 0] exists, 0 bytes,
  // though its other sizes multiply past int64; found by cow_fuzzer under
  // UBSan); otherwise the tensor exists, so the product fits.
  int64_t n = 0;
  geom.numel(&n);
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
