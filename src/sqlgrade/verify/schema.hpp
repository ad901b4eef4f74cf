#pragma once
// What verification knows about a benchmark database: its declared schema (tables in foreign-key
// order, column types and affinities, NOT NULL, primary keys, UNIQUE sets, foreign keys, the DDL of
// tables, indexes, views and triggers) and a bounded sample of its rows with each column's value domain.
// Read once per database file through the engine's read-only SqliteDb and shared by all workers.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/core/table.hpp"

namespace sqlgrade::verify {

// SQLite's type affinity of a declared column type (datatype3.html §3.1).
enum class Affinity { Integer, Real, Numeric, Text, Blob };
Affinity affinity_of(const std::string& declared_type);

struct Column {
  std::string name, type;
  Affinity affinity = Affinity::Blob;
  bool notnull = false;
  int pk = 0;                  // 1-based position in the primary key, 0 = not in it
  bool single_unique = false;  // the column alone is a PRIMARY KEY or UNIQUE
  std::vector<Value> domain;   // distinct non-NULL values seen in the sample (bounded)
  // What the data shows in practice (read over at most kMinedRows rows of the table; witness.hpp):
  bool data_never_null = false;  // at least 3 rows and no NULL
  bool data_unique = false;      // not declared unique, yet its non-NULL values are all distinct, over at
                                 // least kUniqueNamingValues (or kUniqueLabelValues) values when it names
                                 // the table's rows (a name-like text column, or the table's label),
                                 // kUniqueValues otherwise
  bool data_closed = false;      // a category: at least 10 non-NULL values, all text, at most 3 distinct
                                 // (every one of them in `domain`): a flag, a status, a gender
};
constexpr size_t kMinedRows = 20000;
// How many all-distinct values make a column unique in practice (Column::data_unique; docs/verify.md
// "Which witnesses count"). A text column that names the table's rows — its name says so (a name, a
// title, the table's own name) or it is the table's label, its first text column after its keys
// (shop.Name, TV_series.Episode) — is unique by what it is: the data only has to show no repeat over 5
// values, or over 3 when it is the only thing that can name the rows (the table's only non-key text
// column and no text column declared unique: Charges.charge_type of a 3-row price list). Any other
// column — a number, a district, a city, a manager — needs 20: n values drawn from a domain of D are all
// distinct with probability about exp(-n*n/2D), over one half for 9 districts out of a country's 60, so
// few distinct values there are what chance gives, not a property (Spider dev 293: two shops in one of
// 9 districts is ordinary).
constexpr size_t kUniqueLabelValues = 3;
constexpr size_t kUniqueNamingValues = 5;
constexpr size_t kUniqueValues = 20;

struct ForeignKey {
  std::vector<size_t> columns;       // in the child table
  size_t parent = SIZE_MAX;          // index in Schema::tables, SIZE_MAX = parent table unknown
  std::vector<size_t> parent_columns;
};

struct TableInfo {
  std::string name, create_sql;
  std::vector<Column> columns;
  std::vector<std::vector<size_t>> unique_sets;  // primary key and UNIQUE constraints/indexes
  std::vector<ForeignKey> fks;
  std::vector<Row> sample;  // the first rows of the table (bounded), in rowid order
  size_t total_rows = 0;
  std::vector<std::string> column_names() const;
};

// A column named as what names an entity: its name holds "name" or "title", or it is the table's own
// name (airlines.Airline, battle.battle).
bool name_like(const TableInfo& ti, const Column& c);

struct Schema {
  std::string path;                     // the benchmark database it was read from
  std::string version;                  // which file was there (core/fs.hpp file_version)
  std::vector<TableInfo> tables;        // parents before children (cycles broken in file order)
  std::vector<std::string> after_ddl;   // CREATE INDEX / CREATE VIEW statements, in file order
  // The schema's triggers (docs/verify.md "Constraints the witness keeps"): those whose body only
  // SELECTs (a conditional RAISE: they refuse rows, never write) are created with the schema and refuse
  // candidate rows as the benchmark database would; the others (they write) are left out of the search
  // and a witness is re-validated with them before it is reported (load.hpp revalidate).
  std::vector<std::string> guard_triggers, writing_triggers;
  bool fk_enforced = true;              // false when a declared foreign key cannot be enforced by SQLite
  bool deferred_fks = false;            // a foreign key may be DEFERRABLE INITIALLY DEFERRED: each row
                                        // is checked as it is loaded (load.hpp), not only at COMMIT
  std::string fk_note;                  // why not
};

// True when every statement of a trigger's body (between BEGIN and END) is a SELECT: the trigger can
// refuse a row (RAISE) but never writes. Conservative: anything it cannot read counts as writing.
bool trigger_only_selects(const std::string& create_trigger_sql);

class ScratchDb;
// Creates the schema's tables, indexes, views and guard triggers in `db` (foreign keys enforced when
// they can be); with `writing_triggers` also the triggers that write (a re-validation, or a written
// counterexample once its rows are in).
void create_schema(ScratchDb& db, const Schema& s, bool writing_triggers = false);
void create_writing_triggers(ScratchDb& db, const Schema& s);

// Reads the schema and a sample of at most `sample_rows` rows per table (InputError if unreadable).
std::shared_ptr<const Schema> read_schema(const std::string& db_path, size_t sample_rows = 400);
// The same, kept per (path, sample_rows) as an item of the engine's SqlitePool, within its byte bound
// (cache.cpp).
std::shared_ptr<const Schema> schema_of(const std::string& db_path, size_t sample_rows = 400);

}  // namespace sqlgrade::verify
