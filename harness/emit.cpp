#include "harness/emit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <iterator>
#include <set>
#include <sstream>

#include "harness/gate.h"
#include "harness/properties.h"
#include "impl/geometry.h"
#include "impl/tensor.h"
#include "oracles/backend.h"
#include "oracles/known_divergences.h"
#include "oracles/layout_policy.h"
#include "oracles/runner.h"
#include "oracles/spelling.h"
#include "program/text_format.h"

namespace storcheck {

// Note [What the emitted script runs]
// The script mirrors storcheck's LibTorch backend (oracles/torch_backend.cpp),
// so that a program with no divergence gives a script that passes:
// 1) A step runs with its op's spelling (ops.def), and a step the reference
//    rejects runs inside expect_error(): it must raise.
// 2) A step the backend refuses before calling LibTorch is a comment, never
//    run: the reference's error is undefined_behavior (S8),
//    storage_size_overflow (S9: some of these wrap silently in LibTorch
//    1.13), resource_limit, or invalid_argument on an op whose negative
//    sizes LibTorch accepts (as_strided, as_strided_, resize_, unfold,
//    expand, resize_storage), or index_out_of_range on split/chunk/unbind
//    with a negative index (Python would wrap it).
// 3) A clone path of an emptied tensor (R3) builds the restored zeros
//    explicitly (`restored(...)`), as the backend does; plain PyTorch reads
//    the freed storage there.
// 4) Bytes storcheck defines as zero (empty_strided, grown storages, R6)
//    are zeroed by helpers; `rand` is storcheck's splitmix64 (impl/rand.h),
//    not torch's generator.
// 5) rehydrate and reshrink (R5) expand into a resize of each storage the
//    reference restores, with the byte counts the reference computed.
// 6) After each step the script checks every variable whose reference
//    observation changed (sizes, strides, offset, dtype, bytes, values), and
//    at the diverging step the differing field as well. Element values are
//    a list up to kListMax elements, else one repeated value or a weighted
//    checksum; tolerances are the comparator's (f32 1e-5, f64 1e-12
//    relative; integers exact).

namespace {

constexpr int64_t kListMax = 8;



std::string var_name(const Program& p, VarId v) { return p.var_names[static_cast<size_t>(v)]; }


bool is_clone_path(OpId op) {
  return op == OpId::kClone || op == OpId::kContiguous || op == OpId::kClonePreserveStrides ||
         op == OpId::kTo || op == OpId::kLazyClone;
}

/// Note [What the emitted script runs] case 2: why the step is not run.
std::string not_run_reason(const Step& s, const Error& error) {
  switch (error.kind) {
    case ErrorKind::kUnsupportedFakeTensor:
      return "storcheck's conversion rules refuse it (impl/fake.h): LibTorch has no converter "
             "of its own to ask";
    case ErrorKind::kDeviceMismatch:
      if (error.message.find("FakeTensorMode") != std::string::npos)
        return "FakeTensorMode refuses to mix fake and real tensors; LibTorch has no fake "
               "tensors (the reproducer's fakes are plain meta tensors)";
      return "";
    case ErrorKind::kUndefinedBehavior:
      return "undefined behaviour (S8): storcheck's LibTorch backend refuses to run it";
    case ErrorKind::kUnsupportedLayout:
      return "storcheck's language does not give this op an operand of that layout "
             "(oracles/layout_policy.h): no backend runs it, whatever LibTorch would do";
    case ErrorKind::kStorageSizeOverflow:
      return "a size computation overflows int64 (S9): storcheck's LibTorch backend refuses "
             "to run it (LibTorch 1.13 wraps some of these silently)";
    case ErrorKind::kResourceLimit:
      return "beyond storcheck's resource limits (program/limits.h)";
    case ErrorKind::kInvalidArgument:
      switch (s.op) {
        case OpId::kAsStrided: case OpId::kAsStrided_: case OpId::kResize_:
        case OpId::kUnfold: case OpId::kExpand: case OpId::kResizeStorage:
          return "a negative size, which storcheck rejects and LibTorch 1.13 may accept";
        default: return "";
      }
    case ErrorKind::kIndexOutOfRange:
      if ((s.op == OpId::kSplit || s.op == OpId::kChunk) && s.args[3].i < 0)
        return "a negative result index, which storcheck rejects and Python would wrap";
      if (s.op == OpId::kUnbind && s.args[2].i < 0)
        return "a negative result index, which storcheck rejects and Python would wrap";
      return "";
    default: return "";
  }
}

/// Steps whose reproducer helpers work on a storage's bytes (CPU only).
bool storage_level(OpId op) {
  return op_info(op).category == OpCategory::kStorage || op == OpId::kLazyClone ||
         op == OpId::kMutableDataPtr || op == OpId::kResize_ || is_scalar_out(op);
}

double element(const VarObs& v, int64_t k) {
  return load_as_double(v.values.data() + k * itemsize(v.dtype), v.dtype);
}




constexpr const char* kCppPrelude = R"CPP(#include <ATen/ATen.h>
#include <ATen/native/Resize.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif
#if __has_include(<c10/core/impl/COW.h>)
#define HAVE_LAZY_CLONE 1  // LibTorch 2.3+
#else
#define HAVE_LAZY_CLONE 0
#endif

namespace {

struct Values {  // what a tensor's elements must be
  enum Kind { kList, kSame, kChecksum, kEmptied, kUnread } kind = kUnread;
  std::vector<double> list;
  double value = 0;
};
[[maybe_unused]] Values values(std::vector<double> list) { Values v; v.kind = Values::kList; v.list = std::move(list); return v; }
[[maybe_unused]] Values same(double x) { Values v; v.kind = Values::kSame; v.value = x; return v; }
[[maybe_unused]] Values checksum(double x) { Values v; v.kind = Values::kChecksum; v.value = x; return v; }
[[maybe_unused]] const Values kEmptied = [] { Values v; v.kind = Values::kEmptied; return v; }();  // R2: not read
[[maybe_unused]] const Values kUnread;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  std::fprintf(stderr, "FAILED %s: %s\n", where.c_str(), what.c_str());
  std::exit(1);
}

[[maybe_unused]] bool close(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b || std::fabs(a - b) <= tol * std::fmax(1.0, std::fmax(std::fabs(a), std::fabs(b)));
}

[[maybe_unused]] std::string str(at::IntArrayRef v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

[[maybe_unused]] void expect(const std::string& where, const at::Tensor& t, at::IntArrayRef size,
            at::IntArrayRef stride, int64_t offset, at::ScalarType dtype, const Values& want,
            const at::Tensor* base = nullptr) {
  if (t.sizes() != size || t.strides() != stride ||
      t.storage_offset() != offset || t.scalar_type() != dtype)
    fail(where, "sizes, strides, offset, dtype: expected " + str(size) + " " + str(stride) + " " +
                    std::to_string(offset) + " " + c10::toString(dtype) + ", got " +
                    str(t.sizes()) + " " + str(t.strides()) + " " +
                    std::to_string(t.storage_offset()) + " " + c10::toString(t.scalar_type()));
  if (base && !t.is_alias_of(*base)) fail(where, "expected a view sharing its base's storage (S3)");
  if (want.kind == Values::kUnread) return;
  if (want.kind == Values::kEmptied) {
    if (t.storage().nbytes() != 0)
      fail(where, "expected an emptied storage (0 bytes), got " +
                      std::to_string(t.storage().nbytes()) + " bytes");
    return;
  }
  const double tol = dtype == at::kFloat ? 1e-5 : dtype == at::kDouble ? 1e-12 : 0.0;
  // flatten multiplies the sizes with SymInt's checked product: a 0-element
  // tensor with huge sizes would throw, so it reads as no elements.
  at::Tensor x = (t.numel() == 0 ? t.new_empty({0}) : t.flatten()).to(at::kDouble).contiguous();
  const double* p = x.data_ptr<double>();
  const int64_t n = x.numel();
  if (want.kind == Values::kList) {
    bool ok = n == static_cast<int64_t>(want.list.size());
    for (int64_t k = 0; ok && k < n; ++k) ok = close(p[k], want.list[k], tol);
    if (!ok) {
      std::string got = "[";
      for (int64_t k = 0; k < n; ++k) got += (k ? ", " : "") + std::to_string(p[k]);
      fail(where, "values: expected " + std::to_string(want.list.size()) + " listed values, got " + got + "]");
    }
  } else if (want.kind == Values::kSame) {
    for (int64_t k = 0; k < n; ++k)
      if (!close(p[k], want.value, tol))
        fail(where, "values: expected every element " + std::to_string(want.value) + ", element " +
                        std::to_string(k) + " is " + std::to_string(p[k]));
  } else {
    double sum = 0, scale = 0;
    for (int64_t k = 0; k < n; ++k) {
      sum += p[k] * static_cast<double>(k % 1021 + 1);
      scale += std::fabs(p[k]) * static_cast<double>(k % 1021 + 1);
    }
    bool ok = close(sum, want.value, 0.0) ||
              (std::isfinite(scale) &&
               std::fabs(sum - want.value) <= std::fmax(tol, 1e-9) * std::fmax(1.0, scale));
    if (!ok)
      fail(where, "values: expected checksum " + std::to_string(want.value) + ", got " +
                      std::to_string(sum));
  }
}

[[maybe_unused]] void expect_error(const std::string& where, const char* kind, const std::function<void()>& run) {
  try {
    run();
  } catch (const std::exception&) {  // c10::Error and std::out_of_range alike
    return;
  }
  fail(where, std::string("expected an error (") + kind + "), but the step succeeded");
}

[[maybe_unused]] void expect_true(const std::string& where, bool ok, const char* what) {
  if (!ok) fail(where, what);
}

[[maybe_unused]] void* storage_bytes(const at::Tensor& t) {
#if HAVE_LAZY_CLONE
  return t.storage().mutable_data();
#else
  return t.storage().data();
#endif
}

[[maybe_unused]] void zero_bytes(const at::Tensor& t, int64_t start) {  // new storage bytes are zero (R6)
  if (t.is_meta()) return;  // a meta storage holds no bytes
  int64_t n = static_cast<int64_t>(t.storage().nbytes());
  if (n > start) std::memset(static_cast<uint8_t*>(storage_bytes(t)) + start, 0, n - start);
}
)CPP";

// The helpers are C++ source as reproducers print it: clang-format must not
// reflow the raw strings.
// clang-format off
constexpr Helper kCppHelpers[] = {
    {"expect_sparse(", R"CPP(// A sparse tensor (SEMANTICS F4): its metadata, then its to_dense() values.
void expect_sparse(const std::string& where, const at::Tensor& t, at::Layout layout,
                   at::IntArrayRef size, at::ScalarType dtype, int64_t sparse_dim,
                   int64_t dense_dim, int64_t nnz, const Values& want) {
  if (t.layout() != layout || t.sizes() != size || t.scalar_type() != dtype ||
      t.sparse_dim() != sparse_dim || t.dense_dim() != dense_dim || t._nnz() != nnz)
    fail(where, "layout, sizes, dtype, sparse_dim, dense_dim, nnz: expected " + str(size) + " " +
                    c10::toString(dtype) + " " + std::to_string(sparse_dim) + " " +
                    std::to_string(dense_dim) + " " + std::to_string(nnz) + ", got " +
                    str(t.sizes()) + " " + c10::toString(t.scalar_type()) + " " +
                    std::to_string(t.sparse_dim()) + " " + std::to_string(t.dense_dim()) + " " +
                    std::to_string(t._nnz()));
  if (want.kind == Values::kUnread) return;
  at::Tensor d = t.to_dense().contiguous();
  expect(where, d, size, d.strides(), 0, dtype, want);
}
)CPP"},
    {"arange(", R"CPP(at::Tensor arange(at::IntArrayRef size, at::ScalarType dtype) {
  int64_t n = 1;
  for (int64_t s : size) n *= s;
  return at::arange(n, at::kLong).to(dtype).view(size);
}
)CPP"},
    {"rand(", R"CPP(// storcheck's deterministic values (splitmix64), not torch's RNG.
at::Tensor rand(at::IntArrayRef size, at::ScalarType dtype, int64_t seed) {
  at::Tensor t = at::empty(size, at::kDouble);
  double* p = t.data_ptr<double>();
  for (int64_t k = 0; k < t.numel(); ++k) {
    uint64_t z = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + k + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[k] = at::isFloatingType(dtype) ? static_cast<double>(z >> 40) / 16777216.0
           : dtype == at::kBool      ? static_cast<double>(z & 1)
                                     : static_cast<double>(z % 10);
  }
  return t.to(dtype);
}
)CPP"},
    {"empty_strided(", R"CPP(at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, at::ScalarType dtype) {
  at::Tensor t = at::empty_strided(size, stride, dtype);
  zero_bytes(t, 0);  // its bytes are defined as zero
  return t;
}
)CPP"},
    {"coalesce(", R"CPP(// Tensor::coalesce; the bytes past the new nnz are zero (R6): the new
// indices and values were allocated for the old nnz and narrowed (Note
// [Coalesce slack] in oracles/torch_backend.cpp).
at::Tensor coalesce(const at::Tensor& t) {
  at::Tensor r = t.coalesce();
  if (t.is_coalesced() || r.is_meta()) return r;
  at::Tensor i = r._indices(), v = r._values();
  if (i.storage_offset() == 0 && i.stride(1) == 1 && i.stride(0) >= i.size(1)) {
    const int64_t n = static_cast<int64_t>(i.storage().nbytes()), cap = i.stride(0);
    const int64_t es = i.element_size();
    uint8_t* base = static_cast<uint8_t*>(storage_bytes(i));
    for (int64_t d = 0; d < i.size(0); ++d) {
      const int64_t from = std::min((d * cap + i.size(1)) * es, n);
      const int64_t to = std::min((d + 1) * cap * es, n);
      if (to > from) std::memset(base + from, 0, static_cast<size_t>(to - from));
    }
  }
  if (v.is_contiguous()) zero_bytes(v, (v.storage_offset() + v.numel()) * v.element_size());
  return r;
}
)CPP"},
    {"resize_(", R"CPP(void resize_(at::Tensor& t, at::IntArrayRef size) {  // the grown bytes are zero (R6)
  int64_t old = static_cast<int64_t>(t.storage().nbytes());
  t.resize_(size);
  zero_bytes(t, old);
}
)CPP"},
    {"scalar_out_wrapped(", R"CPP(// torch.add(x, s, out=out) and torch.mul as Python runs them: the
// scalar as a wrapped-number tensor, so add.out / mul.out (TensorIterator) run;
// at::add_out(out, x, Scalar) is add.Scalar_out (a contiguous resize, then a
// copy). Grown bytes that the kernel does not write (before out's first
// element) are zero (R6).
template <typename Op>
void scalar_out_wrapped(Op op, at::Tensor& out, const at::Tensor& x, const at::Scalar& s) {
  at::Tensor w = c10::scalar_to_tensor(s);
  w.unsafeGetTensorImpl()->set_wrapped_number(true);
  const int64_t old = static_cast<int64_t>(out.storage().nbytes());
  op(out, x, w);
  if (out.is_meta()) return;
  const int64_t first = out.storage_offset() * static_cast<int64_t>(out.element_size());
  const int64_t n = static_cast<int64_t>(out.storage().nbytes());
  if (std::min(first, n) > old)
    std::memset(static_cast<uint8_t*>(storage_bytes(out)) + old, 0, std::min(first, n) - old);
}
)CPP"},
    {"add_out_wrapped(", R"CPP(void add_out_wrapped(at::Tensor& out, const at::Tensor& x,
                     const at::Scalar& s) {
  scalar_out_wrapped(
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) { at::add_out(o, a, b); }, out,
      x, s);
}
)CPP"},
    {"mul_out_wrapped(", R"CPP(void mul_out_wrapped(at::Tensor& out, const at::Tensor& x,
                     const at::Scalar& s) {
  scalar_out_wrapped(
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) { at::mul_out(o, a, b); }, out,
      x, s);
}
)CPP"},
    {"set_(", R"CPP(void set_(at::Tensor& t, const at::Tensor& src) {  // the grown bytes are zero (R6)
  // PyTorch's binding asserts equal dtypes; LibTorch C++ would reinterpret the bytes.
  TORCH_CHECK(t.dtype() == src.dtype(), "set_: the source's dtype differs from self's");
  int64_t old = static_cast<int64_t>(src.storage().nbytes());
  t.set_(src);
  zero_bytes(t, old);
}
)CPP"},
    {"memo(", R"CPP(// storcheck's converters over LibTorch (Note [Meta conversion over LibTorch]
// in oracles/torch_backend.cpp): a meta TensorImpl with the real geometry over
// one meta storage per real storage, memoized weakly. A fake tensor is a meta
// tensor here (LibTorch has no FakeTensor), with the FakeTensorConverter's own memo.
struct ConverterMemo {
  std::unordered_map<const c10::TensorImpl*,
                     std::pair<c10::weak_intrusive_ptr<c10::TensorImpl>, at::Tensor>> tensors;
  std::unordered_map<const c10::StorageImpl*,
                     std::pair<c10::weak_intrusive_ptr<c10::StorageImpl>, c10::Storage>> storages;
};
ConverterMemo& memo(bool fake) {
  static ConverterMemo memos[2];
  return memos[fake ? 1 : 0];
}
)CPP"},
    {"convert(", R"CPP(at::Tensor convert(ConverterMemo& m, const at::Tensor& t) {
  if (t.is_meta()) throw std::runtime_error("the input is already a meta tensor (F4)");
  auto found = m.tensors.find(t.unsafeGetTensorImpl());
  if (found != m.tensors.end() && !found->second.first.expired()) return found->second.second;
  auto s = m.storages.find(t.storage().unsafeGetStorageImpl());
  if (s == m.storages.end() || s->second.first.expired()) {
    if (s != m.storages.end()) m.storages.erase(s);
    at::Tensor bytes = at::empty({static_cast<int64_t>(t.storage().nbytes())},
                                 at::TensorOptions().dtype(at::kByte).device(at::kMeta));
    s = m.storages.emplace(t.storage().unsafeGetStorageImpl(),
                           std::make_pair(t.storage().getWeakStorageImpl(), bytes.storage())).first;
  }
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(s->second.second), c10::DispatchKeySet(c10::DispatchKey::Meta), t.dtype());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  at::Tensor out(std::move(impl));
  if (found != m.tensors.end()) m.tensors.erase(found);
  m.tensors.emplace(t.unsafeGetTensorImpl(),
                    std::make_pair(c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), out));
  return out;
}
)CPP"},
    {"meta_convert(", R"CPP(at::Tensor meta_convert(const at::Tensor& t) { return convert(memo(false), t); }
)CPP"},
    {"fake_convert(", R"CPP(at::Tensor fake_convert(const at::Tensor& t) { return convert(memo(true), t); }
)CPP"},
    {"fake_from_meta(", R"CPP(at::Tensor fake_from_meta(const at::Tensor& t) {  // F5: wraps the meta tensor
  if (!t.is_meta()) throw std::runtime_error("fake_from_meta: not a meta tensor (F4)");
  return t.detach();
}
)CPP"},
    {"converters_sweep(", R"CPP(void converters_sweep() {  // F3: drop the entries of dead tensors and storages
  for (bool fake : {false, true}) {
    ConverterMemo& m = memo(fake);
    for (auto it = m.tensors.begin(); it != m.tensors.end();)
      it = it->second.first.expired() ? m.tensors.erase(it) : std::next(it);
    for (auto it = m.storages.begin(); it != m.storages.end();)
      it = it->second.first.expired() ? m.storages.erase(it) : std::next(it);
  }
}
)CPP"},
    {"memo_stats(", R"CPP(void memo_stats() {}  // an observation step of storcheck's reference: nothing to run
)CPP"},
    {"resize_storage(", R"CPP(// untyped_storage().resize_() in Python; the grown bytes are zero (R6).
void resize_storage(const at::Tensor& t, int64_t nbytes) {
  int64_t old = static_cast<int64_t>(t.storage().nbytes());
  at::native::resize_bytes_cpu(t.storage().unsafeGetStorageImpl(), static_cast<size_t>(nbytes));
  zero_bytes(t, old);
}
)CPP"},
    {"clone_preserve_strides(", R"CPP(int64_t extent(const at::Tensor& t) {  // elements the tensor needs, offset included
  if (t.numel() == 0) return 0;
  int64_t n = t.storage_offset() + 1;
  for (int64_t d = 0; d < t.dim(); ++d) n += (t.size(d) - 1) * t.stride(d);
  return n;
}

