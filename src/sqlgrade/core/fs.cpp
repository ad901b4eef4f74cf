#include "sqlgrade/core/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

[[noreturn]] void too_large(const std::string& shown, const std::string& what, size_t max_bytes) {
  throw InputError(shown, what + " the input limit of " + mib_text(max_bytes) +
                                      " MiB (--max-input-mb raises it)");
}
}  // namespace

size_t max_input_bytes() { return g_max_input_bytes.load(); }
void set_max_input_bytes(size_t bytes) { g_max_input_bytes.store(bytes ? bytes : kDefaultMaxInputBytes); }

namespace {

// read(2) until `n` bytes or the end; -1 on an error.
long long read_some(int fd, char* p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t k = ::read(fd, p + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) break;
    done += static_cast<size_t>(k);
  }
  return static_cast<long long>(done);
}

// Everything `fd` yields, bounded: a regular file's size is checked before anything is allocated;
// pipes, FIFOs, devices and terminals are read in 1 MiB blocks, joined at the end, never more than
// the bound in memory. Errors name `shown` (a path, or "<stdin>").
std::string read_fd(int fd, const std::string& shown, size_t max_bytes) {
  struct stat st;
  if (::fstat(fd, &st) != 0) throw InputError(shown, std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(shown, "is a directory, expected a file");
  const bool regular = S_ISREG(st.st_mode);
  const size_t size = regular ? static_cast<size_t>(st.st_size) : 0;
  if (regular && size > max_bytes) too_large(shown, "is " + mib_text(size) + " MiB, more than", max_bytes);
  try {
    std::string data;
    if (regular && size > 0) {
      data.resize(size);
      long long got = read_some(fd, data.data(), size);
      if (got < 0) throw InputError(shown, "read error");
      data.resize(static_cast<size_t>(got));  // the file may have shrunk meanwhile
      return data;
    }
    std::vector<std::string> blocks;
    size_t total = 0;
    for (;;) {
      std::string block(size_t(1) << 20, '\0');
      long long got = read_some(fd, block.data(), block.size());
      if (got < 0) throw InputError(shown, "read error");
      if (got == 0) break;
      block.resize(static_cast<size_t>(got));
      total += block.size();
      if (total > max_bytes)
        too_large(shown, regular ? std::string("grew to more than") : std::string("is not a regular file and yields more than"),
                  max_bytes);
      blocks.push_back(std::move(block));
    }
    data.reserve(total);
    for (auto& b : blocks) {
      data += b;
      std::string().swap(b);
    }
    return data;
  } catch (const std::bad_alloc&) {
    throw InputError(shown, "not enough memory to read it");
  }
}

}  // namespace

std::string read_file(const fs::path& path, size_t max_bytes) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path.string(), "no such file");
  if (fs::is_directory(st)) throw InputError(path.string(), "is a directory, expected a file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  return read_fd(fd, path.string(), max_bytes ? max_bytes : max_input_bytes());
}

std::string read_stdin(size_t max_bytes) { return read_fd(STDIN_FILENO, "<stdin>", max_bytes ? max_bytes : max_input_bytes()); }

namespace {

std::string tmp_name_for(const std::string& name) {
  return name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::hash<std::string>{}(name) & 0xffff);
}

// Writes all of `content` to fd; false (errno set) on a failed write.
bool write_all(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// `path` is a character device, a pipe or a socket (`--json /dev/null`, a FIFO), or one of the
// process's own descriptors by name (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: `--json
// /dev/stdout`, a shell's `>(cmd)`) that is not a regular file: written in place. Renaming a file over
// it would delete the device itself — as root, /dev/null became a regular file and every later
// `> /dev/null` of the machine wrote into it. Any other symbolic link is replaced, never written
// through (a planted link to a disk or a file elsewhere gains nothing).
bool write_to_special(const fs::path& path, std::string_view content) {
  const std::string p = path.string();
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode)) {
    const bool descriptor = p == "/dev/stdout" || p == "/dev/stderr" || p.rfind("/dev/fd/", 0) == 0 ||
                            p.rfind("/proc/self/fd/", 0) == 0;
    if (!descriptor || ::stat(p.c_str(), &st) != 0 || S_ISBLK(st.st_mode)) return false;
  }
  if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return false;
  const int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(p, std::string("cannot write: ") + std::strerror(errno));
  const bool ok = write_all(fd, content);
  const std::string why = ok ? "" : std::strerror(errno);
  ::close(fd);
  if (!ok) throw InputError(p, "write failed: " + why);
  return true;
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
  if (!write_all(fd, content)) {
    std::string why = std::strerror(errno);
    ::close(fd);
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw InputError(shown, "write failed: " + why);
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
  if (write_to_special(path, content)) return;
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

namespace {

bool ends_with_any(const std::string& name, const std::vector<std::string>& suffixes) {
  if (suffixes.empty()) return true;
  for (const auto& sfx : suffixes)
    if (name.size() >= sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) return true;
  return false;
}

// `inner` is `outer` or below it (both canonical).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

[[noreturn]] void refuse_replacing(const IoPath& out, const std::string& what) {
  throw InputError(out.path.string(), "the " + out.role + " output would replace the input " + what +
                                          "; write it elsewhere");
}

}  // namespace

namespace {

// The regular files (not through symlinks) under an existing folder, as outputs of `role`; an
// InputError past 100,000 (`why`: what the folder is for).
std::vector<IoPath> files_under(const IoPath& folder, const fs::path& real, const char* why) {
  std::vector<IoPath> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(real, ec), end; !ec && it != end; it.increment(ec)) {
    if (files.size() >= 100000)
      throw InputError(folder.path.string(), std::string("holds more than 100000 files; ") + why + ", choose another");
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back({it->path(), folder.role});
  }
  return files;
}

// The real path of an existing output folder, or "" (not there yet, or not a folder: the writer says so).
fs::path existing_folder(const IoPath& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder.path, ec)) return {};
  fs::path f = fs::canonical(folder.path, ec);
  return ec ? fs::path() : f;
}

