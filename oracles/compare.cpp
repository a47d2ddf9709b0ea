#include "oracles/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "impl/tensor.h"

namespace storcheck {

namespace {

std::string ints(const std::array<int64_t, kMaxDims>& v, int n) {
  return format_ints(IntSpan(v.data(), n));
}

bool element_equal(const uint8_t* x, const uint8_t* y, DType d) {
  if (is_floating(d)) {
    double a = load_as_double(x, d), b = load_as_double(y, d);
    if (a == b || (std::isnan(a) && std::isnan(b))) return true;
    if (!std::isfinite(a) || !std::isfinite(b)) return false;
    double tol = d == DType::kF32 ? 1e-5 : 1e-12;
    return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
  }
  return std::memcmp(x, y, static_cast<size_t>(itemsize(d))) == 0;
}

std::string element_str(const uint8_t* p, DType d) {
  if (is_floating(d)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", load_as_double(p, d));
    return buf;
  }
  if (d == DType::kBool) return *p ? "True" : "False";
  return std::to_string(load_as_int(p, d));
}

}  // namespace

std::string format_values(const VarObs& v, size_t max_elems) {
  if (!v.values_known) return "<not observable>";
  size_t is = static_cast<size_t>(itemsize(v.dtype));
  size_t n = v.values.size() / is;
  std::string s = "[";
  for (size_t k = 0; k < n && k < max_elems; ++k) {
    if (k) s += ", ";
    s += element_str(v.values.data() + k * is, v.dtype);
  }
  if (n > max_elems) s += ", ... (" + std::to_string(n) + " elements)";
  s += "]";
  // Note [Observing overlapping views] (impl/geometry.h)
  return observed_by_offset(v) ? "at its distinct offsets " + s : s;
}

bool compare_observations(const Observation& a, const Capabilities& ca, const Observation& b,
                          const Capabilities& cb, Mismatch* m, const std::vector<VarId>* only) {
  auto fail = [&](const char* field, VarId var, std::string x, std::string y) {
    m->field = field;
    m->var = var;
    m->a = std::move(x);
    m->b = std::move(y);
    m->error_a = a.error_message;
    m->error_b = b.error_message;
    m->note_a = a.step_note;
    m->note_b = b.step_note;
    const size_t k = static_cast<size_t>(var);
    m->on_meta = var != kNoVar && k < a.vars.size() && a.vars[k].live && observed_meta(a.vars[k]);
    return false;
  };
  if (ca.cow_refs && cb.cow_refs && a.cow_copies != b.cow_copies)
    return fail("cow_copies", kNoVar, std::to_string(a.cow_copies), std::to_string(b.cow_copies));
  if (a.error != b.error)
    return fail("error", kNoVar,
                std::string(error_kind_name(a.error)) +
                    (a.error_message.empty() ? "" : " (" + a.error_message + ")"),
                std::string(error_kind_name(b.error)) +
                    (b.error_message.empty() ? "" : " (" + b.error_message + ")"));
  auto memo_str = [](const MemoStats& s) {
    return std::to_string(s.tensors) + " tensors, " + std::to_string(s.storages) + " storages (" +
           std::to_string(s.pending) + " pending), " + std::to_string(s.sparse) + " sparse";
  };
  if (a.memo_known && b.memo_known) {
    if (!(a.fake_memo == b.fake_memo))
      return fail("fake_memo", kNoVar, memo_str(a.fake_memo), memo_str(b.fake_memo));
    if (!(a.meta_memo == b.meta_memo))
      return fail("meta_memo", kNoVar, memo_str(a.meta_memo), memo_str(b.meta_memo));
  }
  size_t n = std::max(a.vars.size(), b.vars.size());
  static const VarObs kDead;
  const size_t count = only ? only->size() : n;
  for (size_t i = 0; i < count; ++i) {
    const size_t k = only ? static_cast<size_t>((*only)[i]) : i;
    const VarObs& x = k < a.vars.size() ? a.vars[k] : kDead;
    const VarObs& y = k < b.vars.size() ? b.vars[k] : kDead;
    VarId v = static_cast<VarId>(k);
    if (x.live != y.live)
      return fail("live", v, x.live ? "live" : "unbound", y.live ? "live" : "unbound");
    if (!x.live) continue;
    if (x.rank != y.rank) return fail("rank", v, std::to_string(x.rank), std::to_string(y.rank));
    for (int d = 0; d < x.rank; ++d)
      if (x.sizes[d] != y.sizes[d]) return fail("sizes", v, ints(x.sizes, x.rank), ints(y.sizes, y.rank));
    const bool twin = ca.fake_twin || cb.fake_twin;
    // F6: strides of dims of size > 1, of tensors with elements: PyTorch's
    // check_significant_strides (torch._prims_common), which its cross-ref
    // mode uses. A 0-element tensor addresses nothing, and LibTorch's own
    // meta and CPU kernels disagree there (add of a u8 [1,0,4,3] with
    // strides [4,5,0,2^62] promoted to f32: CPU converts the input first and
    // gives [12,12,3,1], meta orders by the input's strides and gives
    // [1,4,1,0]; found by the gate's fake.crossref_matches_eager, seed 15151).
    const bool significant = !twin || observed_numel(x) > 0;
    for (int d = 0; significant && d < x.rank; ++d)
      if (x.strides[d] != y.strides[d] && !(twin && x.sizes[d] <= 1))
        return fail("strides", v, ints(x.strides, x.rank), ints(y.strides, y.rank));
    if (x.offset != y.offset)
      return fail("offset", v, std::to_string(x.offset), std::to_string(y.offset));
    if (x.dtype != y.dtype)
      return fail("dtype", v, std::string(dtype_name(x.dtype)), std::string(dtype_name(y.dtype)));
    if (x.layout != y.layout)
      return fail("layout", v, std::string(layout_name(x.layout)), std::string(layout_name(y.layout)));
    if (is_sparse(x.layout)) {  // F4 metadata; Note [Observing a sparse variable]
      auto num = [](int64_t n) { return std::to_string(n); };
      if (x.sparse_dim != y.sparse_dim) return fail("sparse_dim", v, num(x.sparse_dim), num(y.sparse_dim));
      if (x.dense_dim != y.dense_dim) return fail("dense_dim", v, num(x.dense_dim), num(y.dense_dim));
      if (x.nnz != y.nnz) return fail("nnz", v, num(x.nnz), num(y.nnz));
      if (x.coalesced != y.coalesced)
        return fail("coalesced", v, x.coalesced ? "coalesced" : "uncoalesced",
                    y.coalesced ? "coalesced" : "uncoalesced");
      if (x.blocksize != y.blocksize)
        return fail("blocksize", v, format_ints(IntSpan(x.blocksize.data(), 2)),
                    format_ints(IntSpan(y.blocksize.data(), 2)));
      if (x.index_dtype != y.index_dtype)
        return fail("index_dtype", v, std::string(dtype_name(x.index_dtype)),
                    std::string(dtype_name(y.index_dtype)));
    }
    // Each backend's own device stands for the other's (issue 11: CPU vs CUDA).
    // A tensor on another real device than its backend's stays a mismatch.
    auto home = [](Device d, const Capabilities& c) {
      return d == c.device ? 0 : d == Device::kMeta ? 1 : 2 + static_cast<int>(d);
    };
    if (home(x.device, ca) != home(y.device, cb) || (x.fake != y.fake && !twin)) {
      auto dev = [](const VarObs& o) {
        std::string d = o.device == Device::kMeta ? "meta" : o.device == Device::kCuda ? "cuda" : "cpu";
        return o.fake ? "fake " + d : d;
      };
      return fail("device", v, dev(x), dev(y));
    }
    if (x.storage_nbytes != y.storage_nbytes)
      return fail("storage_nbytes", v, std::to_string(x.storage_nbytes),
                  std::to_string(y.storage_nbytes));
    if (x.data_null != y.data_null && !twin)
      return fail("data_null", v, x.data_null ? "null" : "non-null", y.data_null ? "null" : "non-null");
    if (x.alias_class != y.alias_class)
      return fail("alias_class", v, "t#" + std::to_string(x.alias_class),
                  "t#" + std::to_string(y.alias_class));
    if (ca.identity && cb.identity && x.identity_class != y.identity_class)
      return fail("identity_class", v, "t#" + std::to_string(x.identity_class),
                  "t#" + std::to_string(y.identity_class));
    if (ca.cow && cb.cow) {
      if (x.is_cow != y.is_cow)
        return fail("is_cow", v, x.is_cow ? "COW" : "not COW", y.is_cow ? "COW" : "not COW");
      if (x.data_class != y.data_class)
        return fail("data_class", v, "t#" + std::to_string(x.data_class),
                    "t#" + std::to_string(y.data_class));
      if (x.data_moved != y.data_moved)
        return fail("data_moved", v, x.data_moved ? "moved" : "kept", y.data_moved ? "moved" : "kept");
    }
    if (ca.cow_refs && cb.cow_refs && x.cow_refs != y.cow_refs)
      return fail("cow_refs", v, std::to_string(x.cow_refs), std::to_string(y.cow_refs));
    if (ca.version && cb.version && x.version_known && y.version_known && x.version != y.version)
      return fail("version", v, std::to_string(x.version), std::to_string(y.version));
    if (ca.values && cb.values && x.values_known != y.values_known)
      return fail("values_known", v, x.values_known ? "observable" : "not observable",
                  y.values_known ? "observable" : "not observable");
    if (ca.values && cb.values && x.values_known && y.values_known) {
      size_t is = static_cast<size_t>(itemsize(x.dtype));
      if (x.values.size() != y.values.size()) return fail("values", v, format_values(x), format_values(y));
      if (x.values == y.values) continue;  // bytewise equal: the common case
      for (size_t e = 0; e < x.values.size(); e += is)
        if (!element_equal(x.values.data() + e, y.values.data() + e, x.dtype))
          return fail("values", v, format_values(x), format_values(y));
    }
  }
  return true;
}

}  // namespace storcheck
