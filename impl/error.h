// Errors of the reference implementation: typed, with a message that names
// the op, the values and what was expected (STYLE rule 6).
//
// `ErrorKind` is also the vocabulary in which every backend reports a failed
// step, so the comparator can check that the reference and LibTorch reject
// the same programs for the same reason (oracles/torch_errors.cpp maps
// LibTorch's messages onto it).
//
//   Result<Tensor> r = view(t, {2, 6});
//   if (!r.ok()) std::cout << error_kind_name(r.error().kind) << ": " << r.error().message;
//
// Broken internal invariants are not errors but SC_ASSERT, which aborts with
// file:line (a fuzzer records that as a finding).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace storcheck {

/// Why a step failed. Keep in sync with kErrorKindNames in error.cpp.
enum class ErrorKind : unsigned char {
  kNone,               ///< the step succeeded
  kDimOutOfRange,      ///< a dim argument outside [-rank, rank)
  kIndexOutOfRange,    ///< select/unbind index outside the dim
  kOutOfBounds,        ///< S5: geometry needs more bytes than the storage has
  kViewIncompatible,   ///< S6: view not expressible over the strides
  kShapeMismatch,      ///< numel or broadcast mismatch (view, expand, copy_)
  kInvalidArgument,    ///< any other rejected argument (negative size, step 0...)
  kInternalOverlap,    ///< S7: in-place write to a tensor with overlapping elements
  kPartialOverlap,     ///< in-place write whose input partially overlaps it
  kDtypeCast,          ///< result type cannot be cast to the in-place output dtype
  kScalarOverflow,     ///< a scalar out of range for the dtype (fill_, full)
  kStorageSizeOverflow,///< S9: an extent or byte count overflows int64
  kNonResizable,       ///< S10/R1: resize of a non-resizable storage
  kResourceLimit,      ///< an allocation beyond the program's Limits
  kUndefinedBehavior,  ///< S8: a compute kernel on undersized storage; not run
  kUnsupportedFakeTensor, ///< F4: an input the meta/fake converter cannot convert
  kDeviceMismatch,     ///< tensors of devices the op cannot combine (copy out of meta, fake with real)
  kUnsupportedLayout,  ///< an operand of a layout the op does not take in storcheck's language (oracles/layout_policy.h)
  kOther,              ///< a backend error that no rule above classifies
  kNumKinds
};

/// "dim_out_of_range", ... (stable names: used in reports and corpus headers).
std::string_view error_kind_name(ErrorKind k);
/// Inverse of error_kind_name; false when unknown.
bool parse_error_kind(std::string_view name, ErrorKind* out);

/// A typed error with a human message.
struct Error {
  ErrorKind kind = ErrorKind::kNone;
  std::string message;
};

/// A value or an Error; cannot be silently dropped.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error e) : v_(std::move(e)) {}      // NOLINT
  bool ok() const { return v_.index() == 0; }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation that yields nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : e_(std::move(e)) {}  // NOLINT
  bool ok() const { return e_.kind == ErrorKind::kNone; }
  const Error& error() const { return e_; }

 private:
  Error e_;
};

inline Error make_error(ErrorKind kind, std::string message) {
  return Error{kind, std::move(message)};
}

}  // namespace storcheck

/// Aborts with file:line when an internal invariant is broken (not for user
/// errors: those are Error values).
#define SC_ASSERT(cond, msg)                                                      \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: internal error: %s (%s)\n", __FILE__, __LINE__, \
                   std::string(msg).c_str(), #cond);                              \
      std::abort();                                                               \
    }                                                                             \
  } while (0)
