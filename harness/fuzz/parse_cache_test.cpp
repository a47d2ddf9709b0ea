#include "harness/fuzz/parse_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "harness/fuzz/fuzz_target.h"
#include "harness/fuzz/mutator.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

const char* kText = "t0 = arange [2,3] f32\nt1 = transpose t0 0 1\nadd_ t1 1.5\n";

TEST(ParseCache, AHitIsWhatParsingGivesAndNeedsTheSameBytes) {
  ParseCache cache(fuzz_parse_limits());
  EXPECT_EQ(cache.find(kText), nullptr);
  const Program* p = cache.parse(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(*p == parse_program(kText, fuzz_parse_limits()).program);
  EXPECT_EQ(cache.find(kText), p);
  EXPECT_EQ(cache.parse(kText), p);  // parsed once
  EXPECT_EQ(cache.size(), 1u);
  // One byte more (a trailing space) is another text.
  EXPECT_EQ(cache.find(std::string(kText) + " "), nullptr);
  EXPECT_EQ(cache.find(std::string(kText).substr(0, 10)), nullptr);
}

TEST(ParseCache, KeepsNothingThatDoesNotParseUnderItsLimits) {
  ParseCache cache(fuzz_parse_limits());
  EXPECT_EQ(cache.parse("t0 = frobnicate [2] f32\n"), nullptr);
  // Parses under repro's limits, not under the fuzz limits (a factory past 64 KiB).
  const std::string big = "t0 = zeros [65536] f32\n";
  ASSERT_TRUE(parse_program(big, Limits{}).ok());
  EXPECT_EQ(cache.parse(big), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ParseCache, DropsTheOldestPastItsCapacity) {
  ParseCache cache(fuzz_parse_limits(), 2);
  std::vector<std::string> texts;
  for (int k = 1; k <= 3; ++k) texts.push_back("t0 = zeros [" + std::to_string(k) + "] f32\n");
  for (const std::string& t : texts) ASSERT_NE(cache.parse(t), nullptr);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find(texts[0]), nullptr);
  ASSERT_NE(cache.find(texts[1]), nullptr);
  ASSERT_NE(cache.find(texts[2]), nullptr);
  EXPECT_EQ(cache.find(texts[2])->steps.size(), 1u);
}

// The mutator keeps what it emits; the target then finds it and judges the
// same program it would have parsed.
TEST(ParseCache, TheTargetFindsWhatTheMutatorEmitted) {
  const FuzzTarget& target = *find_fuzz_target("views_fuzzer");
  FuzzHarness h(target);
  ProgramMutator m(target.ops, fuzz_parse_limits(), &h.parse_cache());
  std::vector<uint8_t> buf(4096);
  const size_t n0 = std::strlen(kText);
  int kept = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::memcpy(buf.data(), kText, n0);
    const size_t n = m.mutate(buf.data(), n0, buf.size(), seed,
                              [](uint8_t*, size_t size, size_t) { return size; });
    const std::string text(reinterpret_cast<const char*>(buf.data()), n);
    const Program* cached = h.parse_cache().find(text);
    ParseResult fresh = parse_program(text, fuzz_parse_limits());
    if (!cached) continue;  // the byte level (one in 16) is not kept
    ++kept;
    ASSERT_TRUE(fresh.ok());
    EXPECT_TRUE(*cached == fresh.program) << text;
    FuzzResult r = h.run(text);
    EXPECT_TRUE(r.program == fresh.program);
    EXPECT_EQ(r.outcome, FuzzOutcome::kPassed) << r.verdict.what;
  }
  EXPECT_GE(kept, 15);
  EXPECT_NE(h.parse_cache().find(kText), nullptr);  // the input, parsed once
}

}  // namespace
}  // namespace storcheck
