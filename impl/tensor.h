// A strided tensor of the reference: a storage, a geometry (sizes, strides,
// offset in elements), a dtype and a version counter (S2).
//
// Invariant: views share `storage` and `version` with their base; every
// in-place write bumps `*version` (S2). A Tensor is a shared handle: two
// program variables bound to one handle are the same tensor object (PyTorch's
// `contiguous()` of a contiguous tensor returns its input), so metadata
// mutation through one is seen through the other.
//
//   Context ctx;
//   Tensor t = zeros(ctx, {3, 4}, DType::kF32).value();
//   Tensor v = transpose(t, 0, 1).value();        // shares t's storage
//   bool a = v->storage == t->storage;            // true (S3)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "impl/dtype.h"
#include "impl/geometry.h"
#include "impl/storage.h"

namespace storcheck {

struct TensorImpl {
  Rc<Storage> storage;
  Geometry geom;  ///< geom.itemsize == itemsize(dtype)
  DType dtype = DType::kF32;
  Rc<int64_t> version;
  /// A fake tensor (FakeTensorMode): a meta storage, reported on the real
  /// device it stands for (F1). Ops on fake tensors give fake tensors.
  bool fake = false;

  TensorImpl() = default;
  /// A tensor of geometry `g` and nothing else yet (new_tensor fills it).
  explicit TensorImpl(const Geometry& g) : geom(g) {}
  /// A view of `base` with geometry `g`: every field but geom is base's
  /// (a field added above is shared by views unless this says otherwise).
  TensorImpl(const TensorImpl& base, const Geometry& g)
      : storage(base.storage), geom(g), dtype(base.dtype), version(base.version), fake(base.fake) {}

  /// On the meta device (meta and fake tensors): no data.
  bool is_meta() const { return storage->is_meta(); }
  /// The real device (for a fake tensor, the one it stands for).
  DeviceType device() const { return storage->device(); }

  int rank() const { return geom.rank; }
  int64_t size(int d) const { return geom.sizes[d]; }
  int64_t stride(int d) const { return geom.strides[d]; }
  int64_t numel() const;  ///< product of sizes: 0 with a size-0 dim, else no overflow (it exists)
};
using Tensor = Rc<TensorImpl>;

/// A read-only view of an int64 list (sizes, strides, dims).
struct IntSpan {
  const int64_t* data = nullptr;
  int size = 0;
  IntSpan() = default;
  IntSpan(const int64_t* d, int n) : data(d), size(n) {}
  template <size_t N>
  IntSpan(const int64_t (&a)[N]) : data(a), size(static_cast<int>(N)) {}  // NOLINT
  int64_t operator[](int k) const { return data[k]; }
  const int64_t* begin() const { return data; }
  const int64_t* end() const { return data + size; }
};

/// An error message built in one buffer: text, integers and int lists
/// appended without the temporaries of a chain of `+` (issue 8: generated
/// programs make about one rejected view or refused compute per 16 steps,
/// and the `+` chains that spelled them cost 5% of the reference's
/// execution, callgrind).
///
///   std::string m = Msg() << "sizes " << IntSpan(g.sizes.data(), g.rank) << ", offset " << 3;
class Msg {
 public:
  Msg() { s_.reserve(192); }
  Msg&& operator<<(std::string_view v) && {
    s_.append(v.data(), v.size());
    return std::move(*this);
  }
  Msg&& operator<<(int64_t v) &&;
  Msg&& operator<<(IntSpan v) &&;                      ///< as format_ints
  operator std::string() && { return std::move(s_); }  // NOLINT: implicit by design

 private:
  std::string s_;
};

/// "[3, 4]": PyTorch's printing of an int list, for messages.
std::string format_ints(IntSpan v);
inline IntSpan sizes_of(const Geometry& g) { return IntSpan(g.sizes.data(), g.rank); }
inline IntSpan strides_of(const Geometry& g) { return IntSpan(g.strides.data(), g.rank); }
std::string format_sizes(const Geometry& g);
std::string format_strides(const Geometry& g);

/// Per-run state of the reference: the allocation budget.
struct Context {
  AllocBudget budget;
  /// Limits::max_step_reads (Note [Elements a step reads], impl/ops.h).
  int64_t max_step_reads = 1 << 20;
  /// The op being run takes a meta (or fake) input: fresh tensors get meta
  /// storages and allocate nothing (Note [Meta execution] in impl/ops.cpp).
  bool meta = false;
  bool fake = false;
  /// The device of fresh tensors: the input's (DeviceScope), else the
  /// backend's home device for factories (issue 11).
  DeviceType device = DeviceType::kCpu;
};

/// Sets ctx.meta/ctx.fake/ctx.device from an op's input for the op's duration.
class DeviceScope {
 public:
  DeviceScope(Context& ctx, const TensorImpl& input)
      : ctx_(ctx), meta_(ctx.meta), fake_(ctx.fake), device_(ctx.device) {
    ctx.meta = input.is_meta();
    ctx.fake = input.fake;
    ctx.device = input.device();
  }
  ~DeviceScope() {
    ctx_.meta = meta_;
    ctx_.fake = fake_;
    ctx_.device = device_;
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Context& ctx_;
  bool meta_, fake_;
  DeviceType device_;
};

}  // namespace storcheck
