#include "harness/isolate.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "program/text_format.h"

namespace storcheck {

namespace {

void put(std::string* out, const char* key, const std::string& value) {
  *out += std::string(key) + " " + std::to_string(value.size()) + "\n" + value + "\n";
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    default: return "signal " + std::to_string(sig);
  }
}

/// The newest `PREFIX*.sc` in `dir` ("" when none).
std::string newest_with_prefix(const std::string& dir, const std::string& prefix) {
  std::string best;
  time_t best_time = 0;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return best;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.rfind(prefix, 0) != 0) continue;
    struct stat st;
    std::string path = dir + "/" + n;
    if (::stat(path.c_str(), &st) == 0 && (best.empty() || st.st_mtime >= best_time)) {
      best = path;
      best_time = st.st_mtime;
    }
  }
  ::closedir(d);
  return best;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

/// A child's whole life: `body`'s text to `result_path`, exit 0; an
/// exception's message and exit 3.
[[noreturn]] void child_main(const char* result_path, const std::function<std::string()>& body) {
  int code = 0;
  std::string text;
  try {
    text = body();
  } catch (const std::exception& e) {
    text = std::string("internal error: ") + e.what();
    code = 3;
  }
  std::ofstream(result_path, std::ios::binary | std::ios::trunc) << text;
  std::fflush(nullptr);
  ::_exit(code);
}

struct Child {
  size_t index = 0;
  std::string result_path;
};

}  // namespace

std::string serialize_result(const CheckResult& r) {
  std::string out;
  put(&out, "property", r.property);
  put(&out, "passed", r.passed ? "1" : "0");
  put(&out, "skipped", r.skipped ? "1" : "0");
  put(&out, "skip_reason", r.skip_reason);
  put(&out, "budget_exhausted", r.budget_exhausted ? "1" : "0");
  put(&out, "programs", std::to_string(r.programs));
  put(&out, "steps", std::to_string(r.steps));
  put(&out, "known", std::to_string(r.known));
  put(&out, "seconds", std::to_string(r.seconds));
  put(&out, "seed", std::to_string(r.seed));
  put(&out, "program_steps", std::to_string(r.program_steps));
  put(&out, "failing_program", std::to_string(r.failing_program));
  put(&out, "counterexample", r.failing_program >= 0 ? print_program(r.counterexample) : "");
  put(&out, "failure_text", r.failure_text);
  put(&out, "reproducer_path", r.reproducer_path);
  std::string emitted;
  for (const std::string& p : r.emitted_paths) emitted += p + "\n";
  put(&out, "emitted_paths", emitted);
  return out;
}

bool deserialize_result(const std::string& text, CheckResult* r) {
  std::map<std::string, std::string> f;
  size_t at = 0;
  while (at < text.size()) {
    size_t sp = text.find(' ', at), nl = text.find('\n', at);
    if (sp == std::string::npos || nl == std::string::npos || sp > nl) return false;
    std::string key = text.substr(at, sp - at);
    size_t len = 0;
    try {
      len = static_cast<size_t>(std::stoull(text.substr(sp + 1, nl - sp - 1)));
    } catch (...) {
      return false;
    }
    if (nl + 1 + len + 1 > text.size() || text[nl + 1 + len] != '\n') return false;
    f[key] = text.substr(nl + 1, len);
    at = nl + 1 + len + 1;
  }
  try {
    r->property = f.at("property");
    r->passed = f.at("passed") == "1";
    r->skipped = f.at("skipped") == "1";
    r->skip_reason = f.at("skip_reason");
    r->budget_exhausted = f.at("budget_exhausted") == "1";
    r->programs = std::stoll(f.at("programs"));
    r->steps = std::stoll(f.at("steps"));
    r->known = std::stoll(f.at("known"));
    r->seconds = std::stod(f.at("seconds"));
    r->seed = std::stoull(f.at("seed"));
    r->program_steps = std::stoi(f.at("program_steps"));
    r->failing_program = std::stoll(f.at("failing_program"));
    if (!f.at("counterexample").empty()) {
      ParseResult p = parse_program(f.at("counterexample"));
      if (!p.ok()) return false;
      r->counterexample = std::move(p.program);
    }
    r->failure_text = f.at("failure_text");
    r->reproducer_path = f.at("reproducer_path");
    std::istringstream paths(f.at("emitted_paths"));
    for (std::string line; std::getline(paths, line);)
      if (!line.empty()) r->emitted_paths.push_back(line);
  } catch (...) {
    return false;
  }
  return true;
}