// The first input that lies inside the folder whose real path is `f` (by real path), or nullptr.
const IoPath* input_inside(const fs::path& f, const std::vector<IoPath>& inputs) {
  for (const auto& i : inputs) {
    std::error_code iec;
    if (i.path.empty()) continue;
    const fs::path c = fs::canonical(i.path, iec);
    if (!iec && is_within(c, f)) return &i;
  }
  return nullptr;
}

// An output folder the command writes into: no input inside it, none of its files an input.
void check_output_folder(const IoPath& folder, const std::vector<IoPath>& inputs) {
  const fs::path f = existing_folder(folder);
  if (f.empty()) return;
  if (const IoPath* i = input_inside(f, inputs))
    throw InputError(folder.path.string(), "the " + folder.role + " output would replace the input " +
                                               i->path.string() + " (" + i->role + ") inside it; write it elsewhere");
  std::vector<IoPath> files = files_under(folder, f, "an output folder is written into");
  for (auto& x : files) x.role = folder.role + " (a file inside it)";
  check_outputs_spare_inputs(files, inputs);
}

}  // namespace

void check_outputs_spare_inputs(const std::vector<IoPath>& outputs, const std::vector<IoPath>& inputs) {
  for (const auto& o : outputs)
    if (o.folder && !o.path.empty()) check_output_folder(o, inputs);
  // The existing entries the outputs would replace: their folder resolved, their own name not (a
  // symlink there is replaced, never written through). Outputs that do not exist replace nothing.
  struct Out {
    const IoPath* io;
    fs::path real;
    struct stat st;
  };
  std::vector<Out> outs;
  for (const auto& o : outputs) {
    if (o.path.empty() || o.folder) continue;
    std::error_code ec;
    const fs::path parent = o.path.has_parent_path() ? o.path.parent_path() : fs::path(".");
    Out x{&o, fs::weakly_canonical(parent, ec) / o.path.filename(), {}};
    if (!ec && ::lstat(x.real.c_str(), &x.st) == 0 && !S_ISLNK(x.st.st_mode)) outs.push_back(std::move(x));
  }
  if (outs.empty()) return;
  auto same = [](const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; };
  for (const auto& i : inputs) {
    struct stat st;
    if (i.path.empty() || ::stat(i.path.c_str(), &st) != 0) continue;  // missing: the command reports it
    if (!S_ISDIR(st.st_mode)) {
      for (const Out& o : outs)
        if (same(o.st, st)) refuse_replacing(*o.io, i.path.string() + " (" + i.role + ")");
      continue;
    }
    // An input folder: an output inside it that matches its suffixes, or any output that is one of its
    // matching files under another name (a hard link), is an input (at most 200,000 entries looked at).
    std::error_code ec;
    const fs::path dir = fs::canonical(i.path, ec);
    if (ec) continue;
    const std::string what = "in folder " + i.path.string() + " (" + i.role + ")";
    for (const Out& o : outs)
      if ((i.recursive ? is_within(o.real, dir) : o.real.parent_path() == dir) &&
          ends_with_any(o.real.filename().string(), i.suffixes))
        refuse_replacing(*o.io, what);
    auto same_as_member = [&](const fs::path& p) {
      struct stat fst;
      if (!ends_with_any(p.filename().string(), i.suffixes) || ::lstat(p.c_str(), &fst) != 0 || !S_ISREG(fst.st_mode)) return;
      for (const Out& o : outs)
        if (same(o.st, fst)) refuse_replacing(*o.io, p.string() + " (in " + i.role + ")");
    };
    size_t seen = 0;
    if (i.recursive)
      for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end && ++seen <= 200000; it.increment(ec))
        same_as_member(it->path());
    else
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end && ++seen <= 200000; it.increment(ec))
        same_as_member(it->path());
  }
}

void check_output_folder_spares_inputs(const IoPath& folder, const std::vector<IoPath>& inputs) {
  const fs::path f = existing_folder(folder);
  if (f.empty()) return;
  if (const IoPath* i = input_inside(f, inputs))
    throw InputError(folder.path.string(), "would remove " + i->path.string() + " (" + i->role +
                                               ") with the folder it replaces; write the output elsewhere");
  check_outputs_spare_inputs(files_under(folder, f, "an output folder is replaced whole"), inputs);
}

std::vector<fs::path> files_ending_with(const fs::path& dir, std::string_view suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        it->is_regular_file(ec) && !it->is_symlink(ec))
      out.push_back(it->path());
  }
  return out;
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

std::string file_version(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  char b[160];
  std::snprintf(b, sizeof b, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", static_cast<unsigned long long>(st.st_dev),
                static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
                static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec, static_cast<long long>(st.st_ctim.tv_sec),
                st.st_ctim.tv_nsec);
  return b;
}

}  // namespace sqlgrade