at::Tensor clone_preserve_strides(const at::Tensor& t) {  // Inductor's: copy the prefix t needs
  at::Tensor copy = t.as_strided({extent(t)}, {1}, 0).clone();
  return copy.as_strided(t.sizes(), t.strides(), t.storage_offset());
}
)CPP"},
    {"restored(", R"CPP(// R3: zeros with the clone's geometry.
at::Tensor restored(at::IntArrayRef size, at::IntArrayRef stride, int64_t offset, at::ScalarType dtype) {
  int64_t n = offset + 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == 0) n = 0;
    if (n) n += (size[d] - 1) * stride[d];
  }
  return at::zeros({n}, dtype).as_strided(size, stride, offset);
}
)CPP"},
    {"sum64(", R"CPP(at::Tensor sum64(const at::Tensor& t) {  // floating sums accumulate in double
  return at::isFloatingType(t.scalar_type()) ? at::sum(t, at::kDouble) : at::sum(t);
}
)CPP"},
    {"from_blob(", R"CPP(std::vector<std::unique_ptr<uint8_t[]>> g_blobs;  // memory LibTorch does not own (C7)
std::vector<c10::Storage> g_foreign;  // kept alive, so their addresses stay unique

at::Tensor from_blob(at::IntArrayRef size, at::ScalarType dtype) {
  int64_t n = static_cast<int64_t>(c10::elementSize(dtype));
  for (int64_t s : size) n *= s;
  g_blobs.emplace_back(new uint8_t[std::max<int64_t>(n, 1)]());
  at::Tensor t = at::from_blob(n > 0 ? g_blobs.back().get() : nullptr, size, dtype);
  g_foreign.push_back(t.storage());
  return t;
}
)CPP"},
    {"lazy_clone(", R"CPP(// C1: at::_lazy_clone from LibTorch 2.3. Before, an eager copy of the whole
// storage with the same geometry stands in: values and metadata are checked
// (C6), copy-on-write state is not.
at::Tensor lazy_clone(const at::Tensor& t) {
#if HAVE_LAZY_CLONE
  return at::_lazy_clone(t);
#else
  static bool noted = false;
  if (!noted) {
    std::printf("note: this LibTorch has no _lazy_clone (2.3+): lazy_clone runs as an eager "
                "copy; copy-on-write state is not checked\n");
    noted = true;
  }
  for (const c10::Storage& f : FOREIGN_STORAGES)
    if (f.unsafeGetStorageImpl() == t.storage().unsafeGetStorageImpl()) throw std::runtime_error("lazy_clone: the storage's data has a foreign owner (C7)");
  int64_t nbytes = static_cast<int64_t>(t.storage().nbytes());
  int64_t need = 0;
  if (t.numel() > 0) {
    need = t.storage_offset() + 1;
    for (int64_t d = 0; d < t.dim(); ++d) need += (t.size(d) - 1) * t.stride(d);
    need *= static_cast<int64_t>(t.element_size());
  }
  int64_t size = std::max(nbytes, need);
  size += (t.element_size() - size % t.element_size()) % t.element_size();  // whole elements
  // Filled by memcpy and memset, not by tensor ops, which would bump its version.
  at::Tensor bytes = at::empty({size}, at::kByte);
  uint8_t* data = static_cast<uint8_t*>(bytes.data_ptr());
  if (nbytes > 0) std::memcpy(data, t.storage().data(), nbytes);
  if (size > nbytes) std::memset(data + nbytes, 0, static_cast<size_t>(size - nbytes));
  // A detached view of a fresh tensor: no view, and version 0 as _lazy_clone's result (C1).
  at::Tensor c = bytes.view(t.scalar_type()).as_strided(t.sizes(), t.strides(), t.storage_offset()).detach();
  // The source's byte size, even when it is undersized (C1).
  at::native::resize_bytes_cpu(c.storage().unsafeGetStorageImpl(), static_cast<size_t>(nbytes));
  // lazy_clone_storage (2.3+) keeps the source's resizable flag.
  c.storage().unsafeGetStorageImpl()->set_resizable(t.storage().resizable());
  return c;
#endif
}
)CPP"},
    {"mutable_data_ptr(", R"CPP(void mutable_data_ptr(const at::Tensor& t) {  // a write access: materializes a COW storage
  (void)storage_bytes(t);
}
)CPP"},
    {"rehydrate(", R"CPP(// R5: each emptied storage grows to the bytes its tensors need, zeroed.
void rehydrate(std::vector<std::pair<at::Tensor, int64_t>> storages) {
  for (auto& [t, nbytes] : storages) {
    at::native::resize_bytes_cpu(t.storage().unsafeGetStorageImpl(), static_cast<size_t>(nbytes));
    zero_bytes(t, 0);
  }
}
)CPP"},
    {"reshrink(", R"CPP(void reshrink(std::vector<at::Tensor> tensors) {  // R5: empty again what rehydrate restored
  for (auto& t : tensors) at::native::resize_bytes_cpu(t.storage().unsafeGetStorageImpl(), 0);
}
)CPP"},
};
// clang-format on

