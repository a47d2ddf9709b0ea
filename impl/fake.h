// Meta and fake conversion of strided tensors (SEMANTICS group F, issue 5,
// first part): the MetaConverter that PyTorch's FakeTensorConverter is
// built on, with its weak memo, and `to_meta`, which is a clone onto the
// meta device and not a conversion (F8).
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
//   MetaTensor m = conv.convert(t);          // t a real Tensor (impl/tensor.h)
//   MetaTensor v = conv.convert(view_of_t);  // v->storage == m->storage
//   conv.stats();                            // {tensors, storages, pending}
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "impl/dtype.h"
#include "impl/geometry.h"
#include "impl/tensor.h"

namespace storcheck {

/// A storage on the meta device: a byte size and no data.
struct MetaStorage {
  int64_t nbytes = 0;
};

enum class FakeDevice : uint8_t { kCpu, kCuda, kMeta };

/// A meta (or fake) tensor: geometry and dtype over a meta storage.
struct MetaTensorImpl {
  std::shared_ptr<MetaStorage> storage;
  Geometry geom;
  DType dtype = DType::kF32;
  /// Where the real tensor lived (a fake tensor's fake device, F1); kMeta for
  /// meta tensors.
  FakeDevice device = FakeDevice::kMeta;
};
using MetaTensor = std::shared_ptr<MetaTensorImpl>;

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
  /// F1/F2: the meta tensor of `t` (geometry-exact: sizes, strides, offset,
  /// dtype; aliasing through the storage memo), on `device` (kMeta for the
  /// MetaConverter, the real device for a FakeTensorConverter).
  MetaTensor convert(const Tensor& t, FakeDevice device = FakeDevice::kMeta);
  /// F5: a fake tensor from a meta tensor (same geometry and meta storage).
  static MetaTensor from_meta(const MetaTensor& m, FakeDevice device);
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
    MetaTensor meta;
    const Storage* storage_key = nullptr;
  };
  struct StorageEntry {
    std::weak_ptr<Storage> real;
    std::shared_ptr<MetaStorage> meta;
    int64_t tensors = 0;  ///< live tensor entries that use it
  };
  void drop_dead_tensors();
  std::unordered_map<const TensorImpl*, TensorEntry> tensors_;
  std::unordered_map<const Storage*, StorageEntry> storages_;
  std::vector<const Storage*> pending_;  ///< storage entries with no live tensor entry
  int64_t since_sweep_ = 0;
};

/// F8: LibTorch's `to(kMeta)`: a clone onto the meta device with
/// preserve_format (non-overlapping and dense strides kept, otherwise
/// contiguous), offset 0, and a fresh storage of numel * itemsize bytes.
MetaTensor to_meta(const Tensor& t);

}  // namespace storcheck
