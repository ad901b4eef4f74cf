// The fast tier's guard (tests/fast_tier_main.cpp): inside a fast binary, starting a process or opening
// an Internet or local socket fails, while threads still run. Skipped where the guard is not installed
// (sanitizer builds, another architecture, a kernel that refuses filters, SQLGRADE_FAST_GUARD=0).
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

bool guarded() { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2; }  // 2: SECCOMP_MODE_FILTER

TEST(FastTierGuard, NoProcessNoSocketButThreads) {
  if (!guarded()) GTEST_SKIP() << "the seccomp guard is not installed in this build or environment";
  errno = 0;
  EXPECT_EQ(socket(AF_INET, SOCK_STREAM, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_EQ(socket(AF_INET6, SOCK_STREAM, 0), -1);
  EXPECT_EQ(socket(AF_UNIX, SOCK_STREAM, 0), -1);
  EXPECT_NE(std::system("true"), 0);  // fork/exec refused: -1 or a failed shell, never 0
  FILE* p = popen("echo hi", "r");
  if (p) {
    char buf[8] = {};
    EXPECT_EQ(std::fgets(buf, sizeof buf, p), nullptr) << "a child ran: " << buf;
    pclose(p);
  }
  std::atomic<int> ran{0};
  std::thread t([&] { ran = 1; });
  t.join();
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