/// The expected values of `v` in the script's spelling.
std::string values_expr(const Syntax& sx, const VarObs& v) {
  if (observed_emptied(v)) return sx.py() ? "EMPTIED" : "kEmptied";
  // Note [Observing overlapping views] (impl/geometry.h): the values are
  // those at the view's distinct offsets, and the script's checks read every
  // row-major element (4e8 of them for the view that found this): unchecked.
  if (!v.values_known || observed_by_offset(v)) return sx.py() ? "None" : "kUnread";
  const int64_t n = static_cast<int64_t>(v.values.size()) / itemsize(v.dtype);
  auto elem = [&](int64_t k) {
    double x = element(v, k);
    if (v.dtype == DType::kBool) return sx.py() ? sx.boolean(x != 0) : std::string(x != 0 ? "1" : "0");
    if (!is_floating(v.dtype)) {
      int64_t i = load_as_int(v.values.data() + k * itemsize(v.dtype), v.dtype);
      return sx.py() ? sx.integer(i) : sx.floating(static_cast<double>(i));
    }
    return sx.floating(x, v.dtype == DType::kF32);
  };
  if (n <= kListMax) {
    std::string s = sx.py() ? "[" : "values({";
    for (int64_t k = 0; k < n; ++k) s += (k ? ", " : "") + elem(k);
    return s + (sx.py() ? "]" : "})");
  }
  bool all_same = true;
  const size_t size = static_cast<size_t>(itemsize(v.dtype));
  for (int64_t k = 1; k < n && all_same; ++k) {
    double a = element(v, 0), b = element(v, k);
    all_same = is_floating(v.dtype)
                   ? a == b || (std::isnan(a) && std::isnan(b))
                   : std::memcmp(v.values.data(), v.values.data() + k * size, size) == 0;
  }
  if (all_same) return "same(" + elem(0) + ")";
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) sum += element(v, k) * static_cast<double>(k % 1021 + 1);
  return "checksum(" + sx.floating(sum) + ")";
}

