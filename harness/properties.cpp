#include "harness/properties.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>

#include "harness/emit.h"
#include "harness/shrink.h"
#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

BackendSet BackendSet::make(bool eager_unsafe) {
  BackendSet s;
  s.reference = make_reference_backend();
  s.torch_cpu = make_torch_cpu_backend(eager_unsafe);
  return s;
}

std::vector<Backend*> BackendSet::all() const {
  std::vector<Backend*> v{reference.get()};
  if (torch_cpu) v.push_back(torch_cpu.get());
  return v;
}

namespace {

/// 16-step programs with `invalid_per_mille` invalid steps, drawn from `ops`.
GenConfig steps16(int invalid_per_mille, OpSet ops = strided_ops()) {
  GenConfig c;
  c.max_steps = 16;
  c.min_steps = 16;
  c.invalid_per_mille = invalid_per_mille;
  c.ops = ops;
  return c;
}

// Note [Swarm programs in the properties]
// A quarter of the programs of views.ref_matches_eager, views.errors_agree,
// the CPU shrink.* and cow.* properties and the fake.* ones but the
// cross-ref, fallback and sparse ones are swarm programs (Note [Swarm
// programs] in generators/program_gen.cpp): drawn over about half the ops,
// so that each of their ops takes more of the 16 steps and the ops left
// out do not come between them. In expectation every op and every pair of
// ops keeps its rate (each op is in half the subsets, twice as often); the
// spread between programs grows. The device properties keep their configs
// (not yet run on a GPU).
constexpr int kSwarmPerMille = 250;

/// `c` with swarm programs mixed in (Note [Swarm programs in the properties]).
GenConfig swarmed(GenConfig c) {
  c.swarm_per_mille = kSwarmPerMille;
  return c;
}

GenConfig views_config() { return steps16(30); }
GenConfig errors_config() { return steps16(400); }
GenConfig aliasing_config() {
  return steps16(0, ops_in({OpCategory::kFactory, OpCategory::kView, OpCategory::kInplace,
                            OpCategory::kInplaceView}));
}

/// `c` without the ops PyTorch's Python API cannot express (`!` and `*`
/// spellings in ops.def, but for the conversions the PyTorch backend runs
/// through PyTorch's converters): the pytorch.* properties would only see
/// them refused (Note [Step outcome rules] rule 5). The sparse ops are all
/// expressible (the PyTorch backend runs and observes them).
GenConfig expressible_in_python(GenConfig c) {
  for (const OpInfo& info : op_table()) {
    const bool converter = info.category == OpCategory::kConvert;
    if (!info.python.empty() && (info.python[0] == '!' || info.python[0] == '*') && !converter)
      c.ops.reset(static_cast<int>(info.id));
  }
  return c;
}

// Note [Sparse programs in the pytorch properties]
// The strided configs (views, fake) hold no sparse op, and sparse_config()
// draws only sparse programs, so the three pytorch.* properties take a mixed
// config: a fifth of their programs are sparse_config()'s (Note [Sparse
// programs] in program_gen.cpp: every layout, accessors, writes through
// them, to_dense, coalesce, fake/meta/to_meta), the rest what they drew
// before. Each property keeps its strided coverage, and no separate sparse
// property adds the embedded interpreter's cost to the gate again.
constexpr int kPytorchSparsePerMille = 200;

/// `c` with sparse programs mixed in (Note [Sparse programs in the pytorch properties]).
GenConfig with_sparse_programs(GenConfig c) {
  c.sparse_per_mille = kPytorchSparsePerMille;
  return c;
}

/// Eager programs for PyTorch vs LibTorch: every expressible op but the
/// conversions (the fake properties cover those), and sparse programs,
/// whose few fake/meta steps both backends run through their converters.
GenConfig pytorch_eager_config() {
  GenConfig c = expressible_in_python(views_config());
  for (const OpInfo& info : op_table())
    if (info.category == OpCategory::kConvert) c.ops.reset(static_cast<int>(info.id));
  return with_sparse_programs(c);
}

/// Fake-focused programs with many deliberately invalid steps (conversions
/// of meta and fake inputs, F4).
GenConfig fake_errors_config() {
  GenConfig c = fake_config();
  c.invalid_per_mille = 300;
  return c;
}

/// Cross-ref programs (F6, F7): factories, views, writes and compute, with
/// some invalid steps; no storage or conversion steps, whose fake runs are
/// not meant to agree with eager, and no from_blob: who owns the data (C7)
/// is not metadata, so a fake's lazy_clone succeeds where eager's raises.
/// A quarter are sparse programs without conversions (sparse twins, Note
/// [Fake twin]: accessors, writes through them, to_dense, coalesce).
constexpr int kCrossrefSparsePerMille = 250;
GenConfig crossref_config() {
  OpSet ops = ops_in({OpCategory::kFactory, OpCategory::kView, OpCategory::kInplace,
                      OpCategory::kInplaceView, OpCategory::kCompute});
  ops.reset(static_cast<size_t>(OpId::kFromBlob));
  GenConfig c = steps16(150, ops);
  c.sparse_per_mille = kCrossrefSparsePerMille;
  c.sparse_conversions = false;
  return c;
}

}  // namespace

