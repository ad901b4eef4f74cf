#pragma once
// File helpers. Reading errors become InputError naming the file; writes are atomic
// (temporary file + rename) so nothing half-written is left behind.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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
// All of standard input, bounded and refused exactly as read_file (issue 19, finding 10: `extract-sql`
// and `spider parse` read stdin with no bound, 3 GB from /dev/zero); errors name "<stdin>".
std::string read_stdin(size_t max_bytes = 0);
// Write atomically: <path>.tmp.<pid> then rename. Creates parent directories. The temporary file is
// created exclusively and never through a symlink; the rename replaces a symlink at `path` instead of
// writing through it. A character device, pipe or socket at `path` (`/dev/null`, a FIFO), or the
// process's own stdout/stderr/fd by name, is written in place: renaming over it would delete it.
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
// No output replaces an input (issue 19, finding 11: `bird --json-dir <the predictions' folder>`
// replaced the prediction files with run records; --json / --output_log_path could overwrite a
// prediction or gold file; issue 31: `verify --json`, `audit --json`, `--counterexamples` and the Ray
// drivers did not ask). This is the one check: every command (CLI, the library calls behind the Python
// API, the Ray drivers through the native module) lists the files and folders it will write or replace
// and every path it reads — databases included — and calls check_outputs_spare_inputs before it reads
// or writes anything.
struct IoPath {
  fs::path path;
  std::string role;                    // the flag that names it: "--json", "--pred"
  std::vector<std::string> suffixes{};  // an input folder: only its files whose name ends with one of
                                        // these are inputs (none: every file) ...
  bool recursive = true;                // ... at any depth, or (false) directly in it
  // An output: a folder the command writes files into under names not known before it runs
  // (`--counterexamples DIR`); refused when it holds an input.
  bool folder = false;
};
// InputError "<output>: the --json output would replace the input <input> (--pred); write it elsewhere"
// (exit 2) when an
// output file that already exists is an input file — the same file (device and inode: through
// symlinks and hard links) — or lies inside an input folder and matches its suffixes. An output that
// does not exist yet replaces nothing; one that is a symlink is replaced itself (write_file_atomic
// renames over it), never what it points to, so it replaces no input either. An output folder
// (`folder`) is refused when an input lies inside it (by its real path) or one of its files is an
// input ("<folder>: the --counterexamples output would replace the input <input> (--db) inside it").
void check_outputs_spare_inputs(const std::vector<IoPath>& outputs, const std::vector<IoPath>& inputs);
// The same for an output folder the command replaces whole (removed, then written afresh: `uda eval
// --output-dir`): refused when an input is inside it, or when one of its files is an input.
void check_output_folder_spares_inputs(const IoPath& folder, const std::vector<IoPath>& inputs);
// Which version of a file is at `path` now: its identity (device and inode, through symlinks), size,
// and modification and change times (nanoseconds), as one text; "" when it cannot be read. A file
// replaced at the same path (a rename over it, or rewritten in place) gives another text, so what is
// kept about a database (pooled connections, gold results, the verify search's schema and samples)
// is keyed by it and read again. One stat() call.
std::string file_version(const std::string& path);

// The regular files (not symlinks) directly in `dir` whose name ends with `suffix`: what
// OutputDir::remove_files_ending_with would remove. Empty when `dir` does not exist.
std::vector<fs::path> files_ending_with(const fs::path& dir, std::string_view suffix);

// True when `name` (a db_id or similar, read from an input file or a request) names an entry directly
// inside a folder: not empty, not "." or "..", no '/' and no NUL byte. `<root>/<name>` then stays
// inside <root> whatever the name (an absolute name would replace <root>, "../x" would climb out).
bool is_plain_name(std::string_view name);

// Strip a UTF-8 BOM in place; returns true if one was present.
bool strip_bom(std::string& s);

}  // namespace sqlgrade
