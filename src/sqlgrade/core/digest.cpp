// SHA-256 through OpenSSL's EVP interface. See digest.hpp.
#include "sqlgrade/core/digest.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sqlgrade/errors.hpp"

namespace sqlgrade {

namespace {

struct Sha256 {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  Sha256() {
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("OpenSSL SHA-256 unavailable");
  }
  void update(const void* p, size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
  std::array<unsigned char, 32> final() {
    std::array<unsigned char, 32> out{};
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx.get(), out.data(), &len);
    return out;
  }
};

std::string hex(const std::array<unsigned char, 32>& d) {
  static const char* k = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (unsigned char c : d) s += k[c >> 4], s += k[c & 15];
  return s;
}

}  // namespace

std::array<unsigned char, 32> sha256_bytes(std::string_view data) {
  Sha256 h;
  h.update(data.data(), data.size());
  return h.final();
}

std::string sha256_hex(std::string_view data) { return hex(sha256_bytes(data)); }

std::string sha256_parts(std::initializer_list<std::string_view> parts, std::string_view extra) {
  Sha256 h;
  for (std::string_view p : parts) {
    const uint64_t n = p.size();
    h.update(&n, sizeof n);
    h.update(p.data(), p.size());
  }
  if (!extra.empty()) h.update(extra.data(), extra.size());
  const auto d = h.final();
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

std::string sha256_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  std::error_code ec;
  if (!f || std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot read the file to hash it");
  Sha256 h;
  std::vector<char> buf(1 << 16);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) h.update(buf.data(), n);
  if (std::ferror(f.get())) throw InputError(path, "read error while hashing");
  return hex(h.final());
}

std::string sha256_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return sha256_file(path);
  std::vector<std::string> rel;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) rel.push_back(fs::relative(it->path(), path, ec).generic_string());
  if (ec) throw InputError(path, "cannot list the folder to hash it: " + ec.message());
  std::sort(rel.begin(), rel.end());
  std::string listing;
  for (const auto& r : rel) listing += sha256_file((fs::path(path) / r).string()) + "  " + r + "\n";
  return sha256_hex(listing);
}

std::string base64(std::string_view data) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    unsigned v = (unsigned char)data[i] << 16 | (unsigned char)data[i + 1] << 8 | (unsigned char)data[i + 2];
    out += k[v >> 18], out += k[(v >> 12) & 63], out += k[(v >> 6) & 63], out += k[v & 63];
  }
  if (i + 1 == data.size()) {
    unsigned v = (unsigned char)data[i] << 16;
    out += k[v >> 18], out += k[(v >> 12) & 63], out += "==";
  } else if (i + 2 == data.size()) {
    unsigned v = (unsigned char)data[i] << 16 | (unsigned char)data[i + 1] << 8;
    out += k[v >> 18], out += k[(v >> 12) & 63], out += k[(v >> 6) & 63], out += '=';
  }
  return out;
}

}  // namespace sqlgrade
