// Findings are never lost (issue 7, Note [Write-ahead]): a gate killed with
// SIGKILL mid-run leaves the program it was checking on disk, parseable,
// and the corpus untouched; the next gate names the saved program.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/gate.h"
#include "harness/properties.h"
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

// Writes `text` to `path` with the modification time `mtime`.
void write_with_mtime(const std::string& path, const std::string& text, time_t mtime) {
  std::ofstream(path) << text;
  const timeval times[2] = {{mtime, 0}, {mtime, 0}};
  ASSERT_EQ(::utimes(path.c_str(), times), 0);
}

// Note [Write-ahead]: an inflight file a live run holds (its flock) is not
// moved; once the holder is gone (a process that died), it is.
TEST(CrashSafety, RescueMovesOnlyInflightFilesNoLiveRunHolds) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string path = inflight_path(dir, "views.ref_matches_eager");
  write_with_mtime(path, "# storcheck program v1\nt0 = zeros [2] f32\n", 1000);
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  EXPECT_TRUE(rescue_inflight(dir).empty());
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"inflight-views.ref_matches_eager.sc"});
  ::close(fd);  // as the kernel does for a process that dies
  EXPECT_EQ(rescue_inflight(dir),
            std::vector<std::string>{dir + "/died-views.ref_matches_eager-1000.sc"});
  EXPECT_EQ(slurp(dir + "/died-views.ref_matches_eager-1000.sc"),
            "# storcheck program v1\nt0 = zeros [2] f32\n");
}

// Two runs that died within one second (or a run's own inflight-P-PID.sc)
// never overwrite an earlier saved program: a suffix tells them apart.
TEST(CrashSafety, RescueNeverOverwritesAnEarlierSavedProgram) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string p = "cow.matches_torch";
  write_with_mtime(inflight_path(dir, p), "a\n", 2000);
  ASSERT_EQ(rescue_inflight(dir).size(), 1u);
  write_with_mtime(inflight_path(dir, p), "b\n", 2000);
  write_with_mtime(inflight_path(dir, p, 4242), "c\n", 2000);
  EXPECT_EQ(rescue_inflight(dir), (std::vector<std::string>{dir + "/died-" + p + "-2000-2.sc",
                                                            dir + "/died-" + p + "-2000-3.sc"}));
  EXPECT_EQ(slurp(dir + "/died-" + p + "-2000.sc"), "a\n");
  std::vector<std::string> later = {slurp(dir + "/died-" + p + "-2000-2.sc"),
                                    slurp(dir + "/died-" + p + "-2000-3.sc")};
  std::sort(later.begin(), later.end());
  EXPECT_EQ(later, (std::vector<std::string>{"b\n", "c\n"}));
  EXPECT_EQ(list_dir(dir).size(), 3u);
}

// Note [Write-ahead]: a shorter program is written over a longer one padded
// with newlines; the saved program keeps one (a timeout's file had 700
// blank lines after its program).
TEST(CrashSafety, ASavedProgramLosesTheWriteAheadPadding) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string p = "views.ref_matches_eager";
  const std::string program = "# storcheck program v1\nt0 = ones [3] f32\n";
  write_with_mtime(inflight_path(dir, p), program + std::string(300, '\n'), 3000);
  ASSERT_EQ(rescue_inflight(dir), (std::vector<std::string>{dir + "/died-" + p + "-3000.sc"}));
  EXPECT_EQ(slurp(dir + "/died-" + p + "-3000.sc"), program);
}

// A run of a property whose inflight file another live run holds writes
// its own and leaves the other's alone (before, it truncated it and the
// other run's crash record was lost), and removes its own at the end.
TEST(CrashSafety, ASecondLiveRunOfAPropertyKeepsItsOwnInflightFile) {
  TempDir tmp;
  const std::string& dir = tmp.path();
  const Property* prop = find_property("program.roundtrip");
  ASSERT_NE(prop, nullptr);
  const std::string held = inflight_path(dir, prop->name);
  const std::string text = "# storcheck program v1\nt0 = ones [3] f32\n";
  std::ofstream(held) << text;
  const int fd = ::open(held.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  CheckOptions opt;
  opt.seed = 3;
  opt.programs = 200;
  opt.findings_dir = dir;
  BackendSet backends = BackendSet::make();
  CheckResult r = check_property(*prop, opt, backends);
  ::close(fd);
  EXPECT_TRUE(r.passed) << r.failure_text;
  EXPECT_EQ(r.programs, 200);
  EXPECT_EQ(slurp(held), text);
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"inflight-program.roundtrip.sc"});
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
