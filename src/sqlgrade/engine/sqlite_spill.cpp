// The private, bounded spill folder of a statement's temporary files (sqlite_spill.hpp).
#include "sqlgrade/engine/sqlite_spill.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <vector>

namespace sqlgrade::sqlite_guard {

namespace {

std::atomic<long long> g_limit{4LL << 30};
std::atomic<long long> g_held{0};

// Where SQLite itself would put temporary files (os_unix.c unixTempFileDir), minus the current folder.
std::string base_folder() {
  std::vector<const char*> tries = {std::getenv("SQLITE_TMPDIR"), std::getenv("TMPDIR"), "/var/tmp", "/usr/tmp", "/tmp"};
  for (const char* d : tries) {
    struct stat st;
    if (d && *d && stat(d, &st) == 0 && S_ISDIR(st.st_mode) && access(d, W_OK | X_OK) == 0) return d;
  }
  return "";
}

}  // namespace

SpillArea* SpillArea::begin(long long quota) { return new SpillArea(quota); }

void SpillArea::end() {
  if (!folder_.empty()) rmdir(folder_.c_str());
  folder_.clear();
  unref();
}

void SpillArea::unref() {
  if (--refs_ == 0) delete this;
}

int SpillArea::open_file() {
  if (folder_.empty()) {
    const std::string base = base_folder();
    std::string tmpl = (base.empty() ? std::string("/tmp") : base) + "/sqlgrade-spill-XXXXXX";
    if (!mkdtemp(tmpl.data())) {  // mode 0700
      failed_ = true;
      return -1;
    }
    folder_ = tmpl;
  }
  const std::string name = folder_ + "/t" + std::to_string(files_++);
  int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    failed_ = true;
    return -1;
  }
  ::unlink(name.c_str());  // nothing on disk once the descriptor is closed, whatever happens to the process
  ++refs_;
  return fd;
}

void SpillArea::close_file(int fd, long long bytes_held) {
  if (fd >= 0) ::close(fd);
  shrink(bytes_held);
  unref();
}

bool SpillArea::grow(long long n) {
  if (n <= 0) return true;
  if (used_ + n > quota_) {
    over_quota_ = true;
    return false;
  }
  const long long limit = g_limit.load(std::memory_order_relaxed);
  if (g_held.fetch_add(n, std::memory_order_relaxed) + n > limit) {
    g_held.fetch_sub(n, std::memory_order_relaxed);
    over_quota_ = crowded_ = true;
    return false;
  }
  used_ += n;
  if (used_ > peak_) peak_ = used_;
  return true;
}

void SpillArea::shrink(long long n) {
  if (n <= 0) return;
  used_ -= n;
  g_held.fetch_sub(n, std::memory_order_relaxed);
}

void set_spill_limit(long long bytes) { g_limit.store(bytes < 0 ? 0 : bytes, std::memory_order_relaxed); }
long long spill_limit() { return g_limit.load(std::memory_order_relaxed); }
long long spilled_bytes() { return g_held.load(std::memory_order_relaxed); }

}  // namespace sqlgrade::sqlite_guard