bool same_observation(const VarObs& a, const VarObs& b) {
  return a.live == b.live && a.rank == b.rank && a.sizes == b.sizes && a.strides == b.strides &&
         a.offset == b.offset && a.dtype == b.dtype && a.storage_nbytes == b.storage_nbytes &&
         a.values_known == b.values_known && a.values == b.values;
}

class Emitter {
 public:
  Emitter(EmitLang lang, const EmitRequest& r, const Limits& limits)
      : sx_{lang}, r_(r), p_(*r.program), limits_(limits) {}

  std::string run();

 private:
  void line(const std::string& s) { body_ += indent_ + s + "\n"; }
  void comment(const std::string& s) { line(sx_.comment() + s); }
  std::string where(size_t k) const {
    return sx_.quote("step " + std::to_string(k + 1) + " (" + print_step(p_, p_.steps[k]) + ")");
  }
  void emit_expect(size_t k, VarId v, const VarObs& o, bool with_base);
  void emit_divergence(size_t k, const Observation& after);
  void emit_known_guard(size_t k);
  std::string storage_steps(const Step& s, const Observation& before);
  std::string stop(size_t k, const std::string& reason);
  std::string assemble();
  /// "1 step behaves", "3 steps behave".
  std::string steps_done() const {
    return std::to_string(steps_emitted_) + (steps_emitted_ == 1 ? " step behaves" : " steps behave");
  }