const std::vector<Property>& properties() {
  static const std::vector<Property> kProps = {
      {"program.roundtrip", "print then parse gives the same program", PropertyKind::kRoundtrip,
       false, views_config()},
      {"views.ref_matches_eager",
       "reference and LibTorch eager agree on every observation after every step (S1-S8)",
       PropertyKind::kDifferential, false, swarmed(views_config())},
      {"views.errors_agree",
       "with many invalid steps, the reference and LibTorch reject the same steps for the same "
       "reason",
       PropertyKind::kDifferential, false, swarmed(errors_config())},
      {"views.aliasing_matches",
       "chains of views and writes through them: alias classes, identity and values agree (S3)",
       PropertyKind::kDifferential, true, aliasing_config()},
      {"shrink.matches_eager",
       "programs that shrink, restore, rehydrate and resize storages agree with LibTorch (R1-R7)",
       PropertyKind::kDifferential, false, swarmed(shrink_config())},
      {"shrink.clone_paths_give_zeros",
       "every clone path of an emptied tensor gives zeros of its sizes and strides in fresh "
       "storage (R3)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kCloneGivesZeros},
      {"shrink.input_stays_emptied", "a clone path leaves its emptied input emptied (R3)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kInputStaysEmptied},
      {"shrink.bounds_checked_ops_raise",
       "bounds-checked ops on emptied tensors raise the S5 error, compute kernels are never run "
       "(R4, S8)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kBoundsCheckedRaise},
      {"shrink.rehydrate_keeps_aliasing",
       "rehydrate sizes each storage to its largest extent, zeroes it and keeps aliasing (R5)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()),
       Invariant::kRehydrateKeepsAliasing},
      {"shrink.reshrink_returns_to_zero",
       "reshrink returns every storage rehydrate restored to 0 bytes (R5)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kReshrinkToZero},
      {"cow.equivalent_to_clone",
       "replacing every lazy_clone with an eager copy changes no observed value, metadata or "
       "error (C6)",
       PropertyKind::kDifferential, false, swarmed(cow_config()), Invariant::kCloneGivesZeros,
       Versus::kEagerClone},
      {"cow.matches_torch",
       "COW programs agree with LibTorch (C1-C8 where it has _lazy_clone, else C6)",
       PropertyKind::kDifferential, false, swarmed(cow_config())},
      {"cow.no_copy_until_write",
       "bytes are copied only when a write hits a block other sharers hold (C3, C4)",
       PropertyKind::kInvariant, false, swarmed(cow_config()), Invariant::kNoCopyUntilWrite},
      {"cow.last_sharer_takes_ownership",
       "the last sharer takes its block without a copy; others copy to a new address (C4)",
       PropertyKind::kInvariant, false, swarmed(cow_config()),
       Invariant::kLastSharerTakesOwnership},
      {"cow.refcount_matches_sharers",
       "after every step a block's reference count equals its live sharers (C2)",
       PropertyKind::kInvariant, false, swarmed(cow_config()), Invariant::kRefcountMatchesSharers},
      {"cow.views_materialize_once",
       "a write through one view materializes once for every view; metadata is kept (C3, C5)",
       PropertyKind::kInvariant, false, swarmed(cow_config()), Invariant::kViewsMaterializeOnce},
      {"cow.foreign_owner_raises",
       "lazy_clone of foreign-owned data raises and leaves the source untouched (C7)",
       PropertyKind::kInvariant, false, swarmed(cow_config()), Invariant::kForeignOwnerRaises},
      {"shrink.undersized_not_restored",
       "a genuinely undersized storage is never restored: clone paths report S8 (R7)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()),
       Invariant::kUndersizedNotRestored},
      {"fake.aliasing_preserved",
       "meta conversion after every step keeps geometry, identity and storage sharing; "
       "emptied storages give 0-byte meta storages (F1, F2)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kFakeAliasing},
      {"fake.memo_weak_no_leak",
       "the meta memo holds exactly the live tensors, and after a sweep exactly the live "
       "storages (F3)",
       PropertyKind::kInvariant, false, swarmed(shrink_config()), Invariant::kFakeMemoWeak},
      {"fake.matches_libtorch_meta",
       "programs that convert to meta and fake tensors and run every op on them agree with "
       "LibTorch's meta device: metadata, aliasing, identity, errors (F1, F2, F5, F6, F8, F9)",
       PropertyKind::kDifferential, false, swarmed(fake_config())},
      {"fake.memo_identity",
       "converting a live tensor again gives the same fake tensor; tensors sharing a storage "
       "get one fake storage; conversions keep the geometry (F1, F2)",
       PropertyKind::kInvariant, false, swarmed(fake_config()), Invariant::kFakeMemoIdentity},
      {"fake.emptied_storage_zero_bytes",
       "a fake storage has its real storage's nbytes: 0 for an emptied one (F2)",
       PropertyKind::kInvariant, false, swarmed(fake_config()), Invariant::kFakeEmptiedZeroBytes},
      {"fake.sweep_frees_expired_storages",
       "the program's memos hold exactly the live converted tensors, and after a sweep "
       "exactly the live converted storages (F3)",
       PropertyKind::kInvariant, false, swarmed(fake_config()), Invariant::kFakeSweepFrees},
      {"fake.crossref_matches_eager",
       "every op run on fake twins of its inputs gives eager's output count, sizes, strides "
       "(dims of size > 1), offset, dtype, device, storage nbytes, aliasing and errors, and "
       "for sparse variables layout, sparse_dim, dense_dim, nnz and coalesced (F6)",
       PropertyKind::kDifferential, false, crossref_config(), Invariant::kCloneGivesZeros,
       Versus::kFakeTwin},
      {"fake.fallback_rules",
       "the fallback on zeros agrees with the meta rules: fresh outputs alike, an input given "
       "back as its fake, views and inplace_view ops raise (F7)",
       PropertyKind::kDifferential, false, crossref_config(), Invariant::kCloneGivesZeros,
       Versus::kFallback},
      {"fake.unsupported_is_typed_and_memo_unchanged",
       "a refused conversion raises unsupported_fake_tensor and leaves the memo unchanged (F4)",
       PropertyKind::kInvariant, false, swarmed(fake_errors_config()),
       Invariant::kFakeUnsupportedTyped},
      {"fake.sparse_metadata",
       "programs over sparse variables of every layout: every fake/meta/to_meta of a sparse "
       "variable keeps layout, sizes, dtype, sparse_dim, dense_dim, coalesced, blocksize and "
       "index dtype, nnz 0 in fake and kept in meta (F4, F8, F2), checked in the reference "
       "after every step and against LibTorch's observations",
       PropertyKind::kDifferential, false, sparse_config(), Invariant::kSparseFakeMetadata,
       Versus::kBackends, /*with_invariant=*/true},
      // LibTorch on a GPU (issue 11, Note [Device backends] in
      // oracles/torch_backend.cpp): skipped with the reason without one.
      {"device.cpu_matches_cuda",
       "the same program on LibTorch CPU and LibTorch CUDA: values, metadata, aliasing, "
       "versions and errors agree after every step",
       PropertyKind::kDifferential, false, views_config(), Invariant::kCloneGivesZeros,
       Versus::kCpuVsCuda},
      {"device.ref_matches_torch_cuda",
       "the reference (its home device CUDA) agrees with LibTorch on CUDA after every step, "
       "with cuda and cpu steps moving tensors between the devices (S1-S10, R1-R7, R3 for "
       "cuda/cpu, C1-C8 where LibTorch has _lazy_clone)",
       PropertyKind::kDifferential, false, device_config(views_config()),
       Invariant::kCloneGivesZeros, Versus::kReferenceVsCuda},
      {"shrink.frees_device_memory",
       "shrink on CUDA returns at least the storage's bytes to the caching allocator, and "
       "the programs agree with the reference (R1-R7)",
       PropertyKind::kDifferential, false, device_config(shrink_config()),
       Invariant::kCloneGivesZeros, Versus::kReferenceVsCudaMemory},
      {"cow.device_copy_only_on_write",
       "lazy_clone of a CUDA tensor allocates no device memory, and COW state agrees with the "
       "reference: materialization (a device copy) only on write (C1-C8; LibTorch 2.3+)",
       PropertyKind::kDifferential, false, device_config(cow_config()), Invariant::kCloneGivesZeros,
       Versus::kReferenceVsCudaMemory},
      // PyTorch's own stack (oracles/python_backend.h); opt-in for the gate.
      {"pytorch.eager_matches_libtorch",
       "PyTorch eager through CPython and storcheck's LibTorch backend agree on every "
       "observation after every step: one ATen, two front ends (S1-S8)",
       PropertyKind::kDifferential, false, pytorch_eager_config(), Invariant::kCloneGivesZeros,
       Versus::kPytorchVsTorch},
      {"pytorch.fake_matches_reference",
       "PyTorch 1.13's FakeTensorMode, FakeTensorConverter and MetaConverter agree with the "
       "reference's conversions: metadata, identity, shared fake storages, 0-byte storages, "
       "errors, memo sizes at memo_stats (F1-F5)",
       PropertyKind::kDifferential, false,
       with_sparse_programs(expressible_in_python(fake_config())), Invariant::kCloneGivesZeros,
       Versus::kReferenceVsPytorch},
      {"pytorch.memo_weak_no_leak",
       "after gc.collect(), PyTorch's converter memos hold no entry of a dead real tensor, and "
       "no converted real tensor or fake tensor outlives every variable holding it (F3)",
       PropertyKind::kDifferential, false,
       with_sparse_programs(expressible_in_python(fake_config())), Invariant::kCloneGivesZeros,
       Versus::kPytorchAlone},
  };
  return kProps;
}

const Property* find_property(std::string_view name) {
  for (const Property& p : properties())
    if (p.name == name) return &p;
  return nullptr;
}

// Note [Past a known divergence]
// A divergence that the known-divergence list explains (an accepted
// difference of the LibTorch version under test) is not a failure, but it
// ends the run: the backends' states differ from that step on. The steps
// after it were left unchecked, and in long programs that was many: with
// --steps 256 (seed 2028, 420 s), 103,032 of views.ref_matches_eager's
// 211,792 programs stopped at a known divergence (87,487 at
// resize-nonresizable-not-atomic-1.13), and the programs ran 190 of their
// 256 steps on average. So judge_program runs the program again from the
// start without the diverging step (remove_step: with the steps that read
// its result), which both backends agree on up to there, and goes on
// checking. Only when at least as many steps follow the diverging step as
// precede it, so that a rerun checks at least as many new steps as it
// repeats (a fresh program checks more new steps per run: what a rerun buys
// is depth, the later steps of long programs), and at most kMaxKnownPassed
// times. (A difference found by the last full observation is reported at
// the last step run: nothing follows it.) Measured, 60 s each, the builds
// before and after side by side (2026-12-06): views.ref_matches_eager
// --steps 256 checked 190 steps per program before, 232 after, and 4% more
// steps in all; pytorch.fake_matches_reference --steps 32 (CPython's cost
// per program is high, and two thirds of its programs meet a known
// divergence) 16.5 steps per program before, 22.8 after, and 25% fewer
// steps in all; 16-step views.ref_matches_eager programs as the gate runs
// them: within the noise (580,128 and 634,096 programs). A failure found
// so is reported with the program that fails as it is, without those
// steps: its reproducer replays it with no known divergence on the way
// (`storcheck repro`), and check_property minimizes it in turn (the
// shrinker's predicate passes known divergences too). The write-ahead file
// holds each rerun before it runs, so a crash in one leaves the program
// that crashed.
//
// The refused steps (Note [Step outcome rules] rule 5, oracles/runner.h)
// end a run the same way, and are passed the same way (the same rule on the
// steps that follow, within the same kMaxKnownPassed): a step one backend
// cannot run faithfully says nothing about the steps after it. At seed 1955,
// 32 steps, 43,608 of pytorch.eager_matches_libtorch's 119,808 programs
// (36%) ended at a refused step, most at `mul_out` within one storage in a
// way LibTorch does not detect (S8), and their later steps went unchecked.
// The program still counts as refused (CheckResult::refused: it met one),
// and a failure after it is reported with the program without the step.

ProgramVerdict judge_program(const Property& prop, Runner& runner, const Program& p,
                             const std::function<void(const Program&)>& before_rerun) {
  ProgramVerdict v;
  if (prop.kind == PropertyKind::kRoundtrip) {
    std::string printed = print_program(p);
    ParseResult r = parse_program(printed);
    if (!r.ok()) {
      v.failed = true;
      v.text = "printed program does not parse: " + r.error.to_string();
    } else if (!(r.program == p)) {
      v.failed = true;
      v.text = "parse(print(p)) != p";
    } else {
      v.steps = static_cast<int64_t>(p.steps.size());
    }
    if (v.failed) v.failing = p;
    return v;
  }
  // The pytorch.* properties' divergences are keyed by the embedded PyTorch's version.
  // The list explains the reference vs LibTorch; LibTorch on two devices
  // has no known divergence: each one is a finding.
  const std::string version = prop.needs_pytorch() ? pytorch_version() : torch_version();
  Program rerun;
  const Program* cur = &p;
  int64_t counted = 0;  // steps run before the step last removed: counted already
  for (;;) {
    RunReport rep =
        prop.kind == PropertyKind::kInvariant || prop.with_invariant
            ? runner.run(*cur, false, make_invariant_hook(prop.invariant, runner.backends()[0]))
            : runner.run(*cur);
    v.steps += std::max<int64_t>(0, rep.steps_run - counted);
    size_t at;
    if (!rep.diverged) {
      if (rep.refusal.empty()) return v;
      // A refused step: the same rerun without it (Note [Past a known
      // divergence], the refused steps).
      if (v.refusal.empty()) v.refusal = rep.refusal;
      ++v.refused_steps;
      at = static_cast<size_t>(rep.refused_step - 1);
    } else {
      const Divergence& d = rep.divergence;
      at = static_cast<size_t>(d.step - 1);
      std::string_view op = op_info(cur->steps[at].op).name;
      const KnownDivergence* k =
          prop.versus == Versus::kCpuVsCuda
              ? nullptr
              : match_known_divergence(op, d.mismatch, version, prop.needs_pytorch());
      if (!k) {
        v.failed = true;
        v.text = d.to_string(*cur);
        v.failing = *cur;
        return v;
      }
      v.known.push_back(k->id);
    }
    // Only where at least as many steps follow the divergence as precede
    // it: a rerun then checks at least as many new steps as it repeats.
    const size_t after = cur->steps.size() - at - 1;
    if (static_cast<int>(v.known.size()) + v.refused_steps > kMaxKnownPassed || after == 0 ||
        after < at)
      return v;
    counted = std::max(counted, rep.steps_run - 1);
    rerun = remove_step(*cur, at);
    cur = &rerun;
    if (before_rerun) before_rerun(*cur);
  }
}

namespace {

/// Runs one program; true when it fails the property (fills *text and, when
/// given, *failing with the program that fails: judge_program). A program
/// that passed known divergences is counted once in *known (when given).
bool fails_once(const Property& prop, Runner& runner, const Program& p, std::string* text,
                int64_t* steps, int64_t* known = nullptr, CheckResult* refusals = nullptr,
                Program* failing = nullptr,
                const std::function<void(const Program&)>& before_rerun = {}) {
  ProgramVerdict v = judge_program(prop, runner, p, before_rerun);
  if (steps) *steps += v.steps;
  if (!v.refusal.empty() && refusals) {
    if (refusals->refused++ == 0) refusals->first_refusal = v.refusal;
  }
  if (!v.known.empty()) {
    if (known) ++*known;
    if (refusals)
      for (std::string_view id : v.known) ++refusals->known_ids[std::string(id)];
  }
  if (!v.failed) return false;
  *text = std::move(v.text);
  if (failing) *failing = std::move(v.failing);
  return true;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string write_file_atomic(const std::string& dir, const std::string& name,
                              const std::string& text, std::string* error) {
  if (!dir.empty()) ::mkdir(dir.c_str(), 0755);
  std::string path = dir.empty() ? name : dir + "/" + name;
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      *error = "cannot write " + tmp;
      return "";
    }
    f << text;
    f.flush();
    if (!f) {
      *error = "write failed: " + tmp;
      return "";
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + " to " + path;
    std::remove(tmp.c_str());
    return "";
  }
  return path;
}

std::string inflight_path(const std::string& dir, std::string_view property, long pid) {
  return dir + "/inflight-" + std::string(property) + (pid > 0 ? "-" + std::to_string(pid) : "") +
         ".sc";
}

namespace {

/// Note [Write-ahead]: an inflight file ends in the blank lines that pad a
/// shorter program over a longer one. A program saved from it (died-,
/// timeout-) keeps one final newline: its reader sees the program, not
/// hundreds of blank lines. Truncation only drops trailing newlines, so the
/// file holds the whole program at every moment.
void trim_padding(const std::string& path) {
  std::string text;
  {
    std::ifstream f(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  const size_t last = text.find_last_not_of('\n');
  const size_t keep = last == std::string::npos ? 0 : last + 2;  // one newline after it
  if (keep < text.size()) (void)::truncate(path.c_str(), static_cast<off_t>(keep));
}

}  // namespace

std::string save_died(const std::string& dir, std::string_view property, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string saved;
  struct stat st;
  // Held: a live run is writing it (Note [Write-ahead]). The lock is kept
  // until the file has moved, so no new run can take the name meanwhile.
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &st) == 0) {
    const std::string stem = dir + "/died-" + std::string(property) + "-" +
                             std::to_string(static_cast<long long>(st.st_mtime));
    for (int n = 1; n <= 1000 && saved.empty(); ++n) {
      const std::string dest = stem + (n > 1 ? "-" + std::to_string(n) : "") + ".sc";
      if (::link(path.c_str(), dest.c_str()) == 0) {  // never over an earlier one
        ::unlink(path.c_str());
        saved = dest;
      } else if (errno != EEXIST) {  // a file system without hard links
        struct stat other;
        if (::stat(dest.c_str(), &other) != 0 && std::rename(path.c_str(), dest.c_str()) == 0)
          saved = dest;
        break;
      }
    }
  }
  ::close(fd);
  if (!saved.empty()) trim_padding(saved);
  return saved;
}

std::vector<std::string> rescue_inflight(const std::string& dir) {
  std::vector<std::string> saved;
  if (dir.empty()) return saved;
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  const std::string prefix = "inflight-", suffix = ".sc";
  for (const std::string& name : names) {
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    // inflight-PROPERTY.sc, or inflight-PROPERTY-PID.sc.
    std::string property = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    const size_t dash = property.rfind('-');
    if (dash != std::string::npos && dash + 1 < property.size() &&
        property.find_first_not_of("0123456789", dash + 1) == std::string::npos)
      property.resize(dash);
    std::string path = save_died(dir, property, dir + "/" + name);
    if (!path.empty()) saved.push_back(std::move(path));
  }
  return saved;
}

namespace {

// Note [Write-ahead]
// Before each program runs, its text is written over the property's
// inflight file (one pwrite on a descriptor opened once; see write()), and
// the file is removed when the property ends normally. If LibTorch aborts
// or segfaults, or the process is killed, the program being checked stays
// on disk: the next gate names it, and `storcheck repro` replays it.
// Runs share a findings folder (a gate beside a `check`, two `check`s): the
// writer holds an flock on its inflight file, which the kernel drops when
// the process dies, and rescue_inflight moves only files nobody holds. A
// second live run of the same property writes inflight-PROPERTY-PID.sc.
// Before, a run started beside another moved the live file aside and
// reported a crash that did not happen (seen with two `check`s).
class WriteAhead {
 public:
  WriteAhead(const std::string& dir, std::string_view property) {
    if (dir.empty()) return;
    ::mkdir(dir.c_str(), 0755);
    for (long pid : {0L, static_cast<long>(::getpid())}) {
      path_ = inflight_path(dir, property, pid);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd_ < 0) return;
      if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
        if (::ftruncate(fd_, 0) != 0) break;
        return;
      }
      ::close(fd_);
      fd_ = -1;
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  ~WriteAhead() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());  // before the lock goes: the name is still this run's
    ::close(fd_);
  }
  /// One pwrite per program: a shorter text is padded with newlines (blank
  /// lines, which the parser skips) to the longest length written so far,
  /// instead of a second syscall to truncate the file.
  void write(const std::string& header, const Program& p) {
    if (fd_ < 0) return;
    std::string text = header + print_program(p).substr(kProgramHeader.size() + 1);
    if (text.size() < written_) text.resize(written_, '\n');
    if (::pwrite(fd_, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()))
      written_ = text.size();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  size_t written_ = 0;
};

// Note [Program timeout]
// A step that hangs inside LibTorch cannot be interrupted in-process. With
// CheckOptions::program_timeout > 0, a watchdog thread watches the start
// time of the program being checked (every program, shrink candidates
// included, is written ahead first, Note [Write-ahead]). When one runs
// longer than the limit, the watchdog moves the write-ahead file to
// `timeout-PROPERTY-HASH.sc`, prints one line naming it and the repro
// command, and ends the process with CheckOptions::timeout_exit_code: the
// finding is on disk, and `gate --isolate` (one child per property) reports
// it and goes on with the other properties.
class Watchdog {
 public:
  Watchdog(double seconds, std::string property, const WriteAhead& ahead, int exit_code)
      : limit_ns_(static_cast<int64_t>(seconds * 1e9)), property_(std::move(property)),
        ahead_(ahead), exit_code_(exit_code) {
    if (limit_ns_ <= 0) return;
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// A program starts (0 ends it).
  void start() {
    if (limit_ns_ > 0) started_ns_.store(now_ns(), std::memory_order_relaxed);
  }
  void stop() { started_ns_.store(0, std::memory_order_relaxed); }

 private:
  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return quit_; })) {
      int64_t s = started_ns_.load(std::memory_order_relaxed);
      if (s == 0 || now_ns() - s <= limit_ns_) continue;
      std::string saved = "(not saved: no findings directory)";
      const std::string& from = ahead_.path();
      if (!from.empty()) {
        std::string text;
        {
          std::ifstream f(from, std::ios::binary);
          text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        }
        text.erase(text.find_last_not_of('\n') + 1);  // the padding (trim_padding)
        std::string dest = from.substr(0, from.rfind('/') + 1) + "timeout-" + property_ + "-" +
                           hex64(fnv1a(text)) + ".sc";
        if (std::rename(from.c_str(), dest.c_str()) == 0) {
          saved = dest;
          trim_padding(dest);
        }
      }
      std::fprintf(stderr,
                   "storcheck: TIMEOUT in %s: a program ran longer than %.3g s "
                   "(--program-timeout); it is saved in %s (replay: storcheck repro %s)\n",
                   property_.c_str(), static_cast<double>(limit_ns_) / 1e9, saved.c_str(),
                   saved.c_str());
      std::fflush(nullptr);
      std::_Exit(exit_code_);
    }
  }

  const int64_t limit_ns_;
  const std::string property_;
  const WriteAhead& ahead_;
  const int exit_code_;
  std::atomic<int64_t> started_ns_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace

std::string reproducer_text(const CheckResult& r) {
  std::string s(kProgramHeader);
  s += "\n# property: " + r.property + "\n";
  s += "# seed: " + std::to_string(r.seed) + " (program " + std::to_string(r.failing_program) +
       steps_note(r.program_steps) + ")\n";
  s += "# divergence: " + r.failure_text + "\n";
  std::string body = print_program(r.counterexample);
  return s + body.substr(body.find('\n') + 1);
}

namespace {
/// The standalone scripts of a reproducer file, beside it (issue 9).
void write_emitted(const std::string& path, const Limits& limits, CheckResult* res) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".sc") == 0) stem.resize(stem.size() - 3);
  for (EmitLang lang : {EmitLang::kPython, EmitLang::kCpp}) {
    std::string script, err;
    if (emit_file(lang, path, limits, &script, &err) != 0) continue;
    std::string written =
        write_file_atomic(dir, stem + (lang == EmitLang::kPython ? ".py" : ".cpp"), script, &err);
    if (!written.empty()) res->emitted_paths.push_back(written);
  }
}
}  // namespace

GenConfig config_with_steps(const Property& prop, int steps) {
  GenConfig c = prop.config;
  if (steps > 0) c.min_steps = c.max_steps = steps;
  return c;
}

std::string steps_note(int steps) {
  return steps > 0 ? ", --steps " + std::to_string(steps) : std::string();
}

CheckResult check_property(const Property& prop, const CheckOptions& opt, BackendSet& backends) {
  CheckResult res;
  res.property = std::string(prop.name);
  res.seed = opt.seed;
  res.program_steps = opt.steps;
  std::vector<Backend*> list = backends.all();
  if (prop.needs_pytorch()) {
    std::string why;
    if (!backends.pytorch) backends.pytorch = make_python_backend(&why);
    if (!backends.pytorch || (prop.versus == Versus::kPytorchVsTorch && !backends.torch_cpu)) {
      res.skipped = true;
      res.skip_reason = !backends.pytorch ? "needs the PyTorch backend: " + why
                                          : "needs LibTorch: storcheck was built without it";
      return res;
    }
  } else if (prop.needs_cuda()) {
    std::string why;
    const bool memory = prop.versus == Versus::kReferenceVsCudaMemory;
    std::unique_ptr<Backend>& cuda = memory ? backends.torch_cuda_memory : backends.torch_cuda;
    if (!cuda) cuda = make_torch_cuda_backend(memory, &why);
    if (!cuda) {
      res.skipped = true;
      res.skip_reason = "needs the LibTorch CUDA backend: " + why;
      return res;
    }
    // The COW-focused device property compares COW state on CUDA tensors.
    if (prop.config.cow_focus && !cuda->capabilities().cow) {
      res.skipped = true;
      res.skip_reason = "needs LibTorch 2.3+ (at::_lazy_clone); this is " + torch_version();
      return res;
    }
  } else if (prop.kind == PropertyKind::kDifferential && list.size() < 2 &&
             prop.versus == Versus::kBackends) {
    res.skipped = true;
    res.skip_reason = "needs a second backend: storcheck was built without LibTorch";
    return res;
  }
  std::unique_ptr<Backend> other;
  if (prop.kind == PropertyKind::kInvariant) list.resize(1);  // the reference alone
  switch (prop.versus) {
    case Versus::kBackends: break;
    case Versus::kEagerClone:
      other = make_reference_eager_clone_backend();
      list = {list[0], other.get()};
      break;
    case Versus::kFakeTwin:
      other = make_fake_twin_backend(/*check_fallback=*/false);
      list = {list[0], other.get()};
      break;
    case Versus::kFallback:
      other = make_fake_twin_backend(/*check_fallback=*/true);
      list = {other.get()};
      break;
    case Versus::kPytorchVsTorch: list = {backends.pytorch.get(), backends.torch_cpu.get()}; break;
    case Versus::kReferenceVsPytorch: list = {backends.reference.get(), backends.pytorch.get()}; break;
    case Versus::kPytorchAlone: list = {backends.pytorch.get()}; break;
    case Versus::kCpuVsCuda: list = {backends.torch_cpu.get(), backends.torch_cuda.get()}; break;
    case Versus::kReferenceVsCuda:
    case Versus::kReferenceVsCudaMemory: {
      // The reference's factories on the LibTorch backend's device (CUDA;
      // a CPU stand-in in tests), so that cuda and cpu steps move the same way.
      Backend* cuda = prop.versus == Versus::kReferenceVsCuda ? backends.torch_cuda.get()
                                                              : backends.torch_cuda_memory.get();
      other = make_reference_backend(cuda->capabilities().device == Device::kCuda
                                         ? DeviceType::kCuda
                                         : DeviceType::kCpu);
      list = {other.get(), cuda};
      break;
    }
  }
  Runner runner(list, opt.limits);
  const GenConfig config = config_with_steps(prop, opt.steps);
  rc::Gen<Program> gen = prop.view_chains ? gen_view_chain(config) : gen_program(config);
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  rc::Random root(opt.seed);
  WriteAhead ahead(opt.write_ahead ? opt.findings_dir : std::string(), prop.name);
  const std::string ahead_head = std::string(kProgramHeader) + "\n# property: " + res.property +
                                 "\n# inflight: written before this program ran; if the file "
                                 "remains, storcheck died while checking it\n# seed: " +
                                 std::to_string(opt.seed) + " (program ";
  const std::string steps_tail = steps_note(opt.steps);
  Watchdog watchdog(opt.program_timeout, res.property, ahead, opt.timeout_exit_code);
  // Every program the property runs: written ahead, timed, checked.
  // Note [Past a known divergence]: a rerun replaces the write-ahead file.
  auto check = [&](const Program& q, const std::string& head, std::string* text, int64_t* steps,
                   int64_t* known, Program* failing = nullptr) {
    ahead.write(head, q);
    watchdog.start();
    bool failed = fails_once(
        prop, runner, q, text, steps, known, steps ? &res : nullptr, failing,
        [&](const Program& rerun) {
          ahead.write(head + "# rerun: without the step of a known divergence or a refused step\n",
                      rerun);
        });
    watchdog.stop();
    return failed;
  };
  for (int64_t i = 0; i < opt.programs; ++i) {
    if (opt.budget_seconds > 0 && (i & 15) == 0 && elapsed() > opt.budget_seconds) {
      res.budget_exhausted = true;
      break;
    }
    rc::Random r = root.split();
    int size = opt.max_size > 0 ? static_cast<int>(i % (opt.max_size + 1)) : 0;
    rc::Shrinkable<Program> sp = gen(r, size);
    Program p = sp.value();
    ++res.programs;
    const std::string head = ahead_head + std::to_string(i) + steps_tail + ")\n";
    std::string text;
    Program failing;
    if (!check(p, head, &text, &res.steps, &res.known, &failing)) continue;
    const std::string shrink_head =
        ahead_head + std::to_string(i) + steps_tail + ", a shrink candidate)\n";
    // Failure: shrink with RapidCheck's tree, then step removal.
    res.passed = false;
    res.failing_program = i;
    if (opt.shrink) {
      auto fails = [&](const Program& q) {
        std::string t;
        return check(q, shrink_head, &t, nullptr, nullptr);
      };
      // A PyTorch program costs milliseconds (CPython): fewer candidates.
      p = shrink_failing(sp, fails, prop.needs_pytorch() ? 300 : 2000);
      check(p, shrink_head, &text, nullptr, nullptr, &failing);
      // Note [Past a known divergence]: the program that fails as it is,
      // minimized in turn (a few rounds: each can pass a known divergence).
      for (int round = 0; round < 4 && failing.steps.size() != p.steps.size(); ++round) {
        p = minimize_steps(failing, fails);
        check(p, shrink_head, &text, nullptr, nullptr, &failing);
      }
    }
    res.counterexample = failing;
    res.failure_text = text;
    if (!opt.findings_dir.empty()) {
      std::string body = reproducer_text(res);
      std::string err;
      res.reproducer_path = write_file_atomic(
          opt.findings_dir, res.property + "-" + hex64(fnv1a(print_program(failing))) + ".sc", body,
          &err);
      if (res.reproducer_path.empty()) res.failure_text += " (reproducer not written: " + err + ")";
      else write_emitted(res.reproducer_path, opt.limits, &res);
    }
    break;
  }
  res.seconds = elapsed();
  return res;
}

}  // namespace storcheck
