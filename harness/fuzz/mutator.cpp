#include "harness/fuzz/mutator.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "harness/shrink.h"
#include "program/text_format.h"

namespace storcheck {

namespace detail {
namespace {

using Rng = std::mt19937_64;

size_t below(Rng& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }
bool one_in(Rng& rng, size_t n) { return below(rng, n) == 0; }

// Note [Argument values]
// Whether an int is a valid dim, index or size depends on the operand's
// shape, which only running the program tells. The draws are therefore
// weighted toward the range where ops succeed and fail by a little (small
// dims and sizes, -1, 0), with edges that exercise the checked-arithmetic
// paths (S9) now and then: powers of two, int32 and int64 extremes.
int64_t pick_int(Rng& rng) {
  static constexpr int64_t kEdges[] = {
      16, 64, 255, 256, 1024, 4096, int64_t{1} << 31, -(int64_t{1} << 31), int64_t{1} << 62,
      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  size_t r = below(rng, 100);
  if (r < 85) return static_cast<int64_t>(below(rng, 12)) - 3;  // -3 .. 8
  return kEdges[below(rng, std::size(kEdges))];
}

int64_t pick_size(Rng& rng) {
  if (one_in(rng, 10)) return pick_int(rng);
  return static_cast<int64_t>(below(rng, 5));  // 0 .. 4
}

IntList pick_list(Rng& rng) {
  IntList l;
  l.n = static_cast<uint8_t>(one_in(rng, 8) ? below(rng, kMaxRank + 1) : below(rng, 4));
  for (int k = 0; k < l.n; ++k) l.v[k] = pick_size(rng);
  return l;
}

ScalarLit pick_scalar(Rng& rng) {
  static const ScalarLit kScalars[] = {
      ScalarLit::integer(0),        ScalarLit::integer(1),      ScalarLit::integer(2),
      ScalarLit::integer(-1),       ScalarLit::integer(255),    ScalarLit::integer(256),
      ScalarLit::integer(int64_t{1} << 40),
      ScalarLit::floating(1.5),     ScalarLit::floating(-0.0),  ScalarLit::floating(0.25),
      ScalarLit::floating(1e10),    ScalarLit::floating(std::numeric_limits<double>::infinity()),
      ScalarLit::floating(-std::numeric_limits<double>::infinity()),
      ScalarLit::floating(std::numeric_limits<double>::quiet_NaN()),
      ScalarLit::boolean(true),     ScalarLit::boolean(false)};
  return kScalars[below(rng, std::size(kScalars))];
}

DTypeArg pick_dtype(Rng& rng) { return static_cast<DTypeArg>(below(rng, kNumDTypes)); }

/// The variables live just before step `index`.
std::vector<VarId> live_before(const Program& p, size_t index) {
  std::vector<char> live(static_cast<size_t>(p.num_vars()), 0);
  for (size_t k = 0; k < index && k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    if (s.out != kNoVar) live[static_cast<size_t>(s.out)] = 1;
    if (s.op == OpId::kDrop && s.args[0].kind == ArgKind::kVar)
      live[static_cast<size_t>(s.args[0].var)] = 0;
  }
  std::vector<VarId> out;
  for (size_t v = 0; v < live.size(); ++v)
    if (live[v]) out.push_back(static_cast<VarId>(v));
  return out;
}

Arg pick_arg(char kind, Rng& rng, const std::vector<VarId>& live) {
  switch (kind) {
    case 'v': return Arg::variable(live[below(rng, live.size())]);
    case 'i': return Arg::integer(pick_int(rng));
    case 'l': return Arg::ints(pick_list(rng));
    case 's': return Arg::scalar_arg(pick_scalar(rng));
    default: return Arg::dtype_arg(pick_dtype(rng));
  }
}

/// A new step of `op` over `live`; false when it needs a variable and none is live.
bool make_step(OpId op, Rng& rng, const std::vector<VarId>& live, Program* p, Step* out) {
  const OpInfo& info = op_info(op);
  if (info.signature.find('v') != std::string_view::npos && live.empty()) return false;
  Step s;
  s.op = op;
  s.nargs = static_cast<uint8_t>(info.signature.size());
  for (size_t k = 0; k < info.signature.size(); ++k) s.args[k] = pick_arg(info.signature[k], rng, live);
  if (info.result == OpResult::kTensor) s.out = p->new_var("t" + std::to_string(p->num_vars()));
  *out = s;
  return true;
}

/// (step, argument) pairs whose argument has `kind`.
std::vector<std::pair<size_t, int>> args_of_kind(const Program& p, ArgKind kind) {
  std::vector<std::pair<size_t, int>> out;
  for (size_t k = 0; k < p.steps.size(); ++k)
    for (int a = 0; a < p.steps[k].nargs; ++a)
      if (p.steps[k].args[a].kind == kind) out.emplace_back(k, a);
  return out;
}

/// A random argument of `kind`, or null when the program has none.
Arg* random_arg(Program* p, ArgKind kind, Rng& rng, size_t* step = nullptr) {
  auto all = args_of_kind(*p, kind);
  if (all.empty()) return nullptr;
  auto [k, a] = all[below(rng, all.size())];
  if (step) *step = k;
  return &p->steps[k].args[a];
}

bool insert_step(MutationContext& ctx, Program* p) {
  size_t pos = below(ctx.rng, p->steps.size() + 1);
  std::vector<VarId> live = live_before(*p, pos);
  OpId op = ctx.ops[below(ctx.rng, ctx.ops.size())];
  Step s;
  if (!make_step(op, ctx.rng, live, p, &s)) {
    // Nothing live here: a factory starts the program instead.
    std::vector<OpId> factories;
    for (OpId o : ctx.ops)
      if (op_info(o).category == OpCategory::kFactory) factories.push_back(o);
    if (factories.empty() ||
        !make_step(factories[below(ctx.rng, factories.size())], ctx.rng, live, p, &s))
      return false;
  }
  p->steps.insert(p->steps.begin() + static_cast<std::ptrdiff_t>(pos), s);
  return true;
}

bool delete_step(MutationContext& ctx, Program* p) {
  if (p->steps.empty()) return false;
  p->steps.erase(p->steps.begin() + static_cast<std::ptrdiff_t>(below(ctx.rng, p->steps.size())));
  return true;
}

bool duplicate_step(MutationContext& ctx, Program* p) {
  if (p->steps.empty()) return false;
  size_t from = below(ctx.rng, p->steps.size());
  Step s = p->steps[from];
  if (s.out != kNoVar) s.out = p->new_var("t" + std::to_string(p->num_vars()));
  size_t to = from + 1 + below(ctx.rng, p->steps.size() - from);
  p->steps.insert(p->steps.begin() + static_cast<std::ptrdiff_t>(to), s);
  return true;
}

bool swap_steps(MutationContext& ctx, Program* p) {
  if (p->steps.size() < 2) return false;
  size_t a = below(ctx.rng, p->steps.size());
  size_t b = below(ctx.rng, p->steps.size() - 1);
  if (b >= a) ++b;
  std::swap(p->steps[a], p->steps[b]);
  return true;
}

bool change_op(MutationContext& ctx, Program* p) {
  if (p->steps.empty()) return false;
  Step& s = p->steps[below(ctx.rng, p->steps.size())];
  const OpInfo& info = s.info();
  std::vector<OpId> same;
  for (OpId o : ctx.ops)
    if (o != s.op && op_info(o).signature == info.signature && op_info(o).result == info.result)
      same.push_back(o);
  if (same.empty()) return false;
  s.op = same[below(ctx.rng, same.size())];
  return true;
}

bool change_int(MutationContext& ctx, Program* p) {
  Arg* a = random_arg(p, ArgKind::kInt, ctx.rng);
  if (!a) return false;
  switch (below(ctx.rng, 4)) {
    case 0: a->i = pick_int(ctx.rng); break;
    case 1: if (a->i < std::numeric_limits<int64_t>::max()) ++a->i; break;
    case 2: if (a->i > std::numeric_limits<int64_t>::min()) --a->i; break;
    default: if (a->i != std::numeric_limits<int64_t>::min()) a->i = -a->i; break;
  }
  return true;
}

bool change_list(MutationContext& ctx, Program* p) {
  Arg* a = random_arg(p, ArgKind::kList, ctx.rng);
  if (!a) return false;
  IntList& l = a->list;
  size_t r = below(ctx.rng, 4);
  if (r == 0 || l.n == 0) {
    if (l.n < kMaxRank && (r == 0 || l.n == 0)) {
      size_t at = below(ctx.rng, l.n + 1u);
      for (size_t k = l.n; k > at; --k) l.v[k] = l.v[k - 1];
      l.v[at] = pick_size(ctx.rng);
      ++l.n;
      return true;
    }
    return false;
  }
  size_t at = below(ctx.rng, l.n);
  if (r == 1) {  // remove an entry
    for (size_t k = at; k + 1 < l.n; ++k) l.v[k] = l.v[k + 1];
    --l.n;
  } else if (r == 2) {
    l.v[at] = pick_size(ctx.rng);
  } else {
    l = pick_list(ctx.rng);
  }
  return true;
}

bool change_scalar(MutationContext& ctx, Program* p) {
  Arg* a = random_arg(p, ArgKind::kScalar, ctx.rng);
  if (!a) return false;
  a->scalar = pick_scalar(ctx.rng);
  return true;
}

bool change_dtype(MutationContext& ctx, Program* p) {
  Arg* a = random_arg(p, ArgKind::kDType, ctx.rng);
  if (!a) return false;
  DTypeArg d = pick_dtype(ctx.rng);
  if (d == a->dtype) d = static_cast<DTypeArg>((static_cast<int>(d) + 1) % kNumDTypes);
  a->dtype = d;
  return true;
}

bool retarget_var(MutationContext& ctx, Program* p) {
  size_t step = 0;
  Arg* a = random_arg(p, ArgKind::kVar, ctx.rng, &step);
  if (!a) return false;
  std::vector<VarId> live = live_before(*p, step);
  live.erase(std::remove(live.begin(), live.end(), a->var), live.end());
  if (live.empty()) return false;
  a->var = live[below(ctx.rng, live.size())];
  return true;
}

// A prefix of *p followed by a suffix of ctx.other; the suffix's variables
// get new ids, and its reads of variables its prefix defined are left
// undefined for repair_program to retarget.
bool splice(MutationContext& ctx, Program* p) {
  if (!ctx.other || ctx.other->steps.empty()) return false;
  const Program& o = *ctx.other;
  p->steps.resize(below(ctx.rng, p->steps.size() + 1));
  std::vector<VarId> map(static_cast<size_t>(o.num_vars()), kNoVar);
  auto mapped = [&](VarId v) {
    if (map[static_cast<size_t>(v)] == kNoVar)
      map[static_cast<size_t>(v)] = p->new_var("t" + std::to_string(p->num_vars()));
    return map[static_cast<size_t>(v)];
  };
  for (size_t k = below(ctx.rng, o.steps.size()); k < o.steps.size(); ++k) {
    Step s = o.steps[k];
    for (int a = 0; a < s.nargs; ++a)
      if (s.args[a].kind == ArgKind::kVar) s.args[a].var = mapped(s.args[a].var);
    if (s.out != kNoVar) {
      s.out = p->new_var("t" + std::to_string(p->num_vars()));
      map[static_cast<size_t>(o.steps[k].out)] = s.out;
    }
    p->steps.push_back(s);
  }
  return true;
}

}  // namespace
}  // namespace detail

const std::vector<MutatorInfo>& mutator_table() {
  using namespace detail;
  static const std::vector<MutatorInfo> kTable = {
      {"insert_step", "a new step of a random op of the target at a random position", insert_step},
      {"delete_step", "removes a step (readers of its output are retargeted)", delete_step},
      {"duplicate_step", "copies a step to a later position, with a new output", duplicate_step},
      {"swap_steps", "swaps two steps", swap_steps},
      {"change_op", "another op of the same signature (add_ <-> mul_, view <-> expand)", change_op},
      {"change_int", "an int argument: a new draw, +1, -1 or negated", change_int},
      {"change_list", "a list argument: an entry added, removed or changed, or a new list",
       change_list},
      {"change_scalar", "a scalar argument: int, float (nan, inf, -0.0) or bool", change_scalar},
      {"change_dtype", "a dtype argument", change_dtype},
      {"retarget_var", "a tensor operand becomes another live variable", retarget_var},
      {"splice", "a prefix of one program and a suffix of another (cross-over)", splice},
      {"bytes", "LLVMFuzzerMutate on the text (unparsable input, and now and then any)", nullptr},
  };
  return kTable;
}

int find_mutator(std::string_view name) {
  const auto& t = mutator_table();
  for (size_t k = 0; k < t.size(); ++k)
    if (t[k].name == name) return static_cast<int>(k);
  return -1;
}

bool repair_program(Program* p, const Limits& limits, std::mt19937_64& rng) {
  Program out;
  out.var_names = p->var_names;
  out.steps.reserve(p->steps.size());
  std::vector<char> defined(out.var_names.size(), 0);
  std::vector<VarId> live;
  live.reserve(out.var_names.size());
  auto is_live = [&](VarId v) { return std::find(live.begin(), live.end(), v) != live.end(); };
  for (Step s : p->steps) {
    bool keep = true;
    for (int a = 0; keep && a < s.nargs; ++a) {
      Arg& arg = s.args[a];
      if (arg.kind != ArgKind::kVar || is_live(arg.var)) continue;
      if (live.empty()) keep = false;
      else arg.var = live[detail::below(rng, live.size())];
    }
    if (!keep) continue;
    if (s.out != kNoVar) {
      if (defined[static_cast<size_t>(s.out)]) {
        s.out = out.new_var("t" + std::to_string(out.num_vars()));
        defined.push_back(0);
      }
      defined[static_cast<size_t>(s.out)] = 1;
      live.push_back(s.out);
    }
    if (s.op == OpId::kDrop) live.erase(std::remove(live.begin(), live.end(), s.args[0].var), live.end());
    out.steps.push_back(s);
  }
  *p = renumber(out);
  bool ok = false;
  (void)validate_program(*p, limits, &ok);
  return ok;
}

ProgramMutator::ProgramMutator(const OpSet& ops, const Limits& limits, ParseCache* cache)
    : limits_(limits), cache_(cache), stats_(mutator_table().size()) {
  for (const OpInfo& info : op_table())
    if (ops.test(static_cast<size_t>(info.id))) ops_.push_back(info.id);
}

bool ProgramMutator::apply(int mutator, Program* p, std::mt19937_64& rng, const Program* other) {
  const MutatorInfo& m = mutator_table()[static_cast<size_t>(mutator)];
  if (!m.fn || ops_.empty()) return false;
  MutationContext ctx{rng, ops_, other};
  if (!m.fn(ctx, p)) return false;
  return repair_program(p, limits_, rng);
}

namespace {

size_t emit(const Program& p, std::string_view mutator, uint8_t* out, size_t max_out) {
  std::string text = print_program(p) + "# mutator: " + std::string(mutator) + "\n";
  if (text.size() > max_out) return 0;
  std::memcpy(out, text.data(), text.size());
  return text.size();
}

}  // namespace

bool ProgramMutator::parse_own(const uint8_t* data, size_t size, Program* out) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (cache_) {  // Note [Parsed inputs]
    const Program* p = cache_->parse(text);
    if (!p) return false;
    *out = *p;
  } else {
    ParseResult r = parse_program(text, limits_);
    if (!r.ok()) return false;
    *out = std::move(r.program);
  }
  for (const Step& s : out->steps)
    if (std::find(ops_.begin(), ops_.end(), s.op) == ops_.end()) return false;
  return true;
}

size_t ProgramMutator::remember(const uint8_t* out, size_t n) {
  if (cache_) cache_->parse(std::string_view(reinterpret_cast<const char*>(out), n));
  return n;
}

size_t ProgramMutator::mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                              ByteMutateFn fallback) {
  std::mt19937_64 rng(seed);
  const int bytes = find_mutator("bytes");
  const int splice_at = find_mutator("splice");
  Program p;
  // One in 16 parsable inputs also goes to the byte level: it reaches the
  // parser's error paths and token spellings no program-level change makes.
  if (!detail::one_in(rng, 16) && parse_own(data, size, &p)) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      int k = static_cast<int>(detail::below(rng, static_cast<size_t>(splice_at)));
      Program q = p;
      ++stats_[static_cast<size_t>(k)].tried;
      if (!apply(k, &q, rng)) continue;
      size_t n = emit(q, mutator_table()[static_cast<size_t>(k)].name, data, max_size);
      if (n == 0) continue;
      ++stats_[static_cast<size_t>(k)].produced;
      return remember(data, n);
    }
  }
  ++stats_[static_cast<size_t>(bytes)].tried;
  size_t n = fallback(data, size, max_size);
  ++stats_[static_cast<size_t>(bytes)].produced;
  // Name the byte level as the last mutator comment, which stats read.
  static constexpr std::string_view kTag = "\n# mutator: bytes\n";
  if (n + kTag.size() <= max_size) {
    std::memcpy(data + n, kTag.data(), kTag.size());
    n += kTag.size();
  }
  return n;
}

size_t ProgramMutator::cross_over(const uint8_t* d1, size_t s1, const uint8_t* d2, size_t s2,
                                  uint8_t* out, size_t max_out, unsigned seed) {
  std::mt19937_64 rng(seed);
  const int splice_at = find_mutator("splice");
  Program a, b;
  ++stats_[static_cast<size_t>(splice_at)].tried;
  if (!parse_own(d1, s1, &a) || !parse_own(d2, s2, &b)) return 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    Program q = a;
    if (!apply(splice_at, &q, rng, &b)) continue;
    size_t n = emit(q, "splice", out, max_out);
    if (n == 0) continue;
    ++stats_[static_cast<size_t>(splice_at)].produced;
    return remember(out, n);
  }
  return 0;
}

std::string ProgramMutator::stats_text() const {
  std::string s;
  const auto& t = mutator_table();
  for (size_t k = 0; k < t.size(); ++k) {
    std::string name(t[k].name);
    name.resize(16, ' ');
    s += name + " tried " + std::to_string(stats_[k].tried) + "  produced " +
         std::to_string(stats_[k].produced) + "\n";
  }
  return s;
}

}  // namespace storcheck
