// The reference's sparse layouts (impl/sparse.h) against LibTorch's own, on
// many deterministic random dense tensors: every conversion (to_sparse with
// each sparse_dim, CSR, CSC, BSR and BSC with several blocksizes), then
// coalesce of uncoalesced COO tensors built from random indices. Both sides
// must fail alike (the same ErrorKind) or give the same layout, sizes,
// sparse_dim, dense_dim, nnz, coalesced flag, index values and values, and
// the same to_dense. This is the cross-ref oracle of issue 5 for the parts of
// the F group that need real sparse data.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "impl/ops.h"
#include "impl/rand.h"
#include "impl/sparse.h"
#include "oracles/torch_dtype.h"
#include "oracles/torch_errors.h"
#include "oracles/torch_pch.h"

namespace storcheck {
namespace {


/// A splitmix-style generator (deterministic across machines).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
};

/// The same dense tensor on both sides: about half of its elements zero.
struct Dense {
  Tensor ref;
  at::Tensor torch;
};

Dense make_dense(Context& ctx, Rng& rng, std::vector<int64_t> sizes, DType d) {
  Dense out;
  out.ref = zeros(ctx, IntSpan(sizes.data(), static_cast<int>(sizes.size())), d).value();
  const int64_t n = out.ref->numel();
  uint8_t* data = out.ref->storage->mutable_data();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = rng.below(2) ? 0 : 1 + rng.below(5);
    uint8_t* p = data + k * itemsize(d);
    switch (d) {
      case DType::kF32: { float f = static_cast<float>(v) * 0.5f; std::memcpy(p, &f, 4); break; }
      case DType::kF64: { double f = static_cast<double>(v) * 0.5; std::memcpy(p, &f, 8); break; }
      case DType::kI64: std::memcpy(p, &v, 8); break;
      default: break;
    }
  }
  at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(to_torch(d)));
  if (n > 0) std::memcpy(t.data_ptr(), data, static_cast<size_t>(n * itemsize(d)));
  out.torch = t;
  return out;
}

/// The elements of a reference tensor as doubles, row-major.
std::vector<double> ref_values(const Tensor& t) {
  std::vector<uint8_t> bytes;
  read_elements(*t, &bytes);
  std::vector<double> out;
  for (size_t k = 0; k < bytes.size(); k += static_cast<size_t>(itemsize(t->dtype)))
    out.push_back(is_floating(t->dtype) ? load_as_double(bytes.data() + k, t->dtype)
                                        : static_cast<double>(load_as_int(bytes.data() + k, t->dtype)));
  return out;
}

