// The fake twin: each program on fake twins of the reference's real tensors,
// for the F6 cross-ref (fake.crossref_matches_eager) and the F7 fallback
// check (fake.fallback_rules).
//
// Note [Fake twin]
// PyTorch's cross-ref mode runs every op twice, on real tensors and on their
// fake conversions, and compares the outputs' metadata. The twin does the
// same with three reference backends:
// - `real_` runs the program on real tensors. Only its resource limits
//   matter here: a step it rejects with kResourceLimit is rejected by the
//   twin too (a fake run allocates nothing, so it cannot know), and the
//   step's output stays unbound on both sides.
// - `fakes_` holds the twins. A factory runs there for real and its result
//   is replaced by its conversion (a fake converter, F1); every other step
//   then runs on the fakes through the meta rules (Note [Meta execution] in
//   impl/ops.cpp). Its observations are the twin's: the Runner compares them
//   with the reference's real run under Capabilities::fake_twin (sizes,
//   strides on dims of size > 1 of tensors with elements, offset, dtype,
//   device, storage nbytes, aliasing, identity, versions and errors; F6).
// - `zeros_` (with check_fallback) runs each op a second time through the
//   F7 fallback: on zeros of the fakes' geometry (impl/fake.h
//   fallback_inputs), its output mapped back by fallback_output. Where the
//   meta rule and the fallback must agree (a fresh output's metadata, an
//   output identical to an input, the same error), or where the fallback
//   must raise (an output that is a view; inplace_view ops), a difference is
//   reported through take_invariant_finding().
// Sparse variables have twins too: sparse tensors whose parts are fake.
// - The steps whose result's nnz comes from the data (to_sparse_*,
//   sparse_coo_tensor, sparse_{csr,csc,bsr,bsc}_tensor, coalesce of an
//   uncoalesced input) are, for the twin, what factories are: PyTorch's
//   FakeTensorMode cannot run them (a data-dependent output shape). The step's outcome is the real run's,
//   and its result's twin keeps the metadata and nnz, with each part
//   fake: the twin of the variable whose real tensor is the part (the
//   compressed constructors keep their inputs themselves), else over the
//   fake storage of a variable whose real tensor shares the part's storage
//   (sparse_coo_tensor aliases its inputs, S3), else converted (F1, F2).
// - Every other step runs on the twins: the accessors give fake views of
//   the fake parts (aliasing, versions: S2, S3), coalesce of a coalesced
//   input returns it, to_dense gives a fake tensor of eager's geometry
//   (Case 4 of Note [to_dense strides] in impl/sparse.cpp), and strided ops
//   on the parts run through the meta rules. The one data-dependent error
//   is to_dense's check of indices written through an accessor (S8): a
//   real run that raises it where the twin succeeds gives the real outcome.
// The Runner compares a sparse twin's layout, sizes, dtype, sparse_dim,
// dense_dim, nnz, coalesced flag, blocksize and index dtype (Note
// [Observing a sparse variable]).
// Programs with storage or conversion steps are not cross-ref programs: the
// twin runs them, but their observations are not meant to agree. Nor is who
// owns the data (C7): lazy_clone of a from_blob tensor raises on eager and
// not on its fake twin, which has no data.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/fake.h"
#include "impl/pool.h"
#include "impl/sparse.h"
#include "impl/tensor.h"
#include "oracles/backend.h"
#include "oracles/layout_policy.h"

namespace storcheck {

namespace {

/// The fallback's zeros may be as large as one tensor may be, but their
/// total is not the program's: each is freed after its step.
constexpr int64_t kUnboundedTotal = int64_t{1} << 50;

class FakeTwinBackend final : public Backend {
 public:
  explicit FakeTwinBackend(bool check_fallback)
      : real_(make_reference_backend()),
        fakes_(make_reference_backend()),
        zeros_(make_reference_backend()),
        check_fallback_(check_fallback) {}

