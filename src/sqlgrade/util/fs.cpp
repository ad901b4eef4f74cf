#include "sqlgrade/util/fs.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <unistd.h>

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

void write_file_atomic(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(std::hash<std::string>{}(path.string()) & 0xffff);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path.string(), std::string("cannot write: ") + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw InputError(path.string(), "write failed");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(path.string(), "cannot move into place: " + ec.message());
  }
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
