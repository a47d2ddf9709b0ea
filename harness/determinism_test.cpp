// Determinism (issue 7 item 4): the same seed gives the same programs, the
// same verdicts and the same reproducer bytes, run after run. See the
// invariant stated at check_property (harness/properties.h).
//
// Each test runs the same thing twice on fresh state (fresh backends, fresh
// findings directories) and compares everything but wall-clock time.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "generators/program_gen.h"
#include "harness/properties.h"
#include "harness/test_support.h"
#include "impl/fault.h"
#include "oracles/compare.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

constexpr uint64_t kSeed = 0x5eed2026;

/// The names in `dir`, sorted.
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string basename_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

/// Every CheckResult field but `seconds` (wall-clock time) and
/// `reproducer_path` (whose folder differs on purpose) must match.
void expect_same_result(const CheckResult& a, const CheckResult& b) {
  EXPECT_EQ(a.property, b.property);
  EXPECT_EQ(a.passed, b.passed);
  EXPECT_EQ(a.skipped, b.skipped);
  EXPECT_EQ(a.skip_reason, b.skip_reason);
  EXPECT_EQ(a.budget_exhausted, b.budget_exhausted);
  EXPECT_EQ(a.programs, b.programs);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.known, b.known);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.failing_program, b.failing_program);
  EXPECT_TRUE(a.counterexample == b.counterexample)
      << print_program(a.counterexample) << "vs\n" << print_program(b.counterexample);
  EXPECT_EQ(a.failure_text, b.failure_text);
}

TEST(Determinism, SameSeedGivesSameVerdictProgramsAndSteps) {
  if (!BackendSet::make().torch_cpu)
    GTEST_SKIP() << "built without LibTorch: views.ref_matches_eager needs a second backend";
  const Property* prop = find_property("views.ref_matches_eager");
  ASSERT_NE(prop, nullptr);
  CheckOptions opt;
  opt.seed = kSeed;
  opt.programs = 500;
  BackendSet first = BackendSet::make();
  CheckResult a = check_property(*prop, opt, first);
  BackendSet second = BackendSet::make();
  CheckResult b = check_property(*prop, opt, second);
  EXPECT_FALSE(a.skipped) << a.skip_reason;
  EXPECT_GT(a.steps, 0);
  // A real divergence is a finding for the differential tests, not a
  // determinism failure: both runs must then stop at the same program.
  if (a.passed) {
    EXPECT_EQ(a.programs, 500);
  }
  expect_same_result(a, b);
}

TEST(Determinism, PlantedFaultGivesByteIdenticalReproducers) {
  if (!fault_injection_available())
    GTEST_SKIP() << "build without fault injection (-DSTORCHECK_FAULT_INJECTION=ON)";
  if (!BackendSet::make().torch_cpu)
    GTEST_SKIP() << "built without LibTorch: views.ref_matches_eager needs a second backend";
  const Property* prop = find_property("views.ref_matches_eager");
  ASSERT_NE(prop, nullptr);
  FaultScope fault(Fault::kTransposeSquareStrides);
  ASSERT_TRUE(fault.ok());
  TempDir tmp_a, tmp_b;
  const std::string& dir_a = tmp_a.path();
  const std::string& dir_b = tmp_b.path();
  ASSERT_FALSE(dir_a.empty() || dir_b.empty()) << "mkdtemp failed";
  CheckOptions opt;
  opt.seed = kSeed;
  opt.programs = 3000;
  opt.findings_dir = dir_a;
  BackendSet first = BackendSet::make();
  CheckResult a = check_property(*prop, opt, first);
  opt.findings_dir = dir_b;
  BackendSet second = BackendSet::make();
  CheckResult b = check_property(*prop, opt, second);

  ASSERT_FALSE(a.passed) << "the planted fault was not found in " << opt.programs << " programs";
  expect_same_result(a, b);
  ASSERT_FALSE(a.reproducer_path.empty()) << a.failure_text;
  ASSERT_FALSE(b.reproducer_path.empty()) << b.failure_text;
  EXPECT_EQ(basename_of(a.reproducer_path), basename_of(b.reproducer_path));
  std::string bytes_a = read_file(a.reproducer_path);
  EXPECT_FALSE(bytes_a.empty());
  EXPECT_EQ(bytes_a, read_file(b.reproducer_path));
  EXPECT_EQ(bytes_a, reproducer_text(a));
  // The reproducer and its emitted scripts (storcheck emit), byte-identical
  // too; no temporary file left beside them.
  std::string stem = basename_of(a.reproducer_path);
  stem.resize(stem.size() - 3);  // ".sc"
  const std::vector<std::string> files = {stem + ".cpp", stem + ".py", stem + ".sc"};
  EXPECT_EQ(list_dir(dir_a), files);
  EXPECT_EQ(list_dir(dir_b), files);
  for (const char* ext : {".py", ".cpp"}) {
    std::string script = read_file(dir_a + "/" + stem + ext);
    EXPECT_FALSE(script.empty()) << ext;
    EXPECT_EQ(script, read_file(dir_b + "/" + stem + ext)) << ext;
  }
}

