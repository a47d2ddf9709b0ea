// `storcheck repro FILE`: runs a program on every available backend and
// prints the step-by-step trace and the first divergence.
#include <cstdio>
#include <iostream>

#include "harness/gate.h"
#include "harness/properties.h"
#include "impl/tensor.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

int run_repro(const ReproOptions& opt, std::ostream& out, std::ostream& err) {
  std::string ferr;
  if (!activate_fault(opt.plant_fault, &ferr)) {
    err << "storcheck repro: --plant-fault: " << ferr << "\n";
    return 2;
  }
  Program p;
  std::string e;
  if (!read_program_file(opt.path, opt.limits, &p, nullptr, &e)) {
    err << "storcheck repro: " << e << "\n";
    return 2;
  }
  BackendSet backends = BackendSet::make();
  std::vector<Backend*> list = backends.all();
  Runner runner(list, opt.limits);
  RunReport rep = runner.run(p, /*keep_trace=*/true);
  out << "storcheck repro " << opt.path << ": " << p.steps.size() << " steps on " << list.size()
      << " backends (";
  for (size_t b = 0; b < list.size(); ++b) out << (b ? ", " : "") << list[b]->name();
  out << ")\n";
  if (list.size() < 2)
    out << "note: only the reference backend is available (built without LibTorch); nothing "
           "to compare\n";
  for (const TraceLine& line : rep.trace) {
    const Step& s = p.steps[static_cast<size_t>(line.step - 1)];
    char head[32];
    std::snprintf(head, sizeof head, "%4lld  ", static_cast<long long>(line.step));
    out << head << print_step(p, s);
    if (line.skipped) {
      out << "    [skipped: an input is unbound]\n";
      continue;
    }
    out << "    [";
    for (size_t b = 0; b < line.errors.size(); ++b) {
      out << (b ? ", " : "") << list[b]->name() << ": "
          << (line.errors[b] == ErrorKind::kNone ? "ok" : std::string(error_kind_name(line.errors[b])));
    }
    out << "]\n";
    if (line.errors.size() > 0 && line.errors[0] != ErrorKind::kNone)
      out << "        " << line.messages[0] << "\n";
  }
  if (!rep.diverged) {
    out << "no divergence: " << rep.steps_run << " steps run, " << rep.steps_failed
        << " rejected alike by every backend\n";
    return 0;
  }
  const Divergence& d = rep.divergence;
  out << "DIVERGENCE at " << d.to_string(p) << "\n";
  if (d.mismatch.var != kNoVar && !rep.last.empty()) {
    for (size_t b = 0; b < rep.last.size(); ++b) {
      const VarObs& v = rep.last[b].vars[static_cast<size_t>(d.mismatch.var)];
      if (!v.live) continue;
      out << "  " << list[b]->name() << " " << p.var_names[d.mismatch.var] << ": sizes "
          << format_ints(IntSpan(v.sizes.data(), v.rank)) << " strides "
          << format_ints(IntSpan(v.strides.data(), v.rank)) << " offset " << v.offset << " "
          << dtype_name(v.dtype) << " values " << format_values(v) << "\n";
    }
  }
  return 1;
}

}  // namespace storcheck
