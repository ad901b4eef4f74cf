#pragma once
// Measuring the safety tests' work in a forked child (peak RSS, bytes written, open descriptors), so that
// what the rest of the suite did to the test process does not count; the deadline margin.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "safety_corpus.hpp"

namespace sqlgrade::test {

namespace fs = std::filesystem;
using Report = std::map<std::string, double>;

inline double margin() {
  const char* m = std::getenv("SQLGRADE_SAFETY_MARGIN");
  return m && *m ? std::atof(m) : kUnderAsan ? 15.0 : 2.0;
}
inline double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A field of /proc/self/status or /proc/self/io ("VmHWM:", "wchar:"), as a number.
inline double proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + key.size());
  return -1;
}
inline double rss_mib() { return proc_field("/proc/self/status", "VmRSS:") / 1024; }
inline double peak_mib() { return proc_field("/proc/self/status", "VmHWM:") / 1024; }
// Bytes this process handed to write()/pwrite() so far (files, pipes, everything).
inline double written_bytes() { return proc_field("/proc/self/io", "wchar:"); }
// Open file descriptors; when not even /proc/self/fd can be opened any more, the descriptor limit.
inline size_t open_fds() {
  std::error_code ec;
  fs::directory_iterator it("/proc/self/fd", ec);
  if (ec) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    return static_cast<size_t>(rl.rlim_cur);
  }
  size_t n = 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) ++n;
  return n;
}

// Runs `body` in a forked child and returns what it reported ("key value" lines through a pipe), plus
// "exit" (the child's exit status; -1 if it did not exit normally). The child starts with its peak
// RSS reset to its current RSS ("rss0").
inline Report in_child(const std::function<void(Report&)>& body) {
  int fd[2];
  if (pipe(fd) != 0) return {{"exit", -1}};
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    std::ofstream("/proc/self/clear_refs") << "5";  // resets VmHWM to the current RSS
    Report r;
    r["rss0"] = rss_mib();
    try {
      body(r);
    } catch (const std::exception& e) {
      r["exception"] = 1;
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    std::ostringstream out;
    for (auto& [k, v] : r) out << k << " " << v << "\n";
    std::string s = out.str();
    ssize_t w = write(fd[1], s.data(), s.size());
    (void)w;
    _exit(0);
  }
  close(fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  Report r;
  std::istringstream in(text);
  for (std::string k; in >> k;) in >> r[k];
  r["exit"] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace sqlgrade::test
