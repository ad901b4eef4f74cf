#include "sqlgrade/core/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "sqlgrade/errors.hpp"

namespace sqlgrade {

namespace {
std::atomic<size_t> g_max_input_bytes{kDefaultMaxInputBytes};

std::string mib_text(size_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, bytes % (size_t(1) << 20) ? "%.1f" : "%.0f", double(bytes) / double(size_t(1) << 20));
  return b;
}

[[noreturn]] void too_large(const fs::path& path, const std::string& what, size_t max_bytes) {
  throw InputError(path.string(), what + " the input limit of " + mib_text(max_bytes) +
                                      " MiB (--max-input-mb raises it)");
}
}  // namespace

size_t max_input_bytes() { return g_max_input_bytes.load(); }
void set_max_input_bytes(size_t bytes) { g_max_input_bytes.store(bytes ? bytes : kDefaultMaxInputBytes); }

std::string read_file(const fs::path& path, size_t max_bytes) {
  if (max_bytes == 0) max_bytes = max_input_bytes();
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path.string(), "no such file");
  if (fs::is_directory(st)) throw InputError(path.string(), "is a directory, expected a file");
  const bool regular = fs::is_regular_file(st);
  size_t size = 0;
  if (regular) {
    size = static_cast<size_t>(fs::file_size(path, ec));
    if (!ec && size > max_bytes) too_large(path, "is " + mib_text(size) + " MiB, more than", max_bytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  try {
    std::string data;
    if (regular && size > 0) {
      data.resize(size);
      in.read(data.data(), static_cast<std::streamsize>(size));
      data.resize(static_cast<size_t>(in.gcount()));  // the file may have shrunk meanwhile
      if (in.bad()) throw InputError(path.string(), "read error");
      return data;
    }
    // A pipe, FIFO or device (or a file whose size the system does not know): 1 MiB blocks, joined
    // at the end, never more than the bound in memory.
    std::vector<std::string> blocks;
    size_t total = 0;
    for (;;) {
      std::string block(size_t(1) << 20, '\0');
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      block.resize(static_cast<size_t>(in.gcount()));
      if (block.empty()) break;
      total += block.size();
      if (total > max_bytes)
        too_large(path, regular ? std::string("grew to more than") : std::string("is not a regular file and yields more than"),
                  max_bytes);
      blocks.push_back(std::move(block));
    }
    if (in.bad()) throw InputError(path.string(), "read error");
    data.reserve(total);
    for (auto& b : blocks) {
      data += b;
      std::string().swap(b);
    }
    return data;
  } catch (const std::bad_alloc&) {
    throw InputError(path.string(), "not enough memory to read it");
  }
}

namespace {

std::string tmp_name_for(const std::string& name) {
  return name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::hash<std::string>{}(name) & 0xffff);
}

// Creates `tmp` (relative to dirfd) exclusively, never through a symlink, writes `content`, and renames
// it to `name`. InputError naming `shown` on failure; the temporary file never stays behind.
void write_at(int dirfd, const std::string& tmp, const std::string& name, std::string_view content, const std::string& shown) {
  int fd = ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) {  // a stale temporary file (or a planted symlink): replace the entry itself
    ::unlinkat(dirfd, tmp.c_str(), 0);
    fd = ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  }
  if (fd < 0) throw InputError(shown, std::string("cannot write: ") + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlinkat(dirfd, tmp.c_str(), 0);
      throw InputError(shown, "write failed: " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    std::string why = std::strerror(errno);
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw InputError(shown, "write failed: " + why);
  }
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw InputError(shown, "cannot move into place: " + why);
  }
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  const std::string name = path.filename().string();
  write_at(AT_FDCWD, (path.parent_path() / tmp_name_for(name)).string(), path.string(), content, path.string());
}

namespace {
[[noreturn]] void refuse_output_dir(const fs::path& dir, int err) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(dir, ec)))
    throw InputError(dir.string(), "is a symbolic link; sqlgrade never clears or writes outputs through one "
                                   "(remove the link or choose another folder)");
  throw InputError(dir.string(), err == ENOTDIR ? std::string("exists and is not a folder")
                                                : std::string("cannot open folder: ") + std::strerror(err));
}
}  // namespace

void OutputDir::check(const fs::path& dir) {
  std::error_code ec;
  auto st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) return;
  if (fs::is_symlink(st)) refuse_output_dir(dir, ELOOP);
  if (!fs::is_directory(st)) refuse_output_dir(dir, ENOTDIR);
}

OutputDir::OutputDir(const fs::path& dir) : dir_(dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) {
    std::error_code ec;
    if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      throw InputError(dir.string(), std::string("cannot create folder: ") + std::strerror(errno));
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd_ < 0) refuse_output_dir(dir, errno);
}

OutputDir::~OutputDir() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputDir::remove_files_ending_with(std::string_view suffix) {
  int fd = ::dup(fd_);
  if (fd < 0) throw InputError(dir_.string(), std::string("cannot list folder: ") + std::strerror(errno));
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    throw InputError(dir_.string(), std::string("cannot list folder: ") + std::strerror(errno));
  }
  ::rewinddir(d);
  std::vector<std::string> victims;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n.size() < suffix.size() || n.substr(n.size() - suffix.size()) != suffix) continue;
    struct stat st;
    if (::fstatat(fd_, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) victims.emplace_back(n);
  }
  ::closedir(d);
  for (auto& v : victims) ::unlinkat(fd_, v.c_str(), 0);  // unlinks a symlink itself, never its target
}

void OutputDir::write(const std::string& name, std::string_view content) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    throw InputError((dir_ / name).string(), "not a plain file name inside the output folder");
  write_at(fd_, tmp_name_for(name), name, content, (dir_ / name).string());
}

bool is_plain_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

bool strip_bom(std::string& s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF && static_cast<unsigned char>(s[1]) == 0xBB &&
      static_cast<unsigned char>(s[2]) == 0xBF) {
    s.erase(0, 3);
    return true;
  }
  return false;
}

}  // namespace sqlgrade
