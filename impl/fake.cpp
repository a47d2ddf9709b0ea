#include "impl/fake.h"

#include <algorithm>

#include "impl/fault.h"

namespace storcheck {

namespace {
constexpr int64_t kMinSweepInterval = 128;
}  // namespace

int64_t MetaConverter::sweep_interval() const {
  return std::max<int64_t>(kMinSweepInterval, 2 * static_cast<int64_t>(pending_.size()));
}

// A tensor entry whose real tensor died releases its storage entry: the
// entry goes now when the storage died too, else it waits in pending_.
void MetaConverter::drop_dead_tensors() {
  for (auto it = tensors_.begin(); it != tensors_.end();) {
    if (!it->second.real.expired()) {
      ++it;
      continue;
    }
    auto s = storages_.find(it->second.storage_key);
    if (s != storages_.end() && --s->second.tensors == 0) {
      if (s->second.real.expired()) storages_.erase(s);
      else pending_.push_back(s->first);
    }
    it = tensors_.erase(it);
  }
}

MetaTensor MetaConverter::convert(const Tensor& t, FakeDevice device) {
  drop_dead_tensors();
  auto found = tensors_.find(t.get());
  if (found != tensors_.end()) return found->second.meta;  // F2: alive, same tensor
  // F2: one meta storage per real storage (a dead storage's address may be
  // reused: its entry is replaced).
  const Storage* key = t->storage.get();
  auto s = storages_.find(key);
  if (s != storages_.end() && s->second.real.expired()) {
    pending_.erase(std::remove(pending_.begin(), pending_.end(), key), pending_.end());
    storages_.erase(s);
    s = storages_.end();
  }
  if (s == storages_.end()) {
    StorageEntry e;
    e.real = t->storage;
    e.meta = std::make_shared<MetaStorage>(MetaStorage{t->storage->nbytes()});
    s = storages_.emplace(key, std::move(e)).first;
  }
  if (s->second.tensors++ == 0)
    pending_.erase(std::remove(pending_.begin(), pending_.end(), key), pending_.end());
  auto m = std::make_shared<MetaTensorImpl>();
  m->storage = fault_active(Fault::kFakeViewLosesAliasing) && s->second.tensors > 1
                   ? std::make_shared<MetaStorage>(*s->second.meta)
                   : s->second.meta;
  m->geom = t->geom;  // F1: sizes, strides, offset, itemsize
  m->dtype = t->dtype;
  m->device = device;
  TensorEntry e;
  e.real = t;
  if (fault_active(Fault::kMemoStrongRef)) e.strong = t;  // the planted leak
  e.meta = m;
  e.storage_key = key;
  tensors_.emplace(t.get(), std::move(e));
  if (++since_sweep_ >= sweep_interval()) sweep();
  return m;
}

MetaTensor MetaConverter::from_meta(const MetaTensor& m, FakeDevice device) {
  auto f = std::make_shared<MetaTensorImpl>(*m);  // shares the meta storage
  f->device = device;
  return f;
}

void MetaConverter::sweep() {
  since_sweep_ = 0;
  drop_dead_tensors();
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [&](const Storage* key) {
                                  auto s = storages_.find(key);
                                  if (s == storages_.end()) return true;
                                  if (!s->second.real.expired()) return false;
                                  storages_.erase(s);
                                  return true;
                                }),
                 pending_.end());
}

MemoStats MetaConverter::stats() {
  drop_dead_tensors();
  return MemoStats{static_cast<int64_t>(tensors_.size()), static_cast<int64_t>(storages_.size()),
                   static_cast<int64_t>(pending_.size())};
}

MetaTensor to_meta(const Tensor& t) {
  auto m = std::make_shared<MetaTensorImpl>();
  m->geom = t->geom;
  m->geom.offset = 0;
  if (!t->geom.is_non_overlapping_and_dense())
    contiguous_strides(m->geom.rank, m->geom.sizes.data(), m->geom.strides.data());
  m->dtype = t->dtype;
  m->device = FakeDevice::kMeta;
  // numel * itemsize: the tensor exists, so neither overflows (S9).
  m->storage = std::make_shared<MetaStorage>(MetaStorage{t->numel() * t->geom.itemsize});
  return m;
}

}  // namespace storcheck
