// The storcheck CLI: usage errors, malformed programs and the end-to-end
// proof that the pipeline finds a planted bug.
#include "harness/cli.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include "harness/gate.h"
#include "harness/properties.h"
#include "harness/test_support.h"
#include "impl/fault.h"
#include "oracles/known_divergences.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

struct Outcome {
  int code;
  std::string out, err;
};

Outcome cli(std::vector<const char*> args, const char* rc_params = nullptr) {
  args.insert(args.begin(), "storcheck");
  std::ostringstream out, err;
  int code = storcheck_main(static_cast<int>(args.size()), args.data(), rc_params, out, err);
  return {code, out.str(), err.str()};
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(Cli, UnknownCommandAndFlagExitTwoWithOneLine) {
  Outcome none = cli({});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(count_lines(none.err), 1) << none.err;
  EXPECT_NE(none.err.find("missing COMMAND"), std::string::npos);
  Outcome a = cli({"frobnicate"});
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("unknown command 'frobnicate'"), std::string::npos);
  Outcome b = cli({"gate", "--sed", "3"});
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("unknown flag '--sed'"), std::string::npos);
  Outcome c = cli({"gate", "--seed", "abc"});
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("--seed: expected an unsigned integer, got 'abc'"), std::string::npos);
  Outcome d = cli({"gate", "--budget", "-5"});
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(count_lines(d.err), 1);
  Outcome e = cli({"repro", "--junit", "x.xml", "f"});
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.err.find("--junit does not apply to 'repro'"), std::string::npos);
  // Each integer flag's own range, checked before anything runs (a value
  // past it was once replaced by the default without a word).
  Outcome jobs = cli({"gate", "--jobs", "257"});
  EXPECT_EQ(jobs.code, 2);
  EXPECT_NE(jobs.err.find("--jobs: expected an integer from 1 to 256, got '257'"),
            std::string::npos)
      << jobs.err;
  Outcome steps = cli({"bench", "--steps=4097"});
  EXPECT_EQ(steps.code, 2);
  EXPECT_NE(steps.err.find("--steps: expected an integer from 1 to 4096, got '4097'"),
            std::string::npos)
      << steps.err;
  Outcome size = cli({"check", "program.roundtrip", "--max-size", "1048577"});
  EXPECT_EQ(size.code, 2);
  EXPECT_NE(size.err.find("--max-size: expected an integer from 1 to 2^20, got '1048577'"),
            std::string::npos)
      << size.err;
  Outcome programs = cli({"gate", "--programs", "0"});
  EXPECT_EQ(programs.code, 2);
  EXPECT_NE(programs.err.find("--programs: expected an integer from 1 to 2^40, got '0'"),
            std::string::npos)
      << programs.err;
  Outcome f = cli({"gate", "--backends", "cuda"});
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.err.find("--backends: unknown backend list 'cuda' (known: pytorch)"),
            std::string::npos)
      << f.err;
}

TEST(Cli, CheckRejectsUnknownPropertyAndBadRcParams) {
  Outcome a = cli({"check", "views.nope"});
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("unknown property 'views.nope'"), std::string::npos);
  Outcome b = cli({"check", "program.roundtrip"}, "max_success=notanumber");
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("RC_PARAMS"), std::string::npos);
}

TEST(Cli, CheckHonoursRcParamsMaxSuccessAndSeed) {
  Outcome a = cli({"check", "program.roundtrip"}, "seed=42 max_success=37");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("seed 42, 37 programs"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("OK after 37 programs"), std::string::npos) << a.out;
  Outcome b = cli({"check", "program.roundtrip", "--programs", "5", "--seed", "9"}, "seed=42");
  EXPECT_NE(b.out.find("seed 9, 5 programs"), std::string::npos) << b.out;
  // The budget as given, not "300.000000".
  Outcome c =
      cli({"check", "program.roundtrip", "--seed", "3", "--programs", "5", "--budget", "300"});
  EXPECT_NE(c.out.find("seed 3, 5 programs, budget 300 s\n"), std::string::npos) << c.out;
}

