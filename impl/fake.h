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
//   SparseMetaTensor f = conv.convert_sparse(s).value();  // s a SparseTensor (F4)
//
// Sparse inputs: see Note [Sparse fake modes] in fake.cpp. A FakeTensorConverter
// (`fake`) converts as PyTorch's does (SparseFakeMode::kPyTorch: nnz 0), a
// MetaConverter (`meta`) geometry-exactly (kFaithful: nnz and parts kept).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "impl/dtype.h"
#include "impl/geometry.h"
#include "impl/pool.h"
#include "impl/sparse.h"
#include "impl/tensor.h"

namespace storcheck {

/// What the memo holds right now (an observation step, `memo_stats`).
struct MemoStats {
  int64_t tensors = 0;   ///< entries of live real tensors
  int64_t storages = 0;  ///< entries of real storages (live or pending)
  int64_t pending = 0;   ///< storage entries whose tensors all died
  int64_t sparse = 0;    ///< entries of live real sparse tensors (F2, F3; no storage entries)
  bool operator==(const MemoStats& o) const {
    return tensors == o.tensors && storages == o.storages && pending == o.pending &&
           sparse == o.sparse;
  }
};

/// A sparse meta or fake tensor: the metadata of a sparse tensor, no data
/// (impl/sparse.h). Shared so that the memo can hand the same one back (F2).
using SparseMetaTensor = std::shared_ptr<const SparseMeta>;

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
  /// F4/F2: the meta (or fake) tensor of sparse tensor `s`, memoized weakly
  /// by identity like convert(): the same live `s` gives the very same
  /// result. A FakeTensorConverter converts in SparseFakeMode::kPyTorch, a
  /// MetaConverter in kFaithful (Note [Sparse fake modes]). What
  /// sparse_to_meta refuses raises kUnsupportedFakeTensor, memo unchanged.
  Result<SparseMetaTensor> convert_sparse(const SparseTensor& s);
  /// The mode convert_sparse uses.
  SparseFakeMode sparse_mode() const {
    return fake_ ? SparseFakeMode::kPyTorch : SparseFakeMode::kFaithful;
  }
  /// F3: drops the entries of dead tensors, then pending storages that died.
  void sweep();
  /// After dropping the entries of dead tensors (what PyTorch's weakref
  /// callbacks do at the moment a tensor dies).
  MemoStats stats();
  /// Conversions between two automatic sweeps: 128, or twice the pending list.
  int64_t sweep_interval() const;
  /// The real storage `t` had when it was converted (its memo entry's key);
  /// null without an entry. After set_ gives `t` another storage they
  /// differ: the memo still returns the meta tensor of the old one (F2's
  /// memo by identity, as PyTorch's converters; Note [set_] in impl/ops.cpp).
  const Storage* converted_storage(const TensorImpl* t) const {
    auto it = tensors_.find(t);
    return it == tensors_.end() ? nullptr : it->second.storage_key;
  }
  /// Back to a freshly constructed converter's state, keeping the maps'
  /// bucket arrays (issue 8: the reference's begin() resets its converters
  /// for every program that converted anything).
  void reset() {
    tensors_.clear();
    sparse_.clear();
    storages_.clear();
    pending_.clear();
    since_sweep_ = 0;
  }
  /// Nothing converted yet: as a freshly constructed converter.
  bool untouched() const {
    return tensors_.empty() && sparse_.empty() && storages_.empty() && pending_.empty() &&
           since_sweep_ == 0;
  }

 private:
  struct TensorEntry {
    WeakRc<TensorImpl> real;
    Tensor strong;  ///< only under the planted fault memo_strong_ref
    Tensor meta;
    const Storage* storage_key = nullptr;
  };
  struct StorageEntry {
    WeakRc<Storage> real;
    Rc<Storage> meta;
    int64_t tensors = 0;  ///< live tensor entries that use it
  };
  struct SparseEntry {
    std::weak_ptr<SparseTensorImpl> real;
    SparseMetaTensor meta;
  };
  void drop_dead_tensors();
  /// The memo's nodes come from the pool (impl/pool.h; issue 8).
  template <class K, class V>
  using Map = std::unordered_map<K, V, std::hash<K>, std::equal_to<K>,
                                 PoolAllocator<std::pair<const K, V>>>;
  Map<const TensorImpl*, TensorEntry> tensors_;
  /// Sparse tensors have no storage of their own: entries by identity only
  /// (counted in MemoStats::sparse).
  Map<const SparseTensorImpl*, SparseEntry> sparse_;
  Map<const Storage*, StorageEntry> storages_;
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
/// F8 for sparse tensors: LibTorch's `to(kMeta)` of `s` as SEMANTICS F8 states
/// it: a fresh meta sparse tensor that keeps nnz, the sparse/dense dims
/// split, the coalesced flag, blocksize and index dtype, whose parts are
/// clones onto the meta device (to_meta's strides, offset 0, fresh storage
/// of numel * itemsize). Not memoized: every call gives a new one.
Result<SparseMetaTensor> to_meta(const SparseTensor& s);

}  // namespace storcheck
