#include "harness/minimize.h"

#include <iostream>

#include "harness/gate.h"
#include "harness/properties.h"
#include "harness/shrink.h"
#include "program/text_format.h"

namespace storcheck {

Program minimize_failure(const Program& p, const Verdict& failure, Judge& judge) {
  return minimize_steps(p, [&](const Program& q) {
    Verdict v = judge.judge(q);
    return v.failed() && v.signature == failure.signature;
  });
}

int run_minimize(const MinimizeOptions& opt, std::ostream& out, std::ostream& err) {
  std::string e;
  if (!activate_fault(opt.plant_fault, &e)) {
    err << "storcheck minimize: --plant-fault: " << e << "\n";
    return 2;
  }
  Program p;
  std::string text;
  if (!read_program_file(opt.path, opt.limits, &p, &text, &e)) {
    err << "storcheck minimize: " << e << "\n";
    return 2;
  }
  Judge judge(opt.limits);
  Verdict v = judge.judge(p);
  if (!v.failed()) {
    err << "storcheck minimize " << opt.path << ": does not fail (no divergence, or a known one; "
        << "every invariant holds): nothing to minimize\n";
    return 0;
  }
  Program small = minimize_failure(p, v, judge);
  Verdict last = judge.judge(small);
  std::string body = print_program(small);
  std::string result = std::string(kProgramHeader) + "\n# what: " + last.what +
                       "\n# minimized: " + std::to_string(p.steps.size()) + " -> " +
                       std::to_string(small.steps.size()) + " steps, failure kept: " +
                       last.signature + "\n" + body.substr(kProgramHeader.size() + 1);
  err << "storcheck minimize " << opt.path << ": " << p.steps.size() << " -> "
      << small.steps.size() << " steps, same failure: " << last.signature << "\n";
  if (opt.out_path.empty()) {
    out << result;
    return 1;
  }
  size_t slash = opt.out_path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : slash == 0 ? "/" : opt.out_path.substr(0, slash);
  std::string name = slash == std::string::npos ? opt.out_path : opt.out_path.substr(slash + 1);
  if (write_file_atomic(dir, name, result, &e).empty()) {
    err << "storcheck minimize: " << e << "\n";
    return 2;
  }
  return 1;
}

}  // namespace storcheck
