#include "generators/program_gen.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "oracles/backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// Draws a value from gen deterministically (seed, size): for counting tests.
template <typename T>
T sample(const rc::Gen<T>& gen, uint64_t seed, int size) {
  return gen(rc::Random(seed), size).value();
}

bool valid(const Program& p, std::string* why) {
  bool ok = false;
  ParseError e = validate_program(p, Limits{}, &ok);
  if (!ok) *why = e.to_string() + "\n" + print_program(p);
  return ok;
}

int64_t product(const IntList& l) {
  int64_t n = 1;
  for (int64_t x : l) n *= x;
  return n;
}

RC_GTEST_PROP(ProgramGen, EveryProgramPassesValidateWithDefaultLimits, ()) {
  Program p = *gen_program(GenConfig{});
  std::string why;
  RC_ASSERT(valid(p, &why));
}

RC_GTEST_PROP(ProgramGen, HighInvalidShareStillWellFormed, ()) {
  GenConfig cfg;
  cfg.invalid_per_mille = 500;
  cfg.max_steps = 40;
  Program p = *gen_program(cfg);
  std::string why;
  RC_ASSERT(valid(p, &why));
}

RC_GTEST_PROP(ProgramGen, PrintParseRoundTripsToEqualProgram, ()) {
  Program p = *gen_program(GenConfig{});
  std::string text = print_program(p);
  ParseResult r = parse_program(text);
  RC_ASSERT(r.ok());
  RC_ASSERT(r.program == p);
}

RC_GTEST_PROP(ProgramGen, RespectsMinAndMaxSteps, ()) {
  GenConfig cfg;
  cfg.max_steps = *rc::gen::inRange(1, 40);
  cfg.min_steps = *rc::gen::inRange(0, cfg.max_steps + 1);
  Program p = *gen_program(cfg);
  RC_ASSERT(static_cast<int>(p.steps.size()) <= cfg.max_steps);
  RC_ASSERT(static_cast<int>(p.steps.size()) >= cfg.min_steps);
}

RC_GTEST_PROP(ProgramGen, RemovingAnyChoiceStillYieldsWellFormedProgram, ()) {
  GenConfig cfg;
  auto choices = *rc::gen::container<std::vector<StepChoice>>(gen_step_choice(cfg));
  RC_PRE(!choices.empty());
  size_t k = *rc::gen::inRange<size_t>(0, choices.size());
  choices.erase(choices.begin() + k);
  std::string why;
  RC_ASSERT(valid(build_program(choices, cfg), &why));
}

RC_GTEST_PROP(ProgramGen, FactoriesStayWithinMaxNumel, ()) {
  GenConfig cfg;
  cfg.max_numel = *rc::gen::inRange<int64_t>(1, 200);
  cfg.invalid_per_mille = 0;
  Program p = *gen_program(cfg);
  for (const Step& s : p.steps) {
    if (s.info().category != OpCategory::kFactory) continue;
    RC_ASSERT(product(s.args[0].list) <= cfg.max_numel);
  }
}

RC_GTEST_PROP(ProgramGen, NoEdgeValuesMeansNoEmptyFactoriesAndNoNanScalars, ()) {
  GenConfig cfg;
  cfg.edge_values = false;
  cfg.invalid_per_mille = 0;
  Program p = *gen_program(cfg);
  for (const Step& s : p.steps) {
    if (s.info().category == OpCategory::kFactory) RC_ASSERT(product(s.args[0].list) > 0);
    for (int k = 0; k < s.nargs; ++k)
      if (s.args[k].kind == ArgKind::kScalar && s.args[k].scalar.kind == ScalarLit::Kind::kFloat)
        RC_ASSERT(std::isfinite(s.args[k].scalar.f));
  }
}

void expect_every_op_within_2000_programs(const GenConfig& cfg) {
  std::array<int, kNumOps> seen{};
  rc::Gen<Program> gen = gen_program(cfg);
  for (int k = 0; k < 2000; ++k) {
    Program p = sample(gen, 1000 + k, k % 100);
    for (const Step& s : p.steps) ++seen[static_cast<int>(s.op)];
  }
  for (const OpInfo& info : op_table())
    if (cfg.ops.test(static_cast<int>(info.id))) {  // sparse ops: sparse_config() only
      EXPECT_GT(seen[static_cast<int>(info.id)], 0) << "op " << info.name << " never generated";
    }
}

TEST(ProgramGen, EveryOpAppearsWithin2000Programs) { expect_every_op_within_2000_programs(GenConfig{}); }

TEST(ProgramGen, EveryOpAppearsWithin2000ShrinkConfigPrograms) {
  expect_every_op_within_2000_programs(shrink_config());
}

RC_GTEST_PROP(ShrinkConfig, ProgramsPassValidateAndHave16Steps, ()) {
  Program p = *gen_program(shrink_config());
  std::string why;
  RC_ASSERT(valid(p, &why));
  RC_ASSERT(p.steps.size() == 16u);
}

RC_GTEST_PROP(ShrinkConfig, PrintParseRoundTrips, ()) {
  Program p = *gen_program(shrink_config());
  ParseResult r = parse_program(print_program(p));
  RC_ASSERT(r.ok());
  RC_ASSERT(r.program == p);
}

bool is_clone_path(OpId op) {
  return op == OpId::kClone || op == OpId::kContiguous || op == OpId::kClonePreserveStrides ||
         op == OpId::kTo || op == OpId::kLazyClone;
}

/// Share of programs (in percent) that show each group R scenario.
struct Scenarios {
  int programs = 0;
  int shrink = 0;               // a shrink that does not raise
  int shrink_offset_view = 0;   // ... of a variable with a storage offset
  int clone_after_shrink = 0;   // shrink, later a clone path on a variable sharing that storage
  int clone_emptied = 0;        // a clone path on an emptied tensor (restore rule)
  int clone_emptied_alias = 0;  // ... on another variable than the one shrunk
  int view_emptied = 0;         // select/narrow/slice/as_strided/transpose on an emptied tensor
  int compute_emptied = 0;      // add/mul on an emptied tensor
  int rehydrate_after_shrink = 0;
  int reshrink_after_rehydrate = 0;
  int undersized = 0;           // resize_storage to 0 < n < extent
  int nonresizable_then_resize = 0;  // set_nonresizable, then shrink/resize_storage of it

