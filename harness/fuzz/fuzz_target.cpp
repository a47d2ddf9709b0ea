#include "harness/fuzz/fuzz_target.h"

#include <sstream>

#include "harness/gate.h"
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
       "sparse_coo_tensor, to_dense, coalesce, the accessors and their conversions (F1-F9)",
       all_ops()},
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

FuzzHarness::FuzzHarness(const FuzzTarget& target) : target_(target) {}

FuzzResult FuzzHarness::run(std::string_view text) {
  FuzzResult r;
  ParseResult parsed = parse_program(text, fuzz_parse_limits());
  if (!parsed.ok()) {
    r.reject_reason = parsed.error.to_string();
    return r;
  }
  for (const Step& s : parsed.program.steps) {
    if (!target_.ops.test(static_cast<size_t>(s.op))) {
      r.reject_reason = "op '" + std::string(s.info().name) + "' is outside " +
                        std::string(target_.name) + "'s area";
      return r;
    }
  }
  r.program = std::move(parsed.program);
  r.verdict = judge_.judge(r.program);
  r.outcome = r.verdict.failed() ? FuzzOutcome::kFinding : FuzzOutcome::kPassed;
  return r;
}

FuzzOutcome check_parser_roundtrip(std::string_view bytes, std::string* why) {
  ParseResult first = parse_program(bytes);
  if (!first.ok()) return FuzzOutcome::kRejected;
  bool valid = false;
  ParseError e = validate_program(first.program, Limits{}, &valid);
  if (!valid) {
    *why = "parsed program does not validate: " + e.to_string();
    return FuzzOutcome::kFinding;
  }
  std::string printed = print_program(first.program);
  ParseResult second = parse_program(printed);
  if (!second.ok()) {
    *why = "printed program does not parse: " + second.error.to_string() + "\nprinted:\n" + printed;
    return FuzzOutcome::kFinding;
  }
  if (!(second.program == first.program)) {
    *why = "parse(print(p)) != p\nprinted:\n" + printed;
    return FuzzOutcome::kFinding;
  }
  if (print_program(second.program) != printed) {
    *why = "print(parse(print(p))) != print(p)\nprinted:\n" + printed;
    return FuzzOutcome::kFinding;
  }
  return FuzzOutcome::kPassed;
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
