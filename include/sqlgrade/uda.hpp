#pragma once
// Public API — UDA-Bench / OpenQuest: accuracy of SQL-over-documents extraction systems (the
// benchmark's eval_acc plan: rows matched by id, cells scored by a judge, macro precision / recall /
// F1 per statement). One call per `sqlgrade uda` subcommand:
//
//   prepare(PrepareOptions)   per-query folders with sql.json (and gold_result.csv with `gold`)
//   evaluate_query(QueryOptions)   one result.csv → acc.json and the matched CSVs
//   evaluate(Options)         whole datasets → acc_result/ per statement, summary.json/.csv per dataset
//
//   sqlgrade::uda::Options opt;
//   opt.dataset_dir = "Query/Player"; opt.results = "runs/lotus";
//   sqlgrade::uda::Run run = sqlgrade::uda::evaluate(opt);
//   std::string table = sqlgrade::uda::render_text(run, /*list_errors=*/false);
//
// Nothing here prints; the functions write the output files the subcommands are for. Unusable inputs
// throw sqlgrade::InputError (errors.hpp); an unusable result.csv is a score of 0 with its reason.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::uda {

// How the gold tables are found and loaded (DuckDB, in memory).
struct DatasetOptions {
  std::optional<std::filesystem::path> attributes_file;  // default: the first *_attributes.json in the folder
  std::optional<std::filesystem::path> gt_dir;           // default: the dataset folder
  std::optional<std::filesystem::path> table_map;        // JSON {"sqlname": {"csv": "File.csv", "attributes": "key"}}
  std::string memory_limit = "4GB";
};

// A DuckDB memory size (`--memory-limit`): `[0-9]+(.[0-9]+)? ([KMGT]i?B|B|bytes)`, case-insensitive,
// spaces around allowed.
bool is_memory_size(std::string_view v);
// "" when `v` is a memory size, else the message the CLI's --memory-limit and the Python module give:
// "expected a size such as 4GB or 512MiB, got '<v>'".
std::string memory_size_error(const std::string& v);

// How one statement is scored.
struct EvalOptions {
  std::string primary_key;          // --primary-key (default: first non-id select column)
  double float_tolerance = 1e-4;    // |p-g| <= tol * max(1, |g|): absolute below |g| = 1, relative above
  std::string multi_sep = "||";
  double gold_timeout_s = 60;
  // A result.csv larger than this is not read: the statement scores 0 as a result error
  // (`--max-result-mb`; the gold tables of UDA-Bench are all under 1 MB).
  size_t max_result_bytes = size_t(64) << 20;
  size_t max_rows = 5'000'000;  // `--max-rows`: a gold query past this many rows fails (gold_error)
};

struct RunOptions {
  EvalOptions eval;
  DatasetOptions dataset;
  int jobs = 0;                 // worker threads; 0 = all cores
  int progress = -1;            // progress bar on stderr: -1 auto (TTY), 0 off, 1 on
  bool gold_as_result = false;  // `uda gold --as-result`: also write result.csv = gold with file-name ids
  // `uda run` --shard i/n: grades only the statements whose path (the run record's id,
  // <Dataset>/<Task>/<stem>/<n>) has shard_of(path, n) == i - 1 (docs/comparing-runs.md §5);
  // summary.json/.csv then cover only those. shard_count 0 = everything.
  int shard_index = 0, shard_count = 0;
  // --shard-by: "" or "id" splits by the path above; "db" by the dataset (its first part), so that one
  // shard holds every statement of its datasets (shard_of(dataset, n) == i - 1).
  std::string shard_by;
  // --now: the instant DuckDB's clock functions return (current_date, now(), CURRENT_TIMESTAMP, ...;
  // core/clock.hpp), a TIMESTAMP (ISO 8601, UTC unless it carries an offset); "" = the real clock.
  // Recorded in the run record as options.now.
  std::string now;
};

// The cell judge: the offline rules, or an OpenAI-compatible chat server (needs libcurl).
struct JudgeOptions {
  enum class Kind { Rules, Llm } kind = Kind::Rules;
  // "rules" | "llm"; anything else: InputError "--judge: x not in {rules,llm}" (the CLI's and Python's).
  static Kind kind_from_name(const std::string& name);
  // LLM: empty strings fall back to SQLGRADE_LLM_BASE_URL / _MODEL / _API_KEY.
  std::string base_url, model, api_key;
  std::string cache;     // SQLite answer cache; "" = $SQLGRADE_LLM_CACHE or ~/.cache/sqlgrade/llm-judge.sqlite; "none" = off
  int concurrency = 4, retries = 3;
  int max_tokens = 0;    // 0: 8 for YES/NO, 12 for counts
  int max_failures = 8;  // stop asking after this many failed calls in a row (0: never)
  double timeout_s = 60;
  std::string log;       // every judged question and its answer as JSON Lines ("" = none)
};

// Why a statement was not scored (RunEntry::error_kind). A result problem — result.csv unreadable
// or without a key column (kResultError), or absent (kMissingResult) — scores 0 and counts in every
// average; a gold problem (kGoldError: the SQL cannot run on the gold tables, or there is no SQL)
// leaves the statement out of the averages. See docs/uda.md, "Summary".
inline constexpr const char* kResultError = "result_error";
inline constexpr const char* kMissingResult = "missing_result";
inline constexpr const char* kGoldError = "gold_error";

// A statement's acc.json as built by `uda run` (defined internally; the run record reads it).
struct AccJson;

