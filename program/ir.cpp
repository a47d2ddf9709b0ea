#include "program/ir.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace storcheck {

namespace {
constexpr std::array<OpInfo, kNumOps> kOpTable = {{
#define SC_OP(e, name, result, sig, cat, py, cpp) \
  OpInfo{OpId::e, name, OpResult::result, sig, OpCategory::cat, py, cpp},
#include "program/ops.def"
#undef SC_OP
}};

constexpr std::array<std::string_view, kNumDTypes> kDTypeTokens = {"f32", "f64", "i32",
                                                                     "i64", "u8",  "bool"};

constexpr bool signatures_fit() {
  for (const OpInfo& info : kOpTable) {
    if (info.signature.size() > static_cast<size_t>(kMaxArgs)) return false;
  }
  return true;
}
static_assert(signatures_fit(), "every op takes at most kMaxArgs arguments");
}  // namespace

namespace detail {
const std::array<OpInfo, kNumOps>& g_op_table = kOpTable;
}  // namespace detail

bool find_op(std::string_view name, OpId* out) {
  // A hash lookup: the parser runs for every fuzz input (issue 6).
  static const std::unordered_map<std::string_view, OpId> kByName = [] {
    std::unordered_map<std::string_view, OpId> m;
    for (const OpInfo& info : kOpTable) m.emplace(info.name, info.id);
    return m;
  }();
  auto it = kByName.find(name);
  if (it == kByName.end()) return false;
  *out = it->second;
  return true;
}

std::string_view dtype_token(DTypeArg d) { return kDTypeTokens[static_cast<int>(d)]; }

bool find_dtype(std::string_view token, DTypeArg* out) {
  for (int k = 0; k < kNumDTypes; ++k) {
    if (kDTypeTokens[k] == token) {
      *out = static_cast<DTypeArg>(k);
      return true;
    }
  }
  return false;
}

bool ScalarLit::operator==(const ScalarLit& o) const {
  if (kind != o.kind) return false;
  if (kind != Kind::kFloat) return i == o.i;
  // Bitwise, so that nan == nan and -0.0 != 0.0: the printed text decides.
  return std::memcmp(&f, &o.f, sizeof f) == 0 || (std::isnan(f) && std::isnan(o.f));
}

IntList::IntList(std::initializer_list<int64_t> xs) {
  for (int64_t x : xs) {
    if (n == kMaxRank) break;
    v[n++] = x;
  }
}

bool IntList::operator==(const IntList& o) const {
  if (n != o.n) return false;
  for (int k = 0; k < n; ++k)
    if (v[k] != o.v[k]) return false;
  return true;
}

bool Arg::operator==(const Arg& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case ArgKind::kNone: return true;
    case ArgKind::kVar: return var == o.var;
    case ArgKind::kInt: return i == o.i;
    case ArgKind::kList: return list == o.list;
    case ArgKind::kScalar: return scalar == o.scalar;
    case ArgKind::kDType: return dtype == o.dtype;
  }
  return false;
}

bool Step::operator==(const Step& o) const {
  if (op != o.op || out != o.out || nargs != o.nargs || device != o.device) return false;
  for (int k = 0; k < nargs; ++k)
    if (!(args[k] == o.args[k])) return false;
  return true;
}

bool Program::operator==(const Program& o) const {
  return steps == o.steps && var_names == o.var_names;
}

}  // namespace storcheck