ChildOutcome run_in_child(const std::function<std::string()>& body) {
  ChildOutcome o;
  char tmpl[] = "/tmp/storcheck-result-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) {
    o.how = std::string("could not start: ") + std::strerror(errno);
    return o;
  }
  ::close(fd);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::unlink(tmpl);
    o.how = std::string("could not start: fork failed: ") + std::strerror(errno);
    return o;
  }
  if (pid == 0) child_main(tmpl, body);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  o.text = read_all(tmpl);
  ::unlink(tmpl);
  o.finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!o.finished)
    o.how = WIFSIGNALED(status) ? "was killed by " + signal_name(WTERMSIG(status))
                                : "exited with status " + std::to_string(WEXITSTATUS(status));
  return o;
}

std::vector<CheckResult> check_isolated(
    const std::vector<Property>& props,
    const std::function<CheckOptions(const Property&)>& options, int jobs, bool eager_unsafe) {
  std::vector<CheckResult> results(props.size());
  std::map<pid_t, Child> running;
  size_t next = 0;
  auto abnormal = [&](size_t i, const std::string& kind, const std::string& text,
                      const std::string& saved) {
    CheckResult& r = results[i];
    r.property = std::string(props[i].name);
    r.passed = false;
    r.abnormal = kind;
    r.failure_text = text;
    r.reproducer_path = saved;
  };
  while (next < props.size() || !running.empty()) {
    while (next < props.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
      size_t i = next++;
      char tmpl[] = "/tmp/storcheck-result-XXXXXX";
      int fd = ::mkstemp(tmpl);
      if (fd < 0) {
        abnormal(i, "internal", std::string("cannot create a result file: ") + std::strerror(errno), "");
        continue;
      }
      ::close(fd);
      std::fflush(nullptr);
      pid_t pid = ::fork();
      if (pid < 0) {
        ::unlink(tmpl);
        abnormal(i, "internal", std::string("fork failed: ") + std::strerror(errno), "");
        continue;
      }
      if (pid == 0) {
        child_main(tmpl, [&] {
          CheckOptions co = options(props[i]);
          co.timeout_exit_code = kTimeoutExit;
          BackendSet backends = BackendSet::make(eager_unsafe);
          return serialize_result(check_property(props[i], co, backends));
        });
      }
      running[pid] = Child{i, tmpl};
    }
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // no children left (ECHILD)
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not ours
    const Child c = it->second;
    running.erase(it);
    const Property& prop = props[c.index];
    const CheckOptions co = options(prop);
    std::string text = read_all(c.result_path);
    ::unlink(c.result_path.c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
        deserialize_result(text, &results[c.index])) {
      continue;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kTimeoutExit) {
      std::string saved = newest_with_prefix(co.findings_dir, "timeout-" + std::string(prop.name) + "-");
      abnormal(c.index, "timeout",
               "a program ran longer than the --program-timeout of " +
                   std::to_string(co.program_timeout) + " s",
               saved);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
      abnormal(c.index, "internal", text, "");
    } else {
      std::string how = WIFSIGNALED(status)
                            ? "was killed by " + signal_name(WTERMSIG(status))
                            : "exited with status " + std::to_string(WEXITSTATUS(status));
      std::string saved;
      if (!co.findings_dir.empty()) {  // the shared name, or the child's own (Note [Write-ahead])
        saved =
            save_died(co.findings_dir, prop.name, inflight_path(co.findings_dir, prop.name, pid));
        if (saved.empty())
          saved = save_died(co.findings_dir, prop.name, inflight_path(co.findings_dir, prop.name));
      }
      abnormal(c.index, "crash", "the child process checking this property " + how, saved);
    }
  }
  return results;
}

}  // namespace storcheck
