// Issue 7: exit codes (3 for internal errors), per-program timeouts, one
// child process per property (`gate --isolate`), the JSON of every finding,
// and JUnit XML validated against its schema (harness/testdata/junit.xsd).
// These start the storcheck binary of a fault-injection build; the planted
// harness faults (impl/fault.h) make the reference backend throw, hang or
// die of SIGSEGV as a broken LibTorch can.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/isolate.h"
#include "harness/properties.h"
#include "harness/test_support.h"
#include "impl/fault.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

struct Outcome {
  int code = -1;
  std::string out, err;
};

/// Runs the storcheck binary with `args` (shell words, already quoted).
Outcome storcheck(const std::string& args, const TempDir& dir) {
  Outcome r;
  const char* bin = std::getenv("STORCHECK_BIN");
  if (!bin) return r;
  std::string out = dir.path() + "/stdout", err = dir.path() + "/stderr";
  int status = std::system((std::string(bin) + " " + args + " >" + out + " 2>" + err).c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

bool has_op(const Program& p, OpId op) {
  for (const Step& s : p.steps)
    if (s.op == op) return true;
  return false;
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::vector<std::string> files_with_prefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  return out;
}

#define NEED_BINARY_AND_FAULTS()                                                   \
  do {                                                                             \
    if (!std::getenv("STORCHECK_BIN")) GTEST_SKIP() << "STORCHECK_BIN not set";    \
    if (!fault_injection_available())                                              \
      GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";                      \
  } while (0)

TEST(Reliability, InternalErrorExitsThree) {
  NEED_BINARY_AND_FAULTS();
  TempDir dir;
  Outcome r = storcheck("check views.ref_matches_eager --programs 300 --plant-fault throw_in_clone "
                    "--findings-dir " + dir.path() + "/f",
                    dir);
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "storcheck: internal error: planted internal error")) << r.err;
  // The gate reports the property as ERROR, finishes the table, and exits 3.
  Outcome g = storcheck("gate --programs 200 --plant-fault throw_in_clone --findings-dir " +
                        dir.path() + "/g --corpus " + dir.path(),
                    dir);
  EXPECT_EQ(g.code, 3) << g.out << g.err;
  EXPECT_TRUE(contains(g.out, " ERROR ")) << g.out;
  EXPECT_TRUE(contains(g.out, "gate: FAILED")) << g.out;
}

TEST(Reliability, HungProgramIsATimeoutWithTheProgramSaved) {
  NEED_BINARY_AND_FAULTS();
  TempDir dir;
  const std::string findings = dir.path() + "/f";
  Outcome r = storcheck("check views.ref_matches_eager --programs 300 --plant-fault hang_in_zero "
                    "--program-timeout 1 --findings-dir " + findings,
                    dir);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "TIMEOUT in views.ref_matches_eager")) << r.err;
  std::vector<std::string> saved = files_with_prefix(findings, "timeout-views.ref_matches_eager-");
  ASSERT_EQ(saved.size(), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, "storcheck repro " + saved[0])) << r.err;
  ParseResult p = parse_program(read_file(saved[0]));
  ASSERT_TRUE(p.ok()) << p.error.to_string();
  EXPECT_TRUE(has_op(p.program, OpId::kZero_)) << "the saved program holds the hung step";
}

TEST(Reliability, IsolatedGateSurvivesCrashesAndTimeouts) {
  NEED_BINARY_AND_FAULTS();
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/corpus/regressions");
  const std::string findings = dir.path() + "/f";
  Outcome g = storcheck("gate --isolate --programs 200 --plant-fault crash_in_fill --corpus " +
                        dir.path() + "/corpus --findings-dir " + findings + " --findings-json " +
                        dir.path() + "/findings.json",
                    dir);
  EXPECT_EQ(g.code, 1) << g.out << g.err;
  // Every property of the default gate has its row: the run went on after
  // each crash (the pytorch.* ones are opt-in: --backends pytorch).
  for (const Property& p : properties()) {
    if (!p.needs_pytorch()) {
      EXPECT_TRUE(contains(g.out, "\n" + std::string(p.name) + " ")) << p.name << "\n" << g.out;
    }
  }
  EXPECT_TRUE(contains(g.out, " CRASH ")) << g.out;
  EXPECT_TRUE(contains(g.out, "killed by SIGSEGV")) << g.out;
  std::vector<std::string> died = files_with_prefix(findings, "died-");
  ASSERT_FALSE(died.empty());
  for (const std::string& path : died) {
    ParseResult p = parse_program(read_file(path));
    ASSERT_TRUE(p.ok()) << path;
    EXPECT_TRUE(has_op(p.program, OpId::kFill_)) << path;
    EXPECT_TRUE(contains(g.out, "storcheck repro " + path)) << path;
  }
  std::string json = read_file(dir.path() + "/findings.json");
  EXPECT_TRUE(contains(json, "\"status\": \"crash\"")) << json;

  Outcome t = storcheck("gate --isolate --programs 200 --plant-fault hang_in_zero --program-timeout 1 "
                    "--corpus " + dir.path() + "/corpus --findings-dir " + findings,
                    dir);
  EXPECT_EQ(t.code, 1) << t.out << t.err;
  EXPECT_TRUE(contains(t.out, " TIMEOUT ")) << t.out;
  EXPECT_FALSE(files_with_prefix(findings, "timeout-").empty());
  EXPECT_TRUE(contains(t.out, "gate: FAILED")) << t.out;
}

