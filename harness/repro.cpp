// `storcheck repro FILE`: runs a program on every available backend and
// prints the step-by-step trace and the first divergence.
#include <cstdio>
#include <iostream>

#include "harness/emit.h"
#include "harness/gate.h"
#include "harness/invariants.h"
#include "harness/properties.h"
#include "impl/tensor.h"
#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

std::string header_value(const std::string& text, const std::string& key) {
  const std::string line = "# " + key + ":";
  size_t at = text.find("\n" + line);
  if (text.rfind(line, 0) == 0) at = 0;
  if (at == std::string::npos) return "";
  size_t b = text.find(':', at) + 1;
  size_t end = text.find('\n', b);
  std::string id = text.substr(b, end == std::string::npos ? end : end - b);
  id.erase(0, id.find_first_not_of(" \t"));
  while (!id.empty() && (id.back() == ' ' || id.back() == '\r')) id.pop_back();
  return id;
}

std::string known_id_of(const std::string& text) { return header_value(text, "known"); }

namespace {
int report(const ReproOptions& opt, std::ostream& out, std::ostream& err);
}  // namespace

// With --emit, the standalone scripts follow the report (issue 9).
int run_repro(const ReproOptions& opt, std::ostream& out, std::ostream& err) {
  int rc = report(opt, out, err);
  if (!opt.emit || rc == 2) return rc;
  for (EmitLang lang : {EmitLang::kPython, EmitLang::kCpp}) {
    std::string script, e;
    if (emit_file(lang, opt.path, opt.limits, &script, &e) != 0) {
      err << "storcheck repro: " << e << "\n";
      return 2;
    }
    out << "\n===== " << (lang == EmitLang::kPython ? "PyTorch (Python)" : "LibTorch (C++)")
        << " reproducer: storcheck emit " << (lang == EmitLang::kPython ? "--python " : "--cpp ")
        << opt.path << " =====\n"
        << script;
  }
  return rc;
}

namespace {
int report(const ReproOptions& opt, std::ostream& out, std::ostream& err) {
  std::string ferr;
  if (!activate_fault(opt.plant_fault, &ferr)) {
    err << "storcheck repro: --plant-fault: " << ferr << "\n";
    return 2;
  }
  Program p;
  std::string e, text;
  if (!read_program_file(opt.path, opt.limits, &p, &text, &e)) {
    err << "storcheck repro: " << e << "\n";
    return 2;
  }
  return print_repro_report(p, text, opt.path, opt.eager_unsafe, opt.limits, out);
}
}  // namespace

