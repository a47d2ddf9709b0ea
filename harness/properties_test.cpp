// What the properties' configs draw (harness/properties.cpp), where a
// property's coverage depends on it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "generators/program_gen.h"
#include "harness/properties.h"

namespace storcheck {
namespace {

const Property& property(std::string_view name) {
  for (const Property& p : properties())
    if (p.name == name) return p;
  ADD_FAILURE() << "no property " << name;
  return properties().front();
}

// Note [Fake twin] (oracles/fake_twin_backend.cpp): the cross-ref compares
// sparse twins too, so a quarter of its programs are sparse, with the
// accessors, to_dense and coalesce, and none converts (its twins are not
// meant to agree on conversions).
TEST(Properties, CrossrefDrawsSparseProgramsWithoutConversions) {
  for (std::string_view name : {"fake.crossref_matches_eager", "fake.fallback_rules"}) {
    SCOPED_TRACE(std::string(name));
    const Property& prop = property(name);
    rc::Gen<Program> gen = gen_program(prop.config);
    rc::Random root(11);
    const int n = 800;
    int sparse = 0;
    std::set<OpId> seen;
    for (int i = 0; i < n; ++i) {
      rc::Random r = root.split();
      const Program p = gen(r, i % 101).value();
      bool has_sparse = false;
      for (const Step& s : p.steps) {
        EXPECT_NE(s.info().category, OpCategory::kConvert) << s.info().name;
        EXPECT_NE(s.info().category, OpCategory::kStorage) << s.info().name;
        has_sparse |= s.info().category == OpCategory::kSparse;
        seen.insert(s.op);
      }
      sparse += has_sparse;
    }
    EXPECT_GT(sparse, n * 15 / 100);
    EXPECT_LT(sparse, n * 35 / 100);
    for (OpId op : {OpId::kToSparseCoo, OpId::kToSparseCsc, OpId::kToSparseBsr,
                    OpId::kSparseCooTensor, OpId::kToDense, OpId::kCoalesce, OpId::kValues,
                    OpId::kCrowIndices, OpId::kDrop})
      EXPECT_TRUE(seen.count(op)) << op_info(op).name;
  }
}

}  // namespace
}  // namespace storcheck