/// The programs check_property draws for `seed`: one split of the root
/// Random per program, sizes cycling 0..max_size (harness/properties.cpp).
std::vector<std::string> drawn_programs(const Property& prop, uint64_t seed, int count,
                                        int max_size = 100) {
  rc::Gen<Program> gen = prop.view_chains ? gen_view_chain(prop.config) : gen_program(prop.config);
  rc::Random root(seed);
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i) {
    rc::Random r = root.split();
    texts.push_back(print_program(gen(r, i % (max_size + 1)).value()));
  }
  return texts;
}

TEST(Determinism, SameSeedDrawsSamePrograms) {
  for (const Property& prop : properties()) {
    SCOPED_TRACE(std::string(prop.name));
    std::vector<std::string> a = drawn_programs(prop, kSeed, 200);
    std::vector<std::string> b = drawn_programs(prop, kSeed, 200);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "program " << i;
    // Not vacuous: another seed draws other programs.
    EXPECT_NE(a, drawn_programs(prop, kSeed + 1, 200));
  }
}

/// Every observation of the first backend after every step that ran, with
/// the Runner's trace; the hook sees each step's outcome (Note [Step outcome
/// rules] in oracles/runner.h).
struct Recording {
  RunReport report;
  std::vector<size_t> steps;
  std::vector<Observation> after;
};

Recording record(Backend* backend, const Program& p) {
  Recording rec;
  Runner runner({backend}, Limits{});
  StepHook hook = [&rec](const Program&, size_t step, const Observation&, const Observation& after,
                         std::string*) {
    rec.steps.push_back(step);
    rec.after.push_back(after);
    return true;
  };
  rec.report = runner.run(p, /*keep_trace=*/true, hook);
  return rec;
}

/// Compares two observations field by field, exactly (values bit for bit);
/// the first difference, named, or "" when equal. Fields this list does not
/// name (added to VarObs later) are still covered: the comparator checks
/// every field it knows, for the reference's capabilities.
std::string diff(const Observation& a, const Observation& b, const Capabilities& caps) {
  std::ostringstream o;
  Mismatch m;
  if (!compare_observations(a, caps, b, caps, &m)) {
    o << "comparator: " << m.field << " of variable " << m.var << ": " << m.a << " vs " << m.b;
    return o.str();
  }
  if (a.error != b.error) return "error kind differs";
  if (a.error_message != b.error_message)
    return "error message '" + a.error_message + "' vs '" + b.error_message + "'";
  if (a.skipped != b.skipped) return "skipped differs";
  if (a.vars.size() != b.vars.size()) return "variable count differs";
  for (size_t v = 0; v < a.vars.size(); ++v) {
    const VarObs& x = a.vars[v];
    const VarObs& y = b.vars[v];
    const char* field = x.live != y.live                       ? "live"
                        : x.rank != y.rank                     ? "rank"
                        : x.sizes != y.sizes                   ? "sizes"
                        : x.strides != y.strides               ? "strides"
                        : x.offset != y.offset                 ? "offset"
                        : x.dtype != y.dtype                   ? "dtype"
                        : x.layout != y.layout                 ? "layout"
                        : x.device != y.device                 ? "device"
                        : x.storage_nbytes != y.storage_nbytes ? "storage_nbytes"
                        : x.data_null != y.data_null           ? "data_null"
                        : x.alias_class != y.alias_class       ? "alias_class"
                        : x.identity_class != y.identity_class ? "identity_class"
                        : x.version_known != y.version_known   ? "version_known"
                        : x.version != y.version               ? "version"
                        : x.values_known != y.values_known     ? "values_known"
                        : x.values != y.values                 ? "values"
                                                               : nullptr;
    if (field) {
      o << field << " of variable " << v;
      return o.str();
    }
  }
  return "";
}

