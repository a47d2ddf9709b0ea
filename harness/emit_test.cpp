// `storcheck emit` (issue 9): the op table's spellings, Note [What the
// emitted script runs], and the property that matters most: for programs
// where the reference and LibTorch agree, the emitted PyTorch script passes.
// (Every regression file's scripts, and a planted divergence's, are run by
// the ctest cases emit.python.* and emit.cpp.*: harness/emit_check.sh.)
#include "harness/emit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "generators/program_gen.h"
#include "harness/properties.h"
#include "harness/test_support.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

Program parse(const std::string& text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

std::string emit(EmitLang lang, const Program& p, EmitRequest r = {}) {
  r.program = &p;
  r.source = "t.sc";
  return emit_script(lang, r, Limits{});
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST(Emit, EveryOpHasBothSpellings) {
  for (const OpInfo& info : op_table()) {
    EXPECT_FALSE(info.python.empty()) << info.name;
    EXPECT_FALSE(info.cpp.empty()) << info.name;
    EXPECT_NE(info.cpp[0], '!') << info.name << ": every op runs in the C++ reproducer";
    // Every `$k` names an argument the op has.
    for (std::string_view t : {info.python, info.cpp})
      for (size_t k = t.find('$'); k != std::string_view::npos; k = t.find('$', k + 1)) {
        if (t[k + 1] >= '0' && t[k + 1] <= '9') {
          EXPECT_LT(static_cast<size_t>(t[k + 1] - '0'), info.signature.size()) << info.name;
        }
      }
  }
}

TEST(Emit, SliceIsPythonIndexing) {
  Program p = parse(
      "t0 = zeros [2,3,4] f32\nt1 = slice t0 2 1 3 1\nt2 = slice t0 -2 0 2 2\n"
      "t3 = slice t0 40 0 1 1\n");
  std::string py = emit(EmitLang::kPython, p);
  EXPECT_TRUE(contains(py, "t1 = t0[:, :, 1:3]\n")) << py;
  EXPECT_TRUE(contains(py, "t2 = t0[..., 0:2:2, :]\n")) << py;
  // Too far out for indexing: the aten op, inside expect_error (dim 40).
  EXPECT_TRUE(contains(py, "lambda: torch.ops.aten.slice(t0, 40, 0, 1, 1))")) << py;
  std::string cpp = emit(EmitLang::kCpp, p);
  EXPECT_TRUE(contains(cpp, "t1 = t0.slice(2, 1, 3, 1);")) << cpp;
}

TEST(Emit, RefusedStepsAreNeverRun) {
  // S9: LibTorch 1.13 wraps offset * itemsize; S8: add_ on an emptied tensor.
  Program p = parse(
      "t0 = zeros [4] f32\nt1 = as_strided t0 [1] [1] 4611686018427387904\n"
      "shrink t0\nadd_ t0 1\n");
  for (EmitLang lang : {EmitLang::kPython, EmitLang::kCpp}) {
    std::string s = emit(lang, p);
    EXPECT_FALSE(contains(s, "as_strided([1], [1], 4611686018427387904)")) << s;
    EXPECT_FALSE(contains(s, "as_strided({1}, {1}, 4611686018427387904)")) << s;
    EXPECT_TRUE(contains(s, "step 2 (t1 = as_strided t0 [1] [1] 4611686018427387904) is not run"))
        << s;
    EXPECT_TRUE(contains(s, "step 4 (add_ t0 1) is not run: undefined behaviour (S8)")) << s;
    EXPECT_FALSE(contains(s, "t0.add_(1)")) << s;
  }
}

TEST(Emit, ClonePathOfEmptiedTensorRestoresZeros) {
  Program p = parse("t0 = ones [2,3] f32\nt1 = t t0\nshrink t0\nt2 = contiguous t1\nt3 = clone t0\n");
  std::string py = emit(EmitLang::kPython, p);
  EXPECT_TRUE(contains(py, "t2 = restored([3, 2], [2, 1], 0, torch.float32)\n")) << py;
  EXPECT_TRUE(contains(py, "t3 = restored([2, 3], [3, 1], 0, torch.float32)\n")) << py;
  EXPECT_TRUE(contains(py, "# R3: t1 is emptied (its storage has 0 bytes)")) << py;
  EXPECT_FALSE(contains(py, "t1.contiguous()")) << py;
  EXPECT_TRUE(contains(py, "expect(\"step 3 (shrink t0)\", t0, [2, 3], [3, 1], 0, torch.float32, EMPTIED)"))
      << py;
}

TEST(Emit, RejectedStepsMustRaise) {
  Program p = parse("t0 = zeros [2,3] f32\nt1 = view t0 [5]\nt2 = t t0\nt3 = view t2 [6]\n");
  std::string py = emit(EmitLang::kPython, p);
  EXPECT_TRUE(contains(py, "expect_error(\"step 2 (t1 = view t0 [5])\", \"shape_mismatch\", "
                           "lambda: t0.view([5]))"))
      << py;
  EXPECT_TRUE(contains(py, "\"view_incompatible\", lambda: t2.view([6]))")) << py;
  std::string cpp = emit(EmitLang::kCpp, p);
  EXPECT_TRUE(contains(cpp, "[&] { t3 = t2.view({6}); });")) << cpp;
}

TEST(Emit, StandaloneAndDeterministic) {
  Program p = parse("t0 = rand [3,4] f64 9\nt1 = lazy_clone t0\nmul_ t1 2\nt2 = from_blob [2] i32\n");
  std::string py = emit(EmitLang::kPython, p);
  EXPECT_EQ(py, emit(EmitLang::kPython, p));
  // Only the standard library and torch: no storcheck module.
  size_t imports = 0;
  for (size_t at = py.find("\nimport "); at != std::string::npos; at = py.find("\nimport ", at + 1))
    ++imports;
  EXPECT_EQ(imports, 3u) << py;  // math, sys, torch
  EXPECT_FALSE(contains(py, "storcheck import")) << py;
  // Helpers appear only when a step calls them.
  EXPECT_TRUE(contains(py, "def rand(") && contains(py, "def lazy_clone(")) << py;
  EXPECT_FALSE(contains(py, "def rehydrate(") || contains(py, "def resize_(")) << py;
  std::string cpp = emit(EmitLang::kCpp, p);
  EXPECT_TRUE(contains(cpp, "g_foreign")) << "lazy_clone's stand-in checks from_blob's storages";
}

TEST(Emit, DivergenceAndKnownDivergence) {
  Program p = parse("t0 = arange [3,3] f32\nt1 = transpose t0 0 1\n");
  EmitRequest r;
  r.divergence = EmitDivergence{2, "strides", 1, "[1, 3]", "[3, 1]", "torch_cpu (LibTorch 1.13.0)"};
  std::string py = emit(EmitLang::kPython, p, r);
  EXPECT_TRUE(contains(py, "# storcheck: LibTorch diverges from the reference here (SEMANTICS S2): "
                           "strides of t1:\n#   the reference expects [1, 3]\n"
                           "#   torch_cpu (LibTorch 1.13.0) gives [3, 1]\n"))
      << py;
  r.known = EmitKnown{"some-id", "1.13,2.0", "why"};
  py = emit(EmitLang::kPython, p, r);
  EXPECT_TRUE(contains(py, "if torch.__version__.startswith((\"1.13\", \"2.0\")):  # storcheck "
                           "known divergence some-id\n"))
      << py;
  std::string cpp = emit(EmitLang::kCpp, p, r);
  EXPECT_TRUE(contains(cpp, "(TORCH_VERSION_MAJOR == 1 && TORCH_VERSION_MINOR == 13) || "
                            "(TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR == 0)"))
      << cpp;
}

// Python's torch.sparse_coo_tensor converts indices of another dtype to
// int64 where LibTorch raises (known divergence
// pytorch-sparse-coo-indices-converted): the Python script stops before the
// step, the C++ program expects the error.
TEST(Emit, PythonStopsBeforeSparseCooOfNonLongIndices) {
  Program p = parse("t0 = arange [1,2] i32\nt1 = rand [2] f32 7\n"
                    "t2 = sparse_coo_tensor t0 t1 [10]\n");
  std::string py = emit(EmitLang::kPython, p);
  EXPECT_TRUE(contains(py, "stopping before step 3 (t2 = sparse_coo_tensor t0 t1 [10]): Python's "
                           "torch.sparse_coo_tensor converts indices"))
      << py;
  std::string cpp = emit(EmitLang::kCpp, p);
  EXPECT_FALSE(contains(cpp, "stopping before")) << cpp;
  EXPECT_TRUE(contains(cpp, "step 3 (t2 = sparse_coo_tensor t0 t1 [10])")) << cpp;
  Program ok = parse("t0 = arange [1,2] i64\nt1 = rand [2] f32 7\n"
                     "t2 = sparse_coo_tensor t0 t1 [10]\n");
  EXPECT_FALSE(contains(emit(EmitLang::kPython, ok), "stopping before"));
}

TEST(Emit, SemanticsIds) {
  EXPECT_EQ(semantics_id(OpId::kClone, "values", true), "R3");
  EXPECT_EQ(semantics_id(OpId::kLazyClone, "values", false), "C6");
  EXPECT_EQ(semantics_id(OpId::kLazyClone, "is_cow", false), "C2-C4");
  EXPECT_EQ(semantics_id(OpId::kView, "error", false), "S6");
  EXPECT_EQ(semantics_id(OpId::kAdd_, "values", false), "S3");
  EXPECT_EQ(semantics_id(OpId::kRehydrate, "values", false), "R5");
}

// The property: generated programs on which the reference and LibTorch agree
// give Python scripts that pass under Debian's PyTorch. One Python process
// runs them all (importing torch once).
TEST(Emit, GeneratedProgramsEmitPassingPythonScripts) {
  BackendSet backends = BackendSet::make();
  if (!backends.torch_cpu) GTEST_SKIP() << "built without LibTorch: nothing to compare with";
  const char* py_env = std::getenv("STORCHECK_PYTHON");
  const std::string python = py_env && *py_env ? py_env : "/usr/bin/python3";
  if (std::system((python + " -c 'import torch' >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << python << " cannot import torch (Debian's python3-torch)";
  TempDir dir;
  ASSERT_FALSE(dir.empty());
  Runner runner(backends.all(), Limits{});
  std::vector<std::string> scripts;
  // sparse_config(): sparse variables (expect_sparse), the sparse ops' spellings.
  const GenConfig configs[] = {GenConfig{}, shrink_config(), cow_config(), sparse_config()};
  int agreed = 0;
  for (int c = 0; c < 4; ++c) {
    rc::Random root(0xe1117 + c);
    rc::Gen<Program> gen = gen_program(configs[c]);
    for (int i = 0; i < 400; ++i) {
      rc::Random r = root.split();
      Program p = gen(r, i % 100).value();
      if (runner.run(p).diverged) continue;  // a finding, or a known divergence
      ++agreed;
      const char* keep = std::getenv("STORCHECK_EMIT_KEEP");  // a folder to keep the scripts in
      std::string path = std::string(keep && *keep ? keep : dir.path().c_str()) + "/p" + std::to_string(c) + "_" + std::to_string(i) + ".py";
      std::ofstream(path) << emit(EmitLang::kPython, p);
      std::ofstream(path + ".sc") << print_program(p);
      scripts.push_back(path);
    }
  }
  ASSERT_GT(agreed, 300);
  const std::string driver = dir.path() + "/driver.py";
  std::ofstream(driver) << R"PY(import contextlib, io, runpy, sys
bad = 0
for path in sys.argv[1:]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (0, None):
            bad += 1
            print(path, "exit", e.code)
    except BaseException as e:
        bad += 1
        print(path + ".sc:", type(e).__name__, str(e)[:300])
print("failed:", bad)
)PY";
  // glibc fills fresh allocations with a non-zero byte: a reproducer that
  // reads bytes PyTorch leaves undefined (R6 says zero) fails every time,
  // not only when the allocator happens to hand out dirty memory (found in
  // CI: torch.mul(x, s, out=o) growing an emptied out).
  std::string cmd = "MALLOC_PERTURB_=165 " + python + " " + driver;
  for (const std::string& s : scripts) cmd += " " + s;
  cmd += " > " + dir.path() + "/out.txt 2>&1";
  int rc = std::system(cmd.c_str());
  std::string out = read_file(dir.path() + "/out.txt");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(contains(out, "failed: 0\n")) << out;
}

}  // namespace
}  // namespace storcheck
