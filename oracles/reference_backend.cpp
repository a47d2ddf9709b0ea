// The reference backend: runs each step through impl/ (the op table's
// reference column is the dispatch below: one case per op of ops.def).
#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "impl/fake.h"
#include "impl/fault.h"
#include "impl/ops.h"
#include "oracles/backend.h"
#include "oracles/first_index.h"

namespace storcheck {

namespace {

IntSpan span(const IntList& l) { return IntSpan(l.v.data(), l.n); }

class ReferenceBackend final : public Backend {
 public:
  explicit ReferenceBackend(bool eager_clone) : eager_clone_(eager_clone) {}
  std::string_view name() const override {
    return eager_clone_ ? "reference_eager_clone" : "reference";
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.cow = !eager_clone_;
    c.cow_refs = !eager_clone_;
    if (eager_clone_) c.skipped_note = "lazy_clone runs as an eager copy: COW fields not observed";
    return c;
  }

  void begin(const Program& program, const Limits& limits) override {
    program_ = &program;
    vars_.assign(static_cast<size_t>(program.num_vars()), nullptr);
    ctx_ = Context{};
    ctx_.budget.max_tensor_bytes = limits.max_tensor_bytes;
    ctx_.budget.max_total_bytes = limits.max_program_bytes;
    restored_.clear();
    fake_conv_ = MetaConverter(/*fake=*/true);
    meta_conv_ = MetaConverter(/*fake=*/false);
    last_data_.assign(vars_.size(), nullptr);
    copies_at_begin_ = cow_copies();
  }

  Error run_step(const Step& s) override {
    if (fault_active(Fault::kHangInZero) && s.op == OpId::kZero_)
      std::this_thread::sleep_for(std::chrono::hours(1));
    if (fault_active(Fault::kCrashInFill) && s.op == OpId::kFill_) std::raise(SIGSEGV);
    if (fault_active(Fault::kThrowInClone) && s.op == OpId::kClone)
      throw std::logic_error("planted internal error (fault throw_in_clone)");
    Result<Tensor> r = dispatch(s);
    if (!r.ok()) {
      Error e = r.error();
      // Errors of steps on meta or fake inputs say so: LibTorch's meta
      // kernels skip some of eager's checks (known divergences match this).
      for (int k = 0; k < s.nargs; ++k)
        if (s.args[k].kind == ArgKind::kVar && vars_[s.args[k].var] &&
            vars_[s.args[k].var]->is_meta()) {
          e.message += " [meta]";
          break;
        }
      return e;
    }
    if (s.out != kNoVar) vars_[s.out] = std::move(r).value();
    return {};
  }

  const Tensor* reference_tensor(VarId v) const override {
    if (v < 0 || static_cast<size_t>(v) >= vars_.size() || !vars_[static_cast<size_t>(v)])
      return nullptr;
    return &vars_[static_cast<size_t>(v)];
  }

