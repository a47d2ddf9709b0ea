#include "impl/fake.h"

#include <algorithm>
#include <string>

#include "impl/fault.h"
#include "impl/pool.h"

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
  for (auto it = sparse_.begin(); it != sparse_.end();)  // F3: no storage entries to release
    it = it->second.real.expired() ? sparse_.erase(it) : std::next(it);
}

namespace {
Error unsupported(const Tensor& t, const char* op) {
  return make_error(ErrorKind::kUnsupportedFakeTensor,
                    std::string(op) + ": the input is already a " + (t->fake ? "fake" : "meta") +
                        " tensor; convert the real tensor (fake_from_meta makes a fake tensor of "
                        "a meta one)");
}
}  // namespace

Result<Tensor> MetaConverter::convert(const Tensor& t) {
  if (t->is_meta()) return unsupported(t, fake_ ? "fake" : "meta");  // F4: memo unchanged
  // Note [Dropping dead entries lazily]
  // A live entry at t's address is t's own (two live tensors never share an
  // address): return it without a pass over the memo (the invariant hooks
  // convert every live variable after every step). Anything else first
  // drops every dead entry, as every reader of the memo (stats, sweep)
  // does, so a dead tensor's reused address never finds its entry and the
  // storage counts are exact before they change.
  auto found = tensors_.find(t.get());
  if (found != tensors_.end() && !found->second.real.expired())
    return found->second.meta;  // F2: alive, same tensor
  drop_dead_tensors();
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
    e.meta = Storage::make_meta(t->storage->nbytes());  // F2: 0 bytes for an emptied one
    e.meta->set_device(t->device());  // F1: the device it stands for
    s = storages_.emplace(key, std::move(e)).first;
  }
  if (s->second.tensors++ == 0)
    pending_.erase(std::remove(pending_.begin(), pending_.end(), key), pending_.end());
  auto m = make_pooled<TensorImpl>();
  if (fault_active(Fault::kFakeViewLosesAliasing) && s->second.tensors > 1) {
    m->storage = Storage::make_meta(s->second.meta->nbytes());
    m->storage->set_device(t->device());
  } else {
    m->storage = s->second.meta;
  }
  m->geom = t->geom;  // F1: sizes, strides, offset, itemsize
  m->dtype = t->dtype;
  m->version = make_pooled<int64_t>(0);
  m->fake = fake_;
  TensorEntry e;
  e.real = t;
  if (fault_active(Fault::kMemoStrongRef)) e.strong = t;  // the planted leak
  e.meta = m;
  e.storage_key = key;
  tensors_.emplace(t.get(), std::move(e));
  if (++since_sweep_ >= sweep_interval()) sweep();
  return m;
}

// Note [Sparse fake modes]
// PyTorch's FakeTensorConverter builds a sparse fake tensor with nnz 0
// (meta_utils.py: _sparse_coo_tensor_with_dims, F4), so `fake` converts in
// SparseFakeMode::kPyTorch and matches it. storcheck's MetaConverter (`meta`)
// is geometry-exact for strided tensors (offsets, strides, aliasing), and
// for sparse ones it is too: kFaithful keeps nnz and every part's geometry,
// which is what a shape-propagation pass that reads nnz needs. Both memoize
// by identity, weakly (F2, F3), and count in MemoStats::sparse.
Result<SparseMetaTensor> MetaConverter::convert_sparse(const SparseTensor& s) {
  auto found = sparse_.find(s.get());  // Note [Dropping dead entries lazily]
  if (found != sparse_.end() && !found->second.real.expired())
    return found->second.meta;  // F2: alive, same tensor
  drop_dead_tensors();
  Result<SparseMeta> r = sparse_to_meta(s, sparse_mode());
  if (!r.ok()) return r.error();  // F4: memo unchanged
  SparseMeta m = std::move(r).value();
  if (fault_active(Fault::kSparseFakeSwapsDims)) std::swap(m.sparse_dim, m.dense_dim);
  SparseEntry e;
  e.real = s;
  e.meta = std::make_shared<const SparseMeta>(std::move(m));
  SparseMetaTensor out = e.meta;
  sparse_.emplace(s.get(), std::move(e));
  if (++since_sweep_ >= sweep_interval()) sweep();
  return out;
}

Result<Tensor> MetaConverter::from_meta(const Tensor& m) {
  if (!m->is_meta() || m->fake)
    return make_error(ErrorKind::kUnsupportedFakeTensor,
                      std::string("fake_from_meta: the input is ") +
                          (m->fake ? "already a fake tensor" : "not a meta tensor") +
                          "; it takes a meta tensor");
  auto f = make_pooled<TensorImpl>(*m);  // the meta storage and version counter
  f->fake = true;
  return Tensor(f);
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
  if (untouched()) return MemoStats{};  // most programs convert nothing (issue 8)
  drop_dead_tensors();
  return MemoStats{static_cast<int64_t>(tensors_.size()), static_cast<int64_t>(storages_.size()),
                   static_cast<int64_t>(pending_.size()), static_cast<int64_t>(sparse_.size())};
}

// Note [Fallback]
// F7, as PyTorch's FakeTensorMode runs an op that has no meta kernel: the op
// runs for real on zeros, and its real outputs are mapped back to fakes. Every
// op of storcheck's table has a meta rule (Note [Meta execution] in ops.cpp),
// so the fallback is exercised by running it beside the meta rule and
// comparing (the `fake.fallback_rules` property, oracles/fake_twin_backend.cpp).
// storcheck's zeros keep each fake input's exact geometry (offset, strides,
// aliasing between inputs); PyTorch 1.13 builds them with zeros_like, which
// keeps neither offsets nor storage sharing, so its fallback can differ from
// the meta rule where storcheck's does not.

