#include "harness/fuzz/fuzz_target.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "harness/gate.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

namespace {

// The copy-on-write ops (SEMANTICS group C), by id: the other ops of their
// categories (kCompute, kFactory, kInplace) belong to every area.
OpSet cow_ops() {
  OpSet s;
  for (OpId op : {OpId::kLazyClone, OpId::kFromBlob, OpId::kMutableDataPtr})
    s.set(static_cast<int>(op));
  return s;
}

OpSet fake_ops() { return ops_in({OpCategory::kConvert}); }
OpSet views_area() {
  return strided_ops() & ~cow_ops() & ~fake_ops() & ~ops_in({OpCategory::kStorage});
}
OpSet shrink_area() { return strided_ops() & ~cow_ops() & ~fake_ops(); }
OpSet cow_area() { return strided_ops() & ~fake_ops(); }

}  // namespace

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> kTargets = {
      {"views_fuzzer",
       "factories, views, in-place writes and metadata changes, compute, drop (S1-S10)",
       views_area()},
      {"shrink_fuzzer", "the views area plus storage shrink, restore and resize (R1-R7)",
       shrink_area()},
      {"cow_fuzzer", "the shrink area plus lazy_clone, from_blob, mutable_data_ptr (C1-C8)",
       cow_area()},
      {"fake_fuzzer",
       "every op: the COW area plus meta and fake conversion, to_meta, fake_from_meta, sweep, "
       "memo_stats, every op on meta and fake tensors, and sparse variables: to_sparse_*, "
       "sparse_coo_tensor, sparse_{csr,csc,bsr,bsc}_tensor, to_dense, coalesce, the accessors "
       "and their conversions (F1-F9); "
       "not the device ops (cuda, cpu), which need a GPU",
       all_ops() & ~device_ops()},
      {"program_parser_fuzzer",
       "any bytes: parse, validate, print, parse again (program/README.md)", OpSet{}, false},
  };
  return kTargets;
}

const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const FuzzTarget& t : fuzz_targets())
    if (t.name == name) return &t;
  return nullptr;
}

Limits fuzz_parse_limits() {
  Limits l;
  l.max_input_bytes = 16 << 10;
  l.max_line_bytes = 256;
  l.max_steps = 64;
  l.max_vars = 64;
  l.max_tensor_bytes = 64 << 10;
  l.max_program_bytes = 1 << 20;
  return l;
}

FuzzHarness::FuzzHarness(const FuzzTarget& target)
    : target_(target), cache_(fuzz_parse_limits()), probe_(make_reference_backend()) {}

namespace {

/// How many results split/chunk/unbind step `s` would produce from `t`, as
/// LibTorch counts them; 0 for another op or an argument the op rejects.
int64_t split_results(const Step& s, const TensorImpl& t) {
  auto dim_size = [&](int64_t dim) -> int64_t {
    const int64_t rank = t.rank();
    if (rank == 0 || dim < -rank || dim >= rank) return -1;
    return t.size(static_cast<int>(dim < 0 ? dim + rank : dim));
  };
  switch (s.op) {
    case OpId::kChunk: {  // split by ceil(size / chunks)
      const int64_t size = dim_size(s.args[2].i), chunks = s.args[1].i;
      if (chunks <= 0 || size < 0) return 0;
      if (size == 0) return 1;
      const int64_t split_size = (size - 1) / chunks + 1;
      return (size - 1) / split_size + 1;
    }
    case OpId::kSplit: {
      const int64_t size = dim_size(s.args[2].i);
      if (s.args[1].i <= 0 || size < 0) return 0;
      return size == 0 ? 1 : (size - 1) / s.args[1].i + 1;
    }
    case OpId::kUnbind: return std::max<int64_t>(dim_size(s.args[1].i), 0);
    default: return 0;
  }
}

}  // namespace

