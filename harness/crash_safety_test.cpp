// Findings are never lost (issue 7, Note [Write-ahead]): a gate killed with
// SIGKILL mid-run leaves the program it was checking on disk, parseable,
// and the corpus untouched; the next gate names the saved program.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/gate.h"
#include "harness/test_support.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CrashSafety, SigkillMidGateLeavesTheProgramOnDiskAndTheCorpusIntact) {
  const char* bin = std::getenv("STORCHECK_BIN");
  if (!bin) GTEST_SKIP() << "STORCHECK_BIN not set (run through ctest)";
  TempDir corpus_tmp, findings_tmp;
  const std::string &corpus = corpus_tmp.path(), &findings = findings_tmp.path();
  ASSERT_EQ(::mkdir((corpus + "/regressions").c_str(), 0755), 0);
  const std::string reg = "# storcheck program v1\nt0 = arange [3,4] f32\nt1 = t t0\nadd_ t1 1\n";
  std::ofstream(corpus + "/regressions/a.sc") << reg;

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(bin, bin, "gate", "--budget", "600", "--programs", "100000000", "--corpus",
            corpus.c_str(), "--findings-dir", findings.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until properties run (an inflight file exists), then kill.
  bool running = false;
  for (int k = 0; k < 300 && !running; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const std::string& n : list_dir(findings)) running |= n.rfind("inflight-", 0) == 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(running) << "the gate never started a property";
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  int inflight = 0;
  for (const std::string& n : list_dir(findings)) {
    if (n.rfind("inflight-", 0) != 0) continue;
    ++inflight;
    Program p;
    std::string e;
    EXPECT_TRUE(read_program_file(findings + "/" + n, Limits{}, &p, nullptr, &e)) << e;
    EXPECT_GE(p.steps.size(), 1u) << n;
  }
  EXPECT_GE(inflight, 1);
  EXPECT_EQ(slurp(corpus + "/regressions/a.sc"), reg);  // the corpus is intact
  EXPECT_EQ(list_dir(corpus + "/regressions"), std::vector<std::string>{"a.sc"});

  // The next gate moves the saved program aside and says how to replay it.
  std::string cmd = std::string(bin) + " gate --budget 1 --programs 1 --corpus " + corpus +
                    " --findings-dir " + findings + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  ::pclose(pipe);
  EXPECT_NE(out.find("a previous run died while checking the program saved in " + findings +
                     "/died-"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("replay: storcheck repro " + findings + "/died-"), std::string::npos);
  int died = 0;
  for (const std::string& f : list_dir(findings)) died += f.rfind("died-", 0) == 0;
  EXPECT_EQ(died, inflight);
}

}  // namespace
}  // namespace storcheck