  std::string_view name() const override { return check_fallback_ ? "fake_fallback" : "fake_twin"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.values = false;
    c.cow = false;
    c.fake_twin = true;
    c.skipped_note =
        "fake twins: no values, data pointers or COW state; strides compared on dims of size > 1 "
        "of tensors with elements (F6)";
    return c;
  }

  void begin(const Program& program, const Limits& limits) override {
    num_vars_ = program.num_vars();
    real_->begin(program, limits);
    Limits relaxed = limits;
    relaxed.max_program_bytes = kUnboundedTotal;
    fakes_->begin(program, relaxed);
    zeros_->begin(program, relaxed);
    conv_ = MetaConverter(/*fake=*/true);
    fallback_conv_ = MetaConverter(/*fake=*/true);
    zero_ctx_ = Context{};
    zero_ctx_.budget.max_tensor_bytes = limits.max_tensor_bytes;
    zero_ctx_.budget.max_total_bytes = kUnboundedTotal;
    finding_.clear();
  }

  Error run_step(const Step& s) override {
    const bool from_data = sparse_from_data(s);
    Error real = real_->run_step(s);
    if (from_data) return twin_sparse_result(s, real);
    const OpCategory cat = s.info().category;
    std::optional<Result<Tensor>> fallback;
    std::vector<Tensor> fakes;
    if (check_fallback_ && real.kind != ErrorKind::kResourceLimit && fallback_applies(cat))
      fallback = run_fallback(s, &fakes);
    // A step the real run refuses for its limits does not run on the twins
    // either: an in-place one would still bump their version (fill_ of a
    // huge expand, Note [Elements a step reads] in impl/ops.h).
    if (real.kind == ErrorKind::kResourceLimit) {
      if (s.out != kNoVar) fakes_->rebind(s.out, nullptr);
      return real;
    }
    Error fake = fakes_->run_step(s);  // the meta rules
    // Indices checked on data (Note [Fake twin]), and parts whose shapes
    // fail the construction checks after an in-place change (Note
    // [Compressed parts are the inputs] in impl/sparse.cpp): the twin's meta
    // to_dense checks neither and may raise later's error (hybrid) instead.
    if (s.op == OpId::kToDense && real.kind == ErrorKind::kUndefinedBehavior) {
      if (fake.kind == ErrorKind::kNone) fakes_->rebind(s.out, nullptr);
      return real;
    }
    if (fallback) compare_fallback(s, fakes, *fallback, fake);
    if (cat == OpCategory::kFactory && fake.kind == ErrorKind::kNone && s.out != kNoVar) {
      Result<Tensor> twin = conv_.convert(*fakes_->reference_tensor(s.out));  // F1
      if (!twin.ok()) return twin.error();
      fakes_->rebind(s.out, std::move(twin).value());
    }
    return fake;
  }

  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    // Every twin (Note [Incremental observation]: a backend may observe
    // more): the runner's list follows the eager classes, and a twin that
    // aliases differently must show it in full.
    ObserveScope all = scope;
    all.vars = nullptr;
    fakes_->observe(obs, all);
  }

  std::string take_invariant_finding() override { return std::exchange(finding_, {}); }

 private:
  /// The sparse steps whose result's nnz comes from the data (Note [Fake
  /// twin]): the conversions from strided, sparse_coo_tensor, and coalesce
  /// of a real input that is not coalesced (a coalesced one is returned).
  bool sparse_from_data(const Step& s) const {
    if (builds_sparse_from_strided(s.op)) return true;
    if (s.op != OpId::kCoalesce) return false;
    const SparseTensor* in = real_->reference_sparse(s.args[0].var);
    return !in || !(*in)->coalesced;
  }

  /// A data-dependent sparse step: the real run's outcome, and the twin of
  /// its result bound on the fakes.
  Error twin_sparse_result(const Step& s, const Error& real) {
    if (real.kind != ErrorKind::kNone || s.out == kNoVar) {
      if (s.out != kNoVar) fakes_->rebind_sparse(s.out, nullptr);
      return real;
    }
    const SparseTensor* r = real_->reference_sparse(s.out);
    SC_ASSERT(r && *r, "fake twin: " + std::string(s.info().name) + " bound no sparse tensor");
    auto t = std::make_shared<SparseTensorImpl>(**r);
    t->version = (*r)->version ? make_pooled<int64_t>(*(*r)->version) : nullptr;
    for (Tensor* part : {&t->indices, &t->compressed_indices, &t->plain_indices, &t->values}) {
      if (!*part) continue;
      Result<Tensor> f = twin_part(*part);
      if (!f.ok()) return f.error();
      *part = std::move(f).value();
    }
    fakes_->rebind_sparse(s.out, std::move(t));
    return real;
  }

