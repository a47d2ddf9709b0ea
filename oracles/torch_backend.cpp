// The LibTorch eager backends (CPU, and CUDA when the LibTorch build has it):
// run each Step through the ATen C++ API and observe the resulting tensors
// through their storages. See Note [Device backends].
//
// Invariant: a step either runs exactly one LibTorch call sequence for its op
// or, when a harness policy check rejects it first (see Note [Torch backend
// policy checks]), runs nothing; LibTorch never sees an op whose outcome is
// undefined (S8) or whose allocation is beyond the Limits.
//
//   auto b = make_torch_cpu_backend();
//   b->begin(program, Limits{});
//   Error e = b->run_step(program.steps[0]);
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "impl/dtype.h"
#include "impl/geometry.h"
#include "impl/ops.h"
#include "impl/rand.h"
#include "oracles/backend.h"
#include "oracles/dense_values_cache.h"
#include "oracles/first_index.h"
#include "oracles/known_divergences.h"
#include "oracles/layout_policy.h"
#include "oracles/torch_dtype.h"
#include "oracles/torch_errors.h"
#include "oracles/torch_pch.h"

// LibTorch built with CUDA (the GPU machine's PyTorch 2.x): CMake defines
// STORCHECK_TORCH_HAS_CUDA=1 (CMakeLists.txt, storcheck_torch); Debian's
// 1.13 is CPU-only, where oracles/torch_backend_cuda_check.cpp compiles this
// file once more with it set, against the CUDA Toolkit's headers.
#ifndef STORCHECK_TORCH_HAS_CUDA
#define STORCHECK_TORCH_HAS_CUDA 0
#endif
#if STORCHECK_TORCH_HAS_CUDA
#include <ATen/native/cuda/Resize.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif
#include <torch/cuda.h>

namespace storcheck {
namespace detail {
namespace {

// Note [Torch backend policy checks]
// Before calling LibTorch, every op goes through the checks below, in this
// order; the first that fails is the step's error and nothing runs. The
// reference backend applies the same rules, so they are exact, not heuristic.
//   Case 1) S9 / limits. Factories compute their bytes with
//      Geometry::required_bytes (overflow: kStorageSizeOverflow). Every op
//      that allocates (factories, clone, contiguous and reshape when they
//      copy, add/mul results, resize_ growth, to_dense, and each part of a
//      to_sparse_* or coalesce result, one after another) computes the
//      bytes of its new storage; an overflow is kStorageSizeOverflow, more than
//      Limits::max_tensor_bytes, or a run total beyond max_program_bytes, is
//      kResourceLimit. The total is the sum of the bytes of every successful
//      allocation of the run (it never decreases; a failed op adds nothing).
//      sum, to_sparse_*, fill_ and zero_ on a real input of more than
//      Limits::max_step_reads elements: kResourceLimit, after Case 3) (Note
//      [Elements a step reads], impl/ops.h).
//   Case 2) Rank: unsqueeze, unsqueeze_, unfold, unflatten whose result rank
//      would exceed kMaxDims: kResourceLimit (whatever the dim arguments).
//   Case 3) S8: compute kernels (add_, mul_, fill_, zero_, copy_ on dst and
//      src, add, mul, clone, contiguous and reshape when they copy) on a
//      tensor whose required bytes exceed its storage's nbytes:
//      kUndefinedBehavior.
//   Case 4) Order-dependent writes LibTorch does not detect: add_, mul_ and
//      copy_ on a dst whose internal_overlap is kTooHard and that truly
//      overlaps (Geometry::has_overlap); copy_ whose src shares dst's
//      storage with overlap_status kTooHard (or kFull with a different
//      geometry) and elements that intersect: kUndefinedBehavior.
//   Case 5) Negative sizes that LibTorch would accept: as_strided and
//      as_strided_ with a negative size, resize_ with a negative size:
//      kInvalidArgument (these run before Case 1); likewise unfold with a
//      negative size, and expand with a size < -1 in a size-1 or new
//      leading dim, or < 0 on a 0-dim tensor, where ATen does not raise
//      first (check_expand_sizes). LibTorch 1.13 lets
//      all of these through when another size is 0 (its extent computation
//      returns 0 before it sees the negative size), yielding tensors with
//      negative sizes; with numel > 0 it reports them as "Storage size
//      calculation overflowed" or "numel: integer multiplication overflow".
//   Case 6) Signed overflow in LibTorch's own index arithmetic: split and
//      chunk of a dim so large that `dim_size + split_size - 1` (or
//      `+ chunks - 1`) passes int64 (split_arithmetic_overflows in
//      impl/ops.h); slice and narrow whose offset, size or stride
//      arithmetic passes it (slice_arithmetic_overflows); view_dtype to a
//      smaller item whose stride, size or offset scaling passes it
//      (view_dtype_arithmetic_overflows); each checked after LibTorch's
//      argument checks would pass: kUndefinedBehavior.
// LibTorch itself raises internal overlap (stride 0, size > 1), partial
// overlap, dtype casts, scalar overflow and every argument error.

// Note [Device backends]
// One backend class runs on a device (issue 11): torch_cpu, and torch_cuda
// where LibTorch has CUDA and a device is usable. The ops are the same
// LibTorch calls on tensors of that device; what differs is every place
// where the backend itself touches bytes, which goes through four helpers:
//   - zero_bytes: the bytes LibTorch leaves unspecified (empty_strided,
//     resize_ and resize_storage growth, rehydrate) are defined as zero;
//   - host_bytes: observations read element bytes from a host copy of the
//     storage (for CUDA, a device-to-host copy, which waits for the device);
//   - copy_storage: the stand-in lazy clone of LibTorch < 2.3 (C6);
//   - resize_bytes: what `untyped_storage().resize_()` runs for the device
//     (resize_bytes_cpu, resize_bytes_cuda).
// The first three take the device path for a storage on a device (cuda
// and cpu steps move tensors between devices in either backend) and, in
// staged mode, for every storage (torch_cpu_staged: the code that CUDA
// runs, tested on CPU tensors without a GPU). Factories put their tensors
// on the backend's device; every other op on its input's.
// On CUDA every step ends with a device synchronize inside the step's
// try, so an asynchronous kernel error is that step's error. A fake tensor
// reports the device it stands for (F1): the backend's device. The device
// memory check (set_check_device_memory, CUDA only) reads the caching
// allocator's allocated bytes around shrink (it frees at least the storage's
// bytes: shrink.frees_device_memory) and, with COW, lazy_clone (it allocates
// nothing: cow.device_copy_only_on_write); a miss is an invariant finding.
// The crash-isolated unsafe mode forks and is CPU only.


at::Scalar to_torch_scalar(const ScalarLit& s) {
  switch (s.kind) {
    case ScalarLit::Kind::kBool: return at::Scalar(s.i != 0);
    case ScalarLit::Kind::kInt: return at::Scalar(static_cast<int64_t>(s.i));
    case ScalarLit::Kind::kFloat: return at::Scalar(s.f);
  }
  return at::Scalar(s.i);
}

at::IntArrayRef to_ref(const IntList& l) { return at::IntArrayRef(l.begin(), l.size()); }

std::string list_str(at::IntArrayRef l) {
  std::string s = "[";
  for (size_t k = 0; k < l.size(); ++k) s += (k ? "," : "") + std::to_string(l[k]);
  return s + "]";
}

Geometry geometry_of(const at::Tensor& t) {
  // The size and stride arrays as they are: t.size(d) and t.stride(d) wrap
  // each dim, and this runs for every variable whose values an observation
  // reads and for every fits check (issue 8: 6% of the LibTorch backend's
  // observation, callgrind).
  const at::IntArrayRef sizes = t.sizes(), strides = t.strides();
  Geometry g;
  g.rank = static_cast<int>(sizes.size());
  SC_ASSERT(g.rank <= kGeometryMaxDims, "torch backend: tensor rank beyond kGeometryMaxDims");
  std::copy(sizes.begin(), sizes.end(), g.sizes.begin());
  std::copy(strides.begin(), strides.end(), g.strides.begin());
  g.offset = t.storage_offset();
  g.itemsize = static_cast<int64_t>(t.element_size());
  return g;
}

/// Contiguous geometry of `sizes` (sizes assumed non-negative).
Geometry contiguous_geometry(at::IntArrayRef sizes, int64_t itemsize) {
  Geometry g;
  g.rank = static_cast<int>(sizes.size());
  for (int d = 0; d < g.rank; ++d) g.sizes[d] = sizes[d];
  contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
  g.itemsize = itemsize;
  return g;
}

int64_t storage_nbytes(const at::Tensor& t) { return static_cast<int64_t>(t.storage().nbytes()); }

/// A storage's bytes for writing, without materializing a COW storage (the
/// backend writes only storages it has just allocated or resized). Through
/// DataPtr::get(), which is `void*` in LibTorch 1.13 and 2.x alike
/// (StorageImpl::data() is const from 2.1 on).
uint8_t* raw_bytes(const c10::Storage& s) { return static_cast<uint8_t*>(s.data_ptr().get()); }

uint8_t* storage_data(const at::Tensor& t) { return raw_bytes(t.storage()); }

/// S8: the tensor's elements all lie inside its storage.
bool fits_storage(const at::Tensor& t) {
  int64_t need = 0;
  return geometry_of(t).required_bytes(&need) && need <= storage_nbytes(t);
}

/// A real tensor's device as observed (a meta tensor's is tracked apart).
Device real_device(const at::TensorBase& t) { return t.is_cuda() ? Device::kCuda : Device::kCpu; }

Layout layout_of(const at::TensorBase& t) {
  switch (t.layout()) {
    case at::kSparse: return Layout::kSparseCoo;
    case at::kSparseCsr: return Layout::kSparseCsr;
    case at::kSparseCsc: return Layout::kSparseCsc;
    case at::kSparseBsr: return Layout::kSparseBsr;
    case at::kSparseBsc: return Layout::kSparseBsc;
    default: return Layout::kStrided;
  }
}

bool is_sparse_tensor(const at::TensorBase& t) { return t.layout() != at::kStrided; }

/// The parts of sparse tensor `t`, in the order the reference reads them:
/// COO indices, values; compressed: compressed, plain indices, values.
/// Read from the sparse tensor's impl: the very tensors _indices(),
/// crow_indices(), ... alias (same storages and geometry), without an op
/// call and a fresh alias per part; observe_sparse reads them after every
/// step a sparse variable lives (a fortieth of fake_fuzzer's time, issue 6).
/// For reading only: the program's accessor steps call the accessors.
std::vector<at::Tensor> sparse_parts(const at::Tensor& t) {
  if (t.layout() == at::kSparse) {
    const at::SparseTensorImpl* impl = at::sparse::get_sparse_impl(t);
    return {impl->indices(), impl->values()};
  }
  const at::SparseCsrTensorImpl* impl = at::sparse_csr::get_sparse_csr_impl(t);
  return {impl->compressed_indices(), impl->plain_indices(), impl->values()};
}

/// Note [Sparse indices written through an accessor]: a write through
/// indices(), crow_indices(), ... can leave indices that LibTorch's kernels
/// index memory with unchecked (to_dense, coalesce: out-of-bounds reads and
/// writes, S8). Before such a kernel, both backends re-run the construction
/// checks of 1.13 on the parts (here _validate_sparse_coo_tensor_args and
/// _validate_sparse_compressed_tensor_args); a tensor that fails them is
/// kUndefinedBehavior and the kernel does not run.
Error check_sparse_indices(std::string_view op, const at::Tensor& t) {
  const std::vector<at::Tensor> parts = sparse_parts(t);
  try {
    if (t.layout() == at::kSparse)
      at::_validate_sparse_coo_tensor_args(parts[0], parts[1], t.sizes());
    else
      at::_validate_sparse_compressed_tensor_args(parts[0], parts[1], parts[2], t.sizes(),
                                                  t.layout());
  } catch (const std::exception& ex) {
    return make_error(ErrorKind::kUndefinedBehavior,
                      std::string(op) + ": not executed: undefined (S8): the " +
                          std::string(layout_name(layout_of(t))) +
                          " tensor's indices are no longer valid (" +
                          torch_exception_message(ex) + ")");
  }
  // 1.13 checks no compressed index invariant when nnz is 0, but its kernels
  // read [c[i], c[i+1]) of the plain indices and values: every range must
  // lie within nnz, as the reference's to_dense requires (found by
  // fake_fuzzer: ccol_indices [0, 1, 2] written into an nnz-0 CSC tensor).
  if (t.layout() != at::kSparse) {
    const int64_t nnz = parts[1].size(-1), n = parts[0].size(-1);
    const at::Tensor c = parts[0].to(at::kCPU, at::kLong).contiguous();
    const int64_t* cp = c.data_ptr<int64_t>();
    for (int64_t b = 0; n > 0 && b < c.numel() / n; ++b)
      for (int64_t i = 0; i + 1 < n; ++i) {
        const int64_t lo = cp[b * n + i], hi = cp[b * n + i + 1];
        if (lo > hi || (lo < hi && (lo < 0 || hi > nnz)))
          return make_error(ErrorKind::kUndefinedBehavior,
                            std::string(op) + ": not executed: undefined (S8): the " +
                                std::string(layout_name(layout_of(t))) + " tensor's range [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + ") at position " +
                                std::to_string(i) + " is not within nnz " + std::to_string(nnz));
      }
  }
  return Error{};
}

/// Everything TorchBackend::densify reads of a CPU sparse tensor `t`
/// (Note [Sparse values by their inputs], oracles/dense_values_cache.h).
void write_values_key(const at::Tensor& t, const std::vector<at::Tensor>& parts, int64_t limit,
                      ValuesKey* key) {
  key->clear();
  key->pod(limit);
  key->pod(static_cast<int>(t.layout()));
  key->counted(t.sizes().data(), t.sizes().size() * sizeof(int64_t));
  key->pod(static_cast<int>(t.scalar_type()));
  key->pod(t.sparse_dim());
  key->pod(t.dense_dim());
  key->pod(t.layout() == at::kSparse && t.is_coalesced());
  for (const at::Tensor& p : parts) {
    key->pod(static_cast<int>(p.scalar_type()));
    key->counted(p.sizes().data(), p.sizes().size() * sizeof(int64_t));
    key->counted(p.strides().data(), p.strides().size() * sizeof(int64_t));
    key->pod(p.storage_offset());
    const c10::Storage& st = p.storage();
    const void* data = st.data();
    key->pod(static_cast<int64_t>(st.nbytes()));
    key->pod(data != nullptr);
    key->counted(data, data ? st.nbytes() : 0);
  }
}

/// A fresh meta tensor with `t`'s exact geometry and dtype over a meta
/// storage of t's storage's nbytes (Note [Meta conversion over LibTorch]).
at::Tensor meta_over(const c10::Storage& meta_storage, const at::Tensor& t) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(meta_storage), c10::DispatchKeySet(c10::DispatchKey::Meta), t.dtype());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  return at::Tensor(std::move(impl));
}

at::Tensor meta_bytes(int64_t nbytes) {
  return at::empty({nbytes}, at::TensorOptions().dtype(at::kByte).device(at::kMeta));
}

bool any_negative(at::IntArrayRef l) {
  return std::any_of(l.begin(), l.end(), [](int64_t x) { return x < 0; });
}

Error error(ErrorKind kind, std::string msg) { return make_error(kind, std::move(msg)); }
Error ok() { return Error{}; }