// `--steps N` (gate, check): programs of exactly N steps instead of the
// properties' 16, for campaigns that reach deeper states; bench has its own.
TEST(Cli, StepsSetsTheProgramLengthOfCheckAndGate) {
  Outcome a =
      cli({"check", "program.roundtrip", "--steps", "40", "--programs", "5", "--seed", "3"});
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("seed 3, 5 programs of 40 steps\n"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("OK after 5 programs, 200 steps"), std::string::npos) << a.out;
  Outcome plain = cli({"check", "program.roundtrip", "--programs", "5", "--seed", "3"});
  EXPECT_NE(plain.out.find("OK after 5 programs, 80 steps"), std::string::npos) << plain.out;
  Outcome r = cli({"repro", "--steps", "4", "f.sc"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--steps does not apply to 'repro'"), std::string::npos) << r.err;
  TempDir corpus, findings;  // no regressions: properties only
  Outcome g = cli({"gate", "--steps", "8", "--programs", "20", "--budget", "60", "--corpus",
                   corpus.path().c_str(), "--findings-dir", findings.path().c_str()});
  EXPECT_EQ(g.code, 0) << g.out << g.err;
  EXPECT_NE(g.out.find(", 8-step programs, "), std::string::npos) << g.out;
}

TEST(Cli, ReproOfMalformedProgramsExitsTwoNamingLineAndValue) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  struct Case {
    std::string text;
    std::string expect;
  } cases[] = {
      {"t0 = arange [3] f32\nt1 = frob t0\n", ":2: unknown op 'frob'"},
      {"t0 = arange [3] f32 7\n",
       ":1: arange takes 2 arguments and an optional device (cpu or "
       "cuda), got 3: '7' is not a device"},
      {"t0 = zeros [4611686018427387904,4] f32\n",
       ":1: zeros of sizes [4611686018427387904,4] f32 needs more than 2^63"},
      {"t0 = zeros [2] f32\nadd_ t9 1\n", ":2: add_ argument 1: undefined variable 't9'"},
      {std::string("t0 = zeros [2] f32\n") + std::string("\x01\xff\0garbage\n", 11),
       ":2: byte 0x01 at column 1"},
      {std::string(10 * 1024 * 1024, 'x'), "file is larger than max_input_bytes 1048576"},
      {"t0 = zeros [" + std::string(5000, '1') + "] f32\n",
       ":1: line is 5017 bytes, more than max_line_bytes 4096"},
      // Header lines that name something must name something that exists.
      {"# storcheck program v1\n# known: resize-nonresizable-not-atomic-1.31\nt0 = zeros [2] f32\n",
       ":2: '# known: resize-nonresizable-not-atomic-1.31' names no known divergence"},
      {"# property: views.ref_matches_eagre\nt0 = zeros [2] f32\n",
       ":1: '# property: views.ref_matches_eagre' names no property (storcheck list)"},
      {"# property:\nt0 = zeros [2] f32\n", ":1: '# property: ' names no property"},
      {"# property: views.ref_matches_eager\n# property: cow.matches_torch\nt0 = zeros [2] f32\n",
       ":2: a second '# property:' header (line 1 has one)"},
  };
  int k = 0;
  for (const Case& c : cases) {
    std::string path = write(dir, "bad" + std::to_string(k++) + ".sc", c.text);
    Outcome o = cli({"repro", path.c_str()});
    EXPECT_EQ(o.code, 2) << c.expect;
    EXPECT_EQ(count_lines(o.err), 1) << o.err;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << o.err;
  }
  Outcome missing = cli({"repro", (dir + "/nope.sc").c_str()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot open: No such file or directory"), std::string::npos);
  Outcome directory = cli({"repro", dir.c_str()});
  EXPECT_EQ(directory.code, 2);
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos);
}

// A FIFO with no writer reads as an empty program instead of blocking the
// open (a gate over a corpus folder that holds one must finish).
TEST(Cli, ReproOfAFifoWithNoWriterDoesNotHang) {
  TempDir tmp;
  const std::string path = tmp.path() + "/fifo.sc";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::future<Outcome> run = std::async(std::launch::async, [&] {
    return cli({"repro", path.c_str()});
  });
  const bool finished = run.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!finished) ::close(::open(path.c_str(), O_WRONLY | O_NONBLOCK));  // unblock it: EOF
  EXPECT_TRUE(finished) << "repro of a FIFO with no writer blocked";
  Outcome o = run.get();
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find(": 0 steps on"), std::string::npos) << o.out;
}