  void add(const Program& p, const std::vector<StepTrace>& tr) {
    ++programs;
    bool a_shrink = false, a_off = false, a_clone = false, a_ce = false, a_cea = false,
         a_view = false, a_comp = false, a_reh = false, a_resh = false, a_under = false,
         a_nr = false;
    std::vector<int> shrunk_storages, fixed_storages;
    std::vector<VarId> shrunk_vars;
    bool rehydrated = false;
    auto has = [](const std::vector<int>& xs, int x) {
      return std::find(xs.begin(), xs.end(), x) != xs.end();
    };
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const Step& s = p.steps[k];
      const StepTrace& t = tr[k];
      if (t.invalid) continue;
      bool emptied = t.has_input && product(t.input.sizes) > 0 && t.input_storage_bytes == 0;
      if (is_clone_path(s.op) && has(shrunk_storages, t.input_storage)) a_clone = true;
      if (is_clone_path(s.op) && emptied) {
        a_ce = true;
        if (std::find(shrunk_vars.begin(), shrunk_vars.end(), s.args[0].var) == shrunk_vars.end())
          a_cea = true;
      }
      if (emptied && (s.op == OpId::kSelect || s.op == OpId::kNarrow || s.op == OpId::kSlice ||
                      s.op == OpId::kAsStrided || s.op == OpId::kTranspose))
        a_view = true;
      if (emptied && (s.op == OpId::kAdd || s.op == OpId::kMul)) a_comp = true;
      if (s.op == OpId::kShrink && !t.expect_error) {
        a_shrink = true;
        a_off |= t.input.offset > 0;
        shrunk_storages.push_back(t.input_storage);
        shrunk_vars.push_back(s.args[0].var);
      }
      if (s.op == OpId::kRehydrate && !shrunk_storages.empty()) a_reh = rehydrated = true;
      if (s.op == OpId::kReshrink && rehydrated) a_resh = true;
      if (s.op == OpId::kResizeStorage && s.args[1].i > 0) {
        int64_t need = 1;  // the extent, as the generator computes it
        int64_t last = t.input.offset;
        for (int d = 0; d < t.input.sizes.size(); ++d) last += (t.input.sizes[d] - 1) * t.input.strides[d];
        need = product(t.input.sizes) == 0 ? 0 : (last + 1);
        int64_t item = t.input.dtype == DTypeArg::kF64 || t.input.dtype == DTypeArg::kI64 ? 8
                       : t.input.dtype == DTypeArg::kF32 || t.input.dtype == DTypeArg::kI32 ? 4 : 1;
        if (s.args[1].i < need * item) a_under = true;
      }
      if (s.op == OpId::kSetNonresizable) fixed_storages.push_back(t.input_storage);
      if ((s.op == OpId::kShrink || s.op == OpId::kResizeStorage) && has(fixed_storages, t.input_storage))
        a_nr = true;
    }
    shrink += a_shrink;
    shrink_offset_view += a_off;
    clone_after_shrink += a_clone;
    clone_emptied += a_ce;
    clone_emptied_alias += a_cea;
    view_emptied += a_view;
    compute_emptied += a_comp;
    rehydrate_after_shrink += a_reh;
    reshrink_after_rehydrate += a_resh;
    undersized += a_under;
    nonresizable_then_resize += a_nr;
  }
  double pct(int n) const { return 100.0 * n / programs; }
  void print(const char* what) const {
    std::printf(
        "%s (%d programs): shrink %.1f%%, of an offset view %.1f%%, clone path after shrink "
        "(shared storage) %.1f%%, clone path of emptied %.1f%% (of an unshrunk alias %.1f%%), "
        "checked view of emptied %.1f%%, add/mul of emptied %.1f%%, rehydrate after shrink %.1f%%, "
        "reshrink after rehydrate %.1f%%, undersized resize_storage %.1f%%, "
        "set_nonresizable then shrink/resize_storage %.1f%%\n",
        what, programs, pct(shrink), pct(shrink_offset_view), pct(clone_after_shrink),
        pct(clone_emptied), pct(clone_emptied_alias), pct(view_emptied), pct(compute_emptied),
        pct(rehydrate_after_shrink), pct(reshrink_after_rehydrate), pct(undersized),
        pct(nonresizable_then_resize));
  }
};

Scenarios measure(const GenConfig& cfg, int programs) {
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(static_cast<size_t>(cfg.max_steps), gen_step_choice(cfg));
  Scenarios sc;
  for (int k = 0; k < programs; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 31 + k, 100), cfg, &trace);
    sc.add(p, trace);
  }
  return sc;
}

TEST(ShrinkConfig, GroupRScenariosAreFrequentIn16StepPrograms) {
  Scenarios sc = measure(shrink_config(), 2000);
  sc.print("shrink_config()");
  EXPECT_GE(sc.pct(sc.clone_after_shrink), 30.0);
  EXPECT_GE(sc.pct(sc.rehydrate_after_shrink), 10.0);
  // The other scenarios of SEMANTICS group R happen too.
  EXPECT_GE(sc.pct(sc.shrink_offset_view), 5.0);
  EXPECT_GE(sc.pct(sc.clone_emptied), 20.0);
  EXPECT_GE(sc.pct(sc.clone_emptied_alias), 5.0);
  EXPECT_GE(sc.pct(sc.view_emptied), 10.0);
  EXPECT_GE(sc.pct(sc.compute_emptied), 2.0);
  EXPECT_GE(sc.pct(sc.reshrink_after_rehydrate), 2.0);
  EXPECT_GE(sc.pct(sc.undersized), 5.0);
  EXPECT_GE(sc.pct(sc.nonresizable_then_resize), 2.0);
  measure(GenConfig{}, 2000).print("GenConfig{} at 16 steps, for comparison");
}

TEST(ShrinkConfig, ResultsOfExpectedErrorsAreNeverUsed) {
  GenConfig cfg = shrink_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  int errors = 0, restores = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 77 + k, 100), cfg, &trace);
    std::vector<bool> dead(static_cast<size_t>(p.num_vars()), false);
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      for (int a = 0; a < s.nargs; ++a) {
        if (s.args[a].kind == ArgKind::kVar) {
          ASSERT_FALSE(dead[s.args[a].var]) << print_program(p);
        }
      }
      const StepTrace& t = trace[j];
      if ((t.invalid || t.expect_error) && s.out != kNoVar) dead[s.out] = true;
      errors += t.expect_error;
      // R2 on data: a 0-byte meta storage (Note [Meta execution]) is not emptied.
      bool emptied = !t.invalid && t.has_input && product(t.input.sizes) > 0 &&
                     t.input_storage_bytes == 0 && !t.input.meta;
      if (emptied && is_clone_path(s.op)) {
        // R3: the restore rule gives a usable fresh tensor, never an error.
        EXPECT_FALSE(t.expect_error) << print_step(p, s);
        ++restores;
      }
      if (emptied && (s.op == OpId::kAdd || s.op == OpId::kMul || s.op == OpId::kSum ||
                      s.op == OpId::kSelect)) {
        EXPECT_TRUE(t.expect_error) << print_step(p, s);  // S8, R4
      }
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(restores, 0);
}

// ---- copy-on-write (SEMANTICS group C) ----------------------------------

TEST(ProgramGen, EveryOpAppearsWithin2000CowConfigPrograms) {
  expect_every_op_within_2000_programs(cow_config());
}

RC_GTEST_PROP(CowConfig, ProgramsPassValidateAndHave16Steps, ()) {
  Program p = *gen_program(cow_config());
  std::string why;
  RC_ASSERT(valid(p, &why));
  RC_ASSERT(p.steps.size() == 16u);
}

RC_GTEST_PROP(CowConfig, PrintParseRoundTrips, ()) {
  Program p = *gen_program(cow_config());
  ParseResult r = parse_program(print_program(p));
  RC_ASSERT(r.ok());
  RC_ASSERT(r.program == p);
}

bool is_write(OpId op) { return op_info(op).category == OpCategory::kInplace; }

