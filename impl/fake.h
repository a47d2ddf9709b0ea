// Meta and fake conversion of strided tensors (SEMANTICS group F): the
// MetaConverter that PyTorch's FakeTensorConverter is built on, with its weak
// memo, and `to_meta`, which is a clone onto the meta device and not a
// conversion (F8). Meta and fake tensors are reference Tensors over a meta
// storage (Storage::make_meta: a byte size, no data), so every op of
// impl/ops.h runs on them (F6: fake execution; see Note [Meta execution] in
// impl/ops.cpp).
//
// Invariant (F2): while a real tensor lives, converting it again gives the
// very same meta tensor; real tensors that share a storage give meta
// tensors that share one meta storage of the same nbytes.
// Invariant (F3): the memo holds the real tensors and storages only weakly
// (std::weak_ptr). An entry whose real tensor died goes at the next
// conversion or stats(); a storage that outlives its tensors waits in a
// pending list that sweep() clears of dead storages, every sweep_interval()
// conversions (128, growing with the pending list). After every real tensor
// and storage died and a sweep ran, the memo is empty.
//
//   MetaConverter conv;
//   Tensor m = conv.convert(t).value();          // t a real Tensor (impl/tensor.h)
//   Tensor v = conv.convert(view_of_t).value();  // v->storage == m->storage
//   conv.stats();                                // {tensors, storages, pending}
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "impl/dtype.h"
#include "impl/geometry.h"
#include "impl/tensor.h"

namespace storcheck {

/// What the memo holds right now (an observation step, `memo_stats`).
struct MemoStats {
  int64_t tensors = 0;   ///< entries of live real tensors
  int64_t storages = 0;  ///< entries of real storages (live or pending)
  int64_t pending = 0;   ///< storage entries whose tensors all died
  bool operator==(const MemoStats& o) const {
    return tensors == o.tensors && storages == o.storages && pending == o.pending;
  }
};

class MetaConverter {
 public:
  /// `fake`: a FakeTensorConverter (outputs are fake tensors reporting the
  /// real device, F1) rather than a MetaConverter (meta tensors).
  explicit MetaConverter(bool fake = false) : fake_(fake) {}

  /// F1/F2: the meta (or fake) tensor of `t`: geometry-exact (sizes, strides,
  /// offset, dtype), aliasing through the storage memo, a meta storage of the
  /// real storage's nbytes (0 for an emptied one), version 0. A meta or fake
  /// input raises kUnsupportedFakeTensor and leaves the memo unchanged (F4).
  Result<Tensor> convert(const Tensor& t);
  /// F5: a fake tensor from meta tensor `m`: the same geometry over the same
  /// meta storage, sharing m's version counter (PyTorch wraps the meta tensor
  /// as its `elem`). A non-meta or fake input raises kUnsupportedFakeTensor.
  static Result<Tensor> from_meta(const Tensor& m);
  /// F3: drops the entries of dead tensors, then pending storages that died.
  void sweep();
  /// After dropping the entries of dead tensors (what PyTorch's weakref
  /// callbacks do at the moment a tensor dies).
  MemoStats stats();
  /// Conversions between two automatic sweeps: 128, or twice the pending list.
  int64_t sweep_interval() const;

 private:
  struct TensorEntry {
    std::weak_ptr<TensorImpl> real;
    Tensor strong;  ///< only under the planted fault memo_strong_ref
    Tensor meta;
    const Storage* storage_key = nullptr;
  };
  struct StorageEntry {
    std::weak_ptr<Storage> real;
    std::shared_ptr<Storage> meta;
    int64_t tensors = 0;  ///< live tensor entries that use it
  };
  void drop_dead_tensors();
  std::unordered_map<const TensorImpl*, TensorEntry> tensors_;
  std::unordered_map<const Storage*, StorageEntry> storages_;
  std::vector<const Storage*> pending_;  ///< storage entries with no live tensor entry
  int64_t since_sweep_ = 0;
  bool fake_;
};

// --- F7: the fallback of an op without a meta rule ---------------------------
// See Note [Fallback] in fake.cpp.

/// F7: ops tagged inplace_view (category kInplaceView: transpose_, t_,
/// squeeze_, unsqueeze_, as_strided_, resize_, ...) never fall back: for them
/// kUnsupportedFakeTensor naming `op`; ok for every other op.
Status fallback_allowed(std::string_view op, bool inplace_view);

/// F7: the real inputs the fallback runs an op on, one per fake (or meta)
/// input: zeros with the input's exact geometry and dtype, in real zero-filled
/// storages charged to `ctx.budget`. Inputs that share a fake storage get
/// real inputs that share one real storage (so overlap checks see the same
/// aliasing), sized for the fake storage's nbytes and every input's extent;
/// the same fake tensor twice gives the same real tensor. A huge
/// metadata-only input raises kResourceLimit (the fallback really allocates).
Result<std::vector<Tensor>> fallback_inputs(Context& ctx, const std::vector<Tensor>& fakes);

/// F7: the fake result of an op run by the fallback on `reals` (from
/// fallback_inputs(fakes)); `out` is what it returned, or null for an op that
/// returns nothing (in-place: its output is its first input). An output
/// identical to reals[k] gives fakes[k] itself; an output that shares a
/// storage with a real input without being it raises kUnsupportedFakeTensor
/// (zeros cannot say what a view aliases); a fresh output is converted by
/// `conv` (a fake converter) into a fresh fake tensor.
Result<Tensor> fallback_output(const std::vector<Tensor>& fakes, const std::vector<Tensor>& reals,
                               const Tensor& out, MetaConverter& conv);

/// F8: LibTorch's `to(kMeta)`: a clone onto the meta device with
/// preserve_format (non-overlapping and dense strides kept, otherwise
/// contiguous), offset 0, and a fresh storage of numel * itemsize bytes.
/// A meta input is returned itself (`to` onto its own device); a fake input
/// raises kUnsupportedFakeTensor (it has no data to copy).
Result<Tensor> to_meta(const Tensor& t);

}  // namespace storcheck