int print_repro_report(const Program& p, const std::string& text, const std::string& label,
                       bool eager_unsafe, const Limits& limits, std::ostream& out) {
  BackendSet backends = BackendSet::make(eager_unsafe);
  std::vector<Backend*> list = backends.all();
  // A finding of a pytorch.* property replays on the PyTorch backend too.
  std::string py_why;
  if (text.find("\n# property: pytorch.") != std::string::npos) {
    backends.pytorch = make_python_backend(&py_why);
    if (backends.pytorch) list.push_back(backends.pytorch.get());
  }
  // A finding of a device property replays on that property's backends
  // (harness/properties.cpp), where LibTorch has a usable CUDA device.
  std::string cuda_why;
  std::unique_ptr<Backend> cuda, home_cuda_reference;
  const Property* prop = find_property(header_value(text, "property"));
  if (prop && prop->needs_cuda()) {
    cuda = make_torch_cuda_backend(prop->versus == Versus::kReferenceVsCudaMemory, &cuda_why);
    if (cuda && prop->versus == Versus::kCpuVsCuda) {
      list = {backends.torch_cpu.get(), cuda.get()};
    } else if (cuda) {
      home_cuda_reference = make_reference_backend(DeviceType::kCuda);
      list = {home_cuda_reference.get(), cuda.get()};
    }
  }
  Runner runner(list, limits);
  RunReport rep = runner.run(p, /*keep_trace=*/true);
  out << "storcheck repro " << label << ": " << p.steps.size() << " steps on " << list.size()
      << " backends (";
  for (size_t b = 0; b < list.size(); ++b) out << (b ? ", " : "") << list[b]->name();
  out << ")\n";
  for (Backend* b : list)
    if (!b->capabilities().skipped_note.empty())
      out << "note: " << b->name() << ": " << b->capabilities().skipped_note << "\n";
  if (!py_why.empty())
    out << "note: the file is a pytorch.* finding, but the PyTorch backend is absent: " << py_why
        << "\n";
  if (!cuda_why.empty())
    out << "note: the file is a " << prop->name << " finding, but the LibTorch CUDA backend is "
        << "absent: " << cuda_why << "\n";
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
    if (!line.note.empty()) out << "        " << line.note << "\n";
  }
  // A `# known: ID` header names an expected divergence (oracles/known_divergences.h).
  std::string known_id = known_id_of(text);
  const KnownDivergence* declared = known_id.empty() ? nullptr : find_known_divergence(known_id);
  // A `pytorch-*` entry is seen by the PyTorch backend only.
  bool declared_applies = declared && list.size() > 1 && declared->applies_to(torch_version()) &&
                          (!is_pytorch_entry(*declared) || backends.pytorch);
  if (!rep.refusal.empty())
    out << "not comparable from " << rep.refusal << " (Note [Step outcome rules] rule 5)\n";
  if (!rep.diverged) {
    // The reference against SEMANTICS itself: every invariant after every step.
    Runner alone({list[0]}, limits);
    RunReport inv = alone.run(p, false, make_all_invariants_hook(list[0]));
    if (inv.diverged) {
      out << "INVARIANT BROKEN at " << inv.divergence.to_string(p) << "\n";
      return 1;
    }
    // F6/F7: the same program on fake twins (cross-ref programs only: no
    // storage or conversion steps, Note [Fake twin]).
    bool crossref = true;
    for (const Step& s : p.steps)
      crossref &= s.info().category != OpCategory::kStorage &&
                  s.info().category != OpCategory::kConvert &&
                  s.info().category != OpCategory::kDevice && s.op != OpId::kFromBlob;
    if (crossref) {
      std::unique_ptr<Backend> twin = make_fake_twin_backend(/*check_fallback=*/true);
      Runner fake({list[0], twin.get()}, limits);
      RunReport fr = fake.run(p);
      if (fr.diverged) {
        out << (fr.divergence.mismatch.field == "invariant" ? "INVARIANT BROKEN at "
                                                            : "DIVERGENCE at ")
            << fr.divergence.to_string(p) << "\n";
        return 1;
      }
    }
    out << "no divergence: " << rep.steps_run << " steps run, " << rep.steps_failed
        << " rejected alike by every backend; every SEMANTICS invariant holds on the reference"
        << (crossref ? ", and on fake twins (F6, F7)" : "") << "\n";
    if (declared_applies) {
      out << "known divergence " << known_id << " no longer reproduces on LibTorch "
          << torch_version() << ": update oracles/known_divergences.cpp\n";
      return 1;
    }
    return 0;
  }
  const Divergence& d = rep.divergence;
  out << "DIVERGENCE at " << d.to_string(p) << "\n";
  std::string_view op = op_info(p.steps[static_cast<size_t>(d.step - 1)].op).name;
  // LibTorch on two devices has no known divergence (harness/properties.cpp).
  const bool two_devices = list[0] == backends.torch_cpu.get() && list.size() == 2 && cuda;
  const KnownDivergence* matched =
      two_devices
          ? nullptr
          : match_known_divergence(op, d.mismatch, torch_version(), backends.pytorch != nullptr);
  // The declared entry must be the one the divergence matches: a file that
  // diverges in another way (another step, field or failure) is a finding.
  if (declared_applies && matched != declared) {
    out << "not the declared known divergence " << declared->id << ": "
        << (matched ? "it matches " + std::string(matched->id) : std::string("it matches no entry"))
        << " (oracles/known_divergences.cpp)\n";
  } else if (matched) {
    out << "expected: known divergence " << matched->id << " on LibTorch " << torch_version()
        << ": " << matched->reason << "\n";
    return 0;
  }
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
