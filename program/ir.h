// The op-program IR: a Program is a list of Steps over numbered tensor
// variables, one step per line of the text format (program/README.md).
//
// Invariant: a Program produced by `parse_program` or by the generators is
// well formed (validate_program, program/text_format.h): every variable is
// defined once before use and not used after `drop`, every argument has the
// kind its op's signature says, and every list fits the limits. Arguments
// are plain values (no heap allocation inside a Step), so programs copy and
// mutate cheaply.
//
//   Program p;
//   VarId t0 = p.new_var("t0");
//   Step s;
//   s.op = OpId::kArange; s.out = t0; s.nargs = 2;
//   s.args[0] = Arg::ints({3, 4}); s.args[1] = Arg::dtype_arg(DTypeArg::kF32);
//   p.steps.push_back(s);
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace storcheck {

/// Upper bound on tensor rank everywhere in storcheck (also the parser limit).
inline constexpr int kMaxRank = 8;
/// Upper bound on the number of arguments of any op in ops.def.
inline constexpr int kMaxArgs = 5;

/// Every op of the language, from program/ops.def.
enum class OpId : uint8_t {
#define SC_OP(e, name, result, sig, cat, py, cpp) e,
#include "program/ops.def"
#undef SC_OP
  kNumOps
};
inline constexpr int kNumOps = static_cast<int>(OpId::kNumOps);

enum class OpResult : uint8_t { kTensor, kNone };
enum class OpCategory : uint8_t {
  kFactory,
  kView,
  kInplace,
  kInplaceView,
  kCompute,
  kStorage,
  kConvert,
  kSparse,
  kDevice,
  kLifetime
};

/// One row of the op table.
struct OpInfo {
  OpId id;
  std::string_view name;
  OpResult result;
  std::string_view signature;  ///< one char per argument: v i l s d
  OpCategory category;
  std::string_view python;  ///< PyTorch spelling (ops.def, used by `storcheck emit`)
  std::string_view cpp;     ///< LibTorch C++ spelling
};

namespace detail {
extern const std::array<OpInfo, kNumOps>& g_op_table;  ///< ir.cpp's table
}  // namespace detail

/// The op table, indexed by OpId. Inline: every step asks (issue 8).
inline const OpInfo& op_info(OpId op) { return detail::g_op_table[static_cast<int>(op)]; }
/// All rows, in ops.def order.
inline const std::array<OpInfo, kNumOps>& op_table() { return detail::g_op_table; }
/// Looks an op up by its name; false when unknown.
bool find_op(std::string_view name, OpId* out);
/// torch.add / torch.mul with out= (add_out, mul_out): Note [out=] in
/// impl/ops.cpp; out (args[0]) may be resized to the input's sizes.
inline bool is_scalar_out(OpId op) { return op == OpId::kAddOut || op == OpId::kMulOut; }
/// sparse_{csr,csc,bsr,bsc}_tensor(compressed, plain, values, sizes): a
/// compressed sparse tensor from its parts (impl/sparse.h).
inline bool is_compressed_from_parts(OpId op) {
  return op == OpId::kSparseCsrTensor || op == OpId::kSparseCscTensor ||
         op == OpId::kSparseBsrTensor || op == OpId::kSparseBscTensor;
}

/// The dtypes of the language, in the order of their tokens.
enum class DTypeArg : uint8_t { kF32, kF64, kI32, kI64, kU8, kBool };
inline constexpr int kNumDTypes = 6;
std::string_view dtype_token(DTypeArg d);
bool find_dtype(std::string_view token, DTypeArg* out);

/// A scalar literal: `2` (int), `1.5`/`inf`/`nan` (float), `true` (bool).
struct ScalarLit {
  enum class Kind : uint8_t { kBool, kInt, kFloat };
  Kind kind = Kind::kInt;
  int64_t i = 0;   ///< kInt, and kBool (0 or 1)
  double f = 0;    ///< kFloat
  static ScalarLit integer(int64_t v) { return {Kind::kInt, v, 0}; }
  static ScalarLit floating(double v) { return {Kind::kFloat, 0, v}; }
  static ScalarLit boolean(bool v) { return {Kind::kBool, v ? 1 : 0, 0}; }
  bool operator==(const ScalarLit& o) const;
};

/// A fixed-capacity list of int64 (sizes, strides, dims).
struct IntList {
  std::array<int64_t, kMaxRank> v{};
  uint8_t n = 0;
  IntList() = default;
  IntList(std::initializer_list<int64_t> xs);
  int64_t operator[](int k) const { return v[k]; }
  int size() const { return n; }
  const int64_t* begin() const { return v.data(); }
  const int64_t* end() const { return v.data() + n; }
  bool operator==(const IntList& o) const;
};

using VarId = int32_t;
inline constexpr VarId kNoVar = -1;

enum class ArgKind : uint8_t { kNone, kVar, kInt, kList, kScalar, kDType };

// Note [Arg payload]
// An Arg holds one of an int, a scalar or a list, never two: the three share
// their bytes in a union, so an Arg is 80 bytes and a Step 408 (they were
// 112 and 568 with a field for each). Runners read a program's steps from
// memory that is usually cold (the bench's pre-generated sets are many MiB);
// 28% fewer bytes per step made the reference's execution-only row 2-3%
// faster (storcheck_bench, medians of 10 alternated pairs and of 15 rounds;
// issue 8). Read the member `kind` names and only that one (`kind` and the
// signature agree in a well-formed program: validate_program); write through
// the factories below, or set `kind` and the matching member together. A
// default Arg holds a zeroed list.
/// One argument of a step; `kind` says which field holds it.
struct Arg {
  // What a runner reads for every step (kind, var) first, in the first
  // bytes of the Arg: steps are read from cold memory (issue 8).
  ArgKind kind = ArgKind::kNone;
  DTypeArg dtype = DTypeArg::kF32;
  VarId var = kNoVar;
  union {  // the member `kind` names (Note [Arg payload])
    IntList list;
    int64_t i;
    ScalarLit scalar;
  };

  Arg() : list() {}

  static Arg variable(VarId v) { Arg a; a.kind = ArgKind::kVar; a.var = v; return a; }
  static Arg integer(int64_t x) { Arg a; a.kind = ArgKind::kInt; a.i = x; return a; }
  static Arg ints(IntList l) { Arg a; a.kind = ArgKind::kList; a.list = l; return a; }
  static Arg scalar_arg(ScalarLit s) { Arg a; a.kind = ArgKind::kScalar; a.scalar = s; return a; }
  static Arg dtype_arg(DTypeArg d) { Arg a; a.kind = ArgKind::kDType; a.dtype = d; return a; }
  bool operator==(const Arg& o) const;
};
static_assert(sizeof(Arg) <= 80,
              "an Arg's int, scalar and list share their bytes (Note [Arg payload])");

/// One line of a program: `out = op args...` or `op args...`.
/// A factory's device (issue 11): written after its arguments, `cpu` or
/// `cuda`; none means the backend's home device.
enum class DeviceArg : uint8_t { kHome, kCpu, kCuda };

struct Step {
  OpId op = OpId::kDrop;
  uint8_t nargs = 0;
  DeviceArg device = DeviceArg::kHome;  ///< factories only (StepChecker)
  VarId out = kNoVar;  ///< the defined variable, for ops with a tensor result
  std::array<Arg, kMaxArgs> args{};
  const OpInfo& info() const { return op_info(op); }
  bool operator==(const Step& o) const;
};

/// A whole program. Variable ids are dense, in order of definition;
/// `var_names[id]` is the name printed for it.
struct Program {
  std::vector<Step> steps;
  std::vector<std::string> var_names;
  VarId new_var(std::string name) {
    var_names.push_back(std::move(name));
    return static_cast<VarId>(var_names.size() - 1);
  }
  int num_vars() const { return static_cast<int>(var_names.size()); }
  bool operator==(const Program& o) const;  ///< same steps and names
};

}  // namespace storcheck