// Note [Meta conversion over LibTorch]
// LibTorch C++ has no MetaConverter or FakeTensor (they are PyTorch Python:
// issue 10 drives those). This backend's `meta` and `fake` build what
// PyTorch's MetaConverter builds, from LibTorch's own pieces: a TensorImpl on
// the Meta dispatch key over a meta storage (LibTorch's meta allocator) of
// the real storage's nbytes, with the real sizes, strides and offset set
// directly (set_ or as_strided would check bounds, and an emptied or
// undersized real tensor still converts, F2). The memo is weak
// (weak_intrusive_ptr): the same live TensorImpl gives the same meta tensor
// and the same live StorageImpl the same meta storage; an expired entry is
// replaced when its address is reused and erased by `sweep`. A fake tensor
// is such a meta tensor that the backend marks fake (fake_ per variable):
// it reports the real device (F1), and ops on it give fake tensors, as in
// FakeTensorMode. Everything that then runs on these tensors is LibTorch's
// own meta kernels (F6, F9), which is the comparison that matters.
class TorchConverter {
 public:
  at::Tensor convert(const at::Tensor& t) {
    c10::TensorImpl* key = t.unsafeGetTensorImpl();
    auto found = tensors_.find(key);
    if (found != tensors_.end() && !found->second.real.expired()) return found->second.meta;
    c10::StorageImpl* skey = t.storage().unsafeGetStorageImpl();
    auto s = storages_.find(skey);
    if (s == storages_.end() || s->second.real.expired()) {
      at::Tensor bytes = meta_bytes(static_cast<int64_t>(t.storage().nbytes()));
      if (s != storages_.end()) storages_.erase(s);  // a dead storage's reused address
      s = storages_.emplace(skey, StorageEntry{t.storage().getWeakStorageImpl(), bytes.storage()}).first;
    }
    return remember(t, meta_over(s->second.meta, t));
  }
  /// F4 for a sparse `t`, memoized by identity like convert() (F2). `faithful`:
  /// SparseFakeMode::kFaithful (nnz and the parts' geometry kept), else
  /// kPyTorch (what PyTorch's meta_utils builds: nnz 0). Compressed layouts
  /// throw: LibTorch 1.13 has no meta compressed tensors (a known divergence).
  at::Tensor convert_sparse(const at::Tensor& t, bool faithful) {
    auto found = tensors_.find(t.unsafeGetTensorImpl());
    if (found != tensors_.end() && !found->second.real.expired()) return found->second.meta;
    const at::TensorOptions opts =
        at::TensorOptions().dtype(t.scalar_type()).layout(t.layout()).device(at::kMeta);
    at::Tensor m;
    if (t.layout() == at::kSparse && faithful) {
      at::Tensor i = t._indices(), v = t._values();
      m = at::_sparse_coo_tensor_with_dims_and_tensors(
          t.sparse_dim(), t.dense_dim(), t.sizes(),
          meta_over(meta_bytes(static_cast<int64_t>(i.storage().nbytes())).storage(), i),
          meta_over(meta_bytes(static_cast<int64_t>(v.storage().nbytes())).storage(), v), opts);
      m._coalesced_(t.is_coalesced());
    } else if (t.layout() == at::kSparse) {  // meta_utils.py: nnz 0
      m = at::empty({0}, opts);
      m.sparse_resize_and_clear_(t.sizes(), t.sparse_dim(), t.dense_dim());
      m._coalesced_(t.is_coalesced());
    } else if (faithful) {
      std::vector<at::Tensor> p = sparse_parts(t);
      std::vector<at::Tensor> mp;
      for (const at::Tensor& x : p)
        mp.push_back(meta_over(meta_bytes(static_cast<int64_t>(x.storage().nbytes())).storage(), x));
      m = at::_sparse_compressed_tensor_unsafe(mp[0], mp[1], mp[2], t.sizes(), opts);
    } else {
      m = at::empty({0}, opts);  // LibTorch 1.13: "Unsupported device type for SparseCsr layout: meta"
    }
    return remember(t, m);
  }
  /// Memoizes m as t's conversion, replacing an expired entry at t's address.
  at::Tensor remember(const at::Tensor& t, at::Tensor m) {
    tensors_.erase(t.unsafeGetTensorImpl());
    tensors_.emplace(t.unsafeGetTensorImpl(),
                     TensorEntry{c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), m});
    return m;
  }
  void sweep() {
    for (auto it = tensors_.begin(); it != tensors_.end();)
      it = it->second.real.expired() ? tensors_.erase(it) : std::next(it);
    for (auto it = storages_.begin(); it != storages_.end();)
      it = it->second.real.expired() ? storages_.erase(it) : std::next(it);
  }
  void clear() {
    tensors_.clear();
    storages_.clear();
  }

 private:
  struct TensorEntry {
    c10::weak_intrusive_ptr<c10::TensorImpl> real;
    at::Tensor meta;
  };
  struct StorageEntry {
    c10::weak_intrusive_ptr<c10::StorageImpl> real;
    c10::Storage meta;
  };
  std::unordered_map<const c10::TensorImpl*, TensorEntry> tensors_;
  std::unordered_map<const c10::StorageImpl*, StorageEntry> storages_;
};

// Note [Quiet LibTorch warnings]
// LibTorch's warnings (add_out's "An output with one or more elements was
// resized", beta sparse layouts) are not observations: storcheck's reports
// stay free of them. c10's warning handler is per thread (a thread_local in
// c10/util/Exception.cpp, whatever its header says), so setting it once, on
// the thread that made the first backend, left the gate's other worker
// printing every warning through glog (about 800 lines in a default gate).
// Each backend sets it on the thread that begins a program on it (begin);
// warnings come only from steps, which run after begin on that thread.
void quiet_torch_warnings() {
  struct Quiet final : c10::WarningHandler {
    void process(const c10::SourceLocation&, const std::string&, bool) override {}
  };
  static Quiet quiet;
  c10::Warning::set_warning_handler(&quiet);
}

class TorchBackend final : public Backend {
 public:
  TorchBackend(at::Device device, bool staged)
      : device_(device), staged_(staged || !device.is_cpu()),
        name_(device.is_cuda() ? "torch_cuda" : staged ? "torch_cpu_staged" : "torch_cpu") {
    try {
      cuda_usable_ = torch::cuda::is_available();
    } catch (const std::exception&) {
      cuda_usable_ = false;  // any error means no GPU
    }
  }

  std::string_view name() const override { return name_; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.device = device_.is_cuda() ? Device::kCuda : Device::kCpu;
    c.cow = STORCHECK_TORCH_HAS_COW;
    c.cow_refs = false;
    if (!STORCHECK_TORCH_HAS_COW)
      c.skipped_note =
          "COW fields (is_cow, data_class, data_moved) skipped: this LibTorch has no "
          "_lazy_clone (2.3+); lazy_clone runs as an eager storage copy and only values, "
          "metadata and errors are compared (C6)";
    else
      c.skipped_note = "cow_refs skipped: LibTorch does not expose COW reference counts";
    return c;
  }

  void begin(const Program& program, const Limits& limits) override {
    quiet_torch_warnings();  // Note [Quiet LibTorch warnings]: per thread
    limits_ = limits;
    total_bytes_ = 0;
    restored_.clear();
    vars_.clear();       // tensors first: they may point into blobs_
    foreign_.clear();
    blobs_.clear();
    device_blobs_.clear();
    host_stage_ = at::Tensor();
    last_data_.assign(static_cast<size_t>(program.num_vars()), nullptr);
    fake_conv_.clear();
    meta_conv_.clear();
    vars_.assign(static_cast<size_t>(program.num_vars()), at::Tensor());
    fake_.assign(vars_.size(), 0);
    stands_for_.assign(vars_.size(), home_device());
    refusal_.clear();
    // Freed, not kept for their capacity: libFuzzer re-runs an input under
    // LeakSanitizer when its mallocs and frees differ (Judge::judge).
    dense_cache_.reset(vars_.size());
    key_ = ValuesKey();
  }

  Error run_step(const Step& step) override {
    at::NoGradGuard no_grad;
    restored_step_ = false;
    refused_undefined_ = false;
    // Note [Meta execution] (impl/ops.cpp): a step on meta or fake inputs
    // allocates nothing and reads nothing (no limits, no S8, no restore).
    meta_step_ = false;
    bool fake_in = false;
    for (int k = 0; k < step.nargs; ++k) {
      if (step.args[k].kind != ArgKind::kVar) continue;
      meta_step_ = meta_step_ || vars_[step.args[k].var].is_meta();
      fake_in = fake_in || fake_[step.args[k].var];
    }
    std::array<OperandLayout, kMaxArgs> layouts{};
    for (int k = 0; k < step.nargs; ++k) {
      if (step.args[k].kind != ArgKind::kVar) continue;
      const at::Tensor& t = vars_[step.args[k].var];
      const Device d = t.is_meta() ? stands_for_[step.args[k].var] : real_device(t);
      layouts[static_cast<size_t>(k)] = {layout_of(t), t.is_meta(), d, from_torch(t.scalar_type())};
    }
    // Note [Layout policy] (oracles/layout_policy.cpp): LibTorch never sees a refused step.
    Error e = check_layouts(step, layouts);
    if (e.kind != ErrorKind::kNone) return e;
    try {
      e = run(step);
      if (device_.is_cuda() && !meta_step_) torch::cuda::synchronize();
    } catch (const std::exception& ex) {
      e = classify_torch_exception(ex);
    }
    if (step.out != kNoVar && vars_[step.out].defined()) {
      fake_[step.out] = step.op == OpId::kFake || step.op == OpId::kFakeFromMeta ||
                        (fake_in && step.op != OpId::kMeta && step.op != OpId::kToMeta);
    }
    if (step.out != kNoVar && vars_[step.out].defined() && vars_[step.out].is_meta()) {
      // F1: a meta or fake result stands for its first input's device (the
      // reference's meta storages carry it, impl/storage.h DeviceType).
      Device d = home_device();
      for (int k = 0; k < step.nargs; ++k) {
        if (step.args[k].kind != ArgKind::kVar || !vars_[step.args[k].var].defined()) continue;
        const at::Tensor& in = vars_[step.args[k].var];
        d = in.is_meta() ? stands_for_[step.args[k].var] : real_device(in);
        break;
      }
      stands_for_[step.out] = d;
    }
    if (eager_unsafe_ && !meta_step_) {
      if (refused_undefined_)
        probe_unsafe(step, UnsafeWhy::kRefused);
      else if (restored_step_)
        probe_unsafe(step, UnsafeWhy::kRestored);
      else if (e.kind == ErrorKind::kUndefinedBehavior)
        probe_unsafe(step, UnsafeWhy::kUndefined);
    }
    return e;
  }

  void set_eager_unsafe(bool on) { eager_unsafe_ = on && device_.is_cpu(); }
  Device home_device() const { return device_.is_cuda() ? Device::kCuda : Device::kCpu; }
  void set_check_device_memory(bool on) { check_memory_ = on && device_.is_cuda(); }
  std::string take_unsafe_finding() override { return std::exchange(unsafe_finding_, {}); }
  std::string take_invariant_finding() override { return std::exchange(invariant_finding_, {}); }
  bool take_refusal(std::string* why) override { return hand_over_refusal(&refusal_, why); }

  void observe(Observation* obs, const ObserveScope& scope = {}) override;

 private:
  Error run(const Step& step);