// Note [What a fuzz input is] 4). Steps are skipped and variables bound as
// the Runner does (oracles/runner.cpp), by the reference's outcome.
std::string FuzzHarness::oversized_split(const Program& p) {
  std::string why;
  auto splits = [](const Step& s) {
    return s.op == OpId::kSplit || s.op == OpId::kChunk || s.op == OpId::kUnbind;
  };
  // Only the steps up to the last split, chunk or unbind matter; none: no run.
  auto last = std::find_if(p.steps.rbegin(), p.steps.rend(), splits);
  if (last == p.steps.rend()) return why;
  const size_t end = p.steps.size() - static_cast<size_t>(last - p.steps.rbegin());
  probe_->begin(p, Limits{});
  std::vector<char> bound(static_cast<size_t>(p.num_vars()), 0);
  for (size_t k = 0; k < end && why.empty(); ++k) {
    const Step& s = p.steps[k];
    if (reads_unbound(s, bound)) continue;
    if (splits(s)) {
      const Tensor* t = probe_->reference_tensor(s.args[0].var);
      const int64_t n = t && *t ? split_results(s, **t) : 0;
      if (n > kFuzzMaxSplitResults) {
        why = "step " + std::to_string(k + 1) + " (" + std::string(s.info().name) +
              ") would produce " + std::to_string(n) + " results, more than the fuzz limit of " +
              std::to_string(kFuzzMaxSplitResults);
        break;
      }
    }
    const bool failed = probe_->run_step(s).kind != ErrorKind::kNone;
    if (s.out != kNoVar) bound[s.out] = failed ? 0 : 1;
    if (s.op == OpId::kDrop) bound[s.args[0].var] = 0;
  }
  // Free the run's tensors now: libFuzzer's leak check counts mallocs and
  // frees per input (see Judge::judge).
  static const Program kEmpty;
  probe_->begin(kEmpty, Limits{});
  return why;
}

FuzzResult FuzzHarness::run(std::string_view text) {
  FuzzResult r;
  if (const Program* cached = cache_.find(text)) {  // Note [Parsed inputs]
    r.program = *cached;
  } else {
    ParseResult parsed = parse_program(text, cache_.limits());
    if (!parsed.ok()) {
      r.reject_reason = parsed.error.to_string();
      return r;
    }
    r.program = std::move(parsed.program);
  }
  for (const Step& s : r.program.steps) {
    if (!target_.ops.test(static_cast<size_t>(s.op))) {
      r.reject_reason = "op '" + std::string(s.info().name) + "' is outside " +
                        std::string(target_.name) + "'s area";
      return r;
    }
    if (s.device != DeviceArg::kHome) {  // as the device ops: a GPU run's
      r.reject_reason = "a factory's device argument is outside " + std::string(target_.name) +
                        "'s area";
      return r;
    }
  }
  if (std::string why = oversized_split(r.program); !why.empty()) {
    r.reject_reason = std::move(why);
    return r;
  }
  r.verdict = judge_.judge(r.program);
  r.outcome = r.verdict.failed() ? FuzzOutcome::kFinding : FuzzOutcome::kPassed;
  return r;
}

std::string finding_report(const FuzzTarget& target, const FuzzResult& r,
                           const std::string& plant_fault) {
  std::ostringstream o;
  o << "==storcheck== " << target.name << " finding: " << r.verdict.signature << "\n"
    << "==storcheck== " << r.verdict.what << "\n";
  if (!plant_fault.empty()) o << "==storcheck== planted fault: " << plant_fault << "\n";
  std::string text = print_program(r.program);
  print_repro_report(r.program, text, "<fuzz input>", false, Limits{}, o);
  o << "==storcheck== program:\n" << text;
  o << "==storcheck== replay: save the program and run `storcheck repro FILE"
    << (plant_fault.empty() ? "" : " --plant-fault " + plant_fault)
    << "`, or `storcheck minimize FILE -o SMALL` first\n";
  return o.str();
}

}  // namespace storcheck