std::vector<double> torch_values(const at::Tensor& t) {
  at::Tensor d = t.contiguous().to(at::kDouble);
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

std::vector<int64_t> torch_sizes(const at::Tensor& t) { return t.sizes().vec(); }
std::vector<int64_t> ref_sizes(const Tensor& t) {
  return std::vector<int64_t>(t->geom.sizes.begin(), t->geom.sizes.begin() + t->rank());
}

/// Compares one conversion's outcome on both sides; "" when they agree.
std::string compare(Context& ctx, const Result<SparseTensor>& r, const at::Tensor* t,
                    ErrorKind torch_error) {
  if (!r.ok() || t == nullptr) {
    ErrorKind re = r.ok() ? ErrorKind::kNone : r.error().kind;
    if (re == torch_error) return "";
    return std::string("error: reference ") + std::string(error_kind_name(re)) +
           (r.ok() ? "" : " (" + r.error().message + ")") + " vs LibTorch " +
           std::string(error_kind_name(torch_error));
  }
  const SparseTensor& s = r.value();
  if (s->sizes != torch_sizes(*t)) return "sizes";
  if (s->dtype != DType::kF32 && to_torch(s->dtype) != t->scalar_type()) return "dtype";
  if (s->layout == SparseLayout::kCoo) {
    if (s->sparse_dim != t->sparse_dim() || s->dense_dim != t->dense_dim()) return "sparse/dense dims";
    if (s->nnz() != t->_nnz()) return "nnz";
    if (s->coalesced != t->is_coalesced()) return "coalesced";
    if (ref_values(s->indices) != torch_values(t->_indices())) return "indices";
    if (ref_sizes(s->values) != torch_sizes(t->_values())) return "values' sizes";
    if (ref_values(s->values) != torch_values(t->_values())) return "values";
  } else {
    at::Tensor ci = s->layout == SparseLayout::kCsr || s->layout == SparseLayout::kBsr
                        ? t->crow_indices()
                        : t->ccol_indices();
    at::Tensor pi = s->layout == SparseLayout::kCsr || s->layout == SparseLayout::kBsr
                        ? t->col_indices()
                        : t->row_indices();
    if (ref_values(s->compressed_indices) != torch_values(ci)) return "compressed indices";
    if (ref_values(s->plain_indices) != torch_values(pi)) return "plain indices";
    if (to_torch(s->index_dtype) != ci.scalar_type()) return "index dtype";
    if (ref_sizes(s->values) != torch_sizes(t->values())) return "values' sizes";
    if (ref_values(s->values) != torch_values(t->values())) return "values";
  }
  Result<Tensor> d = to_dense(ctx, s);
  at::Tensor td;
  ErrorKind te = ErrorKind::kNone;
  try {
    td = t->to_dense();
  } catch (const std::exception& e) {
    te = classify_torch_exception(e).kind;
  }
  if (!d.ok() || te != ErrorKind::kNone)
    return (d.ok() ? ErrorKind::kNone : d.error().kind) == te ? "" : "to_dense error";
  if (ref_sizes(d.value()) != torch_sizes(td)) return "to_dense sizes";
  if (ref_values(d.value()) != torch_values(td)) return "to_dense values";
  return "";
}

/// Runs `torch_op` and compares with the reference's result `r`.
template <typename F>
std::string check(Context& ctx, const Result<SparseTensor>& r, F torch_op) {
  at::Tensor t;
  ErrorKind te = ErrorKind::kNone;
  try {
    t = torch_op();
  } catch (const std::exception& e) {
    te = classify_torch_exception(e).kind;
  }
  return compare(ctx, r, te == ErrorKind::kNone ? &t : nullptr, te);
}

TEST(TorchSparse, ConversionsFromDenseMatchLibTorch) {
  at::NoGradGuard no_grad;
  Rng rng{2026};
  int compared = 0, sparse_results = 0;
  for (int k = 0; k < 300; ++k) {
    Context ctx;
    ctx.budget.max_total_bytes = 64 << 20;
    const int rank = static_cast<int>(rng.below(4));
    std::vector<int64_t> sizes;
    for (int d = 0; d < rank; ++d) sizes.push_back(rng.below(5));
    const DType dt = rng.below(3) == 0 ? DType::kI64 : rng.below(2) ? DType::kF64 : DType::kF32;
    Dense x = make_dense(ctx, rng, sizes, dt);
    const std::string where = "dense sizes rank " + std::to_string(rank) + " case " + std::to_string(k);
    for (int64_t sd = 0; sd <= rank; ++sd) {
      Result<SparseTensor> r = to_sparse_coo(ctx, x.ref, sd);
      std::string why = check(ctx, r, [&] { return x.torch.to_sparse(sd); });
      EXPECT_EQ(why, "") << where << ": to_sparse(" << sd << ")";
      sparse_results += r.ok();
      ++compared;
    }
    EXPECT_EQ(check(ctx, to_sparse_csr(ctx, x.ref), [&] { return x.torch.to_sparse_csr(); }), "")
        << where << ": to_sparse_csr";
    EXPECT_EQ(check(ctx, to_sparse_csc(ctx, x.ref), [&] { return x.torch.to_sparse_csc(); }), "")
        << where << ": to_sparse_csc";
    for (std::array<int64_t, 2> b : {std::array<int64_t, 2>{1, 1}, std::array<int64_t, 2>{1, 2},
                                     std::array<int64_t, 2>{2, 1}, std::array<int64_t, 2>{2, 2}}) {
      EXPECT_EQ(check(ctx, to_sparse_bsr(ctx, x.ref, b),
                      [&] { return x.torch.to_sparse_bsr({b[0], b[1]}); }),
                "")
          << where << ": to_sparse_bsr(" << b[0] << ", " << b[1] << ")";
      EXPECT_EQ(check(ctx, to_sparse_bsc(ctx, x.ref, b),
                      [&] { return x.torch.to_sparse_bsc({b[0], b[1]}); }),
                "")
          << where << ": to_sparse_bsc(" << b[0] << ", " << b[1] << ")";
      compared += 2;
    }
    compared += 2;
  }
  EXPECT_GT(sparse_results, 200) << "most COO conversions succeed";
  EXPECT_GT(compared, 3000);
}

TEST(TorchSparse, CoalesceOfUnsortedDuplicatesMatchesLibTorch) {
  at::NoGradGuard no_grad;
  Rng rng{7};
  for (int k = 0; k < 200; ++k) {
    Context ctx;
    const int64_t sparse_dim = 1 + rng.below(2), nnz = rng.below(7), dense = rng.below(2);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < sparse_dim + dense; ++d) sizes.push_back(1 + rng.below(3));
    std::vector<int64_t> idx_sizes{sparse_dim, nnz};
    Dense idx = make_dense(ctx, rng, idx_sizes, DType::kI64);
    int64_t* ip = reinterpret_cast<int64_t*>(idx.ref->storage->mutable_data());
    for (int64_t d = 0; d < sparse_dim; ++d)
      for (int64_t j = 0; j < nnz; ++j) ip[d * nnz + j] = rng.below(sizes[static_cast<size_t>(d)]);
    if (nnz > 0) std::memcpy(idx.torch.data_ptr(), ip, static_cast<size_t>(sparse_dim * nnz * 8));
    std::vector<int64_t> val_sizes{nnz};
    for (int64_t d = 0; d < dense; ++d) val_sizes.push_back(sizes[static_cast<size_t>(sparse_dim + d)]);
    Dense val = make_dense(ctx, rng, val_sizes, DType::kF64);
    Result<SparseTensor> s =
        sparse_coo_tensor(ctx, idx.ref, val.ref, IntSpan(sizes.data(), static_cast<int>(sizes.size())));
    ASSERT_TRUE(s.ok()) << s.error().message;
    at::Tensor ts = at::sparse_coo_tensor(idx.torch, val.torch, sizes);
    const std::string where = "case " + std::to_string(k) + " nnz " + std::to_string(nnz);
    EXPECT_EQ(compare(ctx, s, &ts, ErrorKind::kNone), "") << where << ": as built";
    EXPECT_EQ(check(ctx, coalesce(ctx, s.value()), [&] { return ts.coalesce(); }), "")
        << where << ": coalesce";
  }
}

}  // namespace
}  // namespace storcheck
