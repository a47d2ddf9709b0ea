// Tests of the reference-only invariant hooks (harness/invariants.h) on
// planted observations: a hook must report the SEMANTICS rule a backend's
// observations break, naming the variable.
#include "harness/invariants.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// The reference, with one field of one variable's observation changed
/// after a chosen step: what a materialization that moved metadata would
/// look like to the hooks.
class PlantedObservation final : public Backend {
 public:
  using Plant = std::function<void(VarObs*)>;
  PlantedObservation(size_t after_step, VarId var, Plant plant)
      : inner_(make_reference_backend()),
        after_step_(after_step),
        var_(var),
        plant_(std::move(plant)) {}
  std::string_view name() const override { return "reference_planted_observation"; }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  void begin(const Program& p, const Limits& l) override {
    steps_ = 0;
    inner_->begin(p, l);
  }
  Error run_step(const Step& s) override {
    ++steps_;
    return inner_->run_step(s);
  }
  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    inner_->observe(obs, scope);
    if (steps_ == after_step_ && static_cast<size_t>(var_) < obs->vars.size())
      plant_(&obs->vars[static_cast<size_t>(var_)]);
  }
  bool take_refusal(std::string* why) override { return inner_->take_refusal(why); }
  const Tensor* reference_tensor(VarId v) const override { return inner_->reference_tensor(v); }

 private:
  std::unique_ptr<Backend> inner_;
  size_t after_step_;
  size_t steps_ = 0;
  VarId var_;
  Plant plant_;
};

/// t2 is a view of the lazy clone t1; `add_ t2 1` (step 4) materializes
/// t1's block for both (C3).
constexpr const char* kViewWrite =
    "t0 = arange [4,4] f32\n"
    "t1 = lazy_clone t0\n"
    "t2 = slice t1 0 1 3 1\n"
    "add_ t2 1\n";

std::string hook_finding(Backend* b, Invariant inv) {
  ParseResult parsed = parse_program(kViewWrite);
  EXPECT_TRUE(parsed.ok()) << parsed.error.to_string();
  Runner runner({b}, Limits{});
  RunReport r = runner.run(parsed.program, false, make_invariant_hook(inv));
  if (!r.diverged) return "";
  EXPECT_EQ(r.divergence.mismatch.field, "invariant");
  return r.divergence.mismatch.a;
}

TEST(Invariants, ViewsMaterializeOnceHoldsOnTheReference) {
  std::unique_ptr<Backend> ref = make_reference_backend();
  EXPECT_EQ(hook_finding(ref.get(), Invariant::kViewsMaterializeOnce), "");
}

// C5: materialization never changes nbytes: a view whose storage reports
// other bytes after the write is named, with the rule.
TEST(Invariants, ViewsMaterializeOnceCatchesChangedNbytes) {
  PlantedObservation b(4, 1, [](VarObs* v) { v->storage_nbytes += 4; });
  EXPECT_EQ(hook_finding(&b, Invariant::kViewsMaterializeOnce),
            "C5: materialization changed the metadata of t1");
}

// C5: ... nor sizes and strides.
TEST(Invariants, ViewsMaterializeOnceCatchesChangedStrides) {
  PlantedObservation b(4, 2, [](VarObs* v) { v->strides[0] += 1; });
  EXPECT_EQ(hook_finding(&b, Invariant::kViewsMaterializeOnce),
            "C5: materialization changed the metadata of t2");
}

// C3: every view of the written block sees the materialized storage.
TEST(Invariants, ViewsMaterializeOnceCatchesAViewLeftOnTheOldBlock) {
  PlantedObservation b(4, 1, [](VarObs* v) { v->data_class = 0; });
  EXPECT_EQ(hook_finding(&b, Invariant::kViewsMaterializeOnce),
            "C3: t1 does not see the materialized storage of t2");
}

}  // namespace
}  // namespace storcheck
