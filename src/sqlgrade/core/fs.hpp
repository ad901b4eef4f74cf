#pragma once
// File helpers. Reading errors become InputError naming the file; writes are atomic
// (temporary file + rename) so nothing half-written is left behind.
#include <filesystem>
#include <string>
#include <string_view>

namespace sqlgrade {

namespace fs = std::filesystem;

// The largest input file read whole, in bytes: 256 MiB unless set_max_input_bytes changed it (the CLI's
// --max-input-mb). Every input file (gold, predictions, tables.json, CSV, JSON) is read through
// read_file, so this bounds the memory one input can cost before any parsing.
inline constexpr size_t kDefaultMaxInputBytes = size_t(256) << 20;
size_t max_input_bytes();
void set_max_input_bytes(size_t bytes);

// Whole file as bytes; InputError naming the file if it is missing, a directory, unreadable, or larger
// than `max_bytes` (0: max_input_bytes()). A regular file's size is checked before anything is
// allocated (a 40 GB sparse file costs nothing); pipes, FIFOs and devices (`--pred <(jq ...)`,
// /dev/zero) are read in 1 MiB blocks and stopped at the bound.
std::string read_file(const fs::path& path, size_t max_bytes = 0);
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
// True when `name` (a db_id or similar, read from an input file or a request) names an entry directly
// inside a folder: not empty, not "." or "..", no '/' and no NUL byte. `<root>/<name>` then stays
// inside <root> whatever the name (an absolute name would replace <root>, "../x" would climb out).
bool is_plain_name(std::string_view name);

// Strip a UTF-8 BOM in place; returns true if one was present.
bool strip_bom(std::string& s);

}  // namespace sqlgrade