  Syntax sx_;
  const EmitRequest& r_;
  const Program& p_;
  Limits limits_;
  std::string body_;
  std::string indent_;
  std::vector<int64_t> storage_token_;           ///< per var: which storage (emitter's ids)
  std::vector<int64_t> restored_keys_;  ///< storage tokens rehydrate restored, once each (R5)
  int64_t next_token_ = 0;
  int64_t steps_emitted_ = 0;
  bool restore_explained_ = false;
};

void Emitter::emit_expect(size_t k, VarId v, const VarObs& o, bool with_base) {
  if (is_sparse(o.layout)) {  // Note [Observing a sparse variable]: no strides, no storage
    line("expect_sparse(" + where(k) + ", " + var_name(p_, v) + ", " + sx_.layout(o.layout) +
         ", " + sx_.ints(o.sizes.data(), o.rank) + ", " + sx_.dtype(o.dtype) + ", " +
         std::to_string(o.sparse_dim) + ", " + std::to_string(o.dense_dim) + ", " +
         std::to_string(o.nnz) + ", " + values_expr(sx_, o) + ")" + sx_.end());
    return;
  }
  std::string args = where(k) + ", " + var_name(p_, v) + ", " +
                     sx_.ints(o.sizes.data(), o.rank) + ", " + sx_.ints(o.strides.data(), o.rank) +
                     ", " + std::to_string(o.offset) + ", " + sx_.dtype(o.dtype) + ", " +
                     values_expr(sx_, o);
  if (with_base && o.alias_class >= 0 && o.alias_class != v)
    args += sx_.py() ? ", base=" + var_name(p_, o.alias_class)
                     : ", &" + var_name(p_, o.alias_class);
  line("expect(" + args + ")" + sx_.end());
}

void Emitter::emit_divergence(size_t k, const Observation& after) {
  const EmitDivergence& d = *r_.divergence;
  const Step& s = p_.steps[k];
  std::string what = d.field + (d.var != kNoVar ? " of " + var_name(p_, d.var) : "");
  comment("storcheck: LibTorch diverges from the reference here (SEMANTICS " +
          semantics_id(s.op, d.field, false) + "): " + what + ":");
  comment("  the reference expects " + d.expected);
  comment("  " + d.backend + " gives " + d.observed);
  if (d.var == kNoVar) return;
  const VarObs& o = after.vars[static_cast<size_t>(d.var)];
  if (!o.live) return;
  const std::string v = var_name(p_, d.var);
  auto assert_line = [&](const std::string& cond, const std::string& msg) {
    if (sx_.py())
      line("assert " + cond + ", " + sx_.quote("step " + std::to_string(k + 1) + ": " + msg));
    else
      line("expect_true(" + where(k) + ", " + cond + ", " + sx_.quote(msg) + ");");
  };
  if (d.field == "alias_class") {
    if (o.alias_class != d.var)
      assert_line(sx_.py() ? "same_storage(" + v + ", " + var_name(p_, o.alias_class) + ")"
                           : v + ".is_alias_of(" + var_name(p_, o.alias_class) + ")",
                  v + " shares the storage of " + var_name(p_, o.alias_class) + " (S3)");
  } else if (d.field == "identity_class") {
    if (o.identity_class != d.var)
      assert_line(sx_.py() ? v + " is " + var_name(p_, o.identity_class)
                           : v + ".is_same(" + var_name(p_, o.identity_class) + ")",
                  v + " is the very tensor " + var_name(p_, o.identity_class));
  } else if (d.field == "version" && o.version_known) {
    assert_line(v + "._version" + (sx_.py() ? "" : "()") + " == " + std::to_string(o.version),
                "version of " + v + " is " + std::to_string(o.version));
  } else if (d.field == "storage_nbytes" || d.field == "data_null") {
    assert_line(sx_.py() ? "storage(" + v + ").nbytes() == " + std::to_string(o.storage_nbytes)
                         : "static_cast<int64_t>(" + v + ".storage().nbytes()) == " +
                               std::to_string(o.storage_nbytes),
                "storage of " + v + " has " + std::to_string(o.storage_nbytes) + " bytes");
  } else if (d.field == "is_cow" || d.field == "data_class" || d.field == "data_moved" ||
             d.field == "cow_refs" || d.field == "cow_copies") {
    comment("  (copy-on-write state: this script cannot observe it; values are checked below)");
  }
}

void Emitter::emit_known_guard(size_t k) {
  const EmitKnown& kd = *r_.known;
  std::string msg = "step " + std::to_string(k + 1) + ": known divergence " + kd.id + ": " + kd.reason;
  if (sx_.py()) {
    std::string cond = "True";
    if (kd.versions != "*") {
      std::stringstream ss(kd.versions);
      std::string list;
      int n = 0;
      for (std::string v; std::getline(ss, v, ',');) list += (n++ ? ", " : "") + sx_.quote(v);
      cond = "torch.__version__.startswith((" + list + (n == 1 ? ",))" : "))");
    }
    line("if " + cond + ":  # storcheck known divergence " + kd.id);
    line("    print(" + sx_.quote(msg) + ")");
    line("    sys.exit(0)");
  } else {
    std::string cond = "true";
    if (kd.versions != "*") {
      cond.clear();
      std::stringstream ss(kd.versions);
      std::string v;
      while (std::getline(ss, v, ',')) {
        size_t dot = v.find('.');
        if (dot == std::string::npos) continue;
        cond += std::string(cond.empty() ? "" : " || ") + "(TORCH_VERSION_MAJOR == " +
                v.substr(0, dot) + " && TORCH_VERSION_MINOR == " + v.substr(dot + 1) + ")";
      }
      cond = "defined(TORCH_VERSION_MAJOR) && (" + (cond.empty() ? std::string("0") : cond) + ")";
    }
    body_ += "#if " + cond + "  // storcheck known divergence " + kd.id + "\n";
    line("std::printf(\"%s\\n\", " + sx_.quote(msg) + ");");
    line("return 0;");
    body_ += "#endif\n";
  }
}