  /// The fake of a real sparse part: the twin of a variable whose real
  /// tensor is the part, else a tensor over the fake storage of a variable
  /// whose real tensor shares the part's storage (sparse_coo_tensor's parts
  /// alias its inputs, S3), else its conversion (F1, F2).
  Result<Tensor> twin_part(const Tensor& part) {
    // sparse_{csr,...}_tensor keeps its input tensors themselves (Note
    // [Compressed parts are the inputs] in impl/sparse.cpp): the twin keeps
    // the inputs' twins, which the same in-place steps change.
    for (VarId v = 0; v < num_vars_; ++v) {
      const Tensor* rt = real_->reference_tensor(v);
      const Tensor* ft = fakes_->reference_tensor(v);
      if (rt && ft && *rt && *ft && rt->get() == part.get()) return *ft;
    }
    for (VarId v = 0; v < num_vars_; ++v) {
      const Tensor* rt = real_->reference_tensor(v);
      const Tensor* ft = fakes_->reference_tensor(v);
      if (!rt || !ft || !*rt || !*ft || (*rt)->storage != part->storage) continue;
      auto f = make_pooled<TensorImpl>(*part);
      f->storage = (*ft)->storage;
      f->version =
          (*rt)->version == part->version ? (*ft)->version : make_pooled<int64_t>(*part->version);
      f->fake = true;
      return Tensor(std::move(f));
    }
    return conv_.convert(part);
  }

  static bool fallback_applies(OpCategory c) {
    return c == OpCategory::kView || c == OpCategory::kInplace || c == OpCategory::kInplaceView ||
           c == OpCategory::kCompute;
  }

  /// F7: step `s` through the fallback, on zeros of the current fakes (the
  /// step's tensor inputs, left in *fakes). Nothing when the fallback cannot
  /// be compared: an input is not fake, or the zeros are too large to make.
  std::optional<Result<Tensor>> run_fallback(const Step& s, std::vector<Tensor>* fakes) {
    std::vector<VarId> vars;
    for (int k = 0; k < s.nargs; ++k) {
      if (s.args[k].kind != ArgKind::kVar) continue;
      const Tensor* f = fakes_->reference_tensor(s.args[k].var);
      if (!f || !*f || !(*f)->fake) return std::nullopt;
      fakes->push_back(*f);
      vars.push_back(s.args[k].var);
    }
    if (fakes->empty()) return std::nullopt;
    Status allowed =
        fallback_allowed(s.info().name, s.info().category == OpCategory::kInplaceView);
    if (!allowed.ok()) return Result<Tensor>(allowed.error());
    Result<std::vector<Tensor>> reals = fallback_inputs(zero_ctx_, *fakes);
    if (!reals.ok()) return std::nullopt;
    for (size_t k = 0; k < vars.size(); ++k) zeros_->rebind(vars[k], reals.value()[k]);
    Error e = zeros_->run_step(s);
    Tensor out;
    if (e.kind == ErrorKind::kNone && s.out != kNoVar) out = *zeros_->reference_tensor(s.out);
    for (VarId v : vars) zeros_->rebind(v, nullptr);
    if (s.out != kNoVar) zeros_->rebind(s.out, nullptr);
    if (e.kind == ErrorKind::kResourceLimit) return std::nullopt;
    if (e.kind != ErrorKind::kNone) return Result<Tensor>(e);
    return fallback_output(*fakes, reals.value(), out, fallback_conv_);
  }

