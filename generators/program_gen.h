// RapidCheck generators of op programs (program/ir.h) that mostly stay valid.
//
// A program is drawn as a list of small per-step choice records (StepChoice)
// and then turned into a Program by a deterministic builder that keeps a
// light metadata model of every live variable (sizes, strides, offset, dtype,
// and its storage: byte size, resizable flag, aliases, foreign owner, COW
// group) with its own shape rules for each op of ops.def. Steps the model
// expects to fail at run time (S5 bounds, S8 undersized inputs, non-resizable
// storages, C7 lazy_clone of a foreign storage) bind no variable. RapidCheck
// shrinks the choice list (drops steps, moves choices toward 0), and the
// builder maps every shrunk list to a well-formed program again.
//
// Invariant: every Program returned here passes validate_program with the
// default Limits: each variable is defined once before use and not used after
// `drop`, each argument has its signature's kind, each list is at most
// kMaxRank long, and each factory stays within max_tensor_bytes. Steps may
// still fail at run time: with probability invalid_per_mille/1000 a step gets
// a deliberately bad argument, and the model is approximate. See
// Note [Choice records] in program_gen.cpp.
//
//   GenConfig cfg;
//   cfg.ops = ops_in({OpCategory::kFactory, OpCategory::kView});
//   rc::check([&] {
//     Program p = *gen_program(cfg);
//     RC_ASSERT(run_and_compare(p));
//   });
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <vector>

#include <rapidcheck.h>

#include "program/ir.h"