/// rehydrate / reshrink expanded from the reference's state (ops.def `*`).
std::string Emitter::storage_steps(const Step& s, const Observation& before) {
  std::string args;
  if (s.op == OpId::kRehydrate) {
    // R5: per storage, the largest extent among its live emptied tensors.
    std::vector<std::pair<int64_t, int64_t>> need;  // token, bytes
    std::vector<VarId> rep;
    for (VarId v = 0; v < static_cast<VarId>(before.vars.size()); ++v) {
      const VarObs& o = before.vars[static_cast<size_t>(v)];
      if (!observed_emptied(o)) continue;
      int64_t bytes = 0;
      if (!observed_geometry(o).required_bytes(&bytes)) continue;
      int64_t tok = storage_token_[static_cast<size_t>(v)];
      auto it = std::find_if(need.begin(), need.end(), [&](auto& e) { return e.first == tok; });
      if (it == need.end()) {
        need.emplace_back(tok, bytes);
        rep.push_back(v);
      } else {
        it->second = std::max(it->second, bytes);
      }
    }
    for (size_t k = 0; k < need.size(); ++k) {
      std::string name = var_name(p_, rep[k]);
      args += std::string(k ? ", " : "") + (sx_.py() ? "(" + name + ", " + std::to_string(need[k].second) + ")"
                                                     : "{" + name + ", " + std::to_string(need[k].second) + "}");
      // Once each: a storage restored again (rehydrate, shrink, rehydrate)
      // is one storage for reshrink.
      if (std::find(restored_keys_.begin(), restored_keys_.end(), need[k].first) ==
          restored_keys_.end())
        restored_keys_.push_back(need[k].first);
    }
    return sx_.py() ? "rehydrate(" + args + ")" : "rehydrate({" + args + "})";
  }
  // reshrink: every restored storage that some live variable still holds.
  int n = 0;
  for (int64_t tok : restored_keys_) {
    for (VarId v = 0; v < static_cast<VarId>(before.vars.size()); ++v) {
      if (!before.vars[static_cast<size_t>(v)].live || storage_token_[static_cast<size_t>(v)] != tok)
        continue;
      args += std::string(n++ ? ", " : "") + var_name(p_, v);
      break;
    }
  }
  return sx_.py() ? "reshrink(" + args + ")" : "reshrink({" + args + "})";
}

std::string Emitter::stop(size_t k, const std::string& reason) {
  std::string msg = "stopping before step " + std::to_string(k + 1) + " (" +
                    print_step(p_, p_.steps[k]) + "): " + reason;
  if (sx_.py()) {
    line("print(" + sx_.quote(msg) + ")");
    line("sys.exit(0)");
  } else {
    line("std::printf(\"%s\\n\", " + sx_.quote(msg) + ");");
    line("return 0;");
  }
  return msg;
}