// The JSON is read back by Python's json module, as a CI script would.
TEST(Reliability, FindingsJsonListsEveryFinding) {
  NEED_BINARY_AND_FAULTS();
  TempDir dir;
  const std::string json = dir.path() + "/findings.json";
  Outcome g = storcheck("check views.ref_matches_eager --programs 3000 --plant-fault "
                    "transpose_square_strides --findings-dir " + dir.path() + "/f --findings-json " +
                        json,
                    dir);
  ASSERT_EQ(g.code, 1) << g.out << g.err;
  const std::string check_py = dir.path() + "/check.py";
  std::ofstream(check_py) << R"PY(import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 1, d
f = d[0]
assert f["name"] == "views.ref_matches_eager" and f["status"] == "fail", f
assert f["seed"] == 0 and f["program"] >= 0 and f["steps"] == 16, f
assert f["program_text"].startswith("# storcheck program v1\n") and f["reproducer"].endswith(".sc"), f
assert open(f["reproducer"]).read().endswith(f["program_text"].split("\n", 1)[1]), f
assert [s[-3:] for s in f["scripts"]] == [".py", "cpp"], f
assert "strides" in f["divergence"] or "values" in f["divergence"], f
print("json ok")
)PY";
  std::string cmd = "python3 " + check_py + " " + json + " > " + dir.path() + "/py.txt 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << read_file(dir.path() + "/py.txt");
  // No finding: an empty list, still written.
  Outcome ok = storcheck("check program.roundtrip --programs 50 --findings-json " + json, dir);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(read_file(json), "[]\n");
}

TEST(Reliability, JunitValidatesAgainstItsSchema) {
  if (!std::getenv("STORCHECK_BIN")) GTEST_SKIP() << "STORCHECK_BIN not set";
  if (std::system("xmllint --version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "xmllint (libxml2-utils) is not installed";
  TempDir dir;
  const std::string xsd = std::string(STORCHECK_SOURCE_DIR) + "/harness/testdata/junit.xsd";
  std::vector<std::string> runs = {"gate --programs 30"};
  if (fault_injection_available()) {
    runs.push_back("gate --programs 2000 --plant-fault transpose_square_strides");
    runs.push_back("gate --isolate --programs 30 --plant-fault crash_in_fill");
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string xml = dir.path() + "/j" + std::to_string(k) + ".xml";
    Outcome g = storcheck(runs[k] + " --findings-dir " + dir.path() + "/f --junit " + xml, dir);
    EXPECT_EQ(g.code, k == 0 ? 0 : 1) << runs[k] << "\n" << g.out << g.err;
    std::string cmd = "xmllint --noout --schema " + xsd + " " + xml + " > " + dir.path() +
                      "/lint.txt 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << runs[k] << "\n" << read_file(dir.path() + "/lint.txt");
    std::string x = read_file(xml);
    if (k == 1) {
      EXPECT_TRUE(contains(x, "<failure message=")) << x;
    }
    if (k == 2) {
      EXPECT_TRUE(contains(x, "<error message=")) << x;
    }
  }
}

TEST(Isolate, ChildResultRoundTrips) {
  CheckResult r;
  r.property = "views.ref_matches_eager";
  r.passed = false;
  r.programs = 12;
  r.steps = 190;
  r.seconds = 0.25;
  r.seed = 18446744073709551615ull;
  r.failing_program = 7;
  r.counterexample = parse_program("t0 = arange [3,3] f32\nt1 = transpose t0 0 1\n").program;
  r.failure_text = "step 2: strides\nwith a newline";
  r.reproducer_path = "/tmp/x.sc";
  r.emitted_paths = {"/tmp/x.py", "/tmp/x.cpp"};
  CheckResult back;
  ASSERT_TRUE(deserialize_result(serialize_result(r), &back));
  EXPECT_EQ(back.property, r.property);
  EXPECT_FALSE(back.passed);
  EXPECT_EQ(back.programs, 12);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.failing_program, 7);
  EXPECT_TRUE(back.counterexample == r.counterexample);
  EXPECT_EQ(back.failure_text, r.failure_text);
  EXPECT_EQ(back.emitted_paths, r.emitted_paths);
  EXPECT_FALSE(deserialize_result("property 99\nshort\n", &back));
}

}  // namespace
}  // namespace storcheck