  // Note [Device backends]: the backend's own byte accesses.
  /// Where factory step `s` puts its tensor: its device argument, else the
  /// backend's device.
  at::Device factory_device(const Step& s) const {
    if (s.device == DeviceArg::kCuda) return at::Device(at::kCUDA, 0);
    if (s.device == DeviceArg::kCpu) return at::Device(at::kCPU);
    return device_;
  }
  /// Options of a fresh tensor of dtype `d` made by factory step `s`.
  at::TensorOptions on_device(const Step& s, DType d) const {
    return at::TensorOptions().dtype(to_torch(d)).device(factory_device(s));
  }
  /// A factory onto CUDA that this LibTorch cannot run: refused (the run is
  /// compared up to it). True when refused.
  bool refuse_without_cuda(const Step& s) {
    if (!factory_device(s).is_cuda() || cuda_usable_) return false;
    refuse_no_cuda(s);
    return true;
  }
  /// The refusal of step `s`, which needs a CUDA device this LibTorch lacks.
  void refuse_no_cuda(const Step& s) {
    refusal_ =
        std::string(s.info().name) + ": no usable CUDA device for LibTorch " + torch_version();
  }
  /// Refuses step `s` for the stride of `t` at dim `d`: "OP: the input's
  /// stride X at dim D (sizes [...]) WHY".
  void refuse_stride(const Step& s, const at::Tensor& t, size_t d, const std::string& why) {
    refuse_undefined(std::string(s.info().name) + ": the input's stride " +
                     std::to_string(t.strides()[d]) + " at dim " + std::to_string(d) + " (sizes " +
                     format_ints(IntSpan(t.sizes().data(), static_cast<int>(t.dim()))) + ") " +
                     why);
  }
  /// Refuses the step as undefined on LibTorch (S8): `--eager-unsafe` runs
  /// it on plain LibTorch in a forked child (Note [Crash-isolated unsafe mode]).
  void refuse_undefined(std::string why) {
    refusal_ = std::move(why);
    refused_undefined_ = true;
  }
  /// A step that would hand `t`'s strides to TensorImpl::set_sizes_and_strides
  /// (meta/fake conversion, lazy_clone, view_dtype, which divides or scales
  /// them first) while one is negative: refused (S8).
  /// Only a wrapped stride is negative (contiguous strides of a numel-0 shape
  /// such as [4,2,64,0,2^63-1,0] overflow in LibTorch 1.13, as the reference
  /// mirrors in contiguous_strides), and set_sizes_and_strides recomputes a
  /// negative stride as size * stride of the next dim: the same overflowing
  /// signed multiply, in LibTorch's inline header (found by fake_fuzzer under
  /// UBSan). True when refused.
  bool refuse_wrapped_strides(const Step& s, const at::Tensor& t) {
    const at::IntArrayRef st = t.strides();
    for (size_t d = 0; d < st.size(); ++d) {
      if (st[d] >= 0) continue;
      refuse_stride(s, t, d,
                    "wrapped past int64; LibTorch " + torch_version() +
                        "'s set_sizes_and_strides would recompute it with a signed multiply "
                        "that overflows (undefined behaviour, S8): not run");
      return true;
    }
    return false;
  }
  /// copies_symint_pointer_stride (oracles/layout_policy.h) on LibTorch
  /// 1.13: refused (S8). Later SymInts move such a value to the heap
  /// (SymInt::promote_to_negative, tested with INT64_MIN in c10's
  /// SymInt_test): no refusal from 2.1 on (2.0, not checked here, is
  /// refused too). True when refused.
  bool refuse_symint_pointer_strides(const Step& s, const at::Tensor& t) {
#if defined(TORCH_VERSION_MAJOR) && \
    (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1))
    (void)s;
    (void)t;
    return false;
#else
    const at::IntArrayRef st = t.strides();
    if (!copies_symint_pointer_stride(s, st.data(), static_cast<int>(st.size()))) return false;
    const size_t d =
        static_cast<size_t>(std::find_if(st.begin(), st.end(), is_symint_pointer) - st.begin());
    refuse_stride(s, t, d,
                  "lies below -2^62, where LibTorch " + torch_version() +
                      " keeps a symbolic int's pointer: this op copies it as a c10::SymInt and "
                      "dereferences it (a segfault: undefined behaviour, S8): not run");
    return true;
#endif
  }
  /// A 1-d uint8 tensor over all of `storage`'s bytes (no bounds check, no
  /// version bump of any variable).
  at::Tensor bytes_over(const c10::Storage& storage) const {
    const c10::DispatchKey key = c10::computeDispatchKey(at::kByte, at::kStrided, storage.device());
    auto impl = c10::make_intrusive<c10::TensorImpl>(
        c10::Storage(storage), c10::DispatchKeySet(key), caffe2::TypeMeta::Make<uint8_t>());
    impl->set_sizes_contiguous({static_cast<int64_t>(storage.nbytes())});
    return at::Tensor(std::move(impl));
  }
  /// Whether `storage`'s bytes go through tensor ops: on a device, or staged.
  bool staged(const c10::Storage& storage) const { return staged_ || !storage.device().is_cpu(); }
  /// Bytes [from, to) of `storage` set to zero.
  void zero_bytes(const c10::Storage& storage, int64_t from, int64_t to) const {
    if (to <= from) return;
    if (!staged(storage)) {
      std::memset(raw_bytes(storage) + from, 0, static_cast<size_t>(to - from));
      return;
    }
    bytes_over(storage).narrow(0, from, to - from).zero_();
  }
  /// Note [Coalesce slack]: coalesce allocates its new indices [sparse_dim,
  /// nnz] and values [nnz, ...] for the input's nnz, then narrows both to
  /// the new nnz (SparseTensorImpl::set_nnz_and_narrow): the bytes past the
  /// new nnz, each indices row's tail and the values' tail, are never
  /// written. They stay in the storages (resize_ growth or as_strided reach
  /// them), so they are defined as zero, as the reference's are (found by
  /// fake_fuzzer under ASan, whose malloc fills with 0xbe).
  void zero_coalesce_slack(const at::Tensor& r) const {
    if (r.is_meta()) return;
    const at::Tensor indices = r._indices(), values = r._values();
    const int64_t rows = indices.size(0), nnz = indices.size(1), es = indices.element_size();
    const int64_t total = storage_nbytes(indices);
    if (indices.storage_offset() == 0 && indices.stride(1) == 1 && indices.stride(0) >= nnz) {
      const int64_t cap = indices.stride(0);  // the allocated nnz (nnz after a clone)
      for (int64_t d = 0; d < rows; ++d)
        zero_bytes(indices.storage(), std::min((d * cap + nnz) * es, total),
                   std::min((d + 1) * cap * es, total));
    }
    if (values.is_contiguous())
      zero_bytes(values.storage(),
                 (values.storage_offset() + values.numel()) * values.element_size(),
                 storage_nbytes(values));
  }
  /// The first `n` bytes of `t`'s storage, readable on the host until the
  /// next call (n <= nbytes).
  const uint8_t* host_bytes(const at::Tensor& t, int64_t n) {
    if (!staged(t.storage())) return storage_data(t);
    host_stage_ = bytes_over(t.storage()).narrow(0, 0, n).to(at::kCPU, /*non_blocking=*/false,
                                                               /*copy=*/true);
    return host_stage_.data_ptr<uint8_t>();
  }
  /// dst's first n bytes = src's (distinct storages).
  void copy_storage(const c10::Storage& dst, const c10::Storage& src, int64_t n) const {
    if (n <= 0) return;
    if (!staged(dst) && !staged(src)) {
      std::memcpy(raw_bytes(dst), raw_bytes(src), static_cast<size_t>(n));
      return;
    }
    bytes_over(dst).narrow(0, 0, n).copy_(bytes_over(src).narrow(0, 0, n));
  }
  /// `untyped_storage().resize_(nbytes)` for the storage's device.
  void resize_bytes(c10::StorageImpl* impl, int64_t nbytes) const {
#if STORCHECK_TORCH_HAS_CUDA
    if (impl->device().is_cuda()) {
      at::native::resize_bytes_cuda(impl, static_cast<size_t>(nbytes));
      return;
    }
#endif
    at::native::resize_bytes_cpu(impl, static_cast<size_t>(nbytes));
  }
  /// The CUDA caching allocator's allocated bytes on the backend's device;
  /// -1 when unknown (CPU, or LibTorch without CUDA).
  int64_t device_allocated() const {
#if STORCHECK_TORCH_HAS_CUDA
    if (device_.is_cuda()) {
      // allocated_bytes[0]: StatType::AGGREGATE (0 in every version).
      return static_cast<int64_t>(
          c10::cuda::CUDACachingAllocator::getDeviceStats(std::max<int>(device_.index(), 0))
              .allocated_bytes[0]
              .current);
    }
#endif
    return -1;
  }

  const at::Tensor& var(const Step& s, int k) const { return vars_[s.args[k].var]; }
  at::Tensor& var(const Step& s, int k) { return vars_[s.args[k].var]; }
  void bind(const Step& s, at::Tensor t) { vars_[s.out] = std::move(t); }

  // Case 1): admission of a new allocation of `bytes` (committed by commit()
  // once the op has succeeded).
  Error check_alloc(std::string_view op, int64_t bytes) const {
    if (meta_step_) return ok();  // a meta tensor allocates nothing
    if (bytes > limits_.max_tensor_bytes)
      return error(ErrorKind::kResourceLimit,
                   std::string(op) + ": allocation of " + std::to_string(bytes) +
                       " bytes exceeds Limits::max_tensor_bytes = " +
                       std::to_string(limits_.max_tensor_bytes));
    if (bytes > limits_.max_program_bytes - total_bytes_)
      return error(ErrorKind::kResourceLimit,
                   std::string(op) + ": allocation of " + std::to_string(bytes) +
                       " bytes brings the run's total beyond Limits::max_program_bytes = " +
                       std::to_string(limits_.max_program_bytes) + " (already " +
                       std::to_string(total_bytes_) + ")");
    return ok();
  }
  /// check_alloc for allocations made one after another in one step.
  Error check_allocs(std::string_view op, const std::vector<int64_t>& bytes) {
    const int64_t before = total_bytes_;
    Error e = ok();
    for (int64_t b : bytes) {
      e = check_alloc(op, b);
      if (e.kind != ErrorKind::kNone) break;
      total_bytes_ += b;
    }
    total_bytes_ = before;
    return e;
  }
  void commit(int64_t bytes) {
    if (!meta_step_) total_bytes_ += bytes;
  }

  /// Case 1) before LibTorch runs a compressed conversion: the compressed
  /// indices have batch * (rows / blocksize[0] + 1) entries (columns for
  /// CSC and BSC) whatever the data, which for a 0-element input can be
  /// any size: `[100000,100000,0]` to_sparse_bsr [1,2] asked LibTorch for
  /// 80 GB (found by fake_fuzzer, whose ASan allocator aborts on it). The
  /// other parts hold at most the input's elements, which check_step_reads
  /// bounds. Only an input that passes the reference's argument checks is
  /// refused here (impl/sparse.cpp, to_sparse_compressed): for the others
  /// LibTorch raises first, as the reference does.
  Error check_compressed_indices(const Step& s, const at::Tensor& t) {
    const bool blocked = s.op == OpId::kToSparseBsr || s.op == OpId::kToSparseBsc;
    const bool by_row = s.op == OpId::kToSparseCsr || s.op == OpId::kToSparseBsr;
    if (s.op == OpId::kToSparseCoo || t.is_meta() || t.numel() != 0 || t.dim() < 2) return ok();
    const int64_t r = t.dim();
    int64_t b0 = 1, b1 = 1;
    if (blocked) {
      const IntList& bs = s.args[1].list;
      if (bs.size() != 2 || bs[0] <= 0 || bs[1] <= 0) return ok();
      b0 = bs[0];
      b1 = bs[1];
    }
    const int64_t rows = t.size(r - 2), cols = t.size(r - 1);
    if (rows % b0 != 0 || cols % b1 != 0) return ok();
    const std::string_view op = s.info().name;
    // LibTorch: product of batch dimensions must be non-zero (checked first:
    // a [0, 2^63-1, 1] input raises that, found by fake_fuzzer under UBSan,
    // whose rows / 1 + 1 overflowed here).
    for (int64_t d = 0; d + 2 < r; ++d)
      if (t.size(d) == 0) return ok();
    int64_t entries = 0;  // per batch
    bool overflow = __builtin_add_overflow(by_row ? rows / b0 : cols / b1, int64_t{1}, &entries);
    for (int64_t d = 0; d + 2 < r; ++d)
      overflow = overflow || __builtin_mul_overflow(entries, t.size(d), &entries);
    int64_t bytes = 0;
    if (overflow || __builtin_mul_overflow(entries, int64_t{8}, &bytes)) {
      std::string sizes;
      for (int64_t d = 0; d < r; ++d) sizes += (d ? "," : "") + std::to_string(t.size(d));
      return error(ErrorKind::kStorageSizeOverflow, std::string(op) +
                                                        ": the compressed indices of sizes [" +
                                                        sizes + "] overflow int64 bytes");
    }
    // Note [The plain index of an empty input] (impl/sparse.cpp).
    const int64_t plain = by_row ? cols / b1 : rows / b0;
    int64_t plain_bytes = 0;
    if (__builtin_mul_overflow(plain, int64_t{8}, &plain_bytes))
      return error(ErrorKind::kStorageSizeOverflow, std::string(op) + ": an int64 index of " +
                                                        std::to_string(plain) +
                                                        " plain positions overflows int64 bytes");
    if (Error e = check_alloc(op, plain_bytes); e.kind != ErrorKind::kNone) return e;
    return check_allocs(op, {bytes});
  }

  /// Bytes of a fresh contiguous copy of `t` in dtype `d` (Case 1).
  static Error copy_bytes(std::string_view op, const at::Tensor& t, DType d, int64_t* bytes) {
    if (__builtin_mul_overflow(t.numel(), itemsize(d), bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": numel " + std::to_string(t.numel()) + " * itemsize " +
                       std::to_string(itemsize(d)) + " overflows int64");
    return ok();
  }

  /// Case 3).
  static Error check_fits(std::string_view op, const at::Tensor& t, const char* role) {
    if (t.is_meta() || fits_storage(t)) return ok();  // a meta kernel reads nothing
    Geometry g = geometry_of(t);
    int64_t need = -1;
    bool no_overflow = g.required_bytes(&need);
    return error(ErrorKind::kUndefinedBehavior,
                 std::string(op) + ": not executed: undefined (S8): " + role + " with sizes " +
                     list_str(t.sizes()) + ", strides " + list_str(t.strides()) + ", offset " +
                     std::to_string(t.storage_offset()) + " needs " +
                     (no_overflow ? std::to_string(need) : std::string("(overflow)")) +
                     " bytes but its storage has " + std::to_string(storage_nbytes(t)));
  }

  /// Case 1), Note [Elements a step reads] (impl/ops.h): sum and to_sparse_*
  /// read at most Limits::max_step_reads elements of a real input.
  Error check_step_reads(std::string_view op, const at::Tensor& t) const {
    if (t.is_meta() || t.numel() <= limits_.max_step_reads) return ok();
    return error(ErrorKind::kResourceLimit,
                 std::string(op) + ": would read " + std::to_string(t.numel()) +
                     " elements of its input (sizes " + list_str(t.sizes()) + ", strides " +
                     list_str(t.strides()) + "), more than storcheck's limit of " +
                     std::to_string(limits_.max_step_reads) + " per step (Limits::max_step_reads)");
  }

  /// Case 2).
  static Error check_rank(std::string_view op, int64_t rank) {
    if (rank <= kMaxDims) return ok();
    return error(ErrorKind::kResourceLimit, std::string(op) + ": result rank " +
                                                std::to_string(rank) + " exceeds kMaxDims = " +
                                                std::to_string(kMaxDims));
  }

  /// Case 5): LibTorch 1.13 accepts a negative size in as_strided(_) when
  /// another size is 0 (its extent computation returns 0 first) and yields a
  /// tensor with a negative size; storcheck rejects it.
  /// Case 1) for the in-place view ops (transpose_, as_strided_): new
  /// sizes whose numel overflows as 1.13's safe_compute_numel counts it (an
  /// unsigned product that overflows before a later size-0 dim: [2^63-1,
  /// 3, 0], where [2^63-1, 0, 3] does not). LibTorch sets the new sizes
  /// before it raises (set_sizes_and_strides, then refresh_numel), where
  /// S10 wants them unchanged: checked here first, as the reference does
  /// (found by views_fuzzer). Without a size-0 dim the bounds check raises
  /// first, before anything is set.
  static Error check_inplace_numel(std::string_view op, at::IntArrayRef sizes) {
    if (safe_numel_ok(IntSpan(sizes.data(), static_cast<int>(sizes.size())))) return ok();
    return error(ErrorKind::kStorageSizeOverflow,
                 std::string(op) + ": numel: integer multiplication overflow for sizes " +
                     list_str(sizes) +
                     " (checked before LibTorch, which would set them first: S10)");
  }
  /// The sizes transpose_(dim0, dim1) gives `t`; its sizes unchanged when
  /// LibTorch's own dim check raises first.
  static std::vector<int64_t> transposed_sizes(const at::Tensor& t, int64_t d0, int64_t d1) {
    const int64_t rank = t.dim();
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
    const int64_t r = std::max<int64_t>(rank, 1);
    if (d0 < -r || d0 >= r || d1 < -r || d1 >= r || rank == 0) return sizes;
    std::swap(sizes[static_cast<size_t>(d0 < 0 ? d0 + rank : d0)],
              sizes[static_cast<size_t>(d1 < 0 ? d1 + rank : d1)]);
    return sizes;
  }

  static Error check_sizes_nonnegative(std::string_view op, at::IntArrayRef sizes) {
    if (!any_negative(sizes)) return ok();
    return error(ErrorKind::kInvalidArgument,
                 std::string(op) + ": negative size in " + list_str(sizes) +
                     " (sizes must be >= 0)");
  }

  /// S9 policy for as_strided(_): offset * itemsize overflowing the extent
  /// (LibTorch 1.13 wraps it; see impl/geometry.h storage_offset_overflows).
  static Error check_offset_overflow(std::string_view op, const at::Tensor& t,
                                     at::IntArrayRef sizes, at::IntArrayRef strides,
                                     int64_t offset) {
    if (sizes.size() != strides.size() || sizes.size() > static_cast<size_t>(kGeometryMaxDims))
      return ok();
    Geometry g;
    g.rank = static_cast<int>(sizes.size());
    for (int d = 0; d < g.rank; ++d) {
      g.sizes[d] = sizes[d];
      g.strides[d] = strides[d];
    }
    g.offset = offset;
    g.itemsize = static_cast<int64_t>(t.element_size());
    if (!storage_offset_overflows(g)) return ok();
    return error(ErrorKind::kStorageSizeOverflow,
                 std::string(op) + ": storage offset " + std::to_string(offset) +
                     " with itemsize " + std::to_string(g.itemsize) +
                     " overflows int64 (storage size overflow; LibTorch 1.13 would wrap it)");
  }

  /// Policy: split/chunk/unbind producing more than kMaxSplitResults tensors
  /// (LibTorch would build a huge result list) is a resource limit.
  static Error check_split_count(const Step& s, const at::Tensor& t) {
    const int64_t rank = t.dim();
    auto dim_size = [&](int64_t dim, int64_t* size) {
      if (rank == 0 || dim < -rank || dim >= rank) return false;
      *size = t.size(dim < 0 ? dim + rank : dim);
      return true;
    };
    int64_t count = 0, size = 0;
    if (s.op == OpId::kChunk) {
      count = s.args[1].i;
    } else if (s.op == OpId::kSplit) {
      if (s.args[1].i > 0 && dim_size(s.args[2].i, &size))
        count = size == 0 ? 1 : (size - 1) / s.args[1].i + 1;
    } else if (dim_size(s.args[1].i, &size)) {
      count = size;
    }
    if (count <= kMaxSplitResults) return ok();
    return error(ErrorKind::kResourceLimit,
                 std::string(s.info().name) + " would produce " + std::to_string(count) +
                     " results, more than storcheck's limit of " +
                     std::to_string(kMaxSplitResults));
  }

  /// Case 6) split and chunk whose own index arithmetic overflows int64
  /// (split_arithmetic_overflows, impl/ops.h), once LibTorch's argument
  /// checks (rank, a positive split_size or chunks, the dim) would pass.
  static Error check_split_arithmetic(const Step& s, const at::Tensor& t) {
    const int64_t rank = t.dim(), k = s.args[1].i, dim = s.args[2].i;
    if (rank == 0 || k <= 0 || dim < -rank || dim >= rank) return ok();
    const int64_t d = dim < 0 ? dim + rank : dim, size = t.size(d);
    const bool by_chunks = s.op == OpId::kChunk;
    if (split_arithmetic_overflows(size, k, by_chunks))
      return error(ErrorKind::kUndefinedBehavior, split_arithmetic_message(size, k, by_chunks));
    // Each piece is a narrow, so a slice (Case 6 for slice below), built in
    // order: a piece whose as_strided raises (a wrapped negative stride of a
    // 0-element input, an emptied storage) ends the op first, so a later
    // piece's overflow is never reached (found by cow_fuzzer).
    const int64_t split_size = by_chunks ? (size + k - 1) / k : k;
    if (split_size == 0) return ok();  // pieces at start 0
    const int64_t num = size == 0 ? 1 : (size - 1) / split_size + 1;
    Geometry piece = geometry_of(t);
    const int64_t nbytes = storage_nbytes(t);
    for (int64_t p = 0; p < num; ++p) {
      const int64_t start = p * split_size, len = std::min(split_size, size - start);
      if (slice_arithmetic_overflows(size, t.stride(d), t.storage_offset(), start, start + len, 1))
        return error(ErrorKind::kUndefinedBehavior,
                     std::string(s.info().name) + ": not executed: undefined: piece " +
                         std::to_string(p) + " is a slice from " + std::to_string(start) +
                         " whose offset arithmetic overflows int64 (S8)");
      piece.sizes[d] = len;
      piece.offset = t.storage_offset() + start * t.stride(d);
      if (!set_strided_checks(nbytes, piece).ok()) return ok();  // LibTorch raises at piece p
    }
    return ok();
  }

  /// Case 6) slice, and narrow (slice from start to start + length by 1),
  /// whose own offset, size or stride arithmetic overflows int64
  /// (slice_arithmetic_overflows, impl/ops.h), once LibTorch's argument
  /// checks (the dim, a positive step; narrow's start and length) pass.
  static Error check_slice_arithmetic(const Step& s, const at::Tensor& t) {
    const int64_t rank = t.dim();
    int64_t dim = s.args[1].i, start = s.args[2].i, end = 0, step = 1;
    if (rank == 0 || dim < -rank || dim >= rank) return ok();
    if (dim < 0) dim += rank;
    const int64_t size = t.size(dim);
    if (s.op == OpId::kSlice) {
      end = s.args[3].i;
      step = s.args[4].i;
      if (step <= 0) return ok();
    } else {  // narrow: its start wrapped (unless it equals the size), then its length check
      const int64_t length = s.args[3].i;
      if (start != size) {
        if (start < -size || start >= size) return ok();
        if (start < 0) start += size;
      }
      if (length < 0 || start > size - length) return ok();
      end = start + length;
    }
    if (!slice_arithmetic_overflows(size, t.stride(dim), t.storage_offset(), start, end, step))
      return ok();
    return error(ErrorKind::kUndefinedBehavior,
                 slice_arithmetic_message(s.info().name, size, t.stride(dim), t.storage_offset(),
                                          start, end, step));
  }

  /// Case 5) for expand: expand_size_not_allowed (oracles/layout_policy.h).
  static Error check_expand_sizes(const at::Tensor& t, at::IntArrayRef sizes) {
    const int k = expand_size_not_allowed(t.sizes().data(), static_cast<int>(t.dim()), sizes.data(),
                                          static_cast<int>(sizes.size()));
    if (k < 0) return ok();
    return error(ErrorKind::kInvalidArgument,
                 "expand: size " + std::to_string(sizes[static_cast<size_t>(k)]) + " at dim " +
                     std::to_string(k) + " of " + list_str(sizes) +
                     " is not allowed (sizes must be >= 0, or -1 to keep an existing dim)");
  }

  /// Case 4) for the written tensor of add_, mul_, copy_.
  static Error check_self_overlap(std::string_view op, const at::Tensor& t) {
    Geometry g = geometry_of(t);
    if (internal_overlap(g) == MemOverlap::kTooHard && g.has_overlap())
      return error(ErrorKind::kUndefinedBehavior,
                   std::string(op) + ": not executed: undefined: the written tensor (sizes " +
                       list_str(t.sizes()) + ", strides " + list_str(t.strides()) +
                       ") has overlapping elements that LibTorch does not detect; the result "
                       "would depend on iteration order");
    return ok();
  }

  /// Factories: sizes checks and Case 1); on success `bytes` is the new
  /// storage's size. Negative sizes are left to LibTorch (it raises).
  Error factory_bytes(std::string_view op, at::IntArrayRef sizes, DType d, int64_t* bytes) const {
    Geometry g = contiguous_geometry(sizes, itemsize(d));
    if (!g.required_bytes(bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": storage size of sizes " + list_str(sizes) +
                       " overflows int64 (S9)");
    return check_alloc(op, *bytes);
  }

  Error run_factory(const Step& s);
  Error run_empty_strided(const Step& s);
  Error run_reshape(const Step& s);
  Error run_flatten(const Step& s);
  Error run_resize(const Step& s);
  Error run_set(const Step& s);
  Error run_copy(const Step& s);
  Error run_scalar_out(const Step& s);  ///< add_out, mul_out
  Error run_out_of_place(const Step& s);
  Error run_clone_path(const Step& s);
  Error run_to_device(const Step& s);
  /// Why the guarded backend did not run the plain LibTorch op.
  enum class UnsafeWhy { kUndefined, kRestored, kRefused };
  /// The plain LibTorch op of step `s` (no guard), or none where this
  /// backend has no plain form of it.
  std::function<void()> raw_op(const Step& s);
  void probe_unsafe(const Step& s, UnsafeWhy why);
  Error run_cow_op(const Step& s);
  Error run_storage_op(const Step& s);
  Error run_convert_op(const Step& s);
  Error run_sparse(const Step& s);
  void observe_sparse(const at::Tensor& t, size_t v, bool refresh, VarObs* o);
  /// A real sparse tensor's values (its to_dense(), none when S8 or the
  /// limit forbid it) into o->values; o's values are cleared and unknown.
  void densify(const at::Tensor& t, const std::vector<at::Tensor>& parts, VarObs* o);
  Error pick(const Step& s, const std::vector<at::Tensor>& parts, int64_t index);

  Limits limits_;
  int64_t total_bytes_ = 0;
  std::vector<c10::Storage> restored_;  ///< storages `rehydrate` grew, for `reshrink`
  /// Foreign-owned buffers behind from_blob tensors, freed at the next begin.
  std::vector<std::unique_ptr<uint8_t[]>> blobs_;
  std::vector<c10::Storage> foreign_;  ///< the storages from_blob made
  std::vector<const void*> last_data_;  ///< data pointers at the last observe
  at::Device device_;
  bool staged_;            ///< Note [Device backends]: bytes through tensor ops, not pointers
  std::string name_;
  at::Tensor host_stage_;  ///< host_bytes()'s copy
  std::vector<at::Tensor> device_blobs_;  ///< from_blob's buffers on a device
  bool check_memory_ = false;
  bool cuda_usable_ = false;  ///< torch::cuda::is_available()
  std::string invariant_finding_;
  std::string refusal_;
  /// The device each meta or fake variable stands for (F1).
  std::vector<Device> stands_for_;
  bool eager_unsafe_ = false;
  bool restored_step_ = false;  ///< the last step applied the restore rule (R3)
  bool refused_undefined_ = false;  ///< the last step was refused as undefined (S8)
  std::string unsafe_finding_;
  std::vector<at::Tensor> vars_;  ///< indexed by VarId; undefined = unbound
  std::vector<uint8_t> fake_;     ///< the variable is a fake tensor (Note [Meta conversion over LibTorch])
  TorchConverter fake_conv_, meta_conv_;
  bool meta_step_ = false;  ///< the running step has a meta or fake input
  FirstIndex alias_, identity_, data_;  ///< observe()'s classes
  std::vector<size_t> moved_;            ///< variables observe() last saw move
  DenseValuesCache dense_cache_;         ///< Note [Sparse values by their inputs]
  ValuesKey key_;                        ///< the key observe_sparse writes
};

Error TorchBackend::run_factory(const Step& s) {
  if (refuse_without_cuda(s)) return ok();
  const OpInfo& info = s.info();
  at::IntArrayRef sizes = to_ref(s.args[0].list);
  int dtype_arg = s.op == OpId::kFull ? 2 : 1;
  DType d = to_dtype(s.args[dtype_arg].dtype);
  at::TensorOptions opts = on_device(s, d);
  if (any_negative(sizes)) {
    (void)at::empty(sizes, opts);  // raises "negative dimension"
    return error(ErrorKind::kOther, std::string(info.name) + ": LibTorch accepted negative sizes " +
                                        list_str(sizes));
  }
  int64_t bytes = 0;
  if (Error e = factory_bytes(info.name, sizes, d, &bytes); e.kind != ErrorKind::kNone) return e;
  at::Tensor t;
  // Fresh tensors start at version 0, as torch:: (and Python) factories
  // make them: at::zeros/ones/full/arange alone would count their internal
  // fill as an in-place write (version 1).
  at::AutoDispatchBelowADInplaceOrView below_inplace_or_view;
  switch (s.op) {
    case OpId::kArange:
    {
      // No overflow: factory_bytes checked it, and a size-0 dim makes it 0
      // whatever the other sizes multiply to ([2^62, 255, 0]; found by
      // views_fuzzer under UBSan).
      int64_t numel = std::find(sizes.begin(), sizes.end(), 0) != sizes.end() ? 0 : 1;
      for (int64_t x : sizes)
        if (numel != 0) numel *= x;
      const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong);
      t = at::arange(at::Scalar(numel), longs.device(factory_device(s)))
              .to(to_torch(d))
              .view(sizes);
      break;
    }
    case OpId::kZeros: t = at::zeros(sizes, opts); break;
    case OpId::kOnes: t = at::ones(sizes, opts); break;
    case OpId::kFull: t = at::full(sizes, to_torch_scalar(s.args[1].scalar), opts); break;
    case OpId::kRand: {  // drawn on the host, then copied to the device
      t = at::empty(sizes, at::TensorOptions().dtype(to_torch(d)));
      uint8_t* p = storage_data(t);
      int64_t n = t.numel();
      int64_t size = itemsize(d);
      int64_t seed = s.args[2].i;
      for (int64_t k = 0; k < n; ++k) store_double(p + k * size, d, rand_value(seed, k, d));
      if (!factory_device(s).is_cpu()) t = t.to(factory_device(s));
      break;
    }
    default: SC_ASSERT(false, "run_factory: not a factory");
  }
  commit(bytes);
  bind(s, std::move(t));
  return ok();
}