std::string Emitter::run() {
  if (!sx_.py()) indent_ = "  ";
  storage_token_.assign(static_cast<size_t>(p_.num_vars()), -1);
  std::unique_ptr<Backend> ref = make_reference_backend();
  ref->begin(p_, limits_);
  Observation before, after;
  ref->observe(&before);
  std::vector<bool> bound(static_cast<size_t>(p_.num_vars()), false);
  for (size_t k = 0; k < p_.steps.size(); ++k) {
    const Step& s = p_.steps[k];
    const OpInfo& info = s.info();
    const bool diverges_here = r_.divergence && r_.divergence->step == static_cast<int64_t>(k + 1);
    // Note [Step outcome rules] (oracles/runner.h): unbound inputs skip the step.
    std::string unbound;
    for (int a = 0; a < s.nargs; ++a)
      if (s.args[a].kind == ArgKind::kVar && !bound[static_cast<size_t>(s.args[a].var)])
        unbound = var_name(p_, s.args[a].var);
    if (!unbound.empty()) {
      comment("step " + std::to_string(k + 1) + " (" + print_step(p_, s) + ") is skipped: " +
              unbound + " is unbound (the step defining it failed)");
      continue;
    }
    if (diverges_here && r_.known) emit_known_guard(k);
    Error e = ref->run_step(s);
    ref->observe(&after);
    // Note [sum in f64] (impl/ops.cpp): what the reference refuses has no
    // expected outcome to check (Note [Step outcome rules] rule 5).
    if (std::string refused; ref->take_refusal(&refused)) {
      stop(k, "the reference refuses it (" + refused + "); `storcheck repro` runs this step");
      return assemble();
    }
    std::string_view spelling = sx_.py() ? info.python : info.cpp;
    if (!spelling.empty() && spelling[0] == '!') {
      stop(k, std::string(spelling.substr(1)));
      return assemble();
    }
    if (s.args[0].kind == ArgKind::kVar) {
      const VarObs& in = before.vars[static_cast<size_t>(s.args[0].var)];
      if (sx_.py() && s.op == OpId::kSparseCooTensor && in.dtype != DType::kI64) {
        stop(k, "Python's torch.sparse_coo_tensor converts indices of another dtype to int64 "
                "where LibTorch's raises (known divergence pytorch-sparse-coo-indices-converted): "
                "`storcheck repro` runs the reference");
        return assemble();
      }
      if (!observed_meta(in) && blocked_tiling_overflows(s, in.sizes.data(), in.rank)) {
        stop(k, "LibTorch's tiling of this blocksize overflows int64 (undefined behaviour, S8): "
                "storcheck's LibTorch backend refuses to run it; `storcheck repro` runs the "
                "reference");
        return assemble();
      }
      if (s.nargs > 1 && s.args[1].kind == ArgKind::kVar &&
          coo_dims_overflow(s, in.sizes.data(), in.rank,
                            before.vars[static_cast<size_t>(s.args[1].var)].rank)) {
        stop(k, "LibTorch's sparse_dim + dense_dim overflows int64 for these indices (undefined "
                "behaviour, S8): storcheck's LibTorch backend refuses to run it; `storcheck "
                "repro` runs the reference");
        return assemble();
      }
      if (s.nargs > 2 && s.args[2].kind == ArgKind::kVar) {
        const VarObs& values = before.vars[static_cast<size_t>(s.args[2].var)];
        if (compressed_dims_overflow(s, in.rank, values.sizes.data(), values.rank)) {
          stop(k, "LibTorch's number of compressed rows (columns) + 1 overflows int64 for these "
                  "sizes (undefined behaviour, S8): storcheck's LibTorch backend refuses to run "
                  "it; `storcheck repro` runs the reference");
          return assemble();
        }
      }
      // Case 8) of Note [Steps the PyTorch backend refuses] (python_backend.py):
      // PyTorch 1.13's Python reads strides as SymInts everywhere.
      bool py_unreadable = false;
      for (int a = 0; a < s.nargs; ++a) {
        if (!sx_.py() || s.op == OpId::kDrop || s.args[a].kind != ArgKind::kVar) continue;
        const VarObs& x = before.vars[static_cast<size_t>(s.args[a].var)];
        py_unreadable |=
            x.layout == Layout::kStrided &&
            std::any_of(x.strides.begin(), x.strides.begin() + x.rank, is_symint_pointer);
      }
      if (py_unreadable) {
        stop(k,
             "an input stride lies below -2^62, which PyTorch 1.13's Python reads as a "
             "symbolic int's pointer (a segfault: undefined behaviour, S8); `storcheck repro` "
             "runs this step");
        return assemble();
      }
      if (copies_symint_pointer_stride(s, in.strides.data(), in.rank)) {
        stop(k,
             "a stride lies below -2^62, where LibTorch 1.13 keeps a symbolic int's pointer, "
             "and this op copies it as a c10::SymInt and dereferences it (a segfault: "
             "undefined behaviour, S8): storcheck's LibTorch backend refuses to run it; "
             "`storcheck repro` runs the reference");
        return assemble();
      }
      const bool sets_strides = s.op == OpId::kMeta || s.op == OpId::kFake ||
                                s.op == OpId::kLazyClone || s.op == OpId::kViewDtype;
      if (sets_strides && std::any_of(in.strides.begin(), in.strides.begin() + in.rank,
                                      [](int64_t st) { return st < 0; })) {
        stop(k, "the input's strides wrapped past int64, and LibTorch's set_sizes_and_strides "
                "recomputes a negative stride with an overflowing multiply (undefined "
                "behaviour, S8): storcheck's LibTorch backend refuses to run it; `storcheck "
                "repro` runs the reference");
        return assemble();
      }
    }
    if (s.device != DeviceArg::kHome) {
      stop(k, "a factory with a device argument: the reproducers' factory helpers make CPU "
              "tensors only; `storcheck repro` runs this step");
      return assemble();
    }
    if ((s.op == OpId::kMeta || s.op == OpId::kFake) && s.args[0].kind == ArgKind::kVar &&
        is_sparse(before.vars[static_cast<size_t>(s.args[0].var)].layout)) {
      stop(k, "a meta or fake conversion of a sparse tensor: the reproducers' converter "
              "helpers build strided meta tensors only; `storcheck repro` runs this step");
      return assemble();
    }
    if (storage_level(s.op)) {
      for (int a = 0; a < s.nargs; ++a)
        if (s.args[a].kind == ArgKind::kVar &&
            observed_meta(before.vars[static_cast<size_t>(s.args[a].var)])) {
          stop(k, "a storage-level step on a meta or fake tensor: the reproducers' storage "
                  "helpers handle CPU storages only; `storcheck repro` runs this step");
          return assemble();
        }
    }
    ++steps_emitted_;
    const bool failed = e.kind != ErrorKind::kNone;
    std::string reason = failed ? not_run_reason(s, e) : "";
    if (!reason.empty()) {
      comment("step " + std::to_string(k + 1) + " (" + print_step(p_, s) + ") is not run: " + reason);
      comment("  the reference: " + std::string(error_kind_name(e.kind)) + ": " + e.message);
    } else {
      const VarObs* in = s.nargs > 0 && s.args[0].kind == ArgKind::kVar
                             ? &before.vars[static_cast<size_t>(s.args[0].var)]
                             : nullptr;
      std::string expr;
      const bool restore = !failed && is_clone_path(s.op) && in && observed_emptied(*in) &&
                           after.vars[static_cast<size_t>(s.out)].identity_class !=
                               after.vars[static_cast<size_t>(s.args[0].var)].identity_class;
      if (restore) {
        const VarObs& o = after.vars[static_cast<size_t>(s.out)];
        if (!restore_explained_) {
          comment("R3: " + var_name(p_, s.args[0].var) +
                  " is emptied (its storage has 0 bytes): every clone path gives zeros with");
          comment("the clone's geometry; plain PyTorch 1.13 reads the freed storage here instead.");
          restore_explained_ = true;
        } else {
          comment("R3: " + var_name(p_, s.args[0].var) + " is emptied: zeros");
        }
        expr = "restored(" + sx_.ints(o.sizes.data(), o.rank) + ", " +
               sx_.ints(o.strides.data(), o.rank) + ", " + std::to_string(o.offset) + ", " +
               sx_.dtype(o.dtype) + ")";
      } else if (!spelling.empty() && spelling[0] == '*') {
        expr = storage_steps(s, before);
      } else {
        expr = spell_step(sx_, p_, s, !in || in->values_known);
      }
      const bool assigns = info.result == OpResult::kTensor;
      if (failed) {
        std::string stmt = assigns ? (sx_.py() ? expr : var_name(p_, s.out) + " = " + expr) : expr;
        if (sx_.py())
          line("expect_error(" + where(k) + ", " + sx_.quote(std::string(error_kind_name(e.kind))) +
               ", lambda: " + stmt + ")");
        else
          line("expect_error(" + where(k) + ", " + sx_.quote(std::string(error_kind_name(e.kind))) +
               ", [&] { " + stmt + "; });");
      } else {
        line((assigns ? var_name(p_, s.out) + " = " : std::string()) + expr + sx_.end());
      }
    }
    if (!failed) {
      // Storage identities (for rehydrate/reshrink): views share their base's.
      if (info.result == OpResult::kTensor) {
        const VarObs& o = after.vars[static_cast<size_t>(s.out)];
        storage_token_[static_cast<size_t>(s.out)] =
            o.alias_class >= 0 && o.alias_class != s.out
                ? storage_token_[static_cast<size_t>(o.alias_class)]
                : next_token_++;
        bound[static_cast<size_t>(s.out)] = true;
      }
      // set_ moves its tensor onto src's storage, and with it every variable
      // bound to the same tensor object (identity_class); the storage it
      // left is reshrink's only while another variable still holds it (R5).
      if (s.op == OpId::kSet_) {
        const auto self = static_cast<size_t>(s.args[0].var);
        const int64_t to = storage_token_[static_cast<size_t>(s.args[1].var)];
        const int32_t id = after.vars[self].identity_class;
        for (size_t v = 0; v < after.vars.size(); ++v)
          if (v == self || (id >= 0 && after.vars[v].live && after.vars[v].identity_class == id))
            storage_token_[v] = to;
      }
      if (s.op == OpId::kDrop) bound[static_cast<size_t>(s.args[0].var)] = false;
      if (s.op == OpId::kReshrink) restored_keys_.clear();
    }
    if (diverges_here) emit_divergence(k, after);
    // Checks: every live variable whose observation changed, the step's
    // output, and the diverging variable. After rehydrate and reshrink every
    // live variable: their expansion names storages from the emitter's own
    // bookkeeping, and a storage it got wrong shows as a variable that
    // should not have changed.
    const bool check_all = s.op == OpId::kRehydrate || s.op == OpId::kReshrink;
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      const VarObs& o = after.vars[static_cast<size_t>(v)];
      if (!o.live || !bound[static_cast<size_t>(v)]) continue;
      const bool is_out = !failed && v == s.out;
      const bool is_diverging = diverges_here && v == r_.divergence->var;
      if (!check_all && !is_out && !is_diverging &&
          same_observation(o, before.vars[static_cast<size_t>(v)]))
        continue;
      emit_expect(k, v, o, is_out && info.category == OpCategory::kView);
    }
    std::swap(before, after);
  }
  return assemble();
}

