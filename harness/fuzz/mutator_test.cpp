#include "harness/fuzz/mutator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "harness/fuzz/fuzz_target.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

const char* kSeed =
    "t0 = arange [2,3] f32\n"
    "t1 = transpose t0 0 1\n"
    "add_ t1 1.5\n"
    "t2 = view t0 [6]\n"
    "t3 = clone t1\n"
    "drop t1\n"
    "t4 = full [3] 2 i64\n";

Program parse_ok(const std::string& text) {
  ParseResult r = parse_program(text, fuzz_parse_limits());
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

const OpSet& views_ops() { return find_fuzz_target("views_fuzzer")->ops; }

bool only_ops(const Program& p, const OpSet& ops) {
  for (const Step& s : p.steps)
    if (!ops.test(static_cast<size_t>(s.op))) return false;
  return true;
}

TEST(MutatorTable, NamesAreUniqueAndSpliceAndBytesComeLast) {
  const auto& t = mutator_table();
  std::set<std::string_view> names;
  for (const MutatorInfo& m : t) names.insert(m.name);
  EXPECT_EQ(names.size(), t.size());
  ASSERT_GE(t.size(), 11u);
  EXPECT_EQ(t[t.size() - 1].name, "bytes");
  EXPECT_EQ(t[t.size() - 1].fn, nullptr);
  EXPECT_EQ(t[t.size() - 2].name, "splice");
  EXPECT_EQ(find_mutator("insert_step"), 0);
  EXPECT_EQ(find_mutator("no_such"), -1);
}

// Every program-level mutator applies to the seed, changes it, and leaves a
// program that validates under the fuzz limits and uses the target's ops only.
TEST(ProgramMutator, EveryMutatorChangesTheSeedAndKeepsItValid) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  const Program seed = parse_ok(kSeed);
  for (int k = 0; k < find_mutator("splice"); ++k) {
    int applied = 0, changed = 0;
    for (unsigned s = 0; s < 200; ++s) {
      std::mt19937_64 rng(s);
      Program p = seed;
      if (!m.apply(k, &p, rng)) continue;
      ++applied;
      bool ok = false;
      (void)validate_program(p, fuzz_parse_limits(), &ok);
      EXPECT_TRUE(ok) << mutator_table()[k].name << "\n" << print_program(p);
      EXPECT_TRUE(only_ops(p, views_ops())) << print_program(p);
      EXPECT_TRUE(parse_program(print_program(p), fuzz_parse_limits()).ok());
      if (!(p == seed)) ++changed;
    }
    EXPECT_GT(applied, 100) << mutator_table()[k].name;
    EXPECT_GT(changed, 50) << mutator_table()[k].name;
  }
}

TEST(ProgramMutator, InsertStepNeverUsesOpsOutsideTheArea) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  std::set<OpId> seen;
  for (unsigned s = 0; s < 2000; ++s) {
    std::mt19937_64 rng(s);
    Program p = parse_ok(kSeed);
    if (!m.apply(find_mutator("insert_step"), &p, rng)) continue;
    for (const Step& st : p.steps) seen.insert(st.op);
  }
  EXPECT_EQ(seen.count(OpId::kLazyClone), 0u);
  EXPECT_EQ(seen.count(OpId::kShrink), 0u);
  EXPECT_EQ(seen.count(OpId::kRehydrate), 0u);
  EXPECT_GT(seen.size(), 30u);  // most of the 45 view-area ops within 2000 draws
}

TEST(RepairProgram, RetargetsAReadOfADroppedVariable) {
  Program p = parse_ok("t0 = arange [2] f32\nt1 = zeros [2] f32\ndrop t0\n");
  Step s;
  s.op = OpId::kZero_;
  s.nargs = 1;
  s.args[0] = Arg::variable(0);  // t0, dropped
  p.steps.push_back(s);
  std::mt19937_64 rng(1);
  ASSERT_TRUE(repair_program(&p, fuzz_parse_limits(), rng));
  EXPECT_EQ(print_program(p), std::string(kProgramHeader) +
                                  "\nt0 = arange [2] f32\nt1 = zeros [2] f32\ndrop t0\nzero_ t1\n");
}

TEST(RepairProgram, RemovesAStepWhenNoVariableIsLive) {
  Program p = parse_ok("t0 = arange [2] f32\ndrop t0\n");
  Step s;
  s.op = OpId::kZero_;
  s.nargs = 1;
  s.args[0] = Arg::variable(0);
  p.steps.push_back(s);
  std::mt19937_64 rng(1);
  ASSERT_TRUE(repair_program(&p, fuzz_parse_limits(), rng));
  EXPECT_EQ(p.steps.size(), 2u);
}

