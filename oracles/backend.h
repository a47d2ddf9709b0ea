// A Backend executes a program step by step and reports observations.
// Implementations: the reference (impl/), LibTorch CPU eager, and later
// LibTorch CUDA/meta, the reference fake converter, and PyTorch via CPython.
//
// Contract shared by every backend (see Note [Step outcome rules]):
// - `begin` resets all state for a new program under the given Limits.
// - `run_step` executes one step; a failed step reports its ErrorKind and
//   leaves the step's output variable unbound. A step that reads an unbound
//   variable is not run: it reports `skipped` (the Runner handles this
//   before calling the backend, so backends never see unbound inputs).
// - Allocation limits: before allocating, an op whose new allocation would
//   exceed Limits::max_tensor_bytes, or bring the run's total beyond
//   Limits::max_program_bytes, raises kResourceLimit. Int64 overflow of an
//   extent raises kStorageSizeOverflow first (S9).
// - Unspecified bytes (empty_strided, storage growth by resize_) are defined
//   as zero by every backend so that values compare (R6).
// - A backend never executes undefined behaviour (S8): compute kernels on a
//   tensor whose storage is smaller than its extent report
//   kUndefinedBehavior without running.
//
//   std::unique_ptr<Backend> b = make_reference_backend();
//   b->begin(program, limits);
//   for (const Step& s : program.steps) { b->run_step(s); b->observe(&obs); }
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "impl/error.h"
#include "impl/sparse.h"
#include "impl/tensor.h"
#include "oracles/observation.h"
#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

/// Which observation fields a backend can see.
struct Capabilities {
  bool version = true;   ///< version counters
  bool identity = true;  ///< tensor object identity
  bool values = true;    ///< element bytes
  bool cow = true;       ///< is_cow, data_class, data_moved (LibTorch 2.3+ and the reference)
  bool cow_refs = false; ///< COW reference counts (the reference only)
  /// Observes fake twins of the other backend's tensors (F6 cross-ref): the
  /// fake flag and data pointers are not compared, and strides only on dims
  /// of size > 1 (oracles/fake_twin_backend.cpp).
  bool fake_twin = false;
  /// Where the backend's real tensors live: the comparator matches a
  /// variable on one backend's device with the same variable on the other's
  /// (a CPU backend vs a CUDA one, issue 11); meta is meta everywhere.
  Device device = Device::kCpu;
  /// Why some fields are not observed ("" when all are), for reports.
  std::string_view skipped_note;
};

/// Which variables observe() must read again. See Note [Incremental
/// observation] in oracles/runner.cpp.
struct ObserveScope {
  /// Only these variables (ascending; for every alias, identity and
  /// data-address class of a listed variable, the class's id, its smallest
  /// live member, is listed too, so class ids numbered over the list alone
  /// are right); the others keep their last observation, except that
  /// data_moved is false. Null: every variable. A backend may always
  /// observe more (every variable) than it is asked to.
  const std::vector<VarId>* vars = nullptr;
  bool all_values = true;  ///< element values of every observed live variable
  VarId fresh = kNoVar;    ///< else only this one's (and any variable newly live)
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "reference", "torch_cpu", ...
  virtual std::string_view name() const = 0;
  virtual Capabilities capabilities() const { return {}; }
  /// Resets state for `program` (which must stay alive until the next begin).
  virtual void begin(const Program& program, const Limits& limits) = 0;
  /// Runs one step (all its input variables are bound). Returns the error
  /// (kind kNone on success).
  virtual Error run_step(const Step& step) = 0;
  /// Fills obs->vars (resized to the program's variable count) with every
  /// variable's state. `error`/`skipped` are filled by the Runner.
  virtual void observe(Observation* obs, const ObserveScope& scope = {}) = 0;
  /// A finding of the crash-isolated unsafe mode after the last step ("" if
  /// none): see make_torch_cpu_backend(true).
  virtual std::string take_unsafe_finding() { return std::string(); }
  /// A SEMANTICS rule the backend found broken at the last step ("" if
  /// none), checked inside the backend: the fake twin's F7 fallback check.
  virtual std::string take_invariant_finding() { return std::string(); }
  /// The Mismatch::field a take_unsafe_finding() result is reported under.
  virtual std::string_view finding_field() const { return "eager_unsafe"; }
  /// Whether the backend refused the last step without running it (false
  /// when it ran), with the reason moved into `*why` unless `why` is null:
  /// the step is one this backend cannot express or run faithfully, and the
  /// Runner ends the comparison there as not comparable (Note [Step outcome
  /// rules] rule 5 in oracles/runner.h). run_step then returns kNone. Every
  /// step asks, so the answer "no" makes no string (issue 8).
  virtual bool take_refusal(std::string* why) {
    (void)why;
    return false;
  }
  /// The reference's tensor bound to `v` (null when unbound, or for a
  /// backend that is not the reference): the meta/fake checks convert the
  /// reference's own tensors (harness/invariants.h kFakeAliasing).
  virtual const Tensor* reference_tensor(VarId v) const {
    (void)v;
    return nullptr;
  }
  /// Binds `v` to `t` (null unbinds it) in the reference; false for other
  /// backends. The fake twin uses it to run a step on tensors of its choice.
  virtual bool rebind(VarId v, Tensor t) {
    (void)v;
    (void)t;
    return false;
  }
  /// The reference's real sparse tensor bound to `v` (null otherwise): the
  /// F3 check of sparse conversions (harness/invariants.h kFakeSweepFrees).
  virtual const SparseTensor* reference_sparse(VarId v) const {
    (void)v;
    return nullptr;
  }
  /// Binds `v` to the sparse tensor `t` (null unbinds it) in the reference;
  /// false for other backends. The fake twin binds its conversions of the
  /// real run's sparse results (Note [Fake twin]).
  virtual bool rebind_sparse(VarId v, SparseTensor t) {
    (void)v;
    (void)t;
    return false;
  }