/// Share of programs (in percent) that show each group C scenario, read from
/// the builder's trace (its COW group and live-sharer count per input).
struct CowScenarios {
  int programs = 0;
  int shared_write = 0;        // C4: a write to a COW storage with another sharer alive
  int last_write = 0;          // C4: a write to a COW storage as the last sharer
  int last_after_drop = 0;     // ... after a sharer of its group was dropped
  int last_after_write = 0;    // ... with no sharer dropped (they materialized or resized)
  int clone_write = 0;         // a write to a lazy clone (or a view of one) with its source alive
  int source_write = 0;        // a write to a lazy clone's source with the clone alive
  int cow_resize = 0;          // C8: resize_storage of a COW storage that does not raise
  int foreign_clone = 0;       // C7: lazy_clone of a from_blob tensor
  int clone_of_view = 0;       // lazy_clone of a view (offset or non-contiguous strides)
  int clone_of_clone = 0;      // lazy_clone of a lazy clone (or a view of one)
  int view_of_cow = 0;         // a view of a COW tensor
  int read_of_cow = 0;         // add/mul/clone/contiguous/sum of a COW tensor
  int drop_sharer = 0;         // drop of a COW tensor with another sharer alive

  void add(const Program& p, const std::vector<StepTrace>& tr) {
    ++programs;
    bool a[14] = {};
    std::vector<int> dropped_groups;
    std::vector<int> clone_storages, source_storages;  // model storage ids
    std::vector<VarId> clone_vars;                     // outputs of lazy_clone
    auto has = [](const auto& xs, auto x) {
      return std::find(xs.begin(), xs.end(), x) != xs.end();
    };
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const Step& s = p.steps[k];
      const StepTrace& t = tr[k];
      if (t.invalid || !t.has_input) continue;
      bool ok = !t.expect_error;
      bool cow = t.input_cow_group >= 0;
      // A lazy clone's storage becomes known at its first use as an input.
      if (has(clone_vars, s.args[0].var) && !has(clone_storages, t.input_storage))
        clone_storages.push_back(t.input_storage);
      if (ok && is_write(s.op) && cow) {
        if (t.input_cow_others > 0) {
          a[0] = true;
          a[5] |= has(clone_storages, t.input_storage);
          a[6] |= has(source_storages, t.input_storage);
        } else {
          a[1] = true;
          if (has(dropped_groups, t.input_cow_group)) a[2] = true;
          else a[3] = true;
        }
      }
      if (ok && s.op == OpId::kResizeStorage && cow) a[7] = true;
      if (s.op == OpId::kLazyClone) {
        a[8] |= t.input_foreign;
        a[9] |= t.input.offset > 0 || !(t.input.strides == contiguous(t.input.sizes));
        a[10] |= has(clone_storages, t.input_storage);
        bool emptied = product(t.input.sizes) > 0 && t.input_storage_bytes == 0;
        if (ok && !emptied) {
          clone_vars.push_back(s.out);
          source_storages.push_back(t.input_storage);
        }
      }
      if (cow && s.info().category == OpCategory::kView) a[11] = true;
      if (cow && (s.op == OpId::kAdd || s.op == OpId::kMul || s.op == OpId::kClone ||
                  s.op == OpId::kContiguous || s.op == OpId::kSum))
        a[12] = true;
      if (s.op == OpId::kDrop && cow) {
        dropped_groups.push_back(t.input_cow_group);
        a[13] |= t.input_cow_others > 0;
      }
    }
    int* n[14] = {&shared_write, &last_write, &last_after_drop, &last_after_write, nullptr,
                  &clone_write, &source_write, &cow_resize, &foreign_clone, &clone_of_view,
                  &clone_of_clone, &view_of_cow, &read_of_cow, &drop_sharer};
    for (int j = 0; j < 14; ++j)
      if (n[j]) *n[j] += a[j];
  }
  static IntList contiguous(const IntList& sizes) {
    IntList st;
    st.n = sizes.n;
    int64_t acc = 1;
    for (int k = sizes.size() - 1; k >= 0; --k) {
      st.v[k] = acc;
      acc *= std::max<int64_t>(sizes[k], 1);
    }
    return st;
  }
  double pct(int n) const { return 100.0 * n / programs; }
  void print(const char* what) const {
    std::printf(
        "%s (%d programs): write with other sharers alive %.1f%% (to a clone %.1f%%, to a source "
        "%.1f%%), write as the last sharer %.1f%% (after a sharer was dropped %.1f%%, with none "
        "dropped %.1f%%), resize_storage of a COW storage %.1f%%, lazy_clone of from_blob %.1f%%, "
        "lazy_clone of a view %.1f%%, of a lazy clone %.1f%%, view of a COW tensor %.1f%%, read of "
        "a COW tensor %.1f%%, drop of a sharer %.1f%%\n",
        what, programs, pct(shared_write), pct(clone_write), pct(source_write), pct(last_write),
        pct(last_after_drop), pct(last_after_write), pct(cow_resize), pct(foreign_clone),
        pct(clone_of_view), pct(clone_of_clone), pct(view_of_cow), pct(read_of_cow),
        pct(drop_sharer));
  }
};

CowScenarios measure_cow(const GenConfig& cfg, int programs) {
  rc::Gen<std::vector<StepChoice>> choices = rc::gen::container<std::vector<StepChoice>>(
      static_cast<size_t>(cfg.max_steps), gen_step_choice(cfg));
  CowScenarios sc;
  for (int k = 0; k < programs; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 4242 + k, 100), cfg, &trace);
    sc.add(p, trace);
  }
  return sc;
}

TEST(CowConfig, GroupCScenariosAreFrequentIn16StepPrograms) {
  CowScenarios sc = measure_cow(cow_config(), 2000);
  sc.print("cow_config()");
  EXPECT_GE(sc.pct(sc.shared_write), 30.0);   // C4, other sharers alive
  EXPECT_GE(sc.pct(sc.last_write), 10.0);     // C4, the last sharer
  EXPECT_GE(sc.pct(sc.cow_resize), 10.0);     // C8
  EXPECT_GE(sc.pct(sc.foreign_clone), 5.0);   // C7
  // Both ways of becoming the last sharer, writes through both sides, and the
  // other shapes of the scenario happen too.
  EXPECT_GE(sc.pct(sc.last_after_drop), 3.0);
  EXPECT_GE(sc.pct(sc.last_after_write), 3.0);
  EXPECT_GE(sc.pct(sc.clone_write), 10.0);
  EXPECT_GE(sc.pct(sc.source_write), 10.0);
  EXPECT_GE(sc.pct(sc.clone_of_view), 10.0);
  EXPECT_GE(sc.pct(sc.clone_of_clone), 10.0);
  EXPECT_GE(sc.pct(sc.view_of_cow), 20.0);
  EXPECT_GE(sc.pct(sc.read_of_cow), 10.0);
  EXPECT_GE(sc.pct(sc.drop_sharer), 10.0);
  measure_cow(GenConfig{}, 2000).print("GenConfig{} at 16 steps, for comparison");
}

