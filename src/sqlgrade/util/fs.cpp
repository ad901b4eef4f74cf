#include "sqlgrade/util/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "sqlgrade/error.hpp"

namespace sqlgrade {

std::string read_file(const fs::path& path, size_t max_stream_bytes) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path.string(), "no such file");
  if (fs::is_directory(st)) throw InputError(path.string(), "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  if (!fs::is_regular_file(st)) {
    // A pipe (`--pred <(jq ...)`), FIFO or device: no size to ask for, so read it in chunks, up to
    // a bound (a symlink to /dev/zero must not eat the memory).
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      data.append(buf, static_cast<size_t>(in.gcount()));
      if (data.size() > max_stream_bytes)
        throw InputError(path.string(), "not a regular file, and more than " + std::to_string(max_stream_bytes >> 20) +
                                            " MiB came out of it");
    }
    if (in.bad()) throw InputError(path.string(), "read error");
    return data;
  }
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size > 0) {
    data.resize(static_cast<size_t>(size));
    in.seekg(0);
    in.read(data.data(), size);
  }
  if (in.bad()) throw InputError(path.string(), "read error");
  return data;
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

bool strip_bom(std::string& s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF && static_cast<unsigned char>(s[1]) == 0xBB &&
      static_cast<unsigned char>(s[2]) == 0xBF) {
    s.erase(0, 3);
    return true;
  }
  return false;
}

}  // namespace sqlgrade