  /// F7's rules for the fallback's result `fb` beside the meta rule's
  /// outcome `meta` of step `s`; a broken rule becomes finding_.
  void compare_fallback(const Step& s, const std::vector<Tensor>& fakes, const Result<Tensor>& fb,
                        const Error& meta) {
    const std::string op(s.info().name);
    auto outcome = [](const Result<Tensor>& r) {
      return r.ok() ? std::string("succeeds") : "raises " + std::string(error_kind_name(r.error().kind));
    };
    if (s.info().category == OpCategory::kInplaceView) {  // never falls back
      if (fb.ok() || fb.error().kind != ErrorKind::kUnsupportedFakeTensor)
        finding_ = "F7: " + op + " is tagged inplace_view, but its fallback " + outcome(fb) +
                   " instead of raising unsupported_fake_tensor";
      return;
    }
    if (meta.kind != ErrorKind::kNone) {
      if (fb.ok() || fb.error().kind != meta.kind)
        finding_ = "F7: " + op + ": the meta rule raises " +
                   std::string(error_kind_name(meta.kind)) + ", the fallback " + outcome(fb);
      return;
    }
    const Tensor* m = s.out == kNoVar ? &fakes[0] : fakes_->reference_tensor(s.out);
    if (!m || !*m) return;
    bool identical = false, aliases = false;
    for (const Tensor& f : fakes) {
      identical |= f == *m;
      aliases |= f->storage == (*m)->storage;
    }
    if (identical) {
      if (!fb.ok() || fb.value() != *m)
        finding_ = "F7: " + op + ": the output is an input, but the fallback " +
                   (fb.ok() ? std::string("returns another tensor") : outcome(fb));
      return;
    }
    if (aliases) {
      if (fb.ok() || fb.error().kind != ErrorKind::kUnsupportedFakeTensor)
        finding_ = "F7: " + op + ": the output aliases an input, but the fallback " +
                   (fb.ok() ? std::string("returns a fake tensor with a storage of its own")
                            : outcome(fb)) + " instead of raising unsupported_fake_tensor";
      return;
    }
    if (!fb.ok()) {
      finding_ = "F7: " + op + ": the output is fresh, but the fallback " + outcome(fb) + " (" +
                 fb.error().message + ")";
      return;
    }
    const TensorImpl& a = **m;
    const TensorImpl& b = *fb.value();
    // The strides of a 0-element output are not significant (F6's rule,
    // oracles/compare.cpp): LibTorch's CPU and meta kernels disagree there.
    const bool strides_count = a.numel() > 0;
    // The dims below the rank (Note [Geometry copies] in impl/geometry.h).
    const int n = a.geom.rank;
    bool same = n == b.geom.rank &&
                std::equal(a.geom.sizes.begin(), a.geom.sizes.begin() + n, b.geom.sizes.begin()) &&
                (!strides_count || std::equal(a.geom.strides.begin(), a.geom.strides.begin() + n,
                                              b.geom.strides.begin())) &&
                a.geom.offset == b.geom.offset && a.dtype == b.dtype && a.fake == b.fake &&
                a.storage->nbytes() == b.storage->nbytes();
    if (!same)
      finding_ = "F7: " + op + ": the fallback's output (sizes " + format_sizes(b.geom) +
                 ", strides " + format_strides(b.geom) + ", offset " + std::to_string(b.geom.offset) +
                 ", " + std::to_string(b.storage->nbytes()) + " bytes) differs from the meta rule's (sizes " +
                 format_sizes(a.geom) + ", strides " + format_strides(a.geom) + ", offset " +
                 std::to_string(a.geom.offset) + ", " + std::to_string(a.storage->nbytes()) + " bytes)";
  }

  std::unique_ptr<Backend> real_, fakes_, zeros_;
  MetaConverter conv_{true}, fallback_conv_{true};
  Context zero_ctx_;
  std::string finding_;
  int num_vars_ = 0;
  bool check_fallback_;
};

}  // namespace

std::unique_ptr<Backend> make_fake_twin_backend(bool check_fallback) {
  return std::make_unique<FakeTwinBackend>(check_fallback);
}

}  // namespace storcheck