// Issue 5, item 7: programs that convert (again and again), run ops on meta
// and fake tensors (writes with eager's checks, huge metadata-only sizes),
// and drop real tensors so that storages outlive them, then sweep.
TEST(FakeConfig, GroupFScenariosAreFrequentIn16StepPrograms) {
  GenConfig cfg = fake_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  const int n = 2000;
  int reconvert = 0, view_convert = 0, meta_write = 0, huge = 0, drop_then_sweep = 0,
      from_meta = 0, to_meta_of_real = 0;
  for (int k = 0; k < n; ++k) {
    std::vector<StepTrace> tr;
    Program p = build_program(sample(choices, 900 + k, 100), cfg, &tr);
    bool rc = false, vc = false, mw = false, hg = false, ds = false, fm = false, tm = false;
    std::vector<VarId> converted;
    bool dropped_real = false;
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      const StepTrace& t = tr[j];
      if (t.invalid || t.expect_error) continue;
      if (s.op == OpId::kFake || s.op == OpId::kMeta) {
        VarId in = s.args[0].var;
        rc |= std::find(converted.begin(), converted.end(), in) != converted.end();
        converted.push_back(in);
        vc |= t.input.offset > 0 || t.input_storage_bytes > product(t.input.sizes) * 8;
      }
      if (t.has_input && t.input.meta && is_write(s.op)) mw = true;
      for (int a = 0; a < s.nargs; ++a)
        if (s.args[a].kind == ArgKind::kList)
          for (int64_t x : s.args[a].list) hg |= x >= (int64_t{1} << 32);
      if (s.op == OpId::kDrop && t.has_input && !t.input.meta) dropped_real = true;
      if (s.op == OpId::kSweep && dropped_real) ds = true;
      fm |= s.op == OpId::kFakeFromMeta;
      tm |= s.op == OpId::kToMeta && t.has_input && !t.input.meta;
    }
    reconvert += rc; view_convert += vc; meta_write += mw; huge += hg; drop_then_sweep += ds;
    from_meta += fm; to_meta_of_real += tm;
  }
  auto pct = [&](int x) { return 100.0 * x / n; };
  std::printf("fake_config(): reconvert %.1f%%, view or offset converted %.1f%%, write on meta "
              "%.1f%%, huge meta sizes %.1f%%, drop then sweep %.1f%%, fake_from_meta %.1f%%, "
              "to_meta of a real tensor %.1f%%\n",
              pct(reconvert), pct(view_convert), pct(meta_write), pct(huge), pct(drop_then_sweep),
              pct(from_meta), pct(to_meta_of_real));
  EXPECT_GE(pct(reconvert), 20.0);        // F2: the memo's identity
  EXPECT_GE(pct(view_convert), 10.0);     // F2: views and offsets
  EXPECT_GE(pct(meta_write), 30.0);       // F9: in-place checks on meta
  EXPECT_GE(pct(huge), 3.0);              // metadata-only sizes
  EXPECT_GE(pct(drop_then_sweep), 10.0);  // F3: storages outlive tensors, then a sweep
  EXPECT_GE(pct(from_meta), 10.0);        // F5
  EXPECT_GE(pct(to_meta_of_real), 10.0);  // F8
}

// Note [Sparse programs] (program_gen.cpp): sparse_config() draws every
// scenario of issue 5 often enough in 16-step programs (F4, F8, F2, F3, S3).
TEST(SparseConfig, SparseScenariosAreFrequentIn16StepPrograms) {
  GenConfig cfg = sparse_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  const int n = 1000;
  std::map<std::string, int> seen;
  for (int k = 0; k < n; ++k) {
    Program p = build_program(sample(choices, 700 + k, 100), cfg);
    std::set<std::string> in_program;
    std::map<VarId, OpId> def;       // the op that defined each variable
    std::map<VarId, Step> def_step;  // and its step
    std::set<VarId> converted;       // sparse variables converted by fake
    std::set<VarId> parts;           // accessors' results, and Case 10's of those
    for (const Step& s : p.steps) {
      auto arg_op = [&](int a) { return def.count(s.args[a].var) ? def[s.args[a].var] : OpId::kDrop; };
      auto sparse_op = [&](OpId o) { return op_info(o).category == OpCategory::kSparse &&
                                            o != OpId::kToDense && o != OpId::kValues &&
                                            o != OpId::kIndices && o != OpId::kCrowIndices &&
                                            o != OpId::kColIndices && o != OpId::kCcolIndices &&
                                            o != OpId::kRowIndices; };
      in_program.insert(std::string(s.info().name));
      if (s.op == OpId::kArange || s.op == OpId::kRand || s.op == OpId::kZeros)
        in_program.insert("dtype:" + std::string(dtype_token(s.args[1].dtype)));
      if (s.op == OpId::kSparseCooTensor) {
        const OpId idx = arg_op(0);
        in_program.insert(idx == OpId::kRand ? "coo:unsorted_duplicates"
                          : idx == OpId::kArange ? "coo:sorted" : "coo:nnz0");
        const int64_t sparse_dim = def_step[s.args[0].var].args[0].list[0];
        if (s.args[2].list.size() > sparse_dim) in_program.insert("coo:hybrid");  // dense dims
      }
      if ((s.op == OpId::kFill_ || s.op == OpId::kAdd_ || s.op == OpId::kMul_) &&
          arg_op(0) == OpId::kValues)
        in_program.insert("write_through_part");
      if ((s.op == OpId::kFake || s.op == OpId::kMeta) && sparse_op(arg_op(0))) {
        in_program.insert(std::string(s.info().name) + "_of_sparse");
        if (s.op == OpId::kFake && !converted.insert(s.args[0].var).second)
          in_program.insert("fake_again");
      }
      if ((s.op == OpId::kFake || s.op == OpId::kMeta) &&
          op_info(arg_op(0)).category == OpCategory::kSparse && !sparse_op(arg_op(0)) &&
          arg_op(0) != OpId::kToDense)
        in_program.insert("convert_of_part");  // F4: a view of a sparse base
      if (s.op == OpId::kDrop && sparse_op(arg_op(0))) in_program.insert("drop_sparse");
      // Case 10: a strided op on a part; rehydrate and reshrink take no operand.
      const bool on_part =
          s.nargs > 0 && s.args[0].kind == ArgKind::kVar && parts.count(s.args[0].var) != 0;
      if (on_part && op_info(s.op).category != OpCategory::kSparse &&
          op_info(s.op).category != OpCategory::kConvert && s.op != OpId::kDrop &&
          s.op != OpId::kFill_ && s.op != OpId::kAdd_ && s.op != OpId::kMul_) {
        in_program.insert("op_on_part");
        if (s.op == OpId::kShrink || s.op == OpId::kResizeStorage)
          in_program.insert("storage_op_on_part");
        if (s.op == OpId::kLazyClone) in_program.insert("lazy_clone_of_part");
        if (s.out != kNoVar) parts.insert(s.out);
      }
      if (s.out != kNoVar && s.info().category == OpCategory::kSparse && !sparse_op(s.op) &&
          s.op != OpId::kToDense)
        parts.insert(s.out);
      if (s.out != kNoVar) {
        def[s.out] = s.op;
        def_step[s.out] = s;
      }
    }
    for (const std::string& x : in_program) ++seen[x];
  }
  auto pct = [&](const char* x) { return 100.0 * seen[x] / n; };
  // clang-format off
  const char* kScenarios[] = {
      "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc",
      "sparse_coo_tensor", "coo:unsorted_duplicates", "coo:sorted", "coo:nnz0", "coo:hybrid",
      "values", "indices", "crow_indices", "col_indices", "ccol_indices", "row_indices",
      "write_through_part", "to_dense", "coalesce", "fake_of_sparse", "meta_of_sparse",
      "fake_again", "to_meta", "convert_of_part", "drop_sparse", "sweep", "op_on_part",
      "storage_op_on_part"};
  // clang-format on
  for (const char* x : kScenarios) {
    std::printf("sparse_config(): %s in %.1f%% of programs\n", x, pct(x));
    EXPECT_GE(pct(x), 5.0) << x;
  }
  EXPECT_GE(pct("fake_of_sparse"), 50.0);  // F4: the property's subject
  EXPECT_GE(pct("fake_again"), 10.0);      // F2: the same live sparse tensor again
  EXPECT_GE(pct("op_on_part"), 25.0);      // Case 10: groups R and C on a part's storage
  for (const char* d : {"dtype:f32", "dtype:i64", "dtype:f64", "dtype:i32", "dtype:u8",
                        "dtype:bool"}) {  // sparse_dtype
    std::printf("sparse_config(): %s factories in %.1f%% of programs\n", d, pct(d));
    EXPECT_GE(pct(d), 5.0) << d;
  }
  std::printf("sparse_config(): lazy_clone_of_part in %.1f%% of programs\n",
              pct("lazy_clone_of_part"));
  EXPECT_GE(pct("lazy_clone_of_part"), 2.0);  // one of Case 10's 14 ops
}