Error TorchBackend::run_empty_strided(const Step& s) {
  if (refuse_without_cuda(s)) return ok();
  at::IntArrayRef sizes = to_ref(s.args[0].list);
  at::IntArrayRef strides = to_ref(s.args[1].list);
  DType d = to_dtype(s.args[2].dtype);
  at::TensorOptions opts = on_device(s, d);
  if (sizes.size() != strides.size() || any_negative(sizes)) {
    (void)at::empty_strided(sizes, strides, opts);  // raises
    return error(ErrorKind::kOther, "empty_strided: LibTorch accepted sizes " + list_str(sizes) +
                                        " with strides " + list_str(strides));
  }
  Geometry g;
  g.rank = static_cast<int>(sizes.size());
  g.itemsize = itemsize(d);
  bool empty = false;
  for (int k = 0; k < g.rank; ++k) {
    g.sizes[k] = sizes[k];
    g.strides[k] = strides[k];
    empty = empty || sizes[k] == 0;
  }
  // LibTorch computes the extent in uint64, where a negative stride on a dim
  // of size >= 2 wraps: we report that as the overflow it is (S9) instead of
  // letting it reach the allocator. Negative strides on size-1 dims add 0.
  for (int k = 0; k < g.rank && !empty; ++k) {
    if (g.strides[k] < 0 && g.sizes[k] >= 2)
      return error(ErrorKind::kStorageSizeOverflow,
                   "empty_strided: negative stride " + std::to_string(g.strides[k]) +
                       " at dim " + std::to_string(k) + " of sizes " + list_str(sizes) +
                       " (storage size calculation overflows, S9)");
  }
  int64_t bytes = 0;
  if (!g.required_bytes(&bytes))
    return error(ErrorKind::kStorageSizeOverflow, "empty_strided: storage size of sizes " +
                                                      list_str(sizes) + " strides " +
                                                      list_str(strides) + " overflows int64 (S9)");
  if (Error e = check_alloc("empty_strided", bytes); e.kind != ErrorKind::kNone) return e;
  at::Tensor t;
  {
    at::AutoDispatchBelowADInplaceOrView below_inplace_or_view;  // see run_factory
    t = at::empty_strided(sizes, strides, opts);
  }
  // Unspecified bytes are defined as zero (backend.h).
  zero_bytes(t.storage(), 0, storage_nbytes(t));
  commit(bytes);
  bind(s, std::move(t));
  return ok();
}

Error TorchBackend::run_reshape(const Step& s) {
  const at::Tensor& t = var(s, 0);
  at::IntArrayRef sizes = to_ref(s.args[1].list);
  // Same shape inference as reshape (raises the same errors). The sizes'
  // product may overflow int64: at::infer_size_dv, inlined here from
  // ATen/InferSize.h, would then run signed overflow, undefined behaviour
  // that UBSan reports (found by views_fuzzer). LibTorch's compiled reshape
  // wraps, and so does the reference (wrap_mul): infer with the product
  // taken modulo 2^64 and hand only a non-overflowing case to ATen.
  uint64_t wrapped = 1;
  bool overflows = false;
  int infer = -1, inferred = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t x = sizes[d];
    if (x < 0) {  // -1 (inferred) or invalid: infer_size_dv reports it
      if (x == -1) infer = static_cast<int>(d), ++inferred;
      continue;
    }
    int64_t unused;
    overflows = overflows || __builtin_mul_overflow(static_cast<int64_t>(wrapped), x, &unused);
    wrapped *= static_cast<uint64_t>(x);
  }
  at::DimVector shape;
  if (!overflows) {
    shape = at::infer_size_dv(sizes, t.numel());
  } else {
    auto newsize = static_cast<int64_t>(wrapped);
    int64_t numel = t.numel();
    if (inferred > 1) return error(ErrorKind::kInvalidArgument, "only one dimension can be inferred");
    for (int64_t x : sizes)
      if (x < -1)
        return error(ErrorKind::kInvalidArgument, "invalid shape dimension " + std::to_string(x));
    if (!(numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)))
      return error(ErrorKind::kShapeMismatch, "shape '" + list_str(sizes) +
                                                  "' is invalid for input of size " +
                                                  std::to_string(numel));
    if (infer >= 0 && newsize == 0)
      return error(ErrorKind::kInvalidArgument,
                   "cannot reshape tensor of 0 elements into shape " + list_str(sizes));
    shape.assign(sizes.begin(), sizes.end());
    if (infer >= 0) shape[static_cast<size_t>(infer)] = numel / newsize;
  }
  bool is_view = at::detail::computeStride(t.sizes(), t.strides(), shape).has_value();
  if (is_view) {
    bind(s, t.reshape(sizes));
    return ok();
  }
  int64_t bytes = 0;
  if (Error e = copy_bytes("reshape", t, from_torch(t.scalar_type()), &bytes);
      e.kind != ErrorKind::kNone)
    return e;
  if (Error e = check_alloc("reshape", bytes); e.kind != ErrorKind::kNone) return e;
  if (Error e = check_fits("reshape", t, "input"); e.kind != ErrorKind::kNone) return e;
  at::Tensor r = t.reshape(sizes);
  commit(bytes);
  bind(s, std::move(r));
  return ok();
}

// flatten goes through reshape, which copies when no view fits: that copy is
// a compute kernel (S8 check, allocation charged) like reshape's.
Error TorchBackend::run_flatten(const Step& s) {
  const at::Tensor& t = var(s, 0);
  const int64_t rank = t.dim();
  int64_t start = s.args[1].i, end = s.args[2].i;
  const int64_t wrap = rank == 0 ? 1 : rank;
  bool valid = start >= -wrap && start < wrap && end >= -wrap && end < wrap;
  if (valid) {
    start = start < 0 ? start + wrap : start;
    end = end < 0 ? end + wrap : end;
  }
  if (!valid || rank == 0 || start >= end) {  // raises, a view of a 0-d tensor, or t itself
    bind(s, t.flatten(s.args[1].i, s.args[2].i));
    return ok();
  }
  at::DimVector shape;
  for (int64_t d = 0; d < start; ++d) shape.push_back(t.size(d));
  // The product modulo 2^64, as LibTorch's compiled flatten and the
  // reference (wrap_mul) take it: a 0-element tensor may hold sizes whose
  // product overflows int64 (found by views_fuzzer under UBSan).
  uint64_t prod = 1;
  for (int64_t d = start; d <= end; ++d) prod *= static_cast<uint64_t>(t.size(d));
  shape.push_back(static_cast<int64_t>(prod));
  for (int64_t d = end + 1; d < rank; ++d) shape.push_back(t.size(d));
  if (at::detail::computeStride(t.sizes(), t.strides(), shape).has_value()) {
    bind(s, t.flatten(s.args[1].i, s.args[2].i));
    return ok();
  }
  int64_t bytes = 0;
  if (Error e = copy_bytes("flatten", t, from_torch(t.scalar_type()), &bytes);
      e.kind != ErrorKind::kNone)
    return e;
  if (Error e = check_alloc("flatten", bytes); e.kind != ErrorKind::kNone) return e;
  if (Error e = check_fits("flatten", t, "input"); e.kind != ErrorKind::kNone) return e;
  at::Tensor r = t.flatten(s.args[1].i, s.args[2].i);
  commit(bytes);
  bind(s, std::move(r));
  return ok();
}