std::string Emitter::assemble() {
  std::string head;
  const std::string c = sx_.comment();
  head += c + "Standalone reproducer emitted by `storcheck emit " +
          (sx_.py() ? "--python" : "--cpp") + "` from " + r_.source + ".\n";
  std::stringstream hs(r_.header);
  for (std::string l; std::getline(hs, l);) {
    if (l.rfind("# storcheck program", 0) == 0) continue;
    head += c + (l.size() > 2 ? l.substr(2) : std::string()) + "\n";
  }
  head += c + "Each expect() states what storcheck's reference implementation observes after\n";
  head += c + "that step (sizes, strides, offset, dtype, values; SEMANTICS.md ids in comments).\n";
  if (r_.divergence) {
    head += c + "LibTorch diverges from the reference at step " +
            std::to_string(r_.divergence->step) + ": " + r_.divergence->field + "; " +
            (r_.known ? "a known divergence (" + r_.known->id + ")."
                      : "this script fails there.") + "\n";
  }
  if (sx_.py()) {
    std::string stem = r_.source.substr(r_.source.find_last_of('/') + 1);
    if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".sc") == 0) stem.resize(stem.size() - 3);
    head += c + "Needs nothing but torch:  python3 " + stem + ".py\n\n";
    std::string helpers = python_helpers_for(body_);
    return head + kPythonPrelude + helpers + "\n\n" + body_ + "print(\"ok: " + steps_done() +
           " as storcheck's reference expects\")\n";
  }
  head += c + "Build against LibTorch, e.g. on Debian (libtorch-dev):\n";
  head += c + "  g++ -std=c++17 repro.cpp -I/usr/include/torch/csrc/api/include -ltorch_cpu -lc10 -o repro\n";
  head += c + "or with CMake: find_package(Torch REQUIRED) and\n";
  head += c + "  add_executable(repro repro.cpp) + target_link_libraries(repro \"${TORCH_LIBRARIES}\")\n\n";
  std::string helpers = helpers_for(kCppHelpers, std::size(kCppHelpers), body_, "\n");
  bool foreign = helpers.find("from_blob(at::IntArrayRef") != std::string::npos;
  // lazy_clone's stand-in refuses foreign storages only when from_blob made some.
  std::string list = foreign ? "g_foreign" : "std::vector<c10::Storage>{}";
  for (size_t at = helpers.find("FOREIGN_STORAGES"); at != std::string::npos;
       at = helpers.find("FOREIGN_STORAGES"))
    helpers.replace(at, 16, list);
  std::string decl;
  if (p_.num_vars() > 0) {
    decl = "  at::Tensor ";
    for (int v = 0; v < p_.num_vars(); ++v) decl += (v ? ", " : "") + p_.var_names[static_cast<size_t>(v)];
    decl += ";\n";
  }
  return head + kCppPrelude + helpers + "\n}  // namespace\n\nint main() {\n" + decl + body_ +
         "  std::printf(\"ok: " + steps_done() +
         " as storcheck's reference expects\\n\");\n  return 0;\n}\n";
}

}  // namespace

std::string semantics_id(OpId op, const std::string& field, bool input_emptied) {
  if (input_emptied && is_clone_path(op)) return "R3";
  switch (op) {
    case OpId::kShrink: return "R1";
    case OpId::kRehydrate:
    case OpId::kReshrink: return "R5";
    case OpId::kResizeStorage: return field == "error" ? "S10" : "R6";
    case OpId::kSetNonresizable: return "S10";
    case OpId::kResize_: return field == "error" ? "S10" : "R6";
    case OpId::kLazyClone:
    case OpId::kFromBlob:
    case OpId::kMutableDataPtr:
      if (field == "values") return "C6";
      if (field == "error") return "C7";
      if (field == "is_cow" || field == "data_class" || field == "data_moved" ||
          field == "cow_refs" || field == "cow_copies")
        return "C2-C4";
      return "C1";
    case OpId::kMeta:
    case OpId::kFake: return field == "error" ? "F4" : "F1-F2";
    case OpId::kToMeta: return "F8";
    case OpId::kFakeFromMeta: return "F5";
    case OpId::kSweep:
    case OpId::kMemoStats: return "F3";
    case OpId::kExpand: return "S7";
    case OpId::kView:
    case OpId::kReshape:
    case OpId::kFlatten:
    case OpId::kUnflatten: return field == "alias_class" ? "S3" : "S6";
    default: break;
  }
  if (field == "fake_memo" || field == "meta_memo") return "F3";
  if (field == "device") return "F1";
  if (field == "alias_class" || field == "identity_class") return "S3";
  if (field == "values") return op_info(op).category == OpCategory::kInplace ? "S3" : "S4";
  if (field == "error") return "S5";
  return "S2";
}

std::string emit_script(EmitLang lang, const EmitRequest& request, const Limits& limits) {
  SC_ASSERT(request.program != nullptr, "emit_script: no program");
  Emitter e(lang, request, limits);
  return e.run();
}

int emit_file(EmitLang lang, const std::string& path, const Limits& limits, std::string* out,
              std::string* err) {
  Program p;
  std::string text;
  if (!read_program_file(path, limits, &p, &text, err)) return 2;
  EmitRequest r;
  r.program = &p;
  r.source = path.substr(path.find_last_of('/') + 1);
  for (size_t at = 0; at < text.size() && text[at] == '#';) {
    size_t end = text.find('\n', at);
    r.header += text.substr(at, end == std::string::npos ? end : end - at + 1);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  BackendSet backends = BackendSet::make(false);
  std::vector<Backend*> list = backends.all();
  if (list.size() > 1) {
    Runner runner(list, limits);
    RunReport rep = runner.run(p);
    if (rep.diverged) {
      const Divergence& d = rep.divergence;
      EmitDivergence ed;
      ed.step = d.step;
      ed.field = d.mismatch.field;
      ed.var = d.mismatch.var;
      ed.expected = d.mismatch.a;
      ed.observed = d.mismatch.b;
      ed.backend = d.backend_b + " (LibTorch " + torch_version() + ")";
      r.divergence = ed;
      std::string_view op = op_info(p.steps[static_cast<size_t>(d.step - 1)].op).name;
      std::string id = known_id_of(text);
      const KnownDivergence* k = id.empty() ? nullptr : find_known_divergence(id);
      if (!k || !k->applies_to(torch_version()))
        k = match_known_divergence(op, d.mismatch, torch_version());
      if (k) r.known = EmitKnown{std::string(k->id), std::string(k->torch_versions),
                                 std::string(k->reason)};
    }
  }
  *out = emit_script(lang, r, limits);
  return 0;
}

}  // namespace storcheck
