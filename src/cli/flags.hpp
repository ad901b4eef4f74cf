#pragma once
// The flag vocabulary shared by every subcommand (docs/cli.md "Flags"): one name and one meaning for
// the database folder, worker threads, the per-query timeout, quiet output; the official scripts'
// names stay as aliases. Also: both spellings of a flag (hyphen or underscore), "did you mean" on a
// mistyped flag or subcommand, and the example every `--help` ends with.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace sqlgrade {
enum class DbLayout;  // exec/benchmark.hpp
}

namespace sqlgrade::cli {

// "--db" plus the official script's name ("--db_root_path", "--db_dir"), when it has another one.
CLI::Option* add_db(CLI::App* c, std::string& dir, const std::string& what, const std::string& official = "");
// "--jobs,-j" (+ official alias): worker threads, 0 = all cores, bounded by the table's "jobs" row.
CLI::Option* add_jobs(CLI::App* c, int& jobs, const std::string& official = "");
// "--timeout" (+ official alias): seconds per query, bounded by the table's "timeout" row.
CLI::Option* add_timeout(CLI::App* c, double& seconds, const std::string& what, const std::string& official = "");
// "--now TIMESTAMP": the instant SQL's clock reads (date('now'), CURRENT_TIMESTAMP, ...; core/clock.hpp),
// on every command that executes SQL. The text is checked as typed ("--now: not a timestamp: ...") and
// kept as typed; the library canonicalises it for the run record (options.now).
CLI::Option* add_now(CLI::App* c, std::string& now);
// "--quiet,-q": nothing on stderr but errors (no warnings, no progress bar); the result is still printed.
CLI::Option* add_quiet(CLI::App* c, bool& quiet);
// "--shard-by id|db": what --shard splits by (the library checks the value: exit 2 naming --shard-by).
CLI::Option* add_shard_by(CLI::App* c, std::string& by);
// "--require-all": exit 1 when predictions are missing, truncated or unpaired.
CLI::Option* add_require_all(CLI::App* c, bool& require_all);
// "--out FILE": the one file a command writes (+ the old spellings, e.g. "-o,--output", still accepted).
CLI::Option* add_out(CLI::App* c, std::string& file, const std::string& what, const std::string& aliases = "");
// "--out-dir DIR": the folder a command writes into (+ the old spellings, e.g. "--out", "--output-dir").
CLI::Option* add_out_dir(CLI::App* c, std::string& dir, const std::string& what, const std::string& aliases = "");
// "--no-progress": never draw a progress bar (on every command that executes queries or draws one).
CLI::Option* add_no_progress(CLI::App* c, bool& no_progress);
// "--max-rows N": result rows of one query before it is stopped (bounded by the table's "max_rows" row).
CLI::Option* add_max_rows(CLI::App* c, size_t& rows, const std::string& what = "");
// "--max-result-mb MB": the size bound of one query's result, MiB (the table's "result_mb" row).
CLI::Option* add_max_result_mb(CLI::App* c, double& mb, const std::string& what = "");
// The one rule of `--db` per benchmark, its Benchmark's layout() (exec/benchmark.hpp): Spider and BIRD
// read DIR/<db_id>/<db_id>.sqlite (Nested), Spider 2.0-Lite DIR/<db>.sqlite (Flat). A folder that holds databases only in the other layout is
// refused before anything runs, one line naming the flag and the layout expected ("--db: DIR holds
// <db>.sqlite files directly (Spider 2.0-Lite's layout); bird reads DIR/<db_id>/<db_id>.sqlite").
// A missing or empty folder is left to the command (its own message, as before).
void check_db_layout(const std::string& dir, DbLayout want, const std::string& command, const std::string& flag = "--db");

// What a flag's value is to the file system (docs/cli.md "Path roles"): every option that takes a value
// is given one where it is defined (a value option without one is a plain value, Value); the table of
// every flag with its role (flag_table.hpp) is exported to the Python package, whose Ray drivers decide
// which arguments are paths from it — `--etype all` stays a value beside a file named `all`.
enum class PathRole { Value, ReadsFile, WritesFile, ReadsFolder, WritesFolder, ReadsPath };
// Gives `o` its role and returns it: `path_role(cmd->add_option("--gold", ...), PathRole::ReadsFile)`.
CLI::Option* path_role(CLI::Option* o, PathRole role);
PathRole path_role_of(const CLI::Option* o);
const char* to_string(PathRole role);  // "value" | "reads_file" | "writes_file" | "reads_folder" | "writes_folder" | "reads_path"

// MiB as given to --max-result-mb → bytes.
size_t mib_to_bytes(double mb);

// `verify` and `audit` name the benchmark as a subcommand (`sqlgrade verify spider`, `sqlgrade audit
// bird`); `--benchmark NAME` (or `--benchmark=NAME`) after either is the accepted alias: it is moved to
// the subcommand's place before parsing. Other command lines are returned as they are.
std::vector<std::string> benchmark_flag_as_subcommand(std::vector<std::string> args);

// "--a, --b and --c are required" → the flags among `flags` whose value is empty, as one InputError
// ("--db is required", "--gold and --db are required"); nothing when none is missing.
void require_flags(const std::string& where, const std::vector<std::pair<std::string, bool>>& flags_given);

// --require-all, after the output: one line per system whose predictions are missing (a gold question
// without one: absent, blank, the file cut short) or unpaired (one no gold question takes), then exit 1.
struct Pairing {
  std::string file;
  size_t golds = 0, missing = 0, unpaired = 0;
};
void enforce_require_all(const std::vector<Pairing>& systems);

// The example a subcommand's `--help` ends with (a test walks every subcommand and checks).
void example(CLI::App* c, const std::string& command_line);

// Flag names as typed → as registered, within the subcommand they follow: `--db-root-path` and
// `--db_root_path` both reach `--db_root_path`, `--no_progress` reaches `--no-progress`. A flag no
// subcommand on the path knows, or a word where a subcommand is required, that is close to a known
// name (edit distance) throws sqlgrade::InputError "unknown flag --tiemout (did you mean --timeout?)".
// args excludes argv[0].
std::vector<std::string> resolve_spellings(const CLI::App& app, std::vector<std::string> args);

// Optimal-string-alignment distance (a transposition counts 1): the "did you mean" measure.
size_t edit_distance(const std::string& a, const std::string& b);

// A warning line on stderr naming the file it is about: "sqlgrade: warning: FILE: text", unless the
// text already starts with that file's name or with `other` (the gold file, shared by the systems).
void warn(const std::string& file, const std::string& text, const std::string& other = "");

}  // namespace sqlgrade::cli