 protected:
  /// take_refusal over a backend's pending reason ("" for none): hands it
  /// to `why` (dropped when null) and clears it.
  static bool hand_over_refusal(std::string* pending, std::string* why) {
    if (pending->empty()) return false;
    if (why) *why = std::move(*pending);
    pending->clear();
    return true;
  }
};

/// DTypeArg (program/) to DType (impl/): same order by construction.
inline DType to_dtype(DTypeArg d) { return static_cast<DType>(static_cast<int>(d)); }
inline Scalar to_scalar(const ScalarLit& s) {
  return Scalar{static_cast<Scalar::Kind>(static_cast<int>(s.kind)), s.i, s.f};
}

/// `home`: the device of its factories' tensors (issue 11: kCuda to compare
/// with the LibTorch CUDA backend); the reference's bytes stay on the host.
std::unique_ptr<Backend> make_reference_backend(DeviceType home = DeviceType::kCpu);
/// The reference with every lazy_clone replaced by an eager copy (C6:
/// observationally equivalent); it reports no COW fields.
std::unique_ptr<Backend> make_reference_eager_clone_backend();
/// F6 cross-ref: runs each program on the reference's real tensors and, step
/// by step, on fake twins (each factory's result converted by a fake
/// converter); reports the twins' observations and the real run's resource
/// limits. With `check_fallback`, every op on fakes also runs through the F7
/// fallback and take_invariant_finding() reports where the fallback breaks
/// F7's rules. See Note [Fake twin] in oracles/fake_twin_backend.cpp.
std::unique_ptr<Backend> make_fake_twin_backend(bool check_fallback);
/// Null when storcheck was built without LibTorch. With `eager_unsafe`, a
/// step the backend refuses as S8, or a clone path it restores (R3), is also
/// run on plain LibTorch in a forked child; a signal there is a finding
/// ("LibTorch crashes where the reference restores or raises"). Single
/// threaded use only (fork).
std::unique_ptr<Backend> make_torch_cpu_backend(bool eager_unsafe = false);
/// torch_cpu with the device paths of Note [Device backends]
/// (oracles/torch_backend.cpp) run on CPU tensors: a CPU test of what the
/// CUDA backend runs. Null without LibTorch.
std::unique_ptr<Backend> make_torch_cpu_staged_backend();
/// The LibTorch backend on CUDA device 0 (issue 11); null, with the reason
/// in *why, when LibTorch has no CUDA or no device is usable. With
/// `check_device_memory`, shrink must free the storage's bytes and lazy_clone
/// (LibTorch 2.3+) allocate none, by the caching allocator's count (an
/// invariant finding otherwise).
std::unique_ptr<Backend> make_torch_cuda_backend(bool check_device_memory, std::string* why);

}  // namespace storcheck