// resize_ (LibTorch's resize_impl_cpu_): same sizes is a no-op that keeps the
// strides; otherwise sizes become contiguous and the storage grows (never
// shrinks) to itemsize * (offset + numel) when numel > 0.
Error TorchBackend::run_resize(const Step& s) {
  at::Tensor& t = var(s, 0);
  at::IntArrayRef sizes = to_ref(s.args[1].list);
  // Case 5): LibTorch 1.13 reports negative sizes as "numel: integer
  // multiplication overflow"; storcheck rejects them as invalid arguments.
  if (Error e = check_sizes_nonnegative("resize_", sizes); e.kind != ErrorKind::kNone) return e;
  if (t.sizes() == sizes) {
    t.resize_(sizes);
    return ok();
  }
  // numel as 1.13's safe_compute_numel: an unsigned 64-bit product whose
  // overflow anywhere raises, even before a size-0 dim ([2^63-1, 4, 0]),
  // and none otherwise ([2^63-1, 2, 0] is numel 0: LibTorch resizes it,
  // found by shrink_fuzzer). The storage size (numel + offset) * itemsize
  // is checked whatever numel, as computeStorageNbytesContiguous does (an
  // offset of 2^62 overflows f32 for [2,1,0]; found by views_fuzzer), and
  // here, before LibTorch runs: LibTorch sets the new sizes before it
  // raises, where S10 wants them unchanged.
  if (!safe_numel_ok(IntSpan(sizes.data(), static_cast<int>(sizes.size()))))
    return error(ErrorKind::kStorageSizeOverflow, "numel: integer multiplication overflow");
  uint64_t unumel = 1;  // no uint64 overflow and at most INT64_MAX: checked above
  for (int64_t x : sizes) unumel *= static_cast<uint64_t>(x);
  const int64_t numel = static_cast<int64_t>(unumel);
  int64_t bytes = 0;
  int64_t extent = 0;
  if (__builtin_add_overflow(numel, t.storage_offset(), &extent) ||
      __builtin_mul_overflow(extent, static_cast<int64_t>(t.element_size()), &bytes))
    return error(ErrorKind::kStorageSizeOverflow,
                 "resize_: storage size for sizes " + list_str(sizes) + " at offset " +
                     std::to_string(t.storage_offset()) + " overflows int64 (S9)");
  int64_t old_nbytes = storage_nbytes(t);
  bool grows = numel > 0 && bytes > old_nbytes;
  // A non-resizable storage makes LibTorch raise before it allocates
  // (resize_bytes_cpu checks first), so the allocation limit applies only
  // to a storage that can grow: non_resizable wins over resource_limit, as
  // in LibTorch and the reference (found by shrink_fuzzer).
  if (grows && t.storage().unsafeGetStorageImpl()->resizable()) {
    if (Error e = check_alloc("resize_", bytes); e.kind != ErrorKind::kNone) return e;
  }
  t.resize_(sizes);
  int64_t new_nbytes = storage_nbytes(t);
  if (new_nbytes > old_nbytes && !t.is_meta()) {
    // R6: the grown bytes are unspecified; every backend defines them as 0.
    zero_bytes(t.storage(), old_nbytes, new_nbytes);
  }
  if (grows) commit(bytes);
  return ok();
}

// Note [set_] (impl/ops.cpp): what PyTorch's binding and FakeTensorMode
// check first, the allocation limit before LibTorch grows the storage, and
// the grown bytes defined as zero (R6).
Error TorchBackend::run_set(const Step& s) {
  at::Tensor& self = var(s, 0);
  const at::Tensor& src = var(s, 1);
  if (self.scalar_type() != src.scalar_type())
    return error(ErrorKind::kInvalidArgument,
                 "set_: the source's dtype differs from self's (PyTorch asserts "
                 "source.dtype() == self.dtype(); LibTorch C++ would reinterpret the bytes)");
  if (fake_[s.args[0].var] != fake_[s.args[1].var])  // FakeTensorMode's rule (impl/ops.cpp)
    return error(ErrorKind::kDeviceMismatch,
                 "set_: FakeTensorMode: a fake tensor mixed with a non-fake one; convert all "
                 "tensors to fake tensors first");
  if (self.unsafeGetTensorImpl() == src.unsafeGetTensorImpl()) {
    self.set_(src);  // nothing but the version bump
    return ok();
  }
  if (refuse_wrapped_strides(s, src)) return ok();
  int64_t need = 0;
  bool grows = false;
  if (!src.is_meta() && src.numel() > 0 &&
      (self.sizes() != src.sizes() || self.strides() != src.strides())) {
    geometry_of(src).required_bytes(&need);  // src exists: no overflow
    grows = need > storage_nbytes(src);
  }
  if (grows && src.storage().unsafeGetStorageImpl()->resizable() && self.device() == src.device()) {
    if (Error e = check_alloc("set_", need); e.kind != ErrorKind::kNone) return e;
  }
  const int64_t old = storage_nbytes(src);
  // F1: a meta self stands for its new storage's device, also when
  // LibTorch raises after the move (a non-resizable storage).
  if (self.is_meta() && src.is_meta()) stands_for_[s.args[0].var] = stands_for_[s.args[1].var];
  self.set_(src);
  if (!self.is_meta() && storage_nbytes(self) > old)  // R6: defined as zero here
    zero_bytes(self.storage(), old, storage_nbytes(self));
  if (grows) commit(need);
  return ok();
}

Error TorchBackend::run_copy(const Step& s) {
  at::Tensor& dst = var(s, 0);
  const at::Tensor& src = var(s, 1);
  if (fake_[s.args[0].var] != fake_[s.args[1].var])  // FakeTensorMode's rule (impl/ops.cpp)
    return error(ErrorKind::kDeviceMismatch,
                 "copy_: FakeTensorMode: a fake tensor mixed with a non-fake one; convert all "
                 "tensors to fake tensors first");
  if (src.is_meta() && !dst.is_meta()) {
    dst.copy_(src);  // LibTorch raises before it touches dst
    return error(ErrorKind::kOther, "copy_: LibTorch copied out of a meta tensor");
  }
  if (Error e = check_fits("copy_", dst, "dst"); e.kind != ErrorKind::kNone) return e;
  if (Error e = check_fits("copy_", src, "src"); e.kind != ErrorKind::kNone) return e;
  bool same_storage = dst.storage().unsafeGetStorageImpl() == src.storage().unsafeGetStorageImpl();
  // LibTorch's copy_impl returns before writing anything when src is dst or
  // a view of the very same elements: nothing order-dependent can happen.
  if (dst.is_same(src) ||
      (same_storage && dst.storage_offset() == src.storage_offset() &&
       dst.strides() == src.strides() && dst.sizes() == src.sizes() &&
       dst.scalar_type() == src.scalar_type())) {
    dst.copy_(src);
    return ok();
  }
  if (Error e = check_self_overlap("copy_", dst); e.kind != ErrorKind::kNone) return e;
  if (same_storage &&
      copy_overlap_undetected(geometry_of(dst), geometry_of(src),
                              dst.unsafeGetTensorImpl() == src.unsafeGetTensorImpl(),
                              dst.scalar_type() == src.scalar_type()))
    return error(ErrorKind::kUndefinedBehavior,
                 "copy_: not executed: undefined: src (sizes " + list_str(src.sizes()) +
                     ", strides " + list_str(src.strides()) + ", offset " +
                     std::to_string(src.storage_offset()) + ") and dst (sizes " +
                     list_str(dst.sizes()) + ", strides " + list_str(dst.strides()) + ", offset " +
                     std::to_string(dst.storage_offset()) +
                     ") overlap in a way LibTorch does not detect");
  dst.copy_(src);
  return ok();
}

namespace {
/// The scalar as Python's torch.add(x, s, out=o) passes it: a wrapped-number
/// tensor, so that add.out (the structured TensorIterator kernel) runs. C++'s
/// at::add_out(out, x, Scalar) is add.Scalar_out, which computes add(x, s)
/// and copies it into a contiguously resized out: other strides. The same
/// holds for torch.mul and at::mul_out.
at::Tensor wrapped_number(const at::Scalar& s) {
  at::Tensor t = c10::scalar_to_tensor(s);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}
}  // namespace

