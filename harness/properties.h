// Named properties and the engine that checks them: generate programs from
// a seed, run them on the backends, shrink a failure to a minimal program,
// and write it as a reproducer file.
//
// Invariant: a property run is a pure function of (property, seed, program
// count, build): the same inputs draw the same programs and give the same
// verdict and the same reproducer bytes.
//
//   BackendSet backends = BackendSet::make();
//   CheckOptions opt; opt.seed = 7; opt.programs = 1000;
//   CheckResult r = check_property(*find_property("views.ref_matches_eager"), opt, backends);
//   if (!r.passed) std::cout << r.failure_text;
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "generators/program_gen.h"
#include "harness/invariants.h"
#include "oracles/backend.h"
#include "program/limits.h"

namespace storcheck {

/// The backends of one worker thread.
struct BackendSet {
  std::unique_ptr<Backend> reference;
  std::unique_ptr<Backend> torch_cpu;  ///< null when built without LibTorch
  /// PyTorch through embedded CPython (oracles/python_backend.h): made on
  /// first use by a pytorch.* property; never part of all().
  std::unique_ptr<Backend> pytorch;
  /// LibTorch on CUDA (issue 11), made on first use by a device property;
  /// never part of all(). The second checks device memory at shrink and
  /// lazy_clone (make_torch_cuda_backend).
  std::unique_ptr<Backend> torch_cuda, torch_cuda_memory;
  static BackendSet make(bool eager_unsafe = false);
  /// Every available backend, reference first.
  std::vector<Backend*> all() const;
};

enum class PropertyKind {
  kRoundtrip,     ///< print/parse round trip of generated programs
  kDifferential,  ///< reference vs every other backend, after every step
  kInvariant,     ///< the reference alone, an invariant checked after every step
};

/// What a kDifferential property compares, first backend first.
enum class Versus : uint8_t {
  kBackends,    ///< the reference, then every backend of all() (LibTorch)
  kEagerClone,  ///< the reference with lazy_clone as an eager copy (C6)
  kFakeTwin,    ///< fake twins of the reference's tensors (F6 cross-ref)
  kFallback,    ///< the fake twins alone, every op also run through the F7 fallback
  kPytorchVsTorch,      ///< PyTorch eager vs the LibTorch backend (same ATen)
  kReferenceVsPytorch,  ///< the reference vs PyTorch's own fake stack
  kPytorchAlone,        ///< PyTorch alone: its F3 memo findings (finding_field "memo_leak")
  kCpuVsCuda,           ///< LibTorch on CPU vs LibTorch on CUDA: one program, two devices
  kReferenceVsCuda,     ///< the reference vs LibTorch on CUDA
  kReferenceVsCudaMemory,  ///< the same, with the device memory checks (shrink, lazy_clone)
};

struct Property {
  std::string_view name;
  std::string_view summary;
  PropertyKind kind;
  bool view_chains;  ///< draw gen_view_chain instead of gen_program
  GenConfig config;
  Invariant invariant = Invariant::kCloneGivesZeros;  ///< for kInvariant
  /// kDifferential: what the reference is compared with.
  Versus versus = Versus::kBackends;
  /// kDifferential that also checks `invariant` on the reference after
  /// every step (fake.sparse_metadata: F4 in the reference and against
  /// LibTorch's observations).
  bool with_invariant = false;
  /// Needs the PyTorch backend: opt-in for the gate (`--backends pytorch`).
  bool needs_pytorch() const {
    return versus == Versus::kPytorchVsTorch || versus == Versus::kReferenceVsPytorch ||
           versus == Versus::kPytorchAlone;
  }
  /// Needs LibTorch's CUDA backend and a GPU (ctest label gpu); skipped
  /// with the reason elsewhere.
  bool needs_cuda() const {
    return versus == Versus::kCpuVsCuda || versus == Versus::kReferenceVsCuda ||
           versus == Versus::kReferenceVsCudaMemory;
  }
};

/// `prop`'s generator config with `steps` steps per program (0: as it is).
GenConfig config_with_steps(const Property& prop, int steps);
/// ", --steps N" for a program drawn with `--steps N`, "" for 0: what the
/// seed lines of reports and reproducers add after the program index.
std::string steps_note(int steps);

/// Every property, in gate order.
const std::vector<Property>& properties();
/// Null when unknown.
const Property* find_property(std::string_view name);

struct CheckOptions {
  uint64_t seed = 0;
  int64_t programs = 1000;      ///< programs to check (RC_PARAMS max_success)
  int max_size = 100;           ///< RapidCheck size cycles 0..max_size
  /// Steps per program (`--steps`; config_with_steps): records of the
  /// generator, one step each but a sparse program's scenario of one or
  /// more; 0 keeps the property's own (16).
  int steps = 0;
  double budget_seconds = 0;    ///< stop early after this long (0: no limit)
  bool shrink = true;
  std::string findings_dir;     ///< where reproducers go ("" : not written)
  /// Write each program to findings_dir/inflight-PROPERTY.sc before it runs,
  /// so that a crash of LibTorch leaves it on disk (Note [Write-ahead]).
  bool write_ahead = true;
  /// Seconds one program may run before the process reports a timeout and
  /// exits with timeout_exit_code (Note [Program timeout]); 0: no limit.
  double program_timeout = 0;
  int timeout_exit_code = 1;
  Limits limits;
};

struct CheckResult {
  std::string property;
  bool passed = true;
  bool skipped = false;
  std::string skip_reason;
  bool budget_exhausted = false;
  int64_t programs = 0;
  int64_t steps = 0;
  /// Programs that passed a divergence the known list explains (Note [Past
  /// a known divergence] in harness/properties.cpp: checked on past it).
  int64_t known = 0;
  std::map<std::string, int64_t> known_ids;  ///< the divergences passed, per known-divergence id
  /// Programs a backend refused at some step (Note [Step outcome rules]
  /// rule 5): checked on past it in a rerun without it where enough steps
  /// follow (Note [Past a known divergence]); the first refusal, as an example.
  int64_t refused = 0;
  std::string first_refusal;
  double seconds = 0;
  uint64_t seed = 0;
  int program_steps = 0;  ///< CheckOptions::steps (0: the property's own, 16)
  // On failure:
  int64_t failing_program = -1;  ///< index of the first failing program
  Program counterexample;        ///< shrunk
  std::string failure_text;      ///< the divergence, one line
  std::string reproducer_path;   ///< written file, if any
  /// Standalone scripts beside it (`storcheck emit`): FILE.py and FILE.cpp.
  std::vector<std::string> emitted_paths;
  /// "crash", "timeout" or "internal" when the property's isolated child
  /// did not finish (harness/isolate.h); reproducer_path is then the
  /// program it was checking, as saved on disk.
  std::string abnormal;
};

CheckResult check_property(const Property& prop, const CheckOptions& opt, BackendSet& backends);

class Runner;

/// At most this many known divergences and refused steps, together, are
/// passed in one program (Note [Past a known divergence]).
inline constexpr int kMaxKnownPassed = 16;

/// What check_property concludes about one program.
struct ProgramVerdict {
  bool failed = false;
  std::string text;  ///< when failed: the divergence, one line
  /// When failed: the program that fails when run as it is, which is the
  /// program judged without the steps where known divergences were passed.
  Program failing;
  int64_t steps = 0;  ///< steps checked, each once (a rerun's prefix is not counted again)
  std::vector<std::string_view> known;  ///< ids of the known divergences passed, in order
  std::string refusal;                  ///< a run ended at a backend's refusal: the first one
  int refused_steps = 0;  ///< refused steps met (each passed in a rerun where enough steps follow)
};

/// Runs `p` under `prop` on `runner`'s backends, as check_property does.
/// A divergence the known-divergence list explains, or a step a backend
/// refuses, does not end the check:
/// when steps follow it, the program is run again from the start without
/// the diverging step (remove_step), at most kMaxKnownPassed times
/// (Note [Past a known divergence]); `before_rerun` is called with each
/// program before it runs again.
ProgramVerdict judge_program(const Property& prop, Runner& runner, const Program& p,
                             const std::function<void(const Program&)>& before_rerun = {});

/// Writes `text` to `dir/name` atomically (temp file, then rename); returns
/// the path, or "" with *error set.
std::string write_file_atomic(const std::string& dir, const std::string& name,
                              const std::string& text, std::string* error);

/// The write-ahead file of a property in `dir` (Note [Write-ahead]); with a
/// pid, the one a second live run of the property in `dir` writes.
std::string inflight_path(const std::string& dir, std::string_view property, long pid = 0);

/// Moves the write-ahead file `path` of `property` to
/// `dir/died-PROPERTY-MTIME.sc` (`-N` before `.sc` when that name is taken)
/// and returns the new path; "" when a live run holds it or it is missing.
std::string save_died(const std::string& dir, std::string_view property, const std::string& path);

/// Moves every inflight file in `dir` that no live run holds (left by a run
/// that died) with save_died, so the next run cannot overwrite it, and
/// returns the new paths.
std::vector<std::string> rescue_inflight(const std::string& dir);

/// The reproducer file for a failure: program text with a comment header.
std::string reproducer_text(const CheckResult& r);

}  // namespace storcheck
