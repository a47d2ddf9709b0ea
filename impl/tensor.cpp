#include "impl/tensor.h"

#include <charconv>

namespace storcheck {

int64_t TensorImpl::numel() const {
  // Geometry::numel: a size-0 dim first ([2^63-1, 2, 0] exists, 0 bytes,
  // though its other sizes multiply past int64; found by cow_fuzzer under
  // UBSan); otherwise the tensor exists, so the product fits.
  int64_t n = 0;
  geom.numel(&n);
  return n;
}

Msg&& Msg::operator<<(int64_t v) && {
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  s_.append(b, static_cast<size_t>(r.ptr - b));
  return std::move(*this);
}

Msg&& Msg::operator<<(IntSpan v) && {
  s_ += '[';
  for (int k = 0; k < v.size; ++k) {
    if (k) s_.append(", ", 2);
    std::move(*this) << v[k];
  }
  s_ += ']';
  return std::move(*this);
}

std::string format_ints(IntSpan v) { return Msg() << v; }

std::string format_sizes(const Geometry& g) { return format_ints(IntSpan(g.sizes.data(), g.rank)); }
std::string format_strides(const Geometry& g) {
  return format_ints(IntSpan(g.strides.data(), g.rank));
}

}  // namespace storcheck