// Note [out=] (impl/ops.cpp): FakeTensorMode's rule, the S8 guards (tensors
// that must hold their elements, overlaps LibTorch does not detect, a
// resized out's new geometry over the input's bytes), the allocation limit
// when LibTorch will grow out's storage (only a step it does not reject),
// and the grown bytes the kernel does not write defined as zero (R6).
Error TorchBackend::run_scalar_out(const Step& s) {
  at::Tensor& out = var(s, 0);
  const at::Tensor& x = var(s, 1);
  const at::Scalar sc = to_torch_scalar(s.args[2].scalar);
  const std::string_view op = s.info().name;
  if (fake_[s.args[0].var] != fake_[s.args[1].var])  // FakeTensorMode's rule
    return error(ErrorKind::kDeviceMismatch,
                 std::string(op) +
                     ": FakeTensorMode: a fake tensor mixed with a non-fake one; convert all "
                     "tensors to fake tensors first");
  const bool resize = out.sizes() != x.sizes();
  const bool same_tensor = out.unsafeGetTensorImpl() == x.unsafeGetTensorImpl();
  const bool same_storage =
      out.storage().unsafeGetStorageImpl() == x.storage().unsafeGetStorageImpl();
  const DType r = from_torch(at::result_type(x, sc));
  const Geometry go = geometry_of(out), gx = geometry_of(x);
  const Geometry gn =
      resized_out_geometry(gx, from_torch(x.scalar_type()), r, !x.is_meta() && x.is_cpu(), go);
  {  // S8 on real tensors (check_fits), the overlaps on meta ones too
    if (Error e = check_fits(op, x, "input"); e.kind != ErrorKind::kNone) return e;
    if (!resize) {
      if (Error e = check_fits(op, out, "out"); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_self_overlap(op, out); e.kind != ErrorKind::kNone) return e;
    }
    if (same_storage && !same_tensor && scalar_out_overlap_undetected(go, gx, gn, resize))
      return error(ErrorKind::kUndefinedBehavior,
                   std::string(op) + ": not executed: undefined: out (sizes " +
                       list_str(out.sizes()) + ", strides " + list_str(out.strides()) +
                       ", offset " + std::to_string(out.storage_offset()) +
                       ") and the input share elements in a way LibTorch does not detect");
  }
  // What LibTorch rejects before it resizes (Note [out=] 3-6): no allocation.
  const bool rejected = internal_overlap(go) == MemOverlap::kYes ||
                        (same_storage && !same_tensor &&
                         overlap_status(go, gx, true, false) == MemOverlapStatus::kPartial) ||
                        out.device() != x.device() || !can_cast(r, from_torch(out.scalar_type()));
  const int64_t old_nbytes = storage_nbytes(out);
  int64_t bytes = 0;
  bool grows = false;
  if (resize && !rejected) {  // resize_'s size, the offset counted even for 0 elements
    int64_t extent = 0;
    if (__builtin_add_overflow(x.numel(), out.storage_offset(), &extent) ||
        __builtin_mul_overflow(extent, static_cast<int64_t>(out.element_size()), &bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": storage size for sizes " + list_str(x.sizes()) +
                       " at offset " + std::to_string(out.storage_offset()) +
                       " overflows int64 (S9)");
    grows = x.numel() > 0 && bytes > old_nbytes && !out.is_meta();
    if (grows && out.storage().unsafeGetStorageImpl()->resizable()) {
      if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    }
  }
  if (s.op == OpId::kMulOut)
    at::mul_out(out, x, wrapped_number(sc));
  else
    at::add_out(out, x, wrapped_number(sc));
  if (grows) {
    // R6: the grown bytes before out's first element (the kernel writes the rest).
    const int64_t first = out.storage_offset() * static_cast<int64_t>(out.element_size());
    if (first > old_nbytes)
      zero_bytes(out.storage(), old_nbytes, std::min(first, storage_nbytes(out)));
    commit(bytes);
  }
  return ok();
}

namespace {
bool is_emptied(const at::Tensor& t) {
  return t.numel() > 0 && storage_nbytes(t) == 0 && !t.is_meta();
}
}  // namespace

// Note [Crash-isolated unsafe mode]
// The plain LibTorch op that the guards refused (S8: an error of kind
// kUndefinedBehavior, or a refusal that stops the run) or replaced by the
// restore rule (R3), run in a forked child on a copy of this backend's
// state; only a signal matters (an exception is LibTorch raising, which is
// fine). The child has 10 s before SIGALRM. This is how storcheck shows
// that eager ops on freed storage crash instead of raising, and that a
// refused step really crashes plain LibTorch (clone or transpose of a
// stride in LibTorch 1.13's SymInt pointer range). Ops without a plain form
// here (meta and fake conversion, lazy_clone of a wrapped stride on
// LibTorch >= 2.3) are not probed.
std::function<void()> TorchBackend::raw_op(const Step& s) {
  auto v = [this, &s](int k) -> at::Tensor& { return vars_[s.args[k].var]; };
  auto sc = [&s](int k) { return to_torch_scalar(s.args[k].scalar); };
  const int64_t i1 = s.args[1].i, i2 = s.args[2].i;
  switch (s.op) {
    case OpId::kAdd_:
      return [=] { v(0).add_(sc(1)); };
    case OpId::kMul_:
      return [=] { v(0).mul_(sc(1)); };
    case OpId::kFill_:
      return [=] { v(0).fill_(sc(1)); };
    case OpId::kZero_:
      return [=] { v(0).zero_(); };
    case OpId::kCopy_:
      return [=] { v(0).copy_(v(1)); };
    case OpId::kAddOut:
      return [=] { (void)at::add_out(v(0), v(1), wrapped_number(sc(2))); };
    case OpId::kMulOut:
      return [=] { (void)at::mul_out(v(0), v(1), wrapped_number(sc(2))); };
    case OpId::kAdd:
      return [=] { (void)v(0).add(sc(1)); };
    case OpId::kMul:
      return [=] { (void)v(0).mul(sc(1)); };
    case OpId::kClone:
      return [=] { (void)v(0).clone(); };
    case OpId::kContiguous:
      return [=] { (void)v(0).contiguous(); };
    case OpId::kLazyClone:
      if (STORCHECK_TORCH_HAS_COW) return {};  // at::_lazy_clone: not probed
      return [=] { (void)v(0).clone(); };      // what this backend runs for it (C6)
    case OpId::kTo:
      return [=] { (void)v(0).to(to_torch(to_dtype(s.args[1].dtype))); };
    case OpId::kSum:
      return [=] { (void)at::sum(v(0)); };
    case OpId::kReshape:
      return [=] { (void)v(0).reshape(to_ref(s.args[1].list)); };
    case OpId::kFlatten:
      return [=] { (void)v(0).flatten(i1, i2); };
    case OpId::kTranspose:
      return [=] { (void)v(0).transpose(i1, i2); };
    case OpId::kToSparseBsr:
      return [=] { (void)v(0).to_sparse_bsr(to_ref(s.args[1].list)); };
    case OpId::kToSparseBsc:
      return [=] { (void)v(0).to_sparse_bsc(to_ref(s.args[1].list)); };
    case OpId::kClonePreserveStrides:
      return [=] {
        int64_t bytes = 0;
        geometry_of(v(0)).required_bytes(&bytes);
        (void)at::as_strided(v(0), {bytes / static_cast<int64_t>(v(0).element_size())}, {1}, 0)
            .clone();
      };
    default:
      return {};
  }
}

void TorchBackend::probe_unsafe(const Step& s, UnsafeWhy why) {
  const std::function<void()> op = raw_op(s);
  if (!op) return;
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    ::alarm(10);
    try {
      at::NoGradGuard no_grad;
      op();
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFSIGNALED(status)) return;
  int sig = WTERMSIG(status);
  const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT"
                     : sig == SIGALRM ? "SIGALRM (hang)" : sig == SIGFPE ? "SIGFPE" : "a signal";
  const char* where = why == UnsafeWhy::kRestored  ? "where the reference restores zeros (R3)"
                      : why == UnsafeWhy::kRefused ? "where storcheck refuses the step as "
                                                     "undefined (S8)"
                                                   : "where the reference reports undefined "
                                                     "behaviour (S8)";
  unsafe_finding_ = "plain LibTorch " + torch_version() + " was killed by " + name + " (" +
                    std::to_string(sig) + ") running " + std::string(s.info().name) + " " + where;
}

// Clone paths with the restore rule (SEMANTICS R3, impl/ops.h Note [Restore
// rule]), applied with LibTorch ops: an emptied input gives
// empty_strided(...).zero_() with the rule's geometry; anything else runs
// the real LibTorch op after the S8 check.
Error TorchBackend::run_clone_path(const Step& s) {
  if (s.op == OpId::kAdd || s.op == OpId::kMul) return run_out_of_place(s);  // not clone paths
  const at::Tensor& t = var(s, 0);
  const std::string_view op = s.info().name;
  if (s.op == OpId::kContiguous && t.is_contiguous()) {
    bind(s, t.contiguous());  // the same tensor: not a clone
    return ok();
  }
  DType d = s.op == OpId::kTo ? to_dtype(s.args[1].dtype) : from_torch(t.scalar_type());
  if (s.op == OpId::kTo && to_torch(d) == t.scalar_type()) {
    bind(s, t.to(to_torch(d)));  // the same tensor: not a clone
    return ok();
  }
  if (is_emptied(t)) {
    Geometry g = geometry_of(t);
    g.itemsize = itemsize(d);
    if (s.op != OpId::kClonePreserveStrides) g.offset = 0;
    if (s.op == OpId::kContiguous) contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
    int64_t bytes;
    if (!g.required_bytes(&bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": restored storage size overflows int64 (S9)");
    if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    at::TensorOptions opts = at::TensorOptions().dtype(to_torch(d)).device(t.device());
    at::Tensor buffer;
    {
      at::AutoDispatchBelowADInplaceOrView below;  // a fresh tensor: version 0
      buffer = at::zeros({bytes / g.itemsize}, opts);
    }
    bind(s, buffer.as_strided(at::IntArrayRef(g.sizes.data(), g.rank),
                              at::IntArrayRef(g.strides.data(), g.rank), g.offset));
    commit(bytes);
    restored_step_ = true;
    return ok();
  }
  if (s.op == OpId::kClonePreserveStrides) {
    // Inductor's clone_preserve_strides: copy the whole prefix the view needs.
    Geometry g = geometry_of(t);
    int64_t bytes;
    if (!g.required_bytes(&bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": storage size overflows int64 (S9)");
    if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    if (Error e = check_fits(op, t, "input"); e.kind != ErrorKind::kNone) return e;
    at::Tensor buffer = at::as_strided(t, {bytes / g.itemsize}, {1}, 0).clone();
    bind(s, buffer.as_strided(t.sizes(), t.strides(), t.storage_offset()));
    commit(bytes);
    return ok();
  }
  if (s.op == OpId::kTo) {
    int64_t bytes = 0;
    if (Error e = copy_bytes(op, t, d, &bytes); e.kind != ErrorKind::kNone) return e;
    if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    if (Error e = check_fits(op, t, "input"); e.kind != ErrorKind::kNone) return e;
    bind(s, t.to(to_torch(d)));
    commit(bytes);
    return ok();
  }
  return run_out_of_place(s);
}

// cuda and cpu (issue 11): Tensor::to(device), a clone path (R3) as `to`
// of a dtype is. Without a usable CUDA device a step onto CUDA is refused
// (the run is compared up to it): this LibTorch cannot run it.
Error TorchBackend::run_to_device(const Step& s) {
  const at::Tensor& t = var(s, 0);
  const at::Device target = s.op == OpId::kCuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (t.device().type() == target.type()) {
    bind(s, t.to(target));  // the same tensor: not a clone
    return ok();
  }
  if (target.is_cuda() && !cuda_usable_) {
    refuse_no_cuda(s);
    return ok();
  }
  const std::string_view op = s.info().name;
  if (is_emptied(t)) {  // R3: zeros with t's sizes and strides, offset 0, on the target
    Geometry g = geometry_of(t);
    g.offset = 0;
    int64_t bytes;
    if (!g.required_bytes(&bytes))
      return error(ErrorKind::kStorageSizeOverflow,
                   std::string(op) + ": restored storage size overflows int64 (S9)");
    if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    at::Tensor buffer;
    {
      at::AutoDispatchBelowADInplaceOrView below;  // a fresh tensor: version 0
      buffer = at::zeros({bytes / g.itemsize}, t.options().device(target));
    }
    bind(s, buffer.as_strided(t.sizes(), t.strides(), 0));
    commit(bytes);
    restored_step_ = true;
    return ok();
  }
  int64_t bytes = 0;
  if (Error e = copy_bytes(op, t, from_torch(t.scalar_type()), &bytes); e.kind != ErrorKind::kNone)
    return e;
  if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
  if (Error e = check_fits(op, t, "input"); e.kind != ErrorKind::kNone) return e;
  bind(s, t.to(target));
  commit(bytes);
  return ok();
}

// Copy-on-write (SEMANTICS group C). With LibTorch 2.3+ lazy_clone is
// at::_lazy_clone and mutable_data_ptr materializes for real; before 2.3
// lazy_clone is an eager copy of the whole storage viewed with the same
// geometry (C1's metadata, C6's values) and mutable_data_ptr changes nothing.
Error TorchBackend::run_cow_op(const Step& s) {
  switch (s.op) {
    case OpId::kSum: {
      const at::Tensor& t = var(s, 0);
      // See Note [sum in f64] (impl/ops.cpp): floating sums in f64.
      DType r = is_floating(from_torch(t.scalar_type())) ? DType::kF64 : DType::kI64;
      if (Error e = check_alloc("sum", itemsize(r)); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_fits("sum", t, "input"); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_step_reads("sum", t); e.kind != ErrorKind::kNone) return e;
      // Note [sum in f64]: CUDA's reduction adds in another order than the
      // CPU's cascade; where the order decides, the step is not comparable
      // (device.cpu_matches_cuda; the reference refuses it against any backend).
      if (t.is_cuda() && is_floating(r) && t.numel() > 2) {
        const at::Tensor values = t.to(at::kCPU, at::kDouble).contiguous();
        SumOrder order;
        const double* v = values.data_ptr<double>();
        for (int64_t k = 0; k < values.numel(); ++k) order.add(v[k]);
        if (order.depends()) {
          refusal_ =
              "sum: the f64 sum of these elements rounds, so its result depends on the order of "
              "the additions, and CUDA's differs from the CPU's (Note [sum in f64])";
          return {};
        }
      }
      at::Tensor out;
      {
        at::AutoDispatchBelowADInplaceOrView below;  // a fresh tensor: version 0
        out = is_floating(r) ? at::sum(t, at::kDouble) : at::sum(t);
      }
      commit(itemsize(r));
      bind(s, std::move(out));
      return ok();
    }
    case OpId::kFromBlob: {
      if (refuse_without_cuda(s)) return ok();
      at::IntArrayRef sizes = to_ref(s.args[0].list);
      DType d = to_dtype(s.args[1].dtype);
      if (any_negative(sizes)) {
        (void)at::empty(sizes, at::TensorOptions().dtype(to_torch(d)));  // raises
        return error(ErrorKind::kOther, "from_blob: LibTorch accepted negative sizes");
      }
      int64_t bytes = 0;
      if (Error e = factory_bytes("from_blob", sizes, d, &bytes); e.kind != ErrorKind::kNone)
        return e;
      void* blob = nullptr;
      if (factory_device(s).is_cpu()) {
        blobs_.emplace_back(new uint8_t[static_cast<size_t>(std::max<int64_t>(bytes, 1))]());
        blob = blobs_.back().get();
      } else {  // device memory that a tensor the program cannot reach owns
        device_blobs_.push_back(at::zeros(
            {std::max<int64_t>(bytes, 1)},
            at::TensorOptions().dtype(at::kByte).device(factory_device(s))));
        blob = device_blobs_.back().data_ptr();
      }
      at::Tensor t;
      {
        at::AutoDispatchBelowADInplaceOrView below;
        // S1: a 0-byte storage has a null data pointer, foreign or not.
        t = at::from_blob(bytes > 0 ? blob : nullptr, sizes, on_device(s, d));
      }
      commit(bytes);
      foreign_.push_back(t.storage());
      bind(s, std::move(t));
      return ok();
    }
    case OpId::kMutableDataPtr: {
      // Through the storage, not Tensor::data_ptr(): on an emptied tensor
      // with an offset that adds the offset to a null pointer (undefined
      // behaviour inside LibTorch's inline TensorImpl::data(), S8).
#if STORCHECK_TORCH_HAS_COW
      if (!var(s, 0).is_meta()) (void)var(s, 0).storage().mutable_data();
#endif
      return ok();
    }
    case OpId::kLazyClone: {
      const at::Tensor& t = var(s, 0);
      if (refuse_wrapped_strides(s, t)) return ok();
      int64_t nbytes = storage_nbytes(t);
      if (is_emptied(t)) {  // R3: a clone path restores zeros (offset 0)
        Geometry g = geometry_of(t);
        g.offset = 0;
        int64_t bytes;
        if (!g.required_bytes(&bytes))
          return error(ErrorKind::kStorageSizeOverflow, "lazy_clone: restored size overflows");
        if (Error e = check_alloc("lazy_clone", bytes); e.kind != ErrorKind::kNone) return e;
        at::Tensor buffer;
        {
          at::AutoDispatchBelowADInplaceOrView below;
          buffer = at::zeros({bytes / g.itemsize}, t.options());
        }
        bind(s, buffer.as_strided(t.sizes(), t.strides(), 0));
        commit(bytes);
        restored_step_ = true;
        return ok();
      }
      if (t.is_meta()) {  // no data to share: a fresh meta storage of the same size
        at::Tensor bytes = at::empty({nbytes}, at::TensorOptions().dtype(at::kByte).device(at::kMeta));
        bytes.storage().unsafeGetStorageImpl()->set_resizable(t.storage().resizable());
        auto impl = c10::make_intrusive<c10::TensorImpl>(
            c10::Storage(bytes.storage()), c10::DispatchKeySet(c10::DispatchKey::Meta), t.dtype());
        impl->set_sizes_and_strides(t.sizes(), t.strides());
        impl->set_storage_offset(t.storage_offset());
        bind(s, at::Tensor(std::move(impl)));
        return ok();
      }
      bool foreign = std::any_of(foreign_.begin(), foreign_.end(), [&](const c10::Storage& f) {
        return f.unsafeGetStorageImpl() == t.storage().unsafeGetStorageImpl();
      });
#if STORCHECK_TORCH_HAS_COW
      (void)foreign;
      if (Error e = check_alloc("lazy_clone", nbytes); e.kind != ErrorKind::kNone) return e;
      const int64_t before = check_memory_ ? device_allocated() : -1;
      at::Tensor c = at::_lazy_clone(t);
      if (before >= 0) {  // C1 on a device: no copy until the first write
        const int64_t after = device_allocated();
        if (after != before)
          invariant_finding_ = "cow.device_copy_only_on_write: lazy_clone of a " +
                               std::to_string(nbytes) + "-byte storage changed the caching "
                               "allocator's allocated bytes from " + std::to_string(before) +
                               " to " + std::to_string(after) + " (C1: no copy until a write)";
      }
      commit(nbytes);
      bind(s, std::move(c));
      return ok();
#else
      // C7 on LibTorch < 2.3: there is no lazy clone to refuse a foreign
      // owner; the stand-in copy refuses it the way _lazy_clone does.
      if (foreign)
        return error(ErrorKind::kInvalidArgument,
                     "lazy_clone: the storage's data has a foreign owner (from_blob) and cannot "
                     "be lazily cloned");
      if (Error e = check_alloc("lazy_clone", nbytes); e.kind != ErrorKind::kNone) return e;
      // A TensorImpl built directly over the copied storage: set_ or
      // as_strided would check bounds or grow an undersized storage, and a
      // lazy clone does neither (C1).
      at::Tensor bytes;
      {
        at::AutoDispatchBelowADInplaceOrView below;
        bytes = at::empty({nbytes}, at::TensorOptions().dtype(at::kByte).device(t.device()));
      }
      copy_storage(bytes.storage(), t.storage(), nbytes);
      // lazy_clone_storage (2.3+) keeps the source's resizable flag.
      bytes.storage().unsafeGetStorageImpl()->set_resizable(t.storage().resizable());
      auto impl = c10::make_intrusive<c10::TensorImpl>(
          c10::Storage(bytes.storage()),
          c10::DispatchKeySet(c10::computeDispatchKey(t.scalar_type(), at::kStrided, t.device())),
          t.dtype());
      impl->set_sizes_and_strides(t.sizes(), t.strides());
      impl->set_storage_offset(t.storage_offset());
      at::Tensor c(std::move(impl));
      commit(nbytes);
      bind(s, std::move(c));
      return ok();
#endif
    }
    default: break;
  }
  SC_ASSERT(false, "run_cow_op: not a COW op");
  return ok();
}

// Storage shrink and restore (SEMANTICS group R) with LibTorch's real
// storage resize (resize_bytes_cpu, what untyped_storage().resize_() runs).
Error TorchBackend::run_storage_op(const Step& s) {
  switch (s.op) {
    case OpId::kShrink: {
      c10::StorageImpl* impl = var(s, 0).storage().unsafeGetStorageImpl();
      if (var(s, 0).is_meta()) {  // LibTorch 2.x's resize_bytes_meta: the size only
        if (!impl->resizable())
          return error(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
        impl->set_nbytes(0);
        return ok();
      }
      const int64_t old = static_cast<int64_t>(impl->nbytes());
#if STORCHECK_TORCH_HAS_COW
      const bool cow = c10::impl::cow::is_cow_data_ptr(impl->data_ptr());
#else
      const bool cow = false;
#endif
      const int64_t before = check_memory_ && !cow ? device_allocated() : -1;
      resize_bytes(impl, 0);
      // R1 on a device: the storage's own bytes go back to the allocator (a
      // COW block is shared with other sharers and is not checked).
      const int64_t freed = before >= 0 ? before - device_allocated() : 0;
      if (before >= 0 && freed < old)
        invariant_finding_ = "shrink.frees_device_memory: shrinking a " + std::to_string(old) +
                             "-byte storage freed " + std::to_string(freed) +
                             " of the caching allocator's allocated bytes (R1)";
      return ok();
    }
    case OpId::kSetNonresizable:
      var(s, 0).storage().unsafeGetStorageImpl()->set_resizable(false);
      return ok();
    case OpId::kResizeStorage: {
      const at::Tensor& t = var(s, 0);
      int64_t nbytes = s.args[1].i;
      if (nbytes < 0)
        return error(ErrorKind::kInvalidArgument,
                     "resize_storage: negative size " + std::to_string(nbytes));
      c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
      if (!impl->resizable())
        return error(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
      int64_t old = static_cast<int64_t>(impl->nbytes());
      if (t.is_meta()) {  // LibTorch 2.x's resize_bytes_meta: the size only
        impl->set_nbytes(static_cast<size_t>(nbytes));
        return ok();
      }
      if (nbytes > old) {
        if (Error e = check_alloc("resize_storage", nbytes); e.kind != ErrorKind::kNone) return e;
      }
      resize_bytes(impl, nbytes);
      if (nbytes > old)  // R6: unspecified bytes, defined as zero here
        zero_bytes(t.storage(), old, nbytes);
      if (nbytes > old) commit(nbytes);
      return ok();
    }
    case OpId::kRehydrate: {
      // R5: per storage, the largest extent among its live emptied tensors.
      std::vector<std::pair<c10::Storage, int64_t>> need;
      for (const at::Tensor& t : vars_) {
        if (!t.defined() || is_sparse_tensor(t) || !is_emptied(t)) continue;
        int64_t bytes;
        if (!geometry_of(t).required_bytes(&bytes))
          return error(ErrorKind::kStorageSizeOverflow,
                       "rehydrate: extent of sizes " + list_str(t.sizes()) + " overflows int64");
        auto it = std::find_if(need.begin(), need.end(), [&](const auto& e) {
          return e.first.unsafeGetStorageImpl() == t.storage().unsafeGetStorageImpl();
        });
        if (it == need.end()) need.emplace_back(t.storage(), bytes);
        else it->second = std::max(it->second, bytes);
      }
      int64_t total = 0;
      for (const auto& e : need) {
        if (!e.first.unsafeGetStorageImpl()->resizable())
          return error(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
        total += e.second;
      }
      if (Error e = check_alloc("rehydrate", total); e.kind != ErrorKind::kNone) return e;
      for (auto& [storage, bytes] : need) {
        resize_bytes(storage.unsafeGetStorageImpl(), bytes);
        zero_bytes(storage, 0, bytes);
        // Once each: a storage restored again before any reshrink is
        // reshrunk once.
        // (C++17 lambdas cannot capture a structured binding: clang rejects it.)
        const c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
        const bool listed =
            std::any_of(restored_.begin(), restored_.end(),
                        [impl](const c10::Storage& r) { return r.unsafeGetStorageImpl() == impl; });
        if (!listed) restored_.push_back(storage);
      }
      commit(total);
      return ok();
    }
    case OpId::kReshrink: {
      // R5 acts on the restored storages a variable still reaches (its
      // tensor's, or a sparse variable's parts'), as in the reference, which
      // holds them weakly. A storage only a hidden holder keeps has died for
      // the program: this list, or the autograd base of a view that set_
      // moved off it (clone_preserve_strides binds such a view; counting
      // holders took it for alive: shrink.matches_eager, seed 2013).
      auto alive = [&](const c10::Storage& st) {
        const c10::StorageImpl* impl = st.unsafeGetStorageImpl();
        for (const at::Tensor& t : vars_) {
          if (!t.defined()) continue;
          if (!is_sparse_tensor(t)) {
            if (t.storage().unsafeGetStorageImpl() == impl) return true;
            continue;
          }
          for (const at::Tensor& part : sparse_parts(t))
            if (part.storage().unsafeGetStorageImpl() == impl) return true;
        }
        return false;
      };
      for (const c10::Storage& st : restored_)
        if (alive(st) && !st.unsafeGetStorageImpl()->resizable())
          return error(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
      for (const c10::Storage& st : restored_)
        if (alive(st)) resize_bytes(st.unsafeGetStorageImpl(), 0);
      restored_.clear();
      return ok();
    }
    default: break;
  }
  SC_ASSERT(false, "run_storage_op: not a storage op");
  return ok();
}

/// LibTorch 1.13 has no meta tensors of the compressed sparse layouts: each
/// way of building one raises its own dispatcher message, which the known
/// divergence meta-sparse-compressed-1.13 matches through this one prefix.
Error meta_compressed_error(std::string_view op, const at::Tensor& t, const std::exception& ex) {
  Error e = classify_torch_exception(ex);
  if (t.layout() == at::kSparse) return e;  // COO has meta tensors: a plain error
  e.message = std::string(op) + ": LibTorch has no meta " +
              std::string(layout_name(layout_of(t))) + " tensor: " + e.message;
  return e;
}

// Meta and fake conversion: Note [Meta conversion over LibTorch]. The
// language's rules on what each step accepts (impl/fake.h) come first.
Error TorchBackend::run_convert_op(const Step& s) {
  auto unsupported = [](std::string msg) {
    return error(ErrorKind::kUnsupportedFakeTensor, std::move(msg));
  };
  switch (s.op) {
    case OpId::kMeta:
    case OpId::kFake: {
      const at::Tensor& t = var(s, 0);
      const char* op = s.op == OpId::kFake ? "fake" : "meta";
      if (t.is_meta())
        return unsupported(std::string(op) + ": the input is already a " +
                           (fake_[s.args[0].var] ? "fake" : "meta") + " tensor");
      TorchConverter& conv = s.op == OpId::kFake ? fake_conv_ : meta_conv_;
      if (is_sparse_tensor(t)) {  // Note [Sparse fake modes] (impl/fake.cpp)
        for (const at::Tensor& part : sparse_parts(t))
          if (refuse_wrapped_strides(s, part)) return ok();
        try {
          bind(s, conv.convert_sparse(t, /*faithful=*/s.op == OpId::kMeta));
        } catch (const std::exception& ex) {
          return meta_compressed_error(op, t, ex);
        }
        return ok();
      }
      if (refuse_wrapped_strides(s, t)) return ok();
      if (t.is_view() && is_sparse_tensor(t._base()))  // F4: a view of a sparse base
        return unsupported(std::string(op) + ": the tensor is a view of a part of a " +
                           std::string(layout_name(layout_of(t._base()))) +
                           " tensor; PyTorch's MetaConverter does not convert it");
      bind(s, conv.convert(t));
      return ok();
    }
    case OpId::kToMeta:
      if (fake_[s.args[0].var])
        return unsupported("to_meta: the input is a fake tensor, which has no data to copy");
      try {
        bind(s, var(s, 0).to(at::kMeta));  // LibTorch's own to(kMeta) (F8)
      } catch (const std::exception& ex) {
        if (!is_sparse_tensor(var(s, 0))) throw;
        return meta_compressed_error("to_meta", var(s, 0), ex);
      }
      return ok();
    case OpId::kFakeFromMeta:
      if (!var(s, 0).is_meta() || fake_[s.args[0].var])
        return unsupported(std::string("fake_from_meta: the input is ") +
                           (fake_[s.args[0].var] ? "already a fake tensor" : "not a meta tensor"));
      bind(s, var(s, 0).detach());  // PyTorch wraps the meta tensor: same storage and version
      return ok();
    case OpId::kSweep:
      fake_conv_.sweep();
      meta_conv_.sweep();
      return ok();
    case OpId::kMemoStats: return ok();  // the memo is the reference's observation (F3)
    default: break;
  }
  SC_ASSERT(false, "run_convert_op: not a conversion op");
  return ok();
}

Error TorchBackend::run_out_of_place(const Step& s) {
  const at::Tensor& t = var(s, 0);
  const std::string_view op = s.info().name;
  bool copies = true;
  DType out_dtype = from_torch(t.scalar_type());
  if (s.op == OpId::kContiguous) {
    copies = !t.is_contiguous();
  } else if (s.op == OpId::kAdd || s.op == OpId::kMul) {
    out_dtype = from_torch(at::result_type(t, to_torch_scalar(s.args[1].scalar)));
  }
  int64_t bytes = 0;
  if (s.op == OpId::kClone && refuse_symint_pointer_strides(s, t)) return ok();
  if (copies) {
    if (Error e = copy_bytes(op, t, out_dtype, &bytes); e.kind != ErrorKind::kNone) return e;
    if (Error e = check_alloc(op, bytes); e.kind != ErrorKind::kNone) return e;
    if (Error e = check_fits(op, t, "input"); e.kind != ErrorKind::kNone) return e;
  }
  at::Tensor r;
  switch (s.op) {
    case OpId::kAdd: r = t.add(to_torch_scalar(s.args[1].scalar)); break;
    case OpId::kMul: r = t.mul(to_torch_scalar(s.args[1].scalar)); break;
    case OpId::kClone: r = t.clone(); break;
    case OpId::kContiguous: r = t.contiguous(); break;
    default: SC_ASSERT(false, "run_out_of_place: not a compute op");
  }
  if (copies) commit(bytes);
  bind(s, std::move(r));
  return ok();
}

Error TorchBackend::pick(const Step& s, const std::vector<at::Tensor>& parts, int64_t index) {
  const int64_t n = static_cast<int64_t>(parts.size());
  if (index < 0 || index >= n)
    return error(ErrorKind::kIndexOutOfRange,
                 std::string(s.info().name) + ": index " + std::to_string(index) +
                     " out of range: the op returned " + std::to_string(n) +
                     " tensors (valid indices 0.." + std::to_string(n - 1) + ")");
  bind(s, parts[static_cast<size_t>(index)]);
  return ok();
}

Error TorchBackend::run(const Step& s) {
  const auto i = [&](int k) { return s.args[k].i; };
  const auto l = [&](int k) { return to_ref(s.args[k].list); };
  const auto sc = [&](int k) { return to_torch_scalar(s.args[k].scalar); };
  switch (s.op) {
    // Factories.
    case OpId::kArange:
    case OpId::kZeros:
    case OpId::kOnes:
    case OpId::kFull:
    case OpId::kRand: return run_factory(s);
    case OpId::kEmptyStrided: return run_empty_strided(s);

    // Views.
    case OpId::kView: bind(s, var(s, 0).view(l(1))); return ok();
    case OpId::kReshape: return run_reshape(s);
    case OpId::kAsStrided:
      if (Error e = check_sizes_nonnegative("as_strided", l(1)); e.kind != ErrorKind::kNone)
        return e;
      if (Error e = check_offset_overflow("as_strided", var(s, 0), l(1), l(2), i(3));
          e.kind != ErrorKind::kNone)
        return e;
      bind(s, var(s, 0).as_strided(l(1), l(2), i(3)));
      return ok();
    case OpId::kSelect: bind(s, var(s, 0).select(i(1), i(2))); return ok();
    case OpId::kSlice:
    case OpId::kNarrow:
      if (Error e = check_slice_arithmetic(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      if (s.op == OpId::kSlice) bind(s, var(s, 0).slice(i(1), i(2), i(3), i(4)));
      else bind(s, var(s, 0).narrow(i(1), i(2), i(3)));
      return ok();
    case OpId::kTranspose:
      if (refuse_symint_pointer_strides(s, var(s, 0))) return ok();
      bind(s, var(s, 0).transpose(i(1), i(2)));
      return ok();
    case OpId::kT: bind(s, var(s, 0).t()); return ok();
    case OpId::kPermute: bind(s, var(s, 0).permute(l(1))); return ok();
    case OpId::kMovedim: bind(s, var(s, 0).movedim(i(1), i(2))); return ok();
    case OpId::kExpand:
      if (Error e = check_expand_sizes(var(s, 0), l(1)); e.kind != ErrorKind::kNone) return e;
      bind(s, var(s, 0).expand(l(1)));
      return ok();
    case OpId::kUnsqueeze:
      if (Error e = check_rank("unsqueeze", var(s, 0).dim() + 1); e.kind != ErrorKind::kNone)
        return e;
      bind(s, var(s, 0).unsqueeze(i(1)));
      return ok();
    case OpId::kSqueeze: bind(s, var(s, 0).squeeze(i(1))); return ok();
    case OpId::kFlatten: return run_flatten(s);
    case OpId::kUnflatten:
      if (Error e = check_rank("unflatten", var(s, 0).dim() - 1 + s.args[2].list.size());
          e.kind != ErrorKind::kNone)
        return e;
      bind(s, var(s, 0).unflatten(i(1), l(2)));
      return ok();
    case OpId::kDiagonal: bind(s, var(s, 0).diagonal(i(1), i(2), i(3))); return ok();
    case OpId::kUnfold:
      if (Error e = check_rank("unfold", std::max<int64_t>(var(s, 0).dim() + 1, 1));
          e.kind != ErrorKind::kNone)
        return e;
      if (i(2) < 0)  // Case 5)
        return error(ErrorKind::kInvalidArgument,
                     "unfold: size " + std::to_string(i(2)) + " must be >= 0");
      bind(s, var(s, 0).unfold(i(1), i(2), i(3)));
      return ok();
    case OpId::kSplit:
      if (Error e = check_split_count(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_split_arithmetic(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      return pick(s, var(s, 0).split(i(1), i(2)), i(3));
    case OpId::kChunk:
      if (Error e = check_split_count(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_split_arithmetic(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      return pick(s, var(s, 0).chunk(i(1), i(2)), i(3));
    case OpId::kUnbind:
      if (Error e = check_split_count(s, var(s, 0)); e.kind != ErrorKind::kNone) return e;
      return pick(s, var(s, 0).unbind(i(1)), i(2));
    case OpId::kAlias: bind(s, at::alias(var(s, 0))); return ok();
    case OpId::kDetach: bind(s, var(s, 0).detach()); return ok();
    case OpId::kViewDtype: {  // Note [view_dtype] in impl/ops.cpp; Case 6)
      const at::Tensor& t = var(s, 0);
      const DType to = to_dtype(s.args[1].dtype);
      const Geometry g = geometry_of(t);
      if (view_dtype_arithmetic_overflows(g, itemsize(to)))
        return error(ErrorKind::kUndefinedBehavior,
                     view_dtype_arithmetic_message(g, from_torch(t.scalar_type()), to));
      // A wrapped stride stays negative (found by views_fuzzer -seed=979:
      // LibTorch 1.13 gave [0,2,3,3,5,2^62] i32's strides [-2^63, 2^62,
      // -2^62, ...] viewed as i64 the strides [2^62, 2^61, 3 * 2^61, ...]).
      if (refuse_wrapped_strides(s, t)) return ok();
      bind(s, t.view(to_torch(to)));
      return ok();
    }

    // In-place data writes.
    case OpId::kAdd_:
    case OpId::kMul_: {
      at::Tensor& t = var(s, 0);
      const std::string_view op = s.info().name;
      if (Error e = check_fits(op, t, "self"); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_self_overlap(op, t); e.kind != ErrorKind::kNone) return e;
      if (s.op == OpId::kAdd_) t.add_(sc(1)); else t.mul_(sc(1));
      return ok();
    }
    case OpId::kFill_:
    case OpId::kZero_: {
      at::Tensor& t = var(s, 0);
      if (Error e = check_fits(s.info().name, t, "self"); e.kind != ErrorKind::kNone) return e;
      // Note [Elements a step reads] (impl/ops.h): a view repeating offsets.
      if (Error e = check_step_reads(s.info().name, t); e.kind != ErrorKind::kNone) return e;
      if (s.op == OpId::kFill_) t.fill_(sc(1)); else t.zero_();
      return ok();
    }
    case OpId::kCopy_: return run_copy(s);
    case OpId::kAddOut:
    case OpId::kMulOut:
      return run_scalar_out(s);

    // In-place metadata mutation.
    case OpId::kTranspose_:
      // After as_strided_'s own checks: a negative (wrapped) stride raises
      // first (found by shrink_fuzzer).
      if (std::none_of(var(s, 0).strides().begin(), var(s, 0).strides().end(),
                       [](int64_t x) { return x < 0; }))
        if (Error e = check_inplace_numel("transpose_", transposed_sizes(var(s, 0), i(1), i(2)));
            e.kind != ErrorKind::kNone)
          return e;
      var(s, 0).transpose_(i(1), i(2));
      return ok();
    case OpId::kT_: var(s, 0).t_(); return ok();  // 2 dims: no product overflows before a 0
    case OpId::kUnsqueeze_:
      if (Error e = check_rank("unsqueeze_", var(s, 0).dim() + 1); e.kind != ErrorKind::kNone)
        return e;
      var(s, 0).unsqueeze_(i(1));
      return ok();
    case OpId::kSqueeze_: var(s, 0).squeeze_(i(1)); return ok();
    case OpId::kAsStrided_:
      if (Error e = check_sizes_nonnegative("as_strided_", l(1)); e.kind != ErrorKind::kNone)
        return e;
      if (Error e = check_offset_overflow("as_strided_", var(s, 0), l(1), l(2), i(3));
          e.kind != ErrorKind::kNone)
        return e;
      // After LibTorch's argument checks; without a size-0 dim its bounds
      // check raises first.
      if (l(1).size() == l(2).size() && i(3) >= 0 &&
          std::none_of(l(2).begin(), l(2).end(), [](int64_t x) { return x < 0; }) &&
          std::find(l(1).begin(), l(1).end(), 0) != l(1).end())
        if (Error e = check_inplace_numel("as_strided_", l(1)); e.kind != ErrorKind::kNone)
          return e;
      var(s, 0).as_strided_(l(1), l(2), i(3));
      return ok();
    case OpId::kResize_: return run_resize(s);
    case OpId::kSet_:
      return run_set(s);

    // Out-of-place compute.
    case OpId::kAdd:
    case OpId::kMul:
    case OpId::kClone:
    case OpId::kContiguous:
    case OpId::kClonePreserveStrides:
    case OpId::kTo: return run_clone_path(s);
    case OpId::kCuda:
    case OpId::kCpu: return run_to_device(s);
    case OpId::kShrink:
    case OpId::kRehydrate:
    case OpId::kReshrink:
    case OpId::kResizeStorage:
    case OpId::kSetNonresizable: return run_storage_op(s);
    case OpId::kSum:
    case OpId::kLazyClone:
    case OpId::kFromBlob:
    case OpId::kMutableDataPtr: return run_cow_op(s);

    // Lifetime.
    case OpId::kMeta:
    case OpId::kFake:
    case OpId::kToMeta:
    case OpId::kFakeFromMeta:
    case OpId::kSweep:
    case OpId::kMemoStats: return run_convert_op(s);
    case OpId::kDrop: var(s, 0) = at::Tensor(); return ok();

    // Sparse layouts.
    case OpId::kToSparseCoo:
    case OpId::kToSparseCsr:
    case OpId::kToSparseCsc:
    case OpId::kToSparseBsr:
    case OpId::kToSparseBsc:
    case OpId::kToDense:
    case OpId::kCoalesce:
    case OpId::kSparseCooTensor:
    case OpId::kSparseCsrTensor:
    case OpId::kSparseCscTensor:
    case OpId::kSparseBsrTensor:
    case OpId::kSparseBscTensor:
    case OpId::kIndices:
    case OpId::kValues:
    case OpId::kCrowIndices:
    case OpId::kColIndices:
    case OpId::kCcolIndices:
    case OpId::kRowIndices: return run_sparse(s);

    case OpId::kNumOps: break;
  }
  SC_ASSERT(false, "torch backend: op without a case: " + std::string(s.info().name));
  return ok();
}

void TorchBackend::observe(Observation* obs, const ObserveScope& scope) {
  const size_t n = vars_.size();
  obs->vars.resize(n);
  alias_.reset(n);
  identity_.reset(n);
  data_.reset(n);
  // Note [Incremental observation] (oracles/runner.cpp): only the listed
  // variables; the others did not move.
  for (size_t v : moved_)
    if (v < obs->vars.size()) obs->vars[v].data_moved = false;
  moved_.clear();
  auto observe_var = [&](size_t v) {
    VarObs& o = obs->vars[v];
    const at::Tensor& t = vars_[v];
    bool refresh = scope.all_values || static_cast<VarId>(v) == scope.fresh || !o.live;
    if (refresh) o.values.clear();
    o.live = t.defined();
    if (!o.live) {
      last_data_[v] = nullptr;
      set_observed_dims(&o, 0, nullptr, nullptr);
      o.offset = 0;
      o.storage_nbytes = 0;
      o.alias_class = -1;
      o.identity_class = -1;
      o.version_known = false;
      o.version = 0;
      o.values_known = false;
      return;
    }
    if (is_sparse_tensor(t)) {
      observe_sparse(t, v, refresh, &o);
      return;
    }
    o.layout = Layout::kStrided;
    // Straight from the TensorImpl: this loop runs for every variable after
    // every step (issue 8), and zeroing whole arrays per variable cost more
    // than all the rest of it (rep stos, 45% of this function's time).
    const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    const at::IntArrayRef sizes = impl->sizes(), strides = impl->strides();
    SC_ASSERT(sizes.size() <= static_cast<size_t>(kMaxDims), "torch backend: tensor rank beyond kMaxDims");
    set_observed_dims(&o, static_cast<int>(sizes.size()), sizes.data(), strides.data());
    o.offset = impl->storage_offset();
    o.dtype = from_torch(t.scalar_type());
    o.fake = fake_[v] != 0;
    const bool meta = impl->is_meta();
    o.device = meta ? (o.fake ? stands_for_[v] : Device::kMeta) : real_device(t);  // F1
    const c10::StorageImpl* storage = impl->storage().unsafeGetStorageImpl();
    o.storage_nbytes = static_cast<int64_t>(storage->nbytes());
    o.data_null = storage->data() == nullptr;
    // Read the pointer without materializing (StorageImpl::data() is const).
    const void* data = static_cast<const c10::StorageImpl*>(storage)->data();
#if STORCHECK_TORCH_HAS_COW
    o.is_cow = c10::impl::cow::is_cow_data_ptr(storage->data_ptr());
#else
    o.is_cow = false;
#endif
    // The smallest live VarId with the same data address, storage, tensor.
    const int32_t self = static_cast<int32_t>(v);
    o.data_class = data ? data_.find_or_insert(data, self) : -1;
    o.data_moved = last_data_[v] != nullptr && last_data_[v] != data;
    last_data_[v] = data;
    o.alias_class = alias_.find_or_insert(storage, self);
    o.identity_class = identity_.find_or_insert(impl, self);
    o.version_known = true;
    o.version = static_cast<int64_t>(impl->version_counter().current_version());
    if (o.data_moved) moved_.push_back(v);
    if (!refresh) return;
    const Geometry g = geometry_of(t);
    int64_t need = 0;
    o.values_known = !meta && g.required_bytes(&need) && need <= o.storage_nbytes;
    if (o.values_known && need > 0) read_observed_elements(host_bytes(t, need), g, &o.values);
  };
  if (scope.vars) {
    for (VarId v : *scope.vars) observe_var(static_cast<size_t>(v));
  } else {
    for (size_t v = 0; v < n; ++v) observe_var(v);
  }
}


// Sparse layouts (impl/sparse.h): LibTorch's own conversions, constructor and
// accessors. Note [Layout policy] has refused the layouts an op does not
// take; what remains here is Case 1) limits and Case 3) S8 on the inputs
// and parts the op reads, as the reference checks them.
Error TorchBackend::run_sparse(const Step& s) {
  const std::string_view op = s.info().name;
  auto fits_all = [&](const std::vector<at::Tensor>& ts) {
    for (const at::Tensor& t : ts)
      if (Error e = check_fits(op, t, "a part"); e.kind != ErrorKind::kNone) return e;
    return ok();
  };
  const at::Tensor& t = var(s, 0);
  switch (s.op) {
    case OpId::kToSparseCoo:
    case OpId::kToSparseCsr:
    case OpId::kToSparseCsc:
    case OpId::kToSparseBsr:
    case OpId::kToSparseBsc: {
      if (Error e = check_fits(op, t, "the input"); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_step_reads(op, t); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_compressed_indices(s, t); e.kind != ErrorKind::kNone) return e;
      if (!t.is_meta() &&
          blocked_tiling_overflows(s, t.sizes().data(), static_cast<int>(t.dim()))) {
        refuse_undefined(std::string(op) + ": LibTorch " + torch_version() +
                         " tiles the input into blocks with strides that overflow int64 for "
                         "this blocksize (signed overflow: undefined behaviour, S8; it then "
                         "raises 'Negative strides' or an internal SymInt assert): not run");
        return ok();
      }
      at::Tensor r;
      if (s.op == OpId::kToSparseCoo) r = t.to_sparse(s.args[1].i);
      else if (s.op == OpId::kToSparseCsr) r = t.to_sparse_csr();
      else if (s.op == OpId::kToSparseCsc) r = t.to_sparse_csc();
      else if (s.op == OpId::kToSparseBsr) r = t.to_sparse_bsr(to_ref(s.args[1].list));
      else r = t.to_sparse_bsc(to_ref(s.args[1].list));
      // Case 1) for the parts the reference allocates (their sizes depend on
      // the data, so LibTorch runs first and a refused result is dropped).
      std::vector<int64_t> part_bytes;
      for (const at::Tensor& p : sparse_parts(r))
        part_bytes.push_back(p.numel() * p.element_size());
      if (Error e = check_allocs(op, part_bytes); e.kind != ErrorKind::kNone) return e;
      bind(s, std::move(r));
      for (int64_t b : part_bytes) commit(b);
      return ok();
    }
    case OpId::kSparseCooTensor:
      // LibTorch reads the indices (their bounds), never the values, which
      // the result only aliases: S8 on the indices alone, as the reference
      // (an emptied values tensor gave undefined_behavior here where the
      // reference reported the nnz mismatch; found by fake_fuzzer).
      if (t.numel() > 0)
        if (Error e = check_fits(op, t, "the indices"); e.kind != ErrorKind::kNone) return e;
      if (coo_dims_overflow(s, t.sizes().data(), static_cast<int>(t.dim()),
                            static_cast<int>(var(s, 1).dim()))) {
        refuse_undefined(std::string(op) + ": LibTorch " + torch_version() +
                         " adds the indices' size(0) and the values' dense dims in int64, which "
                         "overflows for these indices (signed overflow: undefined behaviour, "
                         "S8): not run");
        return ok();
      }
      bind(s, at::sparse_coo_tensor(t, var(s, 1), to_ref(s.args[2].list)));
      return ok();
    case OpId::kSparseCsrTensor:
    case OpId::kSparseCscTensor:
    case OpId::kSparseBsrTensor:
    case OpId::kSparseBscTensor: {
      // 1.13 reads both index parts (the index invariants) when the plain
      // indices hold an element, never the values: S8 on the indices, as
      // the reference.
      const at::Tensor& plain = var(s, 1);
      const at::Tensor& values = var(s, 2);
      if (plain.numel() > 0) {
        if (Error e = check_fits(op, t, "the compressed indices"); e.kind != ErrorKind::kNone)
          return e;
        if (Error e = check_fits(op, plain, "the plain indices"); e.kind != ErrorKind::kNone)
          return e;
      }
      if (compressed_dims_overflow(s, static_cast<int>(t.dim()), values.sizes().data(),
                                   static_cast<int>(values.dim()))) {
        refuse_undefined(std::string(op) + ": LibTorch " + torch_version() +
                         " adds 1 to the number of compressed rows (columns) in int64, which "
                         "overflows for these sizes (signed overflow: undefined behaviour, S8): "
                         "not run");
        return ok();
      }
      const at::Layout layout = s.op == OpId::kSparseCsrTensor   ? at::kSparseCsr
                                : s.op == OpId::kSparseCscTensor ? at::kSparseCsc
                                : s.op == OpId::kSparseBsrTensor ? at::kSparseBsr
                                                                 : at::kSparseBsc;
      bind(s, at::sparse_compressed_tensor(t, plain, values, to_ref(s.args[3].list),
                                           values.options().layout(layout)));
      return ok();
    }
    case OpId::kToDense:
    case OpId::kCoalesce: {
      if (s.op == OpId::kCoalesce && t.is_coalesced()) {  // returns itself, reads nothing
        bind(s, t.coalesce());
        return ok();
      }
      if (Error e = fits_all(sparse_parts(t)); e.kind != ErrorKind::kNone) return e;
      if (Error e = check_sparse_indices(op, t); e.kind != ErrorKind::kNone) return e;
      std::vector<int64_t> bytes;
      if (s.op == OpId::kToDense) {
        int64_t b = 0;
        if (Error e = copy_bytes(op, t, from_torch(t.scalar_type()), &b);
            e.kind != ErrorKind::kNone)
          return e;
        bytes.push_back(b);
      } else {  // new indices and values for the old nnz, as the reference
        for (const at::Tensor& p : sparse_parts(t)) bytes.push_back(p.numel() * p.element_size());
      }
      if (Error e = check_allocs(op, bytes); e.kind != ErrorKind::kNone) return e;
      if (s.op == OpId::kToDense) {
        bind(s, t.to_dense());
      } else {
        at::Tensor r = t.coalesce();
        zero_coalesce_slack(r);
        bind(s, std::move(r));
      }
      for (int64_t b : bytes) commit(b);
      return ok();
    }
    case OpId::kIndices: bind(s, t.indices()); return ok();
    case OpId::kValues: bind(s, t.values()); return ok();
    case OpId::kCrowIndices: bind(s, t.crow_indices()); return ok();
    case OpId::kColIndices: bind(s, t.col_indices()); return ok();
    case OpId::kCcolIndices: bind(s, t.ccol_indices()); return ok();
    case OpId::kRowIndices: bind(s, t.row_indices()); return ok();
    default: break;
  }
  SC_ASSERT(false, "run_sparse: not a sparse op: " + std::string(op));
  return ok();
}

// Note [Observing a sparse variable] (oracles/observation.h).
void TorchBackend::observe_sparse(const at::Tensor& t, size_t v, bool refresh, VarObs* o) {
  observe_sparse_storage_none(o, static_cast<int>(t.dim()), t.sizes().data(),
                              from_torch(t.scalar_type()));
  o->layout = layout_of(t);
  o->fake = fake_[v] != 0;
  o->device = t.is_meta() ? (o->fake ? stands_for_[v] : Device::kMeta) : real_device(t);  // F1
  o->identity_class = identity_.find_or_insert(t.unsafeGetTensorImpl(), static_cast<int32_t>(v));
  last_data_[v] = nullptr;
  o->sparse_dim = t.sparse_dim();
  o->dense_dim = t.dense_dim();
  const std::vector<at::Tensor> parts = sparse_parts(t);
  // Note [Compressed parts are the inputs] (impl/sparse.cpp): a compressed
  // tensor's parts may have changed shape in place since it was built; 1.13's
  // _nnz() (plain_indices.size(-1)) would throw for 0-d plain indices, the
  // blocksize's dims may be gone: read them as the reference does.
  const bool compressed = t.layout() != at::kSparse;
  o->nnz = !compressed ? t._nnz() : parts[1].dim() > 0 ? parts[1].size(-1) : 0;
  o->coalesced = t.layout() == at::kSparse && t.is_coalesced();
  o->index_dtype = from_torch(parts[0].scalar_type());
  o->blocksize = {1, 1};
  if (t.layout() == at::kSparseBsr || t.layout() == at::kSparseBsc) {
    const at::Tensor& values = parts.back();
    const int64_t at = t.dim() - 2 - t.dense_dim() + 1;
    o->blocksize = at < 0 || at + 1 >= values.dim()
                       ? std::array<int64_t, 2>{0, 0}
                       : std::array<int64_t, 2>{values.size(at), values.size(at + 1)};
  }
  if (!refresh) return;
  o->values.clear();
  o->values_known = false;
  if (t.is_meta()) return;
  // Note [Sparse values by their inputs] (oracles/dense_values_cache.h): on
  // the CPU, where the parts' bytes are readable in place.
  const bool keyed = t.device().is_cpu() && !staged_;
  if (keyed) {
    write_values_key(t, parts, limits_.max_tensor_bytes, &key_);
    if (dense_cache_.lookup(v, key_, o)) return;
  }
  densify(t, parts, o);
  if (keyed) dense_cache_.store(v, key_, *o);
}

void TorchBackend::densify(const at::Tensor& t, const std::vector<at::Tensor>& parts, VarObs* o) {
  // As the reference: no values when a part is undersized (S8) or the dense
  // form is beyond one tensor's limit.
  for (const at::Tensor& p : parts)
    if (!fits_storage(p)) return;
  if (check_sparse_indices("observe", t).kind != ErrorKind::kNone) return;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(t.numel(), static_cast<int64_t>(t.element_size()), &bytes) ||
      bytes > limits_.max_tensor_bytes)
    return;
  at::Tensor d;
  try {
    d = t.to_dense().contiguous().to(at::kCPU);
  } catch (const std::exception&) {
    return;  // LibTorch 1.13 has no to_dense of hybrid compressed tensors
  }
  o->values_known = true;
  o->values.resize(static_cast<size_t>(bytes));
  if (bytes > 0) std::memcpy(o->values.data(), d.data_ptr(), static_cast<size_t>(bytes));
}
}  // namespace
}  // namespace detail

std::string torch_version() {
#ifdef TORCH_VERSION
  return TORCH_VERSION;
#else
  return "unknown";
#endif
}

namespace {
void init_torch_once() {
  static std::once_flag threads_once;
  std::call_once(threads_once, [] {
    at::set_num_threads(1);
    // Note [No backtraces in LibTorch errors]
    // Every c10::Error captures and symbolizes a C++ backtrace when it is
    // built (about a millisecond in LibTorch 1.13), and most generated steps
    // that fail, fail inside LibTorch: that alone would cap the backend at a
    // few thousand steps per second. The classification reads only the
    // message (torch_errors.h), so the fetcher is replaced, process-wide,
    // by one that returns nothing.
    c10::SetStackTraceFetcher(std::function<std::string()>([] { return std::string(); }));
  });
}
}  // namespace

std::unique_ptr<Backend> make_torch_cpu_backend(bool eager_unsafe) {
  init_torch_once();
  auto b = std::make_unique<detail::TorchBackend>(at::Device(at::kCPU), false);
  b->set_eager_unsafe(eager_unsafe);
  return b;
}

std::unique_ptr<Backend> make_torch_cpu_staged_backend() {
  init_torch_once();
  return std::make_unique<detail::TorchBackend>(at::Device(at::kCPU), true);
}

std::unique_ptr<Backend> make_torch_cuda_backend(bool check_device_memory, std::string* why) {
#if STORCHECK_TORCH_HAS_CUDA
  bool usable = false;
  try {
    usable = torch::cuda::is_available();
  } catch (const std::exception& ex) {
    *why = "no usable CUDA device: " + torch_exception_message(ex);
    return nullptr;
  }
  if (!usable) {
    *why = "no usable CUDA device: torch::cuda::is_available() is false (LibTorch " +
           torch_version() + ")";
    return nullptr;
  }
  init_torch_once();
  auto b = std::make_unique<detail::TorchBackend>(at::Device(at::kCUDA, 0), true);
  b->set_check_device_memory(check_device_memory);
  return b;
#else
  (void)check_device_memory;
  *why = "this LibTorch (" + torch_version() +
         ") was built without CUDA: the LibTorch CUDA backend needs a CUDA build of LibTorch "
         "(scripts/build-device.sh on a GPU machine)";
  return nullptr;
#endif
}

}  // namespace storcheck
