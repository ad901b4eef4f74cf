#pragma once
// The Benchmark contract: what every benchmark folder (spider/, bird/, spider2/) implements once, in its
// own bench.cpp, and what verdict/, serve/, verify/ and the binding hold instead of switching on a
// benchmark name (docs/architecture.md, "How to add a benchmark"). It sits here, below the benchmark
// folders, so that they can implement it; the registry that lists them (verdict/registry.hpp) sits
// above them.
//
// One object per benchmark, immutable, shared by every thread: a `const Benchmark&` is the handle a
// request carries from its parsing to its verdict (no name <-> enum conversions on the way).
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade {

// One check's result is a sqlgrade::Outcome (include/sqlgrade/outcome.hpp, via verdict.hpp): the same
// type for every benchmark and every caller.

// A gold result in the form its benchmark compares (its alternatives as tables, or as Spider 2.0
// frames), built once per gold and kept by the caller's cache. heap_bytes: what the form holds on the
// heap, for the cache's byte bound.
class GoldForm {
 public:
  virtual ~GoldForm() = default;
  virtual size_t heap_bytes() const = 0;
};
using GoldFormPtr = std::shared_ptr<const GoldForm>;

// What the check of one rollout reads besides the two results (the request's comparison options).
struct CheckItem {
  std::string_view instance_id;
  bool ignore_order = true;
  const nlohmann::json* condition_cols = nullptr;  // null: none
  bool from_gold_sql = false;                      // the gold is one gold SQL's result
  std::optional<bool> single_file;                 // the request's gold_single_file
};

// A benchmark's official gold folder (Spider 2.0-Lite: spider2lite_eval.jsonl and exec_result/), read
// once by the benchmark's own reader (Benchmark::official_gold): per instance, the comparison options
// the official script uses and the gold results in check()'s form. Immutable, shared by every thread.
class OfficialGold {
 public:
  virtual ~OfficialGold() = default;
  virtual size_t size() const = 0;  // instances in the folder's eval file
  virtual bool has(const std::string& id) const = 0;
  // The instance's official comparison options into `item` (its condition_cols points into this
  // object). `id` must be one that has() accepts.
  virtual void check_options(const std::string& id, CheckItem& item) const = 0;
  // The instance's gold in check()'s form, or why it cannot be read (transient: it may read later, an
  // I/O error or a full file table; the caller does not keep that failure).
  struct Read {
    GoldFormPtr form;
    std::string error;
    bool transient = false;
  };
  virtual Read read(const std::string& id) const = 0;
};

// The counterexample search (verify/): which official rule decides "same result" (each is the
// benchmark's own function, never a copy), and one instance to search.
enum class SearchRule {
  SpiderTestSuite,  // spider::result_eq: bag of rows, column permutation, order when the gold has ORDER BY
  BirdSet,          // bird::ex_match: set(pred rows) == set(gold rows)
  Spider2Columns,   // spider2::compare_frames: column vectors, condition_cols, ignore_order
};
struct SearchRuleSpec {
  SearchRule rule = SearchRule::BirdSet;
  bool order_matters = false;       // Spider: the (rewritten) gold contains "order by"
  nlohmann::json condition_cols;    // Spider 2.0: the resolved per-alternative value
  bool ignore_order = false;        // Spider 2.0
};
struct SearchItem {
  std::string id;       // the instance id (for messages and file names)
  std::string db_path;  // the benchmark database (opened read-only)
  std::string gold_sql, pred_sql;  // exactly as the benchmark executes them (after its rewrites)
  SearchRuleSpec rule;
};
// The queries and options a search item is made of (before the benchmark's rewrites).
struct SearchQuery {
  const std::string& gold_sql;
  const std::string& pred_sql;
  bool keep_distinct = false;                      // Spider
  bool ignore_order = true;                        // Spider 2.0
  const nlohmann::json* condition_cols = nullptr;  // Spider 2.0 (null: none)
};

// Where a database id was found in a folder: its path, else why the folder cannot serve it (empty
// both: no file for the id).
struct Located {
  std::string path, error;
};

// The two database layouts: <root>/<id>/<id>.sqlite (a folder per database: Spider, BIRD) and
// <root>/<id>.sqlite (a flat folder: Spider 2.0-Lite).
enum class DbLayout { Nested, Flat };

class Benchmark {
 public:
  virtual ~Benchmark() = default;

  // ---- names ----
  virtual const char* name() const = 0;  // the canonical name: spider2 | spider | bird
  // Other names a request or flag may give, lower case (the name itself excluded).
  virtual const std::vector<std::string>& aliases() const;  // default: none

  // ---- databases ----
  // The SQLite file of database `id` under `root`, in the benchmark's own layout.
  virtual DbLayout layout() const = 0;
  std::string database(const std::string& root, const std::string& id) const;
  // The reward server's lookup of a db_id in its folder: the benchmark's layout first, then the
  // other one (benchmark.cpp); Spider overrides it (a test suite needs its own folder).
  virtual Located locate(const std::filesystem::path& dir, const std::string& id) const;
  // The serve flags that name this benchmark's database folder (for the message of a server without one).
  virtual const char* folder_flags() const = 0;
  // A database folder (a test suite) is accepted as the database of a request (Spider).
  virtual bool grades_folders() const { return false; }
  // A request may set the test-suite evaluator's plug_value and keep_distinct (Spider).
  virtual bool has_test_suite_options() const { return false; }
  // A PostgreSQL / MySQL database is accepted (BIRD).
  virtual bool grades_servers() const { return false; }

  // ---- one rollout ----
  // The official gold folder of --spider2-gold-dir can be a request's gold (Spider 2.0).
  virtual bool has_official_gold() const { return false; }
  // That folder, read once with the benchmark's own reader (the CLI's: the same eval-file rules and gold
  // file names); InputError when it lacks what it needs. Only called when has_official_gold().
  virtual std::unique_ptr<const OfficialGold> official_gold(const std::string& dir) const;
  // `order: top_level` applies (Spider 2.0).
  virtual bool has_order_rule() const { return false; }
  // A JSON boolean of gold_result as Python's value: text "True"/"False" (Spider 2.0's CSV) or 1/0.
  virtual Value bool_cell(bool b) const { return Value::integer(b ? 1 : 0); }
  // The prediction as the benchmark executes it against a gold result (Spider's rewrites).
  virtual std::string sql_as_run(const std::string& sql) const { return sql; }
  // The gold's result tables (its alternatives) in the form check() compares, within `deadline`
  // (DeadlineExceeded passes through); std::exception with the reason when the result cannot be read.
  virtual GoldFormPtr gold_form(std::vector<Table> tables, const Deadline& deadline = {}) const = 0;
  // ONE check: the prediction's result against the gold, by the benchmark's rule: Equal or Different
  // with its detail; DeadlineExceeded passes through (the caller scores a timeout).
  virtual Outcome check(const CheckItem& item, const GoldForm& gold, const Table& pred,
                        const Deadline& deadline) const = 0;

  // ---- runs ----
  // Registers the benchmark's summarizer of run records (runs::register_summarizer): `sqlgrade merge`
  // rebuilds the printed table of a sharded run from its instances (record.cpp of each folder).
  virtual void register_run_summarizer() const = 0;

  // ---- the counterexample search ----
  // The search item of a matched pair, queries as the benchmark executes them; "" or why it cannot be
  // searched. Sets item.gold_sql, pred_sql and rule (the caller sets id and db_path).
  virtual std::string search_item(const SearchQuery& q, SearchItem& item) const = 0;
};

// The two layouts as paths (DbLayout); every database path of a benchmark is spelled by one of them.
std::string nested_database(const std::string& root, const std::string& id);
std::string flat_database(const std::string& root, const std::string& id);

// The tables form of a gold (Spider, BIRD): its alternatives' result tables.
struct TablesGold final : GoldForm {
  std::vector<Table> tables;
  size_t heap_bytes() const override;
};

}  // namespace sqlgrade