bool same_model(const ModelTensor& a, const ModelTensor& b) {
  return a.sizes == b.sizes && a.strides == b.strides && a.offset == b.offset && a.dtype == b.dtype;
}

int64_t test_itemsize(DTypeArg d) {
  switch (d) {
    case DTypeArg::kF64: case DTypeArg::kI64: return 8;
    case DTypeArg::kF32: case DTypeArg::kI32: return 4;
    default: return 1;
  }
}

/// The model of a new variable, read at its first use as a first operand,
/// when no step in between could have changed it (none names it first, no
/// rehydrate/reshrink, no set_ onto its storage); false when there is no
/// such use.
bool first_use(const Program& p, const std::vector<StepTrace>& tr, size_t def, VarId v,
               size_t* use) {
  for (size_t j = def + 1; j < p.steps.size(); ++j) {
    const Step& s = p.steps[j];
    if (s.info().signature.empty()) return false;
    if (tr[j].invalid) continue;
    if (s.args[0].kind == ArgKind::kVar && s.args[0].var == v) {
      *use = j;
      return true;
    }
    // set_ t v: t shares v's storage from here on, and a storage op on t
    // changes v's before v's first use (`set_ t0 t2`, `resize_storage t0 0`).
    if (s.op == OpId::kSet_ && s.args[1].kind == ArgKind::kVar && s.args[1].var == v) return false;
  }
  return false;
}

TEST(CowConfig, ModelOfLazyCloneFromBlobAndSum) {
  GenConfig cfg = cow_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  int clones = 0, blobs = 0, sums = 0, foreign_raises = 0;
  for (int k = 0; k < 1000; ++k) {
    std::vector<StepTrace> tr;
    Program p = build_program(sample(choices, 500 + k, 100), cfg, &tr);
    std::vector<int> written;  // model storages written since their last lazy clone
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      const StepTrace& t = tr[j];
      if (t.invalid) continue;
      // C3, C4: a successful write leaves its storage non-COW until it is lazy-cloned again.
      if (t.has_input && !t.expect_error && s.op == OpId::kLazyClone)
        written.erase(std::remove(written.begin(), written.end(), t.input_storage), written.end());
      if (t.has_input && !t.expect_error && is_write(s.op)) {
        if (std::find(written.begin(), written.end(), t.input_storage) != written.end()) {
          EXPECT_EQ(t.input_cow_group, -1) << print_program(p) << print_step(p, s);
        }
        written.push_back(t.input_storage);
      }
      size_t u = 0;
      bool used = s.out != kNoVar && !t.expect_error && first_use(p, tr, j, s.out, &u);
      if (s.op == OpId::kLazyClone) {
        // C7: lazy_clone of a foreign storage raises (its result is never bound).
        EXPECT_EQ(t.expect_error, t.input_foreign) << print_step(p, s);
        foreign_raises += t.input_foreign;
        bool emptied = product(t.input.sizes) > 0 && t.input_storage_bytes == 0;
        if (!used || emptied) continue;
        // C1: the same sizes, strides and offset over a new storage of the same byte size,
        // COW and in the source's group.
        const StepTrace& c = tr[u];
        EXPECT_TRUE(same_model(c.input, t.input)) << print_program(p) << print_step(p, p.steps[u]);
        EXPECT_NE(c.input_storage, t.input_storage) << print_step(p, s);
        EXPECT_EQ(c.input_storage_bytes, t.input_storage_bytes) << print_step(p, s);
        EXPECT_GE(c.input_cow_group, 0) << print_step(p, s);
        if (t.input_cow_group >= 0) {
          EXPECT_EQ(c.input_cow_group, t.input_cow_group);
        }
        EXPECT_FALSE(c.input_foreign);
        ++clones;
      }
      if (s.op == OpId::kFromBlob && used) {
        const StepTrace& c = tr[u];
        const IntList& sizes = s.args[0].list;
        EXPECT_TRUE(same_model(c.input, ModelTensor{sizes, CowScenarios::contiguous(sizes), 0,
                                                    s.args[1].dtype}))
            << print_program(p);
        EXPECT_EQ(c.input_storage_bytes, product(sizes) * test_itemsize(s.args[1].dtype));
        EXPECT_TRUE(c.input_foreign);
        EXPECT_EQ(c.input_cow_group, -1);
        ++blobs;
      }
      if (s.op == OpId::kSum && used) {
        const StepTrace& c = tr[u];
        // Note [sum in f64] (impl/ops.cpp): floating sums are f64.
        DTypeArg d = t.input.dtype == DTypeArg::kF32 || t.input.dtype == DTypeArg::kF64
                         ? DTypeArg::kF64
                         : DTypeArg::kI64;
        EXPECT_TRUE(same_model(c.input, ModelTensor{IntList{}, IntList{}, 0, d}))
            << print_program(p);
        EXPECT_EQ(c.input_storage_bytes, test_itemsize(d));
        ++sums;
      }
      // A from_blob storage is not resizable: shrink and resize_storage raise.
      if (t.input_foreign && (s.op == OpId::kShrink || s.op == OpId::kResizeStorage)) {
        EXPECT_TRUE(t.expect_error) << print_step(p, s);
      }
    }
  }
  EXPECT_GT(clones, 100);
  EXPECT_GT(blobs, 20);
  EXPECT_GT(sums, 20);
  EXPECT_GT(foreign_raises, 20);
}