  bool rebind(VarId v, Tensor t) override {
    if (v < 0 || static_cast<size_t>(v) >= vars_.size()) return false;
    vars_[static_cast<size_t>(v)] = std::move(t);
    return true;
  }

  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    obs->vars.resize(vars_.size());
    obs->cow_copies = cow_copies() - copies_at_begin_;
    obs->memo_known = true;
    obs->fake_memo = fake_conv_.stats();
    obs->meta_memo = meta_conv_.stats();
    alias_.reset(vars_.size());
    identity_.reset(vars_.size());
    data_.reset(vars_.size());
    for (size_t k = 0; k < vars_.size(); ++k) {
      VarObs& v = obs->vars[k];
      const Tensor& t = vars_[k];
      bool refresh = scope.all_values || static_cast<VarId>(k) == scope.fresh || !v.live;
      v.live = t != nullptr;
      if (!v.live) {
        last_data_[k] = nullptr;
        continue;
      }
      const Geometry& g = t->geom;
      v.rank = g.rank;
      for (int d = 0; d < g.rank; ++d) {
        v.sizes[d] = g.sizes[d];
        v.strides[d] = g.strides[d];
      }
      v.offset = g.offset;
      v.dtype = t->dtype;
      v.layout = Layout::kStrided;
      const bool meta = t->is_meta();
      v.device = meta && !t->fake ? Device::kMeta : Device::kCpu;  // F1: a fake reports cpu
      v.fake = t->fake;
      v.storage_nbytes = t->storage->nbytes();
      v.data_null = t->storage->read_data() == nullptr;
      // The smallest live VarId with the same storage, tensor, data address.
      const int32_t self = static_cast<int32_t>(k);
      v.alias_class = alias_.find_or_insert(t->storage.get(), self);
      v.identity_class = identity_.find_or_insert(t.get(), self);
      const uint8_t* data = t->storage->read_data();
      v.is_cow = t->storage->is_cow();
      v.cow_refs = t->storage->is_cow() ? t->storage->cow_refs() : 0;
      v.foreign = t->storage->foreign();
      v.data_class = data ? data_.find_or_insert(data, self) : -1;
      v.data_moved = last_data_[k] != nullptr && last_data_[k] != data;
      last_data_[k] = data;
      v.version_known = true;
      v.version = *t->version;
      if (refresh) {
        v.values.clear();
        v.values_known = !meta && storage_covers(*t);
        if (v.values_known) read_elements(*t, &v.values);
      }
    }
  }

 private:
  FirstIndex alias_, identity_, data_;  ///< observe()'s classes
  Result<Tensor> none(Status st) {
    if (!st.ok()) return st.error();
    return Tensor{};
  }