namespace storcheck {

/// A set of ops, indexed by OpId.
using OpSet = std::bitset<kNumOps>;

/// Every op of ops.def.
OpSet all_ops();
/// Every op but the sparse ones (category kSparse) and the device ones
/// (kDevice): the default of GenConfig, whose programs hold strided variables
/// on one device only; sparse_config() adds the sparse ops, device_config()
/// the device ones.
OpSet strided_ops();
/// cuda and cpu (category kDevice): only programs for a GPU run draw them.
OpSet device_ops();
/// The ops whose category is one of `cats`, e.g. ops_in({OpCategory::kView}).
OpSet ops_in(std::initializer_list<OpCategory> cats);

/// What programs gen_program draws.
struct GenConfig {
  int max_steps = 16;            ///< steps per program, at most
  int min_steps = 1;             ///< steps per program, at least
  int max_rank = 4;              ///< rank of factory shapes and as_strided/resize_ sizes (<= kMaxRank)
  int64_t max_numel = 64;        ///< elements of factory and resize_ tensors
  int invalid_per_mille = 50;    ///< share of deliberately invalid steps, 0..1000
  OpSet ops = strided_ops();     ///< ops to draw; with no factory in it, arange seeds tensors
  bool edge_values = true;       ///< size-0 dims, negative dims and indices, nan/inf/-0.0, huge ints
  /// Weight op and operand draws toward SEMANTICS group R scenarios (shrink a
  /// base or an offset view, clone/view/compute an emptied alias, rehydrate,
  /// reshrink, undersized resize_storage, set_nonresizable); only when `ops`
  /// holds kStorage ops. Off: every enabled op is drawn equally often.
  bool storage_focus = false;
  /// Weight op and operand draws toward SEMANTICS group C scenarios (lazy
  /// clones of bases, views and lazy clones; views, reads and writes of COW
  /// tensors; drops of sharers; resize_storage of COW storages; lazy_clone of
  /// from_blob tensors); only when `ops` holds lazy_clone. Combines with
  /// storage_focus (the weights add up).
  bool cow_focus = false;
  /// Weight op and operand draws toward SEMANTICS group F scenarios (meta and
  /// fake conversions of bases and views, repeated conversions, to_meta,
  /// fake_from_meta, ops on meta and fake tensors, drops and sweeps so that
  /// storages outlive tensors); only when `ops` holds `fake`. Combines with
  /// the other focuses.
  bool fake_focus = false;
  /// Draw programs over sparse variables of every layout instead (Note
  /// [Sparse programs] in program_gen.cpp): dense factories, to_sparse_*,
  /// sparse_coo_tensor from generated indices (unsorted, duplicates, nnz 0,
  /// hybrid), sparse_{csr,csc,bsr,bsc}_tensor from generated parts,
  /// accessors and writes through them, to_dense, coalesce,
  /// fake/meta/to_meta, drops and sweeps; only when `ops` holds
  /// to_sparse_coo. Overrides the other focuses.
  bool sparse_focus = false;
  /// Without sparse_focus: the share (0..1000) of programs drawn as under
  /// sparse_focus, the others as the rest of the config says (a mixed
  /// config); the first record's `seed` picks. The sparse programs take
  /// their ops from Note [Sparse programs], whatever `ops` holds.
  int sparse_per_mille = 0;
  /// The sparse programs' conversions (Cases 7 and 8 of Note [Sparse
  /// programs]) and sweep/memo_stats; off for the cross-ref, whose fake
  /// twins are not meant to agree on conversions (Note [Fake twin]).
  bool sparse_conversions = true;
  /// Swarm testing: the share (0..1000) of programs drawn over a random
  /// subset of `ops` (each op kept with probability 1/2) instead of all of
  /// them; the first record's seed picks (Note [Swarm programs] in
  /// program_gen.cpp). Not for sparse programs or view chains.
  int swarm_per_mille = 0;
  /// The backends' home device (factories' tensors) is CUDA: the model
  /// knows which of cuda and cpu moves a tensor (device_config).
  bool home_cuda = false;
};

/// All ops, 16-step programs, draws weighted toward shrink/restore (group R) scenarios.
GenConfig shrink_config();
/// All ops, 16-step programs, draws weighted toward copy-on-write (group C: C4 and C8) scenarios.
GenConfig cow_config();
/// All ops, 16-step programs, draws weighted toward meta/fake (group F) scenarios.
GenConfig fake_config();
/// All ops including the sparse ones, 16-step programs over sparse variables
/// of every layout (F4, F8, S3; Note [Sparse programs]).
GenConfig sparse_config();
/// `base` plus cuda and cpu steps, for backends whose home device is CUDA
/// (the device properties, issue 11).
GenConfig device_config(GenConfig base);

/// The ops a program whose first record has seed `first_seed` is drawn
/// over: a random subset of cfg.ops for cfg.swarm_per_mille of the seeds
/// (each op kept with probability 1/2; never fewer than two), else cfg.ops
/// (Note [Swarm programs] in program_gen.cpp). Factories outside it still
/// seed a tensor when no live variable fits a drawn op.
OpSet swarm_ops(const GenConfig& cfg, int64_t first_seed);

/// Number of small choices per step record.
inline constexpr int kStepPicks = 16;

/// The random choices behind one step; every field means "simplest" at 0.
struct StepChoice {
  uint16_t op = 0;       ///< index into the enabled ops, modulo their count
  uint16_t var = 0;      ///< first tensor operand: index into the eligible live variables
  uint16_t var2 = 0;     ///< second tensor operand (copy_ source)
  uint16_t invalid = 0;  ///< the step is deliberately invalid when >= 1000 - invalid_per_mille
  std::array<uint16_t, kStepPicks> picks{};  ///< dims, sizes, indices, scalars, dtypes, in op order
  int64_t seed = 0;      ///< the seed argument of `rand`
  bool operator==(const StepChoice& o) const;
};

/// The generator's metadata model of one tensor (approximate, see program_gen.cpp).
struct ModelTensor {
  IntList sizes;
  IntList strides;
  int64_t offset = 0;
  DTypeArg dtype = DTypeArg::kF32;
  bool meta = false;  ///< on a meta storage (meta and fake tensors: no data, F6)
  bool fake = false;  ///< a fake tensor (FakeTensorMode)
  bool away = false;  ///< on the device other than the home one (cuda, cpu steps)
};

/// What the builder decided for one step (for tests of the generator itself).
struct StepTrace {
  bool invalid = false;    ///< the builder made this step deliberately invalid
  bool expect_error = false;  ///< valid, but the model expects a run-time error (S5, S8, R1, C7)
  bool has_input = false;  ///< the step reads a tensor variable (its first one)
  ModelTensor input;       ///< the model of that variable before the step
  int input_storage = -1;  ///< the model's storage id of that variable (equal ids: aliases)
  int64_t input_storage_bytes = -1;  ///< that storage's byte size before the step
  int input_cow_group = -1;  ///< the model's COW group of that storage before the step; -1: not COW
  int input_cow_others = 0;  ///< other live storages in that group (0 if COW: the last sharer)
  bool input_foreign = false;  ///< that storage has a foreign owner (from_blob; C7)
};

/// Draws one step's choice record, every field uniform on its range (op in
/// [0, 60000), invalid in [0, 1000), seed in [0, 2^30), the rest any uint16)
/// whatever the size; shrinks each field toward 0 (Note [Choice records]).
rc::Gen<StepChoice> gen_step_choice(const GenConfig& cfg);
/// Maps choice records to a well-formed program over t0, t1, ... (deterministic).
/// Fewer than cfg.min_steps records are padded with StepChoice{}; records past
/// cfg.max_steps are ignored. `trace`, when given, gets one entry per step.
Program build_program(const std::vector<StepChoice>& choices, const GenConfig& cfg,
                      std::vector<StepTrace>* trace = nullptr);
/// Programs of cfg.min_steps..cfg.max_steps steps over cfg.ops; shrinks by steps
/// (the first cfg.min_steps records are always drawn, never padding).
rc::Gen<Program> gen_program(const GenConfig& cfg);

/// A dtype of the language; shrinks toward f32.
rc::Gen<DTypeArg> gen_dtype();
/// Sizes of rank 0..max_rank with at most max_numel elements (size-0 dims included).
rc::Gen<IntList> gen_shape(int max_rank, int64_t max_numel);
/// Maps choice records to a factory followed by a chain of view ops, each
/// applied to the previous result and valid for it under the model.
Program build_view_chain(const std::vector<StepChoice>& choices, const GenConfig& cfg);
/// A factory then a chain of valid views (cfg.ops restricts which views; the
/// config's invalid_per_mille is ignored).
rc::Gen<Program> gen_view_chain(const GenConfig& cfg);

/// RapidCheck counterexample printing: the program text.
void showValue(const Program& p, std::ostream& os);

}  // namespace storcheck
