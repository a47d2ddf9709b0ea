#include "harness/gate.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/isolate.h"
#include "harness/properties.h"
#include "impl/fault.h"
#include "oracles/known_divergences.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

bool activate_fault(const std::string& name, std::string* error) {
  if (name.empty()) return true;
  Fault f;
  if (!parse_fault(name, &f)) {
    *error = "unknown fault '" + name + "' (known:";
    for (Fault k : kAllFaults)
      if (k != Fault::kNone) *error += " " + std::string(fault_name(k));
    *error += ")";
    return false;
  }
  if (!fault_injection_available()) {
    *error = "this build has no fault injection (configure with -DSTORCHECK_FAULT_INJECTION=ON)";
    return false;
  }
  set_active_fault(f);
  return true;
}

namespace {

/// The `# known:` and `# property:` header lines name an entry of
/// oracles/known_divergences.cpp and a property: an unknown name, an empty
/// one or a second line of either is an error naming the line and the value
/// (a typo would silently drop the expected divergence, or a device
/// finding's replay on its own backends).
bool check_header_names(const std::string& text, std::string* error) {
  int known_line = 0, property_line = 0;
  int line = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string_view l(text.data() + at, end - at);
    at = end + 1;
    const bool known = l.rfind("# known:", 0) == 0, property = l.rfind("# property:", 0) == 0;
    if (!known && !property) continue;
    std::string value(l.substr(l.find(':') + 1));
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
      value.pop_back();
    const char* key = known ? "# known:" : "# property:";
    int& first = known ? known_line : property_line;
    if (first) {
      *error = std::to_string(line) + ": a second '" + key + "' header (line " +
               std::to_string(first) + " has one)";
      return false;
    }
    first = line;
    const bool found =
        known ? find_known_divergence(value) != nullptr : find_property(value) != nullptr;
    if (!found) {
      *error = std::to_string(line) + ": '" + key + " " + value + "' names no " +
               (known ? "known divergence (oracles/known_divergences.cpp)"
                      : "property (storcheck list)");
      return false;
    }
  }
  return true;
}

}  // namespace

bool read_program_file(const std::string& path, const Limits& limits, Program* program,
                       std::string* text, std::string* error) {
  // Opened without blocking, so a FIFO with no writer reads as empty instead
  // of hanging (a gate over a corpus folder must finish); fstat on the open
  // file, so what is checked is what is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *error = path + ": cannot stat: " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = path + ": is a directory, expected a program file";
    ::close(fd);
    return false;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a pipe's writer may be slow
  std::string buf(static_cast<size_t>(limits.max_input_bytes) + 1, '\0');
  size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd, &buf[got], buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = path + ": cannot read: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  buf.resize(got);
  if (static_cast<int64_t>(buf.size()) > limits.max_input_bytes) {
    *error = path + ": file is larger than max_input_bytes " +
             std::to_string(limits.max_input_bytes);
    return false;
  }
  ParseResult r = parse_program(buf, limits);
  if (!r.ok()) {
    *error = path + ":" + (r.error.line > 0 ? std::to_string(r.error.line) + ":" : "") + " " +
             r.error.message;
    return false;
  }
  std::string header_error;
  if (!check_header_names(buf, &header_error)) {
    *error = path + ":" + header_error;
    return false;
  }
  *program = std::move(r.program);
  if (text) *text = std::move(buf);
  return true;
}

namespace {

std::vector<std::string> list_programs(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return files;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 3 && n.substr(n.size() - 3) == ".sc") files.push_back(dir + "/" + n);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += '?';
        else o += c;
    }
  }
  return o;
}

struct CaseRow {
  std::string name;
  std::string status;  // pass, FAIL, skip, xfail, XPASS
  int64_t programs = 0, steps = 0;
  double seconds = 0;
  std::string detail;
};

char fmt_buf[256];
const char* fmt_row(const CaseRow& r) {
  double rate = r.seconds > 0 ? static_cast<double>(r.programs) / r.seconds : 0;
  std::snprintf(fmt_buf, sizeof fmt_buf, "%-44s %-6s %9lld %10lld %8.2f %12.0f", r.name.c_str(),
                r.status.c_str(), static_cast<long long>(r.programs),
                static_cast<long long>(r.steps), r.seconds, rate);
  return fmt_buf;
}

}  // namespace

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