  Result<Tensor> dispatch(const Step& s) {
    const Arg* a = s.args.data();
    auto var = [&](int k) -> const Tensor& { return vars_[a[k].var]; };
    auto scalar = [&](int k) { return to_scalar(a[k].scalar); };
    switch (s.op) {
      case OpId::kArange: return arange(ctx_, span(a[0].list), to_dtype(a[1].dtype));
      case OpId::kZeros: return zeros(ctx_, span(a[0].list), to_dtype(a[1].dtype));
      case OpId::kOnes: return ones(ctx_, span(a[0].list), to_dtype(a[1].dtype));
      case OpId::kFull: return full(ctx_, span(a[0].list), scalar(1), to_dtype(a[2].dtype));
      case OpId::kRand: return rand(ctx_, span(a[0].list), to_dtype(a[1].dtype), a[2].i);
      case OpId::kEmptyStrided:
        return empty_strided(ctx_, span(a[0].list), span(a[1].list), to_dtype(a[2].dtype));
      case OpId::kView: return view(var(0), span(a[1].list));
      case OpId::kReshape: return reshape(ctx_, var(0), span(a[1].list));
      case OpId::kAsStrided: return as_strided(var(0), span(a[1].list), span(a[2].list), a[3].i);
      case OpId::kSelect: return select(var(0), a[1].i, a[2].i);
      case OpId::kSlice: return slice(var(0), a[1].i, a[2].i, a[3].i, a[4].i);
      case OpId::kNarrow: return narrow(var(0), a[1].i, a[2].i, a[3].i);
      case OpId::kTranspose: return transpose(var(0), a[1].i, a[2].i);
      case OpId::kT: return t(var(0));
      case OpId::kPermute: return permute(var(0), span(a[1].list));
      case OpId::kMovedim: return movedim(var(0), a[1].i, a[2].i);
      case OpId::kExpand: return expand(var(0), span(a[1].list));
      case OpId::kUnsqueeze: return unsqueeze(var(0), a[1].i);
      case OpId::kSqueeze: return squeeze(var(0), a[1].i);
      case OpId::kFlatten: return flatten(ctx_, var(0), a[1].i, a[2].i);
      case OpId::kUnflatten: return unflatten(var(0), a[1].i, span(a[2].list));
      case OpId::kDiagonal: return diagonal(var(0), a[1].i, a[2].i, a[3].i);
      case OpId::kUnfold: return unfold(var(0), a[1].i, a[2].i, a[3].i);
      case OpId::kSplit: return split(var(0), a[1].i, a[2].i, a[3].i);
      case OpId::kChunk: return chunk(var(0), a[1].i, a[2].i, a[3].i);
      case OpId::kUnbind: return unbind(var(0), a[1].i, a[2].i);
      case OpId::kAlias: return alias(var(0));
      case OpId::kDetach: return detach(var(0));
      case OpId::kAdd_: return none(add_(var(0), scalar(1)));
      case OpId::kMul_: return none(mul_(var(0), scalar(1)));
      case OpId::kFill_: return none(fill_(var(0), scalar(1)));
      case OpId::kZero_: return none(zero_(var(0)));
      case OpId::kCopy_: return none(copy_(var(0), var(1)));
      case OpId::kTranspose_: return none(transpose_(var(0), a[1].i, a[2].i));
      case OpId::kT_: return none(t_(var(0)));
      case OpId::kUnsqueeze_: return none(unsqueeze_(var(0), a[1].i));
      case OpId::kSqueeze_: return none(squeeze_(var(0), a[1].i));
      case OpId::kAsStrided_:
        return none(as_strided_(var(0), span(a[1].list), span(a[2].list), a[3].i));
      case OpId::kResize_: return none(resize_(ctx_, var(0), span(a[1].list)));
      case OpId::kAdd: return add(ctx_, var(0), scalar(1));
      case OpId::kMul: return mul(ctx_, var(0), scalar(1));
      case OpId::kClone: return clone(ctx_, var(0));
      case OpId::kContiguous: return contiguous(ctx_, var(0));
      case OpId::kClonePreserveStrides: return clone_preserve_strides(ctx_, var(0));
      case OpId::kTo: return to(ctx_, var(0), to_dtype(a[1].dtype));
      case OpId::kSum: return sum(ctx_, var(0));
      case OpId::kLazyClone:
        return eager_clone_ ? lazy_clone_as_copy(ctx_, var(0)) : lazy_clone(ctx_, var(0));
      case OpId::kFromBlob: return from_blob(ctx_, span(a[0].list), to_dtype(a[1].dtype));
      case OpId::kMutableDataPtr: return none(mutable_data_ptr(var(0)));
      case OpId::kShrink: return none(shrink(var(0)));
      case OpId::kRehydrate: return none(rehydrate(ctx_, vars_, &restored_));
      case OpId::kReshrink: return none(reshrink(&restored_));
      case OpId::kResizeStorage: return none(resize_storage(ctx_, var(0), a[1].i));
      case OpId::kSetNonresizable: return none(set_nonresizable(var(0)));
      case OpId::kMeta: return meta_conv_.convert(var(0));
      case OpId::kFake: return fake_conv_.convert(var(0));
      case OpId::kToMeta: return to_meta(var(0));
      case OpId::kFakeFromMeta: return MetaConverter::from_meta(var(0));
      case OpId::kSweep:
        fake_conv_.sweep();
        meta_conv_.sweep();
        return Tensor{};
      case OpId::kMemoStats: return Tensor{};  // observe() reports the memos after every step
      case OpId::kDrop:
        vars_[a[0].var] = nullptr;
        return Tensor{};
      case OpId::kNumOps: break;
    }
    SC_ASSERT(false, "op without a reference entry: " + std::string(op_info(s.op).name));
    return Tensor{};
  }

  const Program* program_ = nullptr;
  std::vector<Tensor> vars_;
  std::vector<std::weak_ptr<Storage>> restored_;  ///< for reshrink
  MetaConverter fake_conv_{true}, meta_conv_{false};  ///< `fake` and `meta` steps (F2, F3)
  std::vector<const uint8_t*> last_data_;  ///< data pointers at the last observe
  int64_t copies_at_begin_ = 0;
  bool eager_clone_;
  Context ctx_;
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() {
  return std::make_unique<ReferenceBackend>(false);
}
std::unique_ptr<Backend> make_reference_eager_clone_backend() {
  return std::make_unique<ReferenceBackend>(true);
}

}  // namespace storcheck