// A `# known: ID` header expects that divergence, not any: a file that
// diverges in another way is reported (it exited 0 as "expected" before).
TEST(Cli, ReproOfAFileThatDivergesOtherwiseThanItsKnownHeaderFails) {
  if (!BackendSet::make().torch_cpu) GTEST_SKIP() << "built without LibTorch: nothing diverges";
  const KnownDivergence* k = find_known_divergence("resize-nonresizable-not-atomic-1.13");
  ASSERT_NE(k, nullptr);
  if (!k->applies_to(torch_version())) GTEST_SKIP() << "LibTorch " << torch_version();
  TempDir tmp;
  const std::string body = "t0 = arange [] f32\nset_nonresizable t0\nresize_ t0 [1,3]\n";
  std::string e;
  const std::string right = write_file_atomic(
      tmp.path(), "right.sc", "# known: resize-nonresizable-not-atomic-1.13\n" + body, &e);
  const std::string wrong =
      write_file_atomic(tmp.path(), "wrong.sc", "# known: meta-fill-unchecked-1.13\n" + body, &e);
  ASSERT_FALSE(right.empty() || wrong.empty()) << e;
  Outcome a = cli({"repro", right.c_str()});
  EXPECT_EQ(a.code, 0) << a.out;
  EXPECT_NE(a.out.find("expected: known divergence resize-nonresizable-not-atomic-1.13"),
            std::string::npos)
      << a.out;
  Outcome b = cli({"repro", wrong.c_str()});
  EXPECT_EQ(b.code, 1) << b.out;
  EXPECT_NE(b.out.find("not the declared known divergence meta-fill-unchecked-1.13: it matches "
                       "resize-nonresizable-not-atomic-1.13"),
            std::string::npos)
      << b.out;
  // The gate's replay of the corpus says the same.
  TempDir corpus;
  const std::string reg = corpus.path() + "/regressions";
  ASSERT_TRUE(std::filesystem::create_directory(reg));
  std::filesystem::copy_file(right, reg + "/right.sc");
  std::filesystem::copy_file(wrong, reg + "/wrong.sc");
  Outcome g = cli({"gate", "--programs", "20", "--corpus", corpus.path().c_str()});
  EXPECT_EQ(g.code, 1) << g.out;
  const size_t w = g.out.find("regression/wrong.sc");
  ASSERT_NE(w, std::string::npos) << g.out;
  EXPECT_NE(g.out.substr(w, g.out.find('\n', w) - w).find(" FAIL "), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("(not the declared known divergence meta-fill-unchecked-1.13)"),
            std::string::npos)
      << g.out;
  const size_t r = g.out.find("regression/right.sc");
  ASSERT_NE(r, std::string::npos) << g.out;
  EXPECT_NE(g.out.substr(r, g.out.find('\n', r) - r).find(" xfail "), std::string::npos) << g.out;
}

TEST(Cli, ListNamesTheRequiredProperties) {
  Outcome o = cli({"list"});
  EXPECT_EQ(o.code, 0);
  for (const char* name : {"program.roundtrip", "views.ref_matches_eager", "views.errors_agree",
                           "views.aliasing_matches"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
}

TEST(Cli, ReproducerTextParsesBackToTheCounterexample) {
  CheckResult r;
  r.property = "views.ref_matches_eager";
  r.seed = 5;
  r.failing_program = 3;
  r.failure_text = "step 2: strides";
  ParseResult p = parse_program("t0 = arange [2,2] f32\nt1 = transpose t0 0 1\n");
  ASSERT_TRUE(p.ok());
  r.counterexample = p.program;
  std::string text = reproducer_text(r);
  EXPECT_EQ(text,
            "# storcheck program v1\n# property: views.ref_matches_eager\n# seed: 5 (program 3)\n"
            "# divergence: step 2: strides\nt0 = arange [2,2] f32\nt1 = transpose t0 0 1\n");
  ParseResult back = parse_program(text);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back.program == r.counterexample);
}

TEST(Cli, WriteFileAtomicLeavesNoTemporaryBehind) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  std::string e;
  std::string path = write_file_atomic(dir, "a.sc", "hello\n", &e);
  ASSERT_EQ(path, dir + "/a.sc") << e;
  std::ifstream f(path);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "hello\n");
  int entries = 0;
  std::string cmd = "ls -A " + dir + " | wc -l";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  EXPECT_EQ(std::fscanf(pipe, "%d", &entries), 1);
  ::pclose(pipe);
  EXPECT_EQ(entries, 1);
}