TEST(RepairProgram, GivesASecondDefinitionAFreshVariable) {
  Program p = parse_ok("t0 = arange [2] f32\nt1 = t t0\n");
  p.steps.push_back(p.steps[1]);  // t1 defined twice
  std::mt19937_64 rng(1);
  ASSERT_TRUE(repair_program(&p, fuzz_parse_limits(), rng));
  EXPECT_EQ(print_program(p),
            std::string(kProgramHeader) + "\nt0 = arange [2] f32\nt1 = t t0\nt2 = t t0\n");
}

TEST(RepairProgram, FailsWhenAFactoryExceedsTheLimits) {
  Program p = parse_ok("t0 = arange [2] f32\n");
  p.steps[0].args[0] = Arg::ints({1024, 1024});  // 4 MiB > 64 KiB
  std::mt19937_64 rng(1);
  EXPECT_FALSE(repair_program(&p, fuzz_parse_limits(), rng));
}

int g_fallback_calls = 0;
size_t fake_byte_mutate(uint8_t* data, size_t size, size_t max_size) {
  ++g_fallback_calls;
  data[0] = 'X';
  return size;
}

TEST(ProgramMutator, UnparsableInputGoesToTheByteFallback) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  g_fallback_calls = 0;
  uint8_t buf[64] = "t0 = no_such_op 1\n";
  size_t n = m.mutate(buf, std::strlen(reinterpret_cast<char*>(buf)), sizeof buf, 7,
                      fake_byte_mutate);
  EXPECT_EQ(g_fallback_calls, 1);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), n), "X0 = no_such_op 1\n\n# mutator: bytes\n");
  EXPECT_EQ(m.stats()[find_mutator("bytes")].tried, 1u);
}

TEST(ProgramMutator, OutputParsesFitsAndNamesItsMutator) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  int program_level = 0;
  for (unsigned seed = 0; seed < 300; ++seed) {
    std::string buf(4096, '\0');
    std::memcpy(buf.data(), kSeed, std::strlen(kSeed));
    size_t n = m.mutate(reinterpret_cast<uint8_t*>(buf.data()), std::strlen(kSeed), buf.size(),
                        seed, fake_byte_mutate);
    std::string out = buf.substr(0, n);
    size_t at = out.rfind("# mutator: ");
    ASSERT_NE(at, std::string::npos) << out;
    std::string name = out.substr(at + 11, out.size() - at - 12);
    EXPECT_GE(find_mutator(name), 0) << name;
    if (name == "bytes") continue;  // one in 16, and whatever the bytes became
    ++program_level;
    ParseResult r = parse_program(out, fuzz_parse_limits());
    EXPECT_TRUE(r.ok()) << out;
  }
  EXPECT_GT(program_level, 250);
  uint64_t produced = 0;
  for (const MutatorStats& s : m.stats()) produced += s.produced;
  EXPECT_EQ(produced, 300u);
}

TEST(ProgramMutator, NeverWritesPastMaxSize) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  for (unsigned seed = 0; seed < 100; ++seed) {
    std::string buf(4096, '\0');
    std::memcpy(buf.data(), kSeed, std::strlen(kSeed));
    size_t n = m.mutate(reinterpret_cast<uint8_t*>(buf.data()), std::strlen(kSeed), 200, seed,
                        fake_byte_mutate);
    EXPECT_LE(n, 200u);
  }
}

TEST(ProgramMutator, CrossOverSplicesAPrefixOfOneWithASuffixOfTheOther) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  std::string a = "t0 = arange [2,2] f32\nt1 = transpose t0 0 1\nt2 = transpose t1 0 1\n";
  std::string b = "t0 = zeros [3] i64\nt1 = unsqueeze t0 0\nt2 = unsqueeze t1 0\n";
  int both = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    uint8_t out[1024];
    size_t n = m.cross_over(reinterpret_cast<const uint8_t*>(a.data()), a.size(),
                            reinterpret_cast<const uint8_t*>(b.data()), b.size(), out, sizeof out,
                            seed);
    if (n == 0) continue;
    std::string text(reinterpret_cast<char*>(out), n);
    ASSERT_TRUE(parse_program(text, fuzz_parse_limits()).ok()) << text;
    EXPECT_NE(text.find("# mutator: splice"), std::string::npos);
    if (text.find("transpose") != std::string::npos && text.find("unsqueeze") != std::string::npos)
      ++both;
  }
  EXPECT_GT(both, 20);
  EXPECT_EQ(m.stats()[find_mutator("splice")].tried, 200u);
}

TEST(ProgramMutator, CrossOverOfUnparsableInputGivesNothing) {
  ProgramMutator m(views_ops(), fuzz_parse_limits());
  std::string a = "t0 = arange [2] f32\n", b = "garbage";
  uint8_t out[256];
  EXPECT_EQ(m.cross_over(reinterpret_cast<const uint8_t*>(a.data()), a.size(),
                         reinterpret_cast<const uint8_t*>(b.data()), b.size(), out, sizeof out, 1),
            0u);
}

}  // namespace
}  // namespace storcheck