// One statement of a run.
struct RunEntry {
  std::string path;  // relative to the results root: <Dataset>/<Task>/<stem>/<n>
  std::string dataset, task, file_stem;
  int index = 0;
  std::string label, category, query_type;
  std::string status = "ok", reason;
  std::string error_kind;  // "" when ok, else kResultError / kMissingResult / kGoldError
  double macro_precision = 0, macro_recall = 0, macro_f1 = 0;
  size_t len_gold = 0, len_pred = 0, matched_rows = 0;
  size_t judge_questions = 0;
  std::shared_ptr<const AccJson> acc;  // `uda run`: the statement's acc.json; null when it has no SQL
};

// Counts and averages over a set of statements (a task, a dataset, a whole run). Every statement
// with a gold result is in the averages: scored ones with their macro values, result errors and
// missing results with 0. Gold errors are counted (and listed by the summary) but left out.
struct SummaryCounts {
  size_t statements = 0, scored = 0, result_errors = 0, missing_results = 0, gold_errors = 0;
  double sum_precision = 0, sum_recall = 0, sum_f1 = 0;  // over the scored statements
  void add(const RunEntry& e);
  void add(const SummaryCounts& o);
  size_t averaged_over() const { return scored + result_errors + missing_results; }
  // Headline: mean over averaged_over() (nullopt when it is 0).
  std::optional<double> precision() const, recall() const, f1() const;
  // Mean over the scored statements only (nullopt when none).
  std::optional<double> scored_precision() const, scored_recall() const, scored_f1() const;
};

struct DatasetSummary {
  std::string dataset;
  std::vector<RunEntry> queries;
  std::vector<std::string> load_notes;  // notes from loading the gold tables
  SummaryCounts counts() const;
};

// ---- `uda prepare` / `uda gold` ----
struct PrepareOptions {
  std::string dataset_dir;  // Query/<Dataset>, or Query/ for every dataset
  std::string out;          // <out>/<Dataset>/<Task>/<file stem>/<n>/
  bool with_gold = false;   // `gold`: also gold_result.csv per statement and gold_summary.json
  RunOptions run;
};
// Writes sql.json (and gold_result.csv) for every statement; one entry per statement (status error
// with the reason when the gold fails).
std::vector<DatasetSummary> prepare(const PrepareOptions& opt);
// What `uda prepare` / `uda gold` print: `gold` one line per gold error, its reason cut after the
// engine message's first sentence unless full_errors (`--list-errors`).
std::string render_prepare_text(const std::vector<DatasetSummary>& sums, bool with_gold, bool full_errors = false);

// ---- `uda eval`: one query ----
struct QueryOptions {
  std::string dataset_dir;             // the dataset folder, or:
  std::string dataset, query_root = "Query";  // <query_root>/<dataset>
  std::string sql_file;                // sql.json, or a .sql file (query_id picks one of its statements)
  int query_id = 0;                    // 1-based; 0 = the only statement
  std::string result_csv;              // default: result.csv beside sql_file
  std::string output_dir;              // default: <result dir>/acc_result
  RunOptions run;
  JudgeOptions judge;
};
struct QueryReport {
  bool ok = true;          // scored; otherwise `reason` says why (the statement scores 0)
  std::string error_kind;  // "" when ok, else kResultError / kMissingResult / kGoldError
  std::string reason;
  std::string acc_json;       // acc.json as written into output_dir
  std::string judge_summary;  // the LLM judge's one-line summary ("" for the rules judge)
};
// Evaluates one result.csv and writes acc.json, gold_result.csv, matched_result.csv and
// matched_gold_result.csv into the output folder. InputError for unusable inputs (no such file, a
// .sql file with several statements and no query_id, ...).
QueryReport evaluate_query(const QueryOptions& opt);

// ---- `uda run`: whole datasets ----
struct Options {
  std::string dataset_dir;  // Query/<Dataset>, or Query/ for every dataset
  std::string results;      // <results>/<Dataset>/<Task>/<file stem>/<n>/result.csv
  std::string name;         // the system's label in the run record (--name); empty: the results folder's name
  RunOptions run;
  JudgeOptions judge;
};
struct Run {
  std::vector<DatasetSummary> datasets;
  std::string judge_summary;  // the LLM judge's one-line summary ("" for the rules judge)
  std::string started_at;     // UTC, ISO 8601
  double wall_s = 0;
};
// Evaluates every statement of each dataset's query files (a statement without result.csv is a
// missing result; it still counts). Writes acc_result/ into every existing statement folder and
// summary.json / summary.csv per dataset.
Run evaluate(const Options& opt);
// What `uda run` prints: the summary table (one line per dataset and task, the whole run, a
// legend), the statements not scored (each one with list_errors, else a count line), the judge line.
std::string render_text(const Run& run, bool list_errors);
// Counts over the whole run (for --require-all: missing_results + result_errors).
SummaryCounts totals(const Run& run);

// The run record of `uda run` (docs/run-record.schema.json, docs/comparing-runs.md): summary = the
// printed table's numbers (per dataset and task, overall); one instance per statement, id = its path
// (Player/Agg/agg_queries/1), scores macro_f1 (primary) / macro_precision / macro_recall and the row
// P/R/F1 (none for a gold error: not graded), categories dataset and task, per-column P/R/F1, and the
// detail the "uda" summarizer rebuilds the table from. `command`: the invocation recorded.
std::string render_json(const Run& run, const Options& opt, const std::vector<std::string>& command = {});
// Registers the "uda" summarizer (`sqlgrade merge`). Idempotent.
void register_run_summarizer();

}  // namespace sqlgrade::uda
