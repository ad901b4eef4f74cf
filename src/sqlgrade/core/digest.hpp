#pragma once
// SHA-256 (OpenSSL) of bytes, files and folders, for the run record's inputs and for shard_of.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace sqlgrade {

std::array<unsigned char, 32> sha256_bytes(std::string_view data);
std::string sha256_hex(std::string_view data);
// SHA-256 of several parts, each preceded by its length (so ("a", "bc") and ("ab", "c") differ), and of
// `extra` bytes after them when given: raw 32 bytes, a compact memo key.
std::string sha256_parts(std::initializer_list<std::string_view> parts, std::string_view extra = {});
// InputError naming the file when it cannot be read. Streams the file (any size).
std::string sha256_file(const std::string& path);
// A folder: SHA-256 of the text made of one line "<sha256 of file>  <relative path>\n" per regular
// file below it, sorted by relative path (bytewise, '/' separators) — the output of
// `find . -type f | sort | xargs sha256sum` run inside the folder, with "./" stripped.
// A regular file gives sha256_file.
std::string sha256_path(const std::string& path);
std::string base64(std::string_view data);

}  // namespace sqlgrade