TEST(ProgramGen, OpSubsetDrawsOnlyThoseOpsPlusSeedFactory) {
  GenConfig cfg;
  cfg.ops = ops_in({OpCategory::kView});
  rc::Gen<Program> gen = gen_program(cfg);
  for (int k = 0; k < 200; ++k) {
    Program p = sample(gen, 7 + k, 50);
    for (const Step& s : p.steps)
      EXPECT_TRUE(s.info().category == OpCategory::kView || s.op == OpId::kArange)
          << print_step(p, s);
  }
}

TEST(ProgramGen, ZeroInvalidShareKeepsSelectAndTransposeArgsInRange) {
  GenConfig cfg;
  cfg.invalid_per_mille = 0;
  cfg.ops = ops_in({OpCategory::kFactory, OpCategory::kView, OpCategory::kInplaceView});
  rc::Gen<StepChoice> choice = gen_step_choice(cfg);
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(choice);
  int selects = 0, transposes = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 99 + k, 40), cfg, &trace);
    ASSERT_EQ(trace.size(), p.steps.size());
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      const StepTrace& t = trace[j];
      ASSERT_FALSE(t.invalid) << print_step(p, s);
      int64_t r = t.input.sizes.size();
      if (s.op == OpId::kSelect) {
        ++selects;
        int64_t d = s.args[1].i, i = s.args[2].i;
        ASSERT_TRUE(d >= -r && d < r) << print_step(p, s) << " rank " << r;
        int64_t size = t.input.sizes[d < 0 ? d + r : d];
        ASSERT_TRUE(i >= -size && i < size) << print_step(p, s) << " size " << size;
      }
      if (s.op == OpId::kTranspose || s.op == OpId::kTranspose_) {
        ++transposes;
        int64_t R = r > 0 ? r : 1;
        for (int a = 1; a <= 2; ++a)
          ASSERT_TRUE(s.args[a].i >= -R && s.args[a].i < R) << print_step(p, s) << " rank " << r;
      }
    }
  }
  EXPECT_GT(selects, 20);
  EXPECT_GT(transposes, 20);
}

// Note [view_dtype] (impl/ops.cpp): the model's verdict on every view_dtype
// step is the reference's (a step neither invalid nor expected to fail
// succeeds, any other fails), so that later steps build on the model's
// dtype and geometry; both item-size changes and both kinds of invalid
// step (a failing check, a dtype outside the language) are drawn.
TEST(ProgramGen, ViewDtypeStepsFailExactlyWhenTheModelSaysSo) {
  GenConfig cfg;
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend();
  Runner runner({ref.get()}, Limits{});
  int ok = 0, smaller = 0, larger = 0, failed_check = 0, outside = 0;
  for (int k = 0; k < 3000; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 4100 + k, 100), cfg, &trace);
    RunReport rep = runner.run(p, /*keep_trace=*/true);
    for (const TraceLine& line : rep.trace) {
      const size_t j = static_cast<size_t>(line.step - 1);
      const Step& s = p.steps[j];
      if (s.op != OpId::kViewDtype || line.skipped) continue;
      const ErrorKind e = line.errors[0];
      const bool expect_fail = trace[j].invalid || trace[j].expect_error;
      EXPECT_EQ(e != ErrorKind::kNone, expect_fail)
          << print_program(p) << "step " << line.step << ": " << line.messages[0];
      if (e == ErrorKind::kUnsupportedLayout) ++outside;
      if (e == ErrorKind::kInvalidArgument) ++failed_check;
      if (e != ErrorKind::kNone) continue;
      ++ok;
      const DTypeArg from = trace[j].input.dtype, to = s.args[1].dtype;
      auto item = [](DTypeArg d) { return d == DTypeArg::kI64 ? 8 : d == DTypeArg::kI32 ? 4 : 1; };
      smaller += item(to) < item(from);
      larger += item(to) > item(from);
    }
  }
  std::printf("view_dtype over 3000 programs: %d ok (%d to a smaller item, %d to a larger), "
              "%d failed a check, %d outside the language\n",
              ok, smaller, larger, failed_check, outside);
  // About half of what these seeds give (142, 22, 12, 26).
  EXPECT_GE(smaller, 70);
  EXPECT_GE(larger, 10);
  EXPECT_GE(failed_check, 5);
  EXPECT_GE(outside, 10);
}

/// Runs p on `ref` step by step, skipping a step that reads an unbound
/// variable (Note [Step outcome rules] rule 2); for each step run, calls
/// visit(j, step, run), where run() runs the step and returns its Error (the
/// step is run after visit when visit does not).
template <typename Visit>
void replay_steps(Backend* ref, const Program& p, Visit&& visit) {
  ref->begin(p, Limits{});
  std::vector<char> bound(static_cast<size_t>(p.num_vars()), 0);
  for (size_t j = 0; j < p.steps.size(); ++j) {
    const Step& s = p.steps[j];
    if (reads_unbound(s, bound)) continue;
    bool ran = false;
    Error e;
    auto run = [&] {
      e = ref->run_step(s);
      ran = true;
      return e;
    };
    visit(j, s, run);
    if (!ran) e = ref->run_step(s);
    if (s.out != kNoVar) bound[s.out] = e.kind == ErrorKind::kNone;
    if (s.op == OpId::kDrop) bound[s.args[0].var] = 0;
  }
}

// Note [out=] rules 2 and 4 (impl/ops.cpp): an add_out/mul_out input over
// out's own storage (another tensor of out's sizes) runs when both are the
// same elements, raises partial_overlap when they overlap in part, and is
// refused as S8 when LibTorch cannot see the overlap; the generator's model
// predicts which.
TEST(ProgramGen, OutStepsOverTheirOwnStorageFailExactlyWhenTheModelSaysSo) {
  GenConfig cfg;
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend();
  int same = 0, partial = 0, refused = 0, other = 0;
  for (int k = 0; k < 3000; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 7100 + k, 100), cfg, &trace);
    replay_steps(ref.get(), p, [&](size_t j, const Step& s, auto&& run) {
      if (!is_scalar_out(s.op)) return;
      const Tensor* out = ref->reference_tensor(s.args[0].var);
      const Tensor* x = ref->reference_tensor(s.args[1].var);
      if (!out || !x || out->get() == x->get() || (*out)->storage != (*x)->storage) return;
      const Error e = run();
      const bool expect_fail = trace[j].invalid || trace[j].expect_error;
      EXPECT_EQ(e.kind != ErrorKind::kNone, expect_fail)
          << print_program(p) << "step " << j + 1 << ": " << e.message;
      if (e.kind == ErrorKind::kNone)
        ++same;
      else if (e.kind == ErrorKind::kPartialOverlap)
        ++partial;
      else if (e.kind == ErrorKind::kUndefinedBehavior)
        ++refused;
      else
        ++other;
    });
  }
  std::printf(
      "out= over out's own storage in 3000 programs: %d ran, %d partial_overlap, "
      "%d refused as S8, %d other errors\n",
      same, partial, refused, other);
  EXPECT_GE(same, 10);
  EXPECT_GE(partial, 10);
  EXPECT_GE(refused, 5);
}