namespace {

bool write_findings_json(const std::string& path, const std::vector<Finding>& findings,
                         std::ostream& err) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string e;
  if (name.empty() || write_file_atomic(dir, name, findings_to_json(findings), &e).empty()) {
    err << "storcheck: --findings-json: " << (name.empty() ? "'" + path + "' names no file" : e)
        << "\n";
    return false;
  }
  return true;
}

/// The steps per program r's property drew (Finding::steps): `--steps`, else its own.
int drawn_steps(const CheckResult& r) {
  if (r.program_steps > 0) return r.program_steps;
  const Property* p = find_property(r.property);
  return p ? p->config.max_steps : 0;
}

Finding failure_finding(const CheckResult& r) {
  Finding f;
  f.name = r.property;
  f.status = "fail";
  f.seed = r.seed;
  f.program = r.failing_program;
  f.steps = drawn_steps(r);
  f.divergence = r.failure_text;
  f.reproducer = r.reproducer_path;
  f.scripts = r.emitted_paths;
  f.program_text = print_program(r.counterexample);
  return f;
}

uint64_t property_seed(uint64_t seed, std::string_view name) {
  uint64_t h = seed ^ 0x9E3779B97F4A7C15ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::string findings_to_json(const std::vector<Finding>& findings) {
  std::string o = "[";
  for (size_t k = 0; k < findings.size(); ++k) {
    const Finding& f = findings[k];
    o += k ? ",\n " : "\n ";
    o += "{\"name\": " + json_string(f.name) + ", \"status\": " + json_string(f.status) +
         ", \"seed\": " + std::to_string(f.seed) + ", \"program\": " + std::to_string(f.program) +
         ", \"steps\": " + std::to_string(f.steps) +
         ", \"divergence\": " + json_string(f.divergence) +
         ", \"reproducer\": " + json_string(f.reproducer) + ", \"scripts\": [";
    for (size_t s = 0; s < f.scripts.size(); ++s) o += (s ? ", " : "") + json_string(f.scripts[s]);
    o += "], \"program_text\": " + json_string(f.program_text) + "}";
  }
  return o + (findings.empty() ? "]\n" : "\n]\n");
}

int run_gate(const GateOptions& opt, std::ostream& out, std::ostream& err) {
  std::string ferr;
  if (!activate_fault(opt.plant_fault, &ferr)) {
    err << "storcheck gate: --plant-fault: " << ferr << "\n";
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  std::vector<CaseRow> rows;
  bool failed = false;
  BackendSet main_backends = BackendSet::make(opt.eager_unsafe);
  out << "storcheck gate: seed " << opt.seed << ", budget " << opt.budget_seconds << " s, "
      << (opt.steps > 0 ? std::to_string(opt.steps) + "-step programs, " : std::string())
      << main_backends.all().size() << " backends (reference"
      << (main_backends.torch_cpu ? ", torch_cpu " + torch_version() : "") << ")"
      << (opt.plant_fault.empty() ? "" : ", planted fault " + opt.plant_fault) << "\n";
  for (Backend* b : main_backends.all())
    if (!b->capabilities().skipped_note.empty())
      out << "note: " << b->name() << ": " << b->capabilities().skipped_note << "\n";

  // 0) Programs a previous run died on (Note [Write-ahead]).
  for (const std::string& path : rescue_inflight(opt.findings_dir))
    out << "warning: a previous run died while checking the program saved in " << path
        << " (replay: storcheck repro " << path << ")\n";

  // 1) Replay every regression file.
  std::vector<Finding> regression_findings;
  std::string reg_dir = opt.corpus_dir + "/regressions";
  std::vector<std::string> files = list_programs(reg_dir);
  {
    Runner runner(main_backends.all(), opt.limits);
    for (const std::string& path : files) {
      CaseRow row;
      row.name = "regression/" + path.substr(reg_dir.size() + 1);
      Program p;
      std::string text, e;
      auto s0 = std::chrono::steady_clock::now();
      if (!read_program_file(path, opt.limits, &p, &text, &e)) {
        err << "storcheck gate: " << e << "\n";
        return 2;
      }
      // The verdict as "STATUS\x1fSTEPS\x1fDIVERGENCE\x1fDETAIL" (a child's
      // result under --isolate).
      auto replay = [&]() -> std::string {
        RunReport rep = runner.run(p);
        std::string known = header_value(text, "known");
        const KnownDivergence* kd = known.empty() ? nullptr : find_known_divergence(known);
        // A `pytorch-*` entry is the PyTorch backend's, which this replay
        // does not run: its file must agree here (storcheck repro checks it).
        bool expected = kd && main_backends.torch_cpu && kd->applies_to(torch_version()) &&
                        !is_pytorch_entry(*kd);
        std::string status = "pass", detail;
        std::string divergence = rep.diverged ? rep.divergence.to_string(p) : "";
        // The divergence must be the declared one (storcheck repro says the same).
        const bool matches =
            rep.diverged && expected &&
            match_known_divergence(
                op_info(p.steps[static_cast<size_t>(rep.divergence.step - 1)].op).name,
                rep.divergence.mismatch, torch_version()) == kd;
        if (matches) {
          status = "xfail";
          detail = "known divergence " + known + ": " + std::string(kd->reason);
        } else if (rep.diverged) {
          if (expected) divergence += " (not the declared known divergence " + known + ")";
          status = "FAIL";
          detail = divergence + "\n  reproduce: storcheck repro " + path;
        } else if (expected) {
          status = "XPASS";
          detail = "known divergence " + known +
                   " no longer reproduces: update oracles/known_divergences.cpp";
          divergence = detail;
        }
        return status + '\x1f' + std::to_string(rep.steps_run) + '\x1f' + divergence + '\x1f' +
               detail;
      };
      std::string verdict;
      if (opt.isolate) {
        ChildOutcome c = run_in_child(replay);
        verdict = c.finished ? c.text
                             : std::string("CRASH\x1f") + "0\x1f" + "the child replaying it " + c.how +
                                   "\x1fthe child replaying it " + c.how +
                                   " (replay: storcheck repro " + path + ")";
      } else {
        verdict = replay();
      }
      std::vector<std::string> parts;
      for (size_t at = 0;;) {
        size_t sep = verdict.find('\x1f', at);
        parts.push_back(verdict.substr(at, sep == std::string::npos ? sep : sep - at));
        if (sep == std::string::npos) break;
        at = sep + 1;
      }
      parts.resize(4);
      row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
      row.programs = 1;
      row.status = parts[0];
      row.steps = std::atoll(parts[1].c_str());
      row.detail = parts[3];
      if (row.status != "pass" && row.status != "xfail") {
        failed = true;
        Finding f;
        f.name = row.name;
        f.status = row.status == "FAIL" ? "fail" : row.status == "XPASS" ? "xpass" : "crash";
        f.divergence = parts[2];
        f.reproducer = path;
        f.program_text = text;
        regression_findings.push_back(f);
      }
      rows.push_back(row);
    }
  }

  // 2) Every property, fixed seeds, on `jobs` worker threads.
  // The pytorch.* properties need the PyTorch backend: opt-in (--backends pytorch).
  std::vector<Property> props;
  for (const Property& p : properties())
    if (!p.needs_pytorch() || opt.pytorch) props.push_back(p);
  std::vector<CheckResult> results(props.size());
  std::atomic<size_t> next{0};
  int jobs = opt.eager_unsafe ? 1 : std::max(1, opt.jobs);  // fork needs one thread
  double per_prop_budget = opt.budget_seconds > 0
                               ? opt.budget_seconds * jobs / static_cast<double>(props.size())
                               : 0;
  auto options = [&](const Property& p) {
    CheckOptions co;
    co.seed = property_seed(opt.seed, p.name);
    co.programs = opt.programs > 0 ? opt.programs : kDefaultGatePrograms;
    co.budget_seconds = per_prop_budget;
    co.shrink = opt.shrink;
    co.findings_dir = opt.findings_dir;
    co.program_timeout = opt.program_timeout;
    co.steps = opt.steps;
    co.limits = opt.limits;
    return co;
  };
  if (opt.isolate) {
    results = check_isolated(props, options, jobs, opt.eager_unsafe);
  } else {
    std::mutex internal_mutex;
    auto worker = [&] {
      BackendSet backends = BackendSet::make(opt.eager_unsafe);
      for (size_t i; (i = next++) < props.size();) {
        try {
          results[i] = check_property(props[i], options(props[i]), backends);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(internal_mutex);
          results[i].property = std::string(props[i].name);
          results[i].passed = false;
          results[i].abnormal = "internal";
          results[i].failure_text = std::string("internal error: ") + e.what();
        }
      }
    };
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
  }
  bool internal = false;
  std::vector<const CheckResult*> failures;
  std::vector<Finding> findings = regression_findings;
  for (const CheckResult& r : results) {
    CaseRow row;
    row.name = r.property;
    row.programs = r.programs;
    row.steps = r.steps;
    row.seconds = r.seconds;
    if (!r.abnormal.empty()) {
      row.status = r.abnormal == "crash" ? "CRASH" : r.abnormal == "timeout" ? "TIMEOUT" : "ERROR";
      row.detail = r.failure_text;
      if (!r.reproducer_path.empty())
        row.detail += "; the program is saved in " + r.reproducer_path +
                      " (replay: storcheck repro " + r.reproducer_path + ")";
      failed = true;
      internal = internal || r.abnormal == "internal";
      Finding f;
      f.name = r.property;
      f.status = r.abnormal;
      f.seed = property_seed(opt.seed, r.property);
      f.steps = drawn_steps(r);
      f.divergence = r.failure_text;
      f.reproducer = r.reproducer_path;
      findings.push_back(f);
    } else if (r.skipped) {
      row.status = "skip";
      row.detail = r.skip_reason;
    } else if (!r.passed) {
      row.status = "FAIL";
      failed = true;
      failures.push_back(&r);
      row.detail = r.failure_text;
      findings.push_back(failure_finding(r));
    } else {
      row.status = r.budget_exhausted ? "pass*" : "pass";
      if (r.budget_exhausted)
        row.detail = "time budget reached after " + std::to_string(r.programs) + " programs";
      if (r.refused > 0)
        row.detail += std::string(row.detail.empty() ? "" : "; ") + std::to_string(r.refused) +
                      " programs met a refused step (checked on past it), e.g. " + r.first_refusal;
      if (r.known > 0)
        row.detail += std::string(row.detail.empty() ? "" : "; ") + std::to_string(r.known) +
                      " programs hit known divergences (expected failures, see "
                      "oracles/known_divergences.cpp; checked on past them)";
    }
    rows.push_back(row);
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // 3) Report.
  out << "\n" << "property                                     result  programs      steps  seconds   programs/s\n";
  int64_t all_programs = 0, all_steps = 0;
  for (const CaseRow& r : rows) {
    out << fmt_row(r) << "\n";
    if (!r.detail.empty()) out << "    " << r.detail << "\n";
    all_programs += r.programs;
    all_steps += r.steps;
  }
  char line[200];
  std::snprintf(line, sizeof line,
                "\ntotal: %lld programs, %lld steps checked in %.1f s (%.0f programs/s, %.0f "
                "steps/s, %d jobs)\n",
                static_cast<long long>(all_programs), static_cast<long long>(all_steps), total,
                total > 0 ? all_programs / total : 0.0, total > 0 ? all_steps / total : 0.0, jobs);
  out << line;
  for (const CheckResult* r : failures) {
    out << "\nFAILED " << r->property << " (seed " << r->seed << ", program " << r->failing_program
        << steps_note(r->program_steps) << "), shrunk to " << r->counterexample.steps.size()
        << " steps:\n";
    out << print_program(r->counterexample);
    out << "divergence: " << r->failure_text << "\n";
    if (!r->reproducer_path.empty())
      out << "reproduce: storcheck repro " << r->reproducer_path
          << (opt.plant_fault.empty() ? "" : " --plant-fault " + opt.plant_fault) << "\n";
    for (const std::string& s : r->emitted_paths) out << "upstream script: " << s << "\n";
  }
  out << (failed ? "gate: FAILED\n" : "gate: passed\n");

  if (!opt.junit_path.empty()) {
    std::ostringstream x;
    // JUnit's time is xs:decimal: fixed notation, never 6e-05.
    x << std::fixed << std::setprecision(6);
    int nfail = 0, nskip = 0, nerror = 0;
    for (const CaseRow& r : rows) {
      nfail += r.status == "FAIL" || r.status == "XPASS";
      nskip += r.status == "skip";
      nerror += r.status == "CRASH" || r.status == "TIMEOUT" || r.status == "ERROR";
    }
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"storcheck."
         "gate\" tests=\""
      << rows.size() << "\" failures=\"" << nfail << "\" errors=\"" << nerror << "\" skipped=\""
      << nskip << "\" time=\"" << total << "\">\n";
    for (const CaseRow& r : rows) {
      x << "  <testcase classname=\"storcheck\" name=\"" << xml_escape(r.name) << "\" time=\""
        << r.seconds << "\">";
      if (r.status == "FAIL" || r.status == "XPASS")
        x << "<failure message=\"" << xml_escape(r.detail) << "\" type=\""
          << (r.status == "FAIL" ? "divergence" : "xpass") << "\"/>";
      else if (r.status == "CRASH" || r.status == "TIMEOUT" || r.status == "ERROR")
        x << "<error message=\"" << xml_escape(r.detail) << "\" type=\"" << r.status << "\"/>";
      else if (r.status == "skip")
        x << "<skipped message=\"" << xml_escape(r.detail) << "\"/>";
      x << "</testcase>\n";
    }
    x << "</testsuite>\n</testsuites>\n";
    std::string dir, name = opt.junit_path;
    size_t slash = name.rfind('/');
    if (slash != std::string::npos) {
      dir = name.substr(0, slash);
      name = name.substr(slash + 1);
    }
    std::string e;
    if (write_file_atomic(dir, name, x.str(), &e).empty()) {
      err << "storcheck gate: --junit: " << e << "\n";
      return 2;
    }
  }
  if (!opt.findings_json.empty() && !write_findings_json(opt.findings_json, findings, err))
    return 2;
  if (internal) {
    err << "storcheck gate: internal error (a bug in storcheck; see the ERROR rows above)\n";
    return 3;
  }
  return failed ? 1 : 0;
}

int run_check(const CheckCommandOptions& opt, std::ostream& out, std::ostream& err) {
  const Property* prop = find_property(opt.property);
  if (!prop) {
    err << "storcheck check: unknown property '" << opt.property << "' (known:";
    for (const Property& p : properties()) err << " " << p.name;
    err << ")\n";
    return 2;
  }
  std::string ferr;
  if (!activate_fault(opt.plant_fault, &ferr)) {
    err << "storcheck check: --plant-fault: " << ferr << "\n";
    return 2;
  }
  for (const std::string& path : rescue_inflight(opt.findings_dir))
    out << "warning: a previous run died while checking the program saved in " << path
        << " (replay: storcheck repro " << path << ")\n";
  BackendSet backends = BackendSet::make(opt.eager_unsafe);
  CheckOptions co;
  co.seed = opt.seed;
  co.programs = opt.programs;
  co.max_size = opt.max_size;
  co.steps = opt.steps;
  co.budget_seconds = opt.budget_seconds;
  co.shrink = opt.shrink;
  co.findings_dir = opt.findings_dir;
  co.program_timeout = opt.program_timeout;
  co.limits = opt.limits;
  out << "storcheck check " << prop->name << ": seed " << opt.seed << ", " << opt.programs
      << " programs";
  if (opt.steps > 0) out << " of " << opt.steps << " steps";
  if (opt.budget_seconds > 0) out << ", budget " << opt.budget_seconds << " s";  // "300", "0.5"
  out << "\n";
  CheckResult r = check_property(*prop, co, backends);
  if (r.skipped) {
    out << prop->name << ": skipped: " << r.skip_reason << "\n";
    return 0;
  }
  char line[200];
  std::snprintf(line, sizeof line, "%s: %s after %lld programs, %lld steps in %.2f s (%.0f programs/s)\n",
                std::string(prop->name).c_str(), r.passed ? "OK" : "FAILED",
                static_cast<long long>(r.programs), static_cast<long long>(r.steps), r.seconds,
                r.seconds > 0 ? r.programs / r.seconds : 0.0);
  out << line;
  if (r.known > 0) {
    out << r.known << " programs hit known divergences (expected, oracles/known_divergences.cpp):";
    for (const auto& [id, n] : r.known_ids) out << " " << id << " x" << n;
    out << "\n";
  }
  if (r.refused > 0)
    out << r.refused << " programs met a step a backend refused (not comparable there; checked "
        << "on past it without it where as many steps follow), e.g. " << r.first_refusal << "\n";
  if (!r.passed) {
    out << "seed " << r.seed << ", program " << r.failing_program
        << (r.program_steps > 0 ? " of " + std::to_string(r.program_steps) + " steps"
                                : std::string())
        << "; shrunk to " << r.counterexample.steps.size() << " steps:\n"
        << print_program(r.counterexample) << "divergence: " << r.failure_text << "\n";
    if (!r.reproducer_path.empty())
      out << "reproduce: storcheck repro " << r.reproducer_path
          << (opt.plant_fault.empty() ? "" : " --plant-fault " + opt.plant_fault) << "\n";
    for (const std::string& s : r.emitted_paths) out << "upstream script: " << s << "\n";
  }
  if (!opt.findings_json.empty()) {
    std::vector<Finding> findings;
    if (!r.passed) findings.push_back(failure_finding(r));
    if (!write_findings_json(opt.findings_json, findings, err)) return 2;
  }
  return r.passed ? 0 : 1;
}

}  // namespace storcheck
