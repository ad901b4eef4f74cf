#pragma once
// Schemas for the Spider parser and evaluator.
//  * Evaluator schema: read from the SQLite catalogue exactly as evaluation.py's get_schema does
//    (sqlite_master tables incl. sqlite_sequence, PRAGMA table_info, lower-cased); symbols are the
//    official idMap strings "__all__", "__t.c__", "__t__".
//  * Dataset schema (`spider parse`): from a tables.json entry (table_names_original,
//    column_names_original) with tables.json indices as ids, as the dataset's own preprocessing.
//  * Foreign-key map from tables.json (build_foreign_key_map: first-matching-group, not union-find).
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/spider/sql.hpp"

namespace sqlgrade::spider {

using CatalogueTables = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Evaluator schema from (table, columns) pairs in catalogue order (names are lower-cased here).
SpiderSchema schema_from_catalogue(const CatalogueTables& tables);
// Reads the catalogue of a SQLite file read-only. Throws InputError naming the file.
CatalogueTables read_sqlite_catalogue(const std::string& path);

// Dataset-format schema from one tables.json entry.
SpiderSchema dataset_schema(const nlohmann::json& entry);

// build_foreign_key_map: "__t.c__" → canonical "__t.c__".
std::vector<std::pair<std::string, std::string>> foreign_key_pairs(const nlohmann::json& entry);

// tables.json → entries by db_id. Throws InputError on unreadable / malformed files.
std::unordered_map<std::string, nlohmann::json> load_tables_json(const std::string& path);

// Everything the evaluator needs about one database.
struct DbInfo {
  std::string db_id;
  SpiderSchema schema;
  size_t n_idmap = 0;              // symbols [0, n_idmap) are idMap values
  std::vector<std::string> prefix; // per symbol: text before the first '.', "" when there is none
  std::unordered_map<int, int> kmap;  // foreign-key canonicalisation on symbol ids
  // Interns a symbol (used for foreign-key targets that the SQLite schema lacks).
  int intern(const std::string& name);
};

// Builds a DbInfo from the catalogue and (optionally) the tables.json entry for the foreign keys.
std::shared_ptr<DbInfo> make_db_info(const std::string& db_id, const CatalogueTables& tables,
                                     const nlohmann::json* tables_entry);

}  // namespace sqlgrade::spider
