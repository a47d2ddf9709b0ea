// The seed corpora (corpus/<target>/) and the dictionary, checked against
// the op table: every op of a target's area appears in its seeds, every seed
// is a program of its target that passes, and the dictionary names every op.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "harness/fuzz/fuzz_target.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<fs::path> seeds_of(std::string_view target) {
  std::vector<fs::path> out;
  fs::path dir = fs::path(STORCHECK_SOURCE_DIR) / "corpus" / std::string(target);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) out.push_back(e.path());
  return out;
}

class ProgramTargetCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ProgramTargetCorpus, EverySeedIsAcceptedAndPasses) {
  const FuzzTarget& t = *find_fuzz_target(GetParam());
  FuzzHarness h(t);
  std::vector<fs::path> seeds = seeds_of(t.name);
  ASSERT_FALSE(seeds.empty());
  for (const fs::path& p : seeds) {
    FuzzResult r = h.run(read_all(p));
    EXPECT_EQ(r.outcome, FuzzOutcome::kPassed)
        << p << ": " << r.reject_reason << r.verdict.what;
  }
}

TEST_P(ProgramTargetCorpus, SeedsCoverEveryOpOfTheArea) {
  const FuzzTarget& t = *find_fuzz_target(GetParam());
  OpSet seen;
  for (const fs::path& p : seeds_of(t.name)) {
    ParseResult r = parse_program(read_all(p), fuzz_parse_limits());
    if (!r.ok()) continue;
    for (const Step& s : r.program.steps) seen.set(static_cast<size_t>(s.op));
  }
  std::string missing;
  for (const OpInfo& info : op_table())
    if (t.ops.test(static_cast<size_t>(info.id)) && !seen.test(static_cast<size_t>(info.id)))
      missing += " " + std::string(info.name);
  EXPECT_EQ(missing, "") << "no seed of " << t.name << " uses these ops";
}

INSTANTIATE_TEST_SUITE_P(Targets, ProgramTargetCorpus,
                         ::testing::Values("views_fuzzer", "shrink_fuzzer", "cow_fuzzer",
                                           "fake_fuzzer"));

TEST(ParserCorpus, HoldsProgramsAndRejectedText) {
  int parsed = 0, rejected = 0;
  for (const fs::path& p : seeds_of("program_parser_fuzzer")) {
    std::string why;
    FuzzOutcome o = check_parser_roundtrip(read_all(p), &why);
    EXPECT_NE(o, FuzzOutcome::kFinding) << p << ": " << why;
    (o == FuzzOutcome::kPassed ? parsed : rejected)++;
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

/// The `op_NAME="NAME"` (or dtype_) entries of the dictionary.
std::set<std::string> dict_entries(const std::string& prefix) {
  std::ifstream f(fs::path(STORCHECK_SOURCE_DIR) / "harness/fuzz/storcheck.dict");
  std::set<std::string> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    size_t eq = line.find("=\"");
    std::string key = line.substr(prefix.size(), eq - prefix.size());
    std::string value = line.substr(eq + 2, line.size() - eq - 3);
    EXPECT_EQ(key, value) << line;
    out.insert(value);
  }
  return out;
}

TEST(Dictionary, NamesExactlyTheOpsOfTheTable) {
  std::set<std::string> table;
  for (const OpInfo& info : op_table()) table.insert(std::string(info.name));
  EXPECT_EQ(dict_entries("op_"), table);
}

TEST(Dictionary, NamesExactlyTheDtypes) {
  std::set<std::string> tokens;
  for (int d = 0; d < kNumDTypes; ++d)
    tokens.insert(std::string(dtype_token(static_cast<DTypeArg>(d))));
  EXPECT_EQ(dict_entries("dtype_"), tokens);
}

}  // namespace
}  // namespace storcheck