// Note [set_] (impl/ops.cpp): an invalid set_ takes a source of another
// dtype or, half the time, of self's dtype but the other kind (real, meta,
// fake): FakeTensorMode's and LibTorch's device checks. Every such step
// fails, and both kinds of failure are drawn.
TEST(FakeConfig, InvalidSetStepsTakeAnotherDtypeOrAnotherKind) {
  GenConfig cfg = fake_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend();
  int dtype = 0, kind = 0;
  for (int k = 0; k < 10000; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 9100 + k, 100), cfg, &trace);
    replay_steps(ref.get(), p, [&](size_t j, const Step& s, auto&& run) {
      if (s.op != OpId::kSet_ || !trace[j].invalid) return;
      const Error e = run();
      EXPECT_NE(e.kind, ErrorKind::kNone) << print_program(p) << "step " << j + 1;
      dtype += e.kind == ErrorKind::kInvalidArgument;
      kind += e.kind == ErrorKind::kDeviceMismatch;
    });
  }
  std::printf(
      "invalid set_ in 10000 fake-config programs: %d of another dtype, %d of another "
      "kind\n",
      dtype, kind);
  EXPECT_GE(dtype, 10);
  EXPECT_GE(kind, 10);
}

// Case 3's invalid steps (SparseBuilder::coo_from_parts): each flaw fails
// one of sparse_coo_tensor's checks, while the valid steps build.
TEST(SparseConfig, FlawedSparseCooTensorStepsFailEachCheck) {
  GenConfig cfg = sparse_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend();
  std::map<ErrorKind, int> kinds;
  for (int k = 0; k < 3000; ++k) {
    Program p = build_program(sample(choices, 11100 + k, 100), cfg);
    replay_steps(ref.get(), p, [&](size_t, const Step& s, auto&& run) {
      if (s.op == OpId::kSparseCooTensor) ++kinds[run().kind];
    });
  }
  std::printf("sparse_coo_tensor in 3000 sparse programs: %d built, %d index_out_of_range, "
              "%d shape_mismatch, %d invalid_argument\n",
              kinds[ErrorKind::kNone], kinds[ErrorKind::kIndexOutOfRange],
              kinds[ErrorKind::kShapeMismatch], kinds[ErrorKind::kInvalidArgument]);
  EXPECT_GE(kinds[ErrorKind::kNone], 1000);
  EXPECT_GE(kinds[ErrorKind::kIndexOutOfRange], 10);  // flaws 0 and 1
  EXPECT_GE(kinds[ErrorKind::kShapeMismatch], 15);    // flaws 2, 3 and 4
  EXPECT_GE(kinds[ErrorKind::kInvalidArgument], 10);  // flaws 5 and 6
  int other = 0;
  for (const auto& [kind, n] : kinds)
    if (kind != ErrorKind::kNone && kind != ErrorKind::kIndexOutOfRange &&
        kind != ErrorKind::kShapeMismatch && kind != ErrorKind::kInvalidArgument)
      other += n;
  EXPECT_EQ(other, 0);
}

// The message of each flaw of FlawedCompressedTensorStepsFailEachCheck (at
// namespace scope: gcc 12 took the static array used only in a lambda for
// an unused variable).
constexpr const char* kCompressedFlawChecks[] = {
    ".shape[-1] must be equal to the number of",  // 0) a compressed row too many
    "s` is not satisfied (",                      // 1) a plain index out of range
    "must have the same dtype",                   // 2) i32 and i64 indices
    "dtype must be Int or Long",                  // 3) f32 indices
    "[..., 0] == 0` is not satisfied",            // 4) starting at 1
    "are sorted and distinct",                    // 5) equal plain indices in a row
    "to be a strided and contiguous tensor",      // 6) a strided slice
    ".shape[-1] must be equal to nnz",            // 7) one value too many
    "tensor dimensionality must be sum",          // 8) a size too many
};

// Case 3's compressed steps (SparseBuilder::compressed_from_parts): the
// valid ones build, some with a batch dim (their compressed indices come
// from `contiguous`), and each of the nine flaws fails its own check of
// _validate_sparse_compressed_tensor_args (one message each), nothing else.
TEST(SparseConfig, FlawedCompressedTensorStepsFailEachCheck) {
  GenConfig cfg = sparse_config();
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend();
  std::array<int, 9> flaws{};
  std::map<OpId, int> built;
  int batched = 0;
  std::vector<std::string> other;
  for (int k = 0; k < 3000; ++k) {
    Program p = build_program(sample(choices, 21100 + k, 100), cfg);
    replay_steps(ref.get(), p, [&](size_t j, const Step& s, auto&& run) {
      if (!is_compressed_from_parts(s.op)) return;
      const Error e = run();
      if (e.kind == ErrorKind::kNone) {
        ++built[s.op];
        for (const Step& d : p.steps)
          if (d.out == s.args[0].var && d.op == OpId::kContiguous) ++batched;
        return;
      }
      for (size_t f = 0; f < flaws.size(); ++f)
        if (e.message.find(kCompressedFlawChecks[f]) != std::string::npos) {
          ++flaws[f];
          return;
        }
      other.push_back(print_program(p) + "step " + std::to_string(j + 1) + ": " + e.message);
    });
  }
  std::printf(
      "sparse_{csr,csc,bsr,bsc}_tensor in 3000 sparse programs: built %d %d %d %d "
      "(%d with a batch dim); flaws",
      built[OpId::kSparseCsrTensor], built[OpId::kSparseCscTensor], built[OpId::kSparseBsrTensor],
      built[OpId::kSparseBscTensor], batched);
  for (int n : flaws) std::printf(" %d", n);
  std::printf("\n");
  for (OpId op : {OpId::kSparseCsrTensor, OpId::kSparseCscTensor, OpId::kSparseBsrTensor,
                  OpId::kSparseBscTensor})
    EXPECT_GE(built[op], 100) << op_info(op).name;
  EXPECT_GE(batched, 200);
  for (size_t f = 0; f < flaws.size(); ++f) EXPECT_GE(flaws[f], 3) << "flaw " << f;
  EXPECT_TRUE(other.empty()) << other.size() << " other failures; the first:\n" << other.front();
}

TEST(ProgramGen, DefaultShareMakesSomeButFewStepsInvalid) {
  GenConfig cfg;
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(gen_step_choice(cfg));
  int steps = 0, invalid = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 5 + k, 30), cfg, &trace);
    for (const StepTrace& t : trace) {
      ++steps;
      invalid += t.invalid;
    }
  }
  EXPECT_GT(invalid, 0);
  EXPECT_LT(invalid * 10, steps);  // about 5%, well under 10%
}

TEST(ProgramGen, BuildProgramPadsEmptyChoicesToMinSteps) {
  GenConfig cfg;
  cfg.min_steps = 3;
  Program p = build_program({}, cfg);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(print_program(p), std::string(kProgramHeader) +
                                  "\nt0 = arange [] f32\nt1 = arange [] f32\nt2 = arange [] f32\n");
}