/// Runs the storcheck binary (STORCHECK_BIN, set by CTest) and captures stdout.
Outcome run_binary(const std::string& args) {
  const char* bin = std::getenv("STORCHECK_BIN");
  if (!bin) return {-1, "", "STORCHECK_BIN not set"};
  std::string cmd = std::string(bin) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, ""};
}

// Crash-isolated unsafe mode (issue 4): plain LibTorch 1.13 segfaults when
// it clones a tensor whose storage was freed with resize_(0); the guarded
// backend restores zeros, the forked child shows the crash as a finding.
TEST(EagerUnsafe, ReproShowsLibTorchCrashingWhereTheReferenceRestores) {
  if (!BackendSet::make().torch_cpu) GTEST_SKIP() << "built without LibTorch";
  TempDir tmp;
  const std::string& dir = tmp.path();
  std::string path = write(dir, "emptied-clone.sc",
                           "t0 = ones [64,64] f32\nshrink t0\nt1 = clone t0\n");
  Outcome plain = run_binary("repro " + path);
  EXPECT_EQ(plain.code, 0) << plain.out;  // guarded: no divergence
  Outcome unsafe = run_binary("repro " + path + " --eager-unsafe");
  EXPECT_EQ(unsafe.code, 1) << unsafe.out;
  EXPECT_NE(unsafe.out.find("step 3 (t1 = clone t0): eager_unsafe"), std::string::npos)
      << unsafe.out;
  EXPECT_NE(unsafe.out.find("was killed by SIGSEGV"), std::string::npos) << unsafe.out;
  EXPECT_NE(unsafe.out.find("where the reference restores zeros (R3)"), std::string::npos);
}

// A step the LibTorch backend refuses as undefined (S8) stops the run and
// passes; --eager-unsafe runs it on plain LibTorch in a forked child, and
// LibTorch 1.13 segfaults cloning a stride in its SymInt pointer range
// (regression file clone-of-symint-pointer-stride-is-refused.sc).
TEST(EagerUnsafe, ReproShowsLibTorchCrashingOnARefusedStep) {
  if (!BackendSet::make().torch_cpu) GTEST_SKIP() << "built without LibTorch";
  TempDir tmp;
  std::string path = write(tmp.path(), "symint-clone.sc",
                           "t0 = zeros [0,3,4611686018427386904] i64\nt1 = clone t0\n");
  Outcome plain = run_binary("repro " + path);
  EXPECT_EQ(plain.code, 0) << plain.out;
  if (plain.out.find("torch_cpu refused: clone") == std::string::npos)
    GTEST_SKIP() << "this LibTorch (" << torch_version()
                 << ") runs clone of such a stride: nothing refused, nothing to probe";
  Outcome unsafe = run_binary("repro " + path + " --eager-unsafe");
  EXPECT_EQ(unsafe.code, 1) << unsafe.out;
  EXPECT_NE(unsafe.out.find("DIVERGENCE at step 2 (t1 = clone t0): eager_unsafe"),
            std::string::npos)
      << unsafe.out;
  EXPECT_NE(unsafe.out.find("was killed by SIGSEGV (11) running clone where storcheck refuses "
                            "the step as undefined (S8)"),
            std::string::npos)
      << unsafe.out;
}

