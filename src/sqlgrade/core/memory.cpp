#include "sqlgrade/core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace sqlgrade {

namespace {
size_t maxrss(int who) {
  struct rusage ru {};
  if (getrusage(who, &ru) != 0) return 0;
  return static_cast<size_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}
}  // namespace

size_t peak_rss_bytes() { return maxrss(RUSAGE_SELF); }
size_t children_peak_rss_bytes() { return maxrss(RUSAGE_CHILDREN); }

size_t current_rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace sqlgrade
