#pragma once
// File helpers. Reading errors become InputError naming the file; writes are atomic
// (temporary file + rename) so nothing half-written is left behind.
#include <filesystem>
#include <string>

namespace sqlgrade {

namespace fs = std::filesystem;

// Whole file as bytes; InputError if missing, a directory or unreadable.
// Pipes, FIFOs and devices (not regular files) are read in chunks up to max_stream_bytes (2 GiB):
// beyond it, InputError.
std::string read_file(const fs::path& path, size_t max_stream_bytes = size_t(2) << 30);
// Write atomically: <path>.tmp.<pid> then rename. Creates parent directories.
void write_file_atomic(const fs::path& path, std::string_view content);
// Strip a UTF-8 BOM in place; returns true if one was present.
bool strip_bom(std::string& s);

}  // namespace sqlgrade