// A finding of `check --steps N` says N where it says the seed and program,
// and `check` with that seed and --steps draws the same program again.
TEST(PlantedFaultSteps, CheckNamesTheStepsOfAFindingAndDrawsItAgain) {
  if (!fault_injection_available()) GTEST_SKIP() << "build without fault injection";
  if (!BackendSet::make().torch_cpu) GTEST_SKIP() << "built without LibTorch: nothing to compare";
  TempDir tmp;
  const std::string args =
      "check views.ref_matches_eager --plant-fault transpose_square_strides "
      "--steps 40 --seed 1 --programs 3000 --findings-dir " +
      tmp.path();
  Outcome f = run_binary(args);
  ASSERT_EQ(f.code, 1) << f.out;
  const size_t at = f.out.find("seed 1, program ");
  ASSERT_NE(at, std::string::npos) << f.out;
  const long long index = std::atoll(f.out.c_str() + at + 16);
  const std::string program = "program " + std::to_string(index);
  EXPECT_NE(f.out.find(program + " of 40 steps; shrunk to "), std::string::npos) << f.out;
  const size_t rep = f.out.find("reproduce: storcheck repro ");
  ASSERT_NE(rep, std::string::npos) << f.out;
  const std::string line = f.out.substr(rep + 27, f.out.find('\n', rep) - rep - 27);
  const std::string path = line.substr(0, line.find(' '));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("# seed: 1 (" + program + ", --steps 40)\n"), std::string::npos)
      << text.str();
  // Unshrunk, the same draw: that program, all 40 steps of it.
  TempDir again;
  Outcome n = run_binary(
      "check views.ref_matches_eager --plant-fault transpose_square_strides "
      "--steps 40 --seed 1 --no-shrink --findings-dir " +
      again.path() + " --programs " + std::to_string(index + 1));
  EXPECT_EQ(n.code, 1) << n.out;
  EXPECT_NE(n.out.find("seed 1, " + program + " of 40 steps; shrunk to 40 steps"),
            std::string::npos)
      << n.out;
}

// Proof the pipeline finds bugs: each planted reference bug makes the gate
// fail, the reproducer is small, and repro replays the divergence (only
// with the fault switched on).
struct PlantedCase {
  const char* fault;
  size_t max_steps;
};

class PlantedFault : public ::testing::TestWithParam<PlantedCase> {};

TEST_P(PlantedFault, GateFailsWithSmallReproducerThatReproReplays) {
  if (!fault_injection_available()) GTEST_SKIP() << "build without fault injection";
  if (!BackendSet::make().torch_cpu) GTEST_SKIP() << "built without LibTorch: nothing to compare";
  const std::string fault = GetParam().fault;
  TempDir tmp;
  const std::string& dir = tmp.path();
  TempDir corpus_tmp;  // no regressions: properties only
  const std::string& corpus = corpus_tmp.path();
  Outcome g = run_binary("gate --plant-fault " + fault + " --budget 120 --programs 3000 "
                         "--findings-dir " + dir + " --corpus " + corpus);
  ASSERT_EQ(g.code, 1) << g.out;
  EXPECT_NE(g.out.find("gate: FAILED"), std::string::npos);
  size_t at = g.out.find("reproduce: storcheck repro ");
  ASSERT_NE(at, std::string::npos) << g.out;
  std::string line = g.out.substr(at + 27, g.out.find('\n', at) - at - 27);
  std::string path = line.substr(0, line.find(' '));
  Program p;
  std::string e;
  ASSERT_TRUE(read_program_file(path, Limits{}, &p, nullptr, &e)) << e;
  EXPECT_LE(p.steps.size(), GetParam().max_steps) << print_program(p);
  Outcome r = run_binary("repro " + path + " --plant-fault " + fault);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(r.out.find("DIVERGENCE at step") != std::string::npos ||
              r.out.find("INVARIANT BROKEN at step") != std::string::npos)
      << r.out;
  // Without the fault the same file replays clean.
  Outcome clean = run_binary("repro " + path);
  EXPECT_EQ(clean.code, 0) << clean.out;
}

INSTANTIATE_TEST_SUITE_P(Faults, PlantedFault,
                         // At most 6 steps (the issues' bound); the shrinker stops where no
                         // single step can be removed, which depends on the draws.
                         ::testing::Values(PlantedCase{"transpose_square_strides", 6},
                                           PlantedCase{"restore_only_in_clone", 5},
                                           PlantedCase{"rehydrate_from_one_view", 5},
                                           PlantedCase{"last_sharer_copies", 5},
                                           PlantedCase{"view_write_skips_cow", 5},
                                           PlantedCase{"memo_strong_ref", 6},
                                           PlantedCase{"fake_view_loses_aliasing", 6},
                                           PlantedCase{"meta_outplace_contiguous", 6},
                                           PlantedCase{"fallback_converts_views", 6},

                                           // F4: fake.sparse_metadata catches it
                                           PlantedCase{"sparse_fake_swaps_dims", 6}),
                         [](const auto& info) { return std::string(info.param.fault); });

}  // namespace
}  // namespace storcheck