Status fallback_allowed(std::string_view op, bool inplace_view) {
  bool never = inplace_view && !fault_active(Fault::kFallbackRunsInplaceView);
  if (!never) return {};
  return make_error(ErrorKind::kUnsupportedFakeTensor,
                    std::string(op) +
                        ": no meta rule, and ops tagged inplace_view never fall back (F7): "
                        "running it on zeros would change the metadata of a real tensor only");
}

Result<std::vector<Tensor>> fallback_inputs(Context& ctx, const std::vector<Tensor>& fakes) {
  // One real storage per fake storage, big enough for every input over it.
  std::unordered_map<const Storage*, int64_t> need;
  for (const Tensor& f : fakes) {
    int64_t bytes = 0;
    if (!f->geom.required_bytes(&bytes))
      return make_error(ErrorKind::kResourceLimit,
                        "fallback: the input's extent overflows; the zeros cannot be allocated");
    int64_t& n = need[f->storage.get()];
    n = std::max({n, bytes, f->storage->nbytes()});
  }
  std::unordered_map<const Storage*, Rc<Storage>> real_storage;
  std::unordered_map<const TensorImpl*, Tensor> real_tensor;
  std::vector<Tensor> reals;
  for (const Tensor& f : fakes) {
    auto same = real_tensor.find(f.get());
    if (same != real_tensor.end()) {
      reals.push_back(same->second);
      continue;
    }
    Rc<Storage>& s = real_storage[f->storage.get()];
    if (!s) {
      auto a = Storage::allocate(&ctx.budget, need[f->storage.get()], "fallback");
      if (!a.ok()) return a.error();
      s = std::move(a).value();
    }
    auto r = make_pooled<TensorImpl>();
    r->storage = s;
    r->geom = f->geom;
    r->dtype = f->dtype;
    r->version = make_pooled<int64_t>(0);
    real_tensor.emplace(f.get(), r);
    reals.push_back(std::move(r));
  }
  return reals;
}

Result<Tensor> fallback_output(const std::vector<Tensor>& fakes, const std::vector<Tensor>& reals,
                               const Tensor& out, MetaConverter& conv) {
  SC_ASSERT(fakes.size() == reals.size() && !fakes.empty(), "fallback_output: one real per fake");
  if (!out) return fakes[0];  // in place: the output is the first input
  for (size_t k = 0; k < reals.size(); ++k)
    if (out == reals[k]) return fakes[k];  // F7: identical to an input
  bool aliases = false;
  for (const Tensor& r : reals) aliases |= out->storage == r->storage;
  if (aliases && !fault_active(Fault::kFallbackConvertsViews))
    return make_error(ErrorKind::kUnsupportedFakeTensor,
                      "fallback: the op's output aliases an input without being it; zeros "
                      "cannot say what it aliases (F7)");
  return conv.convert(out);
}

namespace {

/// The bytes of to_meta's copy of `numel` elements of `itemsize` bytes, as
/// LibTorch 1.13 computes them: a tensor that exists can still hold more
/// than 2^63 bytes' worth of elements when strides of 0 repeat them (an
/// expand to [2^63-1]), and 1.13 multiplies in SymInt arithmetic, which
/// wraps (found by fake_fuzzer under UBSan: the reference multiplied in
/// int64, undefined). Products in the reserved SymInt range trip an assert
/// in 1.13 instead (known divergence symint-range-assert-1.13).
int64_t meta_copy_nbytes(int64_t numel, int64_t itemsize) {
  return static_cast<int64_t>(static_cast<uint64_t>(numel) * static_cast<uint64_t>(itemsize));
}

}  // namespace

Result<Tensor> to_meta(const Tensor& t) {
  if (t->fake)
    return make_error(ErrorKind::kUnsupportedFakeTensor,
                      "to_meta: the input is a fake tensor, which has no data to copy; convert "
                      "the real tensor");
  if (t->is_meta()) return t;  // `to` onto the tensor's own device returns it
  auto m = make_pooled<TensorImpl>();
  m->geom = t->geom;
  m->geom.offset = 0;
  // F8's preserve_format as LibTorch's _to_copy does it: non-overlapping and
  // dense strides kept, else infer_dense_strides (found by
  // fake.matches_libtorch_meta: an overlapping [2, 3] input with strides
  // [1, 1] gets [1, 2], not contiguous [3, 1]).
  if (!t->geom.is_non_overlapping_and_dense()) infer_dense_strides(t->geom, m->geom.strides.data());
  m->dtype = t->dtype;
  m->version = make_pooled<int64_t>(0);
  m->storage = Storage::make_meta(meta_copy_nbytes(t->numel(), t->geom.itemsize));
  return Tensor(m);
}

}  // namespace storcheck

namespace storcheck {

Result<SparseMetaTensor> to_meta(const SparseTensor& s) {
  Result<SparseMeta> r = sparse_to_meta(s, SparseFakeMode::kFaithful);  // F8: nnz, dims, coalesced
  if (!r.ok()) return r.error();
  SparseMeta m = std::move(r).value();
  for (SparsePartMeta* p : {&m.indices, &m.compressed_indices, &m.plain_indices, &m.values}) {
    if (!p->present) continue;
    // Each part is cloned as to_meta(Tensor) clones a strided tensor.
    Geometry g = p->geom;
    g.offset = 0;
    if (!p->geom.is_non_overlapping_and_dense()) infer_dense_strides(p->geom, g.strides.data());
    int64_t numel = 0;
    p->geom.numel(&numel);
    p->geom = g;
    p->storage_nbytes = meta_copy_nbytes(numel, g.itemsize);
  }
  return SparseMetaTensor(std::make_shared<const SparseMeta>(std::move(m)));
}

}  // namespace storcheck
