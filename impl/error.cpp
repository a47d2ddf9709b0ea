#include "impl/error.h"

#include <array>

namespace storcheck {

namespace {
constexpr std::array<std::string_view, static_cast<int>(ErrorKind::kNumKinds)> kErrorKindNames = {
    "none",          "dim_out_of_range", "index_out_of_range", "out_of_bounds",
    "view_incompatible", "shape_mismatch", "invalid_argument", "internal_overlap",
    "partial_overlap",   "dtype_cast",     "scalar_overflow",  "storage_size_overflow",
    "non_resizable",     "resource_limit", "undefined_behavior", "unsupported_fake_tensor",
    "device_mismatch", "unsupported_layout", "other"};
}  // namespace

std::string_view error_kind_name(ErrorKind k) { return kErrorKindNames[static_cast<int>(k)]; }

bool parse_error_kind(std::string_view name, ErrorKind* out) {
  for (size_t k = 0; k < kErrorKindNames.size(); ++k) {
    if (kErrorKindNames[k] == name) {
      *out = static_cast<ErrorKind>(k);
      return true;
    }
  }
  return false;
}

}  // namespace storcheck
