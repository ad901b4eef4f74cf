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
// Write atomically: <path>.tmp.<pid> then rename. Creates parent directories. The temporary file is
// created exclusively and never through a symlink; the rename replaces a symlink at `path` instead of
// writing through it.
void write_file_atomic(const fs::path& path, std::string_view content);

// A folder that receives outputs, opened once and never through a symbolic link: clearing and writing
// act on that very folder (by descriptor), so a symlink planted at its name or inside it can never
// redirect a deletion or a write elsewhere. Created when missing. InputError when `dir` is a
// symlink or not a folder.
class OutputDir {
 public:
  explicit OutputDir(const fs::path& dir);
  // The same refusals without creating or opening anything (to fail before a long run).
  static void check(const fs::path& dir);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  // Removes the entries whose name ends with `suffix` (files and symlinks themselves; never what a
  // symlink points to, never folders).
  void remove_files_ending_with(std::string_view suffix);
  // Writes `name` inside the folder atomically (temporary file, then rename).
  void write(const std::string& name, std::string_view content);
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
  int fd_ = -1;
};
// Strip a UTF-8 BOM in place; returns true if one was present.
bool strip_bom(std::string& s);

}  // namespace sqlgrade
