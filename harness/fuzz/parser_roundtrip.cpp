#include "harness/fuzz/parser_roundtrip.h"

#include "program/ir.h"
#include "program/limits.h"
#include "program/text_format.h"

namespace storcheck {

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

}  // namespace storcheck