void expect_same_recording(const Program& p, const Recording& a, const Recording& b,
                           const Capabilities& caps) {
  EXPECT_EQ(a.report.diverged, b.report.diverged);
  EXPECT_EQ(a.report.steps_run, b.report.steps_run);
  EXPECT_EQ(a.report.steps_failed, b.report.steps_failed);
  ASSERT_EQ(a.report.trace.size(), b.report.trace.size());
  for (size_t k = 0; k < a.report.trace.size(); ++k) {
    const TraceLine& x = a.report.trace[k];
    const TraceLine& y = b.report.trace[k];
    EXPECT_EQ(x.step, y.step);
    EXPECT_EQ(x.skipped, y.skipped) << "step " << x.step;
    EXPECT_TRUE(x.errors == y.errors) << "step " << x.step;
    EXPECT_EQ(x.messages, y.messages) << "step " << x.step;
  }
  ASSERT_EQ(a.steps, b.steps);
  ASSERT_EQ(a.after.size(), b.after.size());
  for (size_t k = 0; k < a.after.size(); ++k)
    EXPECT_EQ(diff(a.after[k], b.after[k], caps), "")
        << "after step " << a.steps[k] + 1 << " ("
        << print_step(p, p.steps[a.steps[k]]) << ") of\n" << print_program(p);
}

TEST(Determinism, ReferenceObservesTheSameAfterEveryStep) {
  // Programs from the storage-focused config (shrink, rehydrate, resize_,
  // empty_strided: where PyTorch leaves bytes unspecified and the backends
  // define them as zeros, R6), and a hand-written one through each of them.
  std::vector<Program> programs;
  rc::Gen<Program> gen = gen_program(shrink_config());
  rc::Random root(kSeed);
  for (int i = 0; i < 200; ++i) {
    rc::Random r = root.split();
    programs.push_back(gen(r, i % 101).value());
  }
  ParseResult hand = parse_program(
      "t0 = empty_strided [2,3] [3,1] f32\n"
      "t1 = rand [4,4] f64 7\n"
      "resize_ t1 [8,8]\n"
      "t2 = transpose t1 0 1\n"
      "shrink t2\n"
      "t3 = clone t2\n"
      "rehydrate\n"
      "add_ t1 1.5\n"
      "reshrink\n");
  ASSERT_TRUE(hand.ok()) << hand.error.to_string();
  programs.push_back(hand.program);

  std::unique_ptr<Backend> reused = make_reference_backend();
  for (const Program& p : programs) {
    Recording a = record(reused.get(), p);
    Recording again = record(reused.get(), p);  // begin() must reset everything
    std::unique_ptr<Backend> fresh = make_reference_backend();
    Recording b = record(fresh.get(), p);
    EXPECT_GT(a.after.size(), 0u) << print_program(p);
    expect_same_recording(p, a, again, reused->capabilities());
    expect_same_recording(p, a, b, reused->capabilities());
  }
}

}  // namespace
}  // namespace storcheck