/// `n` records with every field uniform (as gen_choices draws them), from
/// a fixed seed.
std::vector<StepChoice> random_choices(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::vector<StepChoice> cs(static_cast<size_t>(n));
  for (StepChoice& c : cs) {
    c.op = static_cast<uint16_t>(rng());
    c.var = static_cast<uint16_t>(rng());
    c.var2 = static_cast<uint16_t>(rng());
    c.invalid = static_cast<uint16_t>(rng() % 1000);
    for (uint16_t& pick : c.picks) pick = static_cast<uint16_t>(rng());
    c.seed = static_cast<int64_t>(rng() >> 1);
  }
  return cs;
}

// Note [Swarm programs]: swarm_per_mille of the first seeds draw over a
// subset of about half the ops, never fewer than two; the others over all.
TEST(SwarmConfig, SubsetsForTheShareOfSeedsAboutHalfTheOps) {
  GenConfig cfg;
  EXPECT_EQ(swarm_ops(cfg, 12345), cfg.ops);  // swarm_per_mille 0: never
  cfg.swarm_per_mille = 250;
  const double all = static_cast<double>(cfg.ops.count());
  int swarms = 0;
  double kept = 0;
  for (int64_t seed = 0; seed < 4000; ++seed) {
    const OpSet s = swarm_ops(cfg, seed);
    EXPECT_EQ((s & ~cfg.ops).count(), 0u) << "seed " << seed << ": an op outside cfg.ops";
    if (s == cfg.ops) continue;
    ++swarms;
    EXPECT_GE(s.count(), 2u);
    kept += static_cast<double>(s.count()) / all;
  }
  EXPECT_GT(swarms, 800);  // 25% of 4000 is 1000
  EXPECT_LT(swarms, 1200);
  EXPECT_GT(kept / swarms, 0.45);
  EXPECT_LT(kept / swarms, 0.55);
  cfg.swarm_per_mille = 1000;
  EXPECT_NE(swarm_ops(cfg, 0), cfg.ops);
  EXPECT_EQ(swarm_ops(cfg, 77), swarm_ops(cfg, 77));  // a function of the seed
  EXPECT_NE(swarm_ops(cfg, 77), swarm_ops(cfg, 78));
}

// Every step of a swarm program is one of its subset's ops, or a factory
// that seeds a tensor (case 1 of Note [Choice records]); every program stays
// well formed; and the programs repeat their ops: fewer distinct ops per
// program than without swarm, from the same records.
TEST(SwarmConfig, StepsTakeTheSubsetsOpsAndRepeatThem) {
  GenConfig plain;
  plain.min_steps = plain.max_steps = 16;
  GenConfig swarm = plain;
  swarm.swarm_per_mille = 1000;
  int64_t distinct_plain = 0, distinct_swarm = 0;
  for (uint64_t k = 0; k < 500; ++k) {
    const std::vector<StepChoice> cs = random_choices(1000 + k, 16);
    const OpSet subset = swarm_ops(swarm, cs[0].seed);
    const Program p = build_program(cs, swarm);
    std::string why;
    ASSERT_TRUE(valid(p, &why)) << why;
    std::set<OpId> ops;
    for (const Step& s : p.steps) {
      EXPECT_TRUE(subset.test(static_cast<size_t>(s.op)) ||
                  s.info().category == OpCategory::kFactory)
          << print_step(p, s);
      ops.insert(s.op);
    }
    distinct_swarm += static_cast<int64_t>(ops.size());
    ops.clear();
    for (const Step& s : build_program(cs, plain).steps) ops.insert(s.op);
    distinct_plain += static_cast<int64_t>(ops.size());
  }
  // 6,482 against 7,085 distinct ops over these 500 programs (-8.5%; a
  // subset of half the ops, 16 steps): fewer, repeated more often.
  EXPECT_LT(distinct_swarm * 100, distinct_plain * 95)
      << distinct_swarm << " vs " << distinct_plain;
}

// A swarm program drawn under a focus (shrink, COW, fake) is well formed:
// the focus flags follow the subset (Builder::set_focuses).
RC_GTEST_PROP(SwarmConfig, FocusedSwarmProgramsPassValidate, ()) {
  GenConfig cfg = *rc::gen::element(shrink_config(), cow_config(), fake_config());
  cfg.swarm_per_mille = 500;
  Program p = *gen_program(cfg);
  std::string why;
  RC_ASSERT(valid(p, &why));
}

RC_GTEST_PROP(ViewChain, EachViewReadsThePreviousResult, ()) {
  GenConfig cfg;
  Program p = *gen_view_chain(cfg);
  std::string why;
  RC_ASSERT(valid(p, &why));
  RC_ASSERT(!p.steps.empty());
  RC_ASSERT(p.steps[0].info().category == OpCategory::kFactory);
  for (size_t k = 1; k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    RC_ASSERT(s.info().category == OpCategory::kView);
    RC_ASSERT(s.args[0].var == p.steps[k - 1].out);
  }
}

RC_GTEST_PROP(Shapes, GenShapeRespectsRankAndNumel, ()) {
  int max_rank = *rc::gen::inRange(0, kMaxRank + 1);
  int64_t max_numel = *rc::gen::inRange<int64_t>(1, 500);
  IntList s = *gen_shape(max_rank, max_numel);
  RC_ASSERT(s.size() <= max_rank);
  RC_ASSERT(product(s) <= max_numel);
  for (int64_t x : s) RC_ASSERT(x >= 0);
}

TEST(Shapes, GenDtypeCoversEveryDtype) {
  std::array<int, kNumDTypes> seen{};
  for (int k = 0; k < 300; ++k) ++seen[static_cast<int>(sample(gen_dtype(), k, 50))];
  for (int k = 0; k < kNumDTypes; ++k) EXPECT_GT(seen[k], 0) << dtype_token(static_cast<DTypeArg>(k));
}

TEST(OpSets, OpsInSelectsCategories) {
  OpSet s = ops_in({OpCategory::kFactory});
  EXPECT_EQ(s.count(), 7u);
  EXPECT_TRUE(s.test(static_cast<int>(OpId::kRand)));
  EXPECT_TRUE(s.test(static_cast<int>(OpId::kFromBlob)));
  EXPECT_FALSE(s.test(static_cast<int>(OpId::kView)));
  EXPECT_EQ(all_ops().count(), static_cast<size_t>(kNumOps));
}

// ---- devices (issue 11) -------------------------------------------------

TEST(DeviceConfig, EveryOpAppearsWithin2000Programs) {
  expect_every_op_within_2000_programs(device_config(shrink_config()));
}

TEST(DeviceConfig, OnlyDeviceConfigsHoldTheDeviceOps) {
  EXPECT_EQ(device_ops().count(), 2u);
  for (const GenConfig& c :
       {GenConfig{}, shrink_config(), cow_config(), fake_config(), sparse_config()}) {
    EXPECT_TRUE((c.ops & device_ops()).none());
    EXPECT_FALSE(c.home_cuda);
  }
  GenConfig d = device_config(cow_config());
  EXPECT_EQ(d.ops & device_ops(), device_ops());
  EXPECT_TRUE(d.home_cuda);
  EXPECT_TRUE(d.cow_focus);
}

}  // namespace
}  // namespace storcheck
