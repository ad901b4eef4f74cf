#pragma once
// A UDA-Bench dataset folder (Query/<Dataset>/): gold tables (*.csv), attribute descriptions
// (*_attributes.json) and query files (<Task>/*.sql). Loads the gold tables into an in-memory DuckDB:
//   - cells: pandas' default NA tokens (and empty fields) become NULL; every other cell is cleaned
//     (`||` → ` || `, whitespace collapsed, trimmed; whitespace-only → '');
//   - types: int/float attributes become BIGINT/DOUBLE when every non-null cell parses (thousands
//     separators allowed), other columns become numeric only when every non-null cell is a plain
//     number (pandas-like inference), otherwise VARCHAR — never BOOLEAN or DATE sniffing;
//   - columns with an empty or "Unnamed…" header are dropped; a CSV column that differs from an
//     attribute of its table only by a plural "s" is renamed to the attribute (team.championship);
//   - a table without an `id` column gets one from a file-name column (pdf_filename minus extension).
// SQL table names are resolved to CSV files and attribute keys even when they differ
// (finance ↔ Finan.csv, cspaper ↔ paper, legal ↔ legal_case, case differences); a mapping file
// overrides the rules.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/uda.hpp"

namespace sqlgrade::uda {

namespace fs = std::filesystem;

struct Attribute {
  std::string table_key;  // top-level key in *_attributes.json
  std::string name;
  std::string value_type = "str";  // int, float, str, multi_str (multi-str accepted)
  std::string description;
};

struct GoldTable {
  std::string stem;       // CSV file stem, also the DuckDB table name
  fs::path csv;
  std::string attr_key;   // attributes JSON key ("" when none matched)
  std::vector<std::string> columns;
  std::vector<std::string> types;  // BIGINT / DOUBLE / VARCHAR
  size_t rows = 0;
};

// A dataset's name: its folder's name (Query/Shop/ → Shop).
std::string dataset_name(const fs::path& dir);
// What a dataset reads (query files, gold tables, attributes, table map), for the check that no
// output replaces an input (core/fs.hpp check_outputs_spare_inputs).
std::vector<IoPath> dataset_inputs(const fs::path& dir, const DatasetOptions& opt);

// DatasetOptions is public (include/sqlgrade/uda.hpp).
class Dataset {
 public:
  // Throws InputError for a missing folder, no CSV, unreadable/malformed CSV or attributes JSON.
  Dataset(const fs::path& dir, const DatasetOptions& opt = {});
  const std::string& name() const { return name_; }
  const fs::path& dir() const { return dir_; }
  const std::vector<GoldTable>& tables() const { return tables_; }
  const std::vector<std::string>& load_notes() const { return notes_; }

  // Resolve a SQL table name to its gold table, or nullptr.
  const GoldTable* resolve(const std::string& sql_name) const;
  // Attribute of `column` in the table the SQL calls `sql_table` (nullptr if unknown).
  const Attribute* attribute(const std::string& sql_table, const std::string& column) const;
  // Attribute of `column` in any table (first in attributes-file order), or nullptr.
  const Attribute* attribute_any(const std::string& column) const;
  // Does the gold table have this column (case-insensitive)?
  bool has_column(const GoldTable& t, const std::string& column) const;

  // Makes every SQL name usable in queries (views over the CSV tables). Returns names that do not
  // resolve. Thread-safe.
  std::vector<std::string> ensure_names(const std::vector<std::string>& sql_names);
  // A new DuckDB connection over the loaded tables (one per thread).
  std::unique_ptr<DuckConn> connect() { return db_->connect(); }

 private:
  void load_attributes(const fs::path& file);
  void load_table(GoldTable& t, DuckConn& conn);
  std::string name_;
  fs::path dir_;
  std::vector<GoldTable> tables_;
  std::vector<std::string> attr_keys_;  // in file order
  std::map<std::string, std::vector<Attribute>> attrs_;  // by key
  std::map<std::string, std::pair<std::string, std::string>> table_map_;  // lower sql name -> (csv stem, attr key)
  std::vector<std::string> notes_;
  std::unique_ptr<DuckDb> db_;
  std::mutex names_mu_;
  std::set<std::string> names_done_;
};

// True for pandas' default NA strings ("", "NA", "N/A", "null", "NULL", "NaN", "nan", "None", ...).
bool is_na_token(std::string_view s);

}  // namespace sqlgrade::uda
