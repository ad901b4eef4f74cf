#include "sqlgrade/uda/dataset.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <cmath>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/json.hpp"
#include "sqlgrade/py/number.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;

bool is_na_token(std::string_view s) {
  static const char* tokens[] = {"",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                                 "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",   "NULL",    "NaN",  "None",
                                 "n/a",  "nan",  "null"};
  for (const char* t : tokens)
    if (s == t) return true;
  return false;
}

namespace {

// Fuzzy table-name relation: equal ignoring case, or one a prefix/suffix of the other (>= 4 chars).
int name_affinity(const std::string& a_in, const std::string& b_in) {
  std::string a = to_lower(a_in), b = to_lower(b_in);
  if (a == b) return 3;
  if (a.size() < 4 || b.size() < 4) return 0;
  auto starts = [](const std::string& x, const std::string& p) { return x.compare(0, p.size(), p) == 0; };
  auto ends = [](const std::string& x, const std::string& p) {
    return x.size() >= p.size() && x.compare(x.size() - p.size(), p.size(), p) == 0;
  };
  if (starts(a, b) || starts(b, a)) return 2;
  if (ends(a, b) || ends(b, a)) return 1;
  return 0;
}

// Picks the best candidate by affinity; unique best with affinity > 0, or the only candidate.
template <class T, class Name>
const T* best_match(const std::string& want, const std::vector<T>& cands, Name name_of) {
  const T* best = nullptr;
  int best_score = 0, ties = 0;
  for (auto& c : cands) {
    int s = name_affinity(want, name_of(c));
    if (s > best_score) {
      best = &c;
      best_score = s;
      ties = 1;
    } else if (s == best_score && s > 0) {
      ++ties;
    }
  }
  if (best && ties == 1) return best;
  if (cands.size() == 1) return &cands[0];
  return nullptr;
}

std::string file_stem_id(const std::string& v) {
  std::string s = v;
  auto slash = s.find_last_of('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  auto dot = s.find_last_of('.');
  if (dot != std::string::npos) s = s.substr(0, dot);
  return s;
}

}  // namespace

std::string dataset_name(const fs::path& dir) {
  std::string name = fs::absolute(dir).lexically_normal().filename().string();
  if (name.empty()) name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
  return name;
}

std::vector<IoPath> dataset_inputs(const fs::path& dir, const DatasetOptions& opt) {
  // The query files (in the task folders), the gold tables and the attributes (in the dataset folder).
  std::vector<IoPath> in{{dir, "--dataset-dir", {".sql"}}};
  in.push_back({opt.gt_dir ? *opt.gt_dir : dir, opt.gt_dir ? "--gt-dir" : "--dataset-dir", {".csv"}, false});
  if (opt.attributes_file) in.push_back({*opt.attributes_file, "--attributes-file"});
  else in.push_back({dir, "--dataset-dir", {"_attributes.json"}, false});
  if (opt.table_map) in.push_back({*opt.table_map, "--table-map"});
  return in;
}

Dataset::Dataset(const fs::path& dir, const DatasetOptions& opt) : dir_(dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string(), "dataset folder not found");
  name_ = dataset_name(dir);
  fs::path gt = opt.gt_dir ? *opt.gt_dir : dir;
  if (!fs::is_directory(gt, ec)) throw InputError(gt.string(), "gold table folder not found");

  // attributes
  fs::path attr_file;
  if (opt.attributes_file) {
    attr_file = *opt.attributes_file;
  } else {
    std::vector<fs::path> cands;
    for (auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename().string().size() > 16 &&
          e.path().filename().string().ends_with("_attributes.json"))
        cands.push_back(e.path());
    std::sort(cands.begin(), cands.end());
    if (cands.empty()) throw InputError(dir.string(), "no *_attributes.json in the dataset folder");
    attr_file = cands[0];
  }
  load_attributes(attr_file);

  // mapping overrides
  if (opt.table_map) {
    json m;
    try {
      const std::string text = read_file(*opt.table_map);
      check_json_depth(text, opt.table_map->string());
      m = json::parse(text);
    } catch (const json::exception& e) {
      throw InputError(opt.table_map->string(), std::string("invalid JSON: ") + e.what());
    }
    if (!m.is_object()) throw InputError(opt.table_map->string(), "expected a JSON object {sql_name: {csv, attributes}}");
    for (auto& [k, v] : m.items()) {
      if (!v.is_object()) throw InputError(opt.table_map->string(), "entry '" + k + "' must be an object");
      for (const char* f : {"csv", "attributes"})
        if (v.contains(f) && !v[f].is_string())
          throw InputError(opt.table_map->string(), "entry '" + k + "': \"" + f + "\" must be a string");
      std::string csv = v.value("csv", ""), attrs = v.value("attributes", "");
      table_map_[to_lower(k)] = {fs::path(csv).stem().string(), attrs};
    }
  }

  std::vector<fs::path> csvs;
  for (auto& e : fs::directory_iterator(gt))
    if (e.is_regular_file() && e.path().extension() == ".csv") csvs.push_back(e.path());
  std::sort(csvs.begin(), csvs.end());
  if (csvs.empty()) throw InputError(gt.string(), "no gold CSV tables in the folder");

  DuckOptions dopt;
  dopt.memory_limit = opt.memory_limit;
  db_ = std::make_unique<DuckDb>(dopt);
  auto conn = db_->connect();
  for (auto& p : csvs) {
    GoldTable t;
    t.csv = p;
    t.stem = p.stem().string();
    // attribute key for this CSV: a mapping entry naming the CSV wins, then fuzzy name rules
    for (auto& [sqlname, target] : table_map_)
      if (iequals(target.first, t.stem) && !target.second.empty()) t.attr_key = target.second;
    if (t.attr_key.empty()) {
      if (auto* k = best_match(t.stem, attr_keys_, [](const std::string& s) { return s; })) {
        // with several CSVs, the single-candidate fallback must not glue unrelated names
        if (attr_keys_.size() == 1 || name_affinity(t.stem, *k) > 0) t.attr_key = *k;
      }
    }
    tables_.push_back(std::move(t));
  }
  if (tables_.size() > 1 && attr_keys_.size() == 1) {
    // one attribute table for several CSVs: give it only to a name-matching CSV
    for (auto& t : tables_)
      if (name_affinity(t.stem, attr_keys_[0]) == 0) t.attr_key.clear();
  }
  for (auto& t : tables_) load_table(t, *conn);
}

void Dataset::load_attributes(const fs::path& file) {
  json j;
  try {
    const std::string text = read_file(file);
    check_json_depth(text, file.string());
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(file.string(), std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(file.string(), "expected an object {table: {column: {value_type, description}}}");
  for (auto& [table, cols] : j.items()) {
    if (!cols.is_object()) throw InputError(file.string(), "table '" + table + "' must map to an object of columns");
    attr_keys_.push_back(table);
    auto& list = attrs_[table];
    for (auto& [col, meta] : cols.items()) {
      Attribute a;
      a.table_key = table;
      a.name = col;
      if (meta.is_object()) {
        if (meta.contains("value_type") && meta["value_type"].is_string()) a.value_type = meta["value_type"];
        if (meta.contains("description") && meta["description"].is_string()) a.description = meta["description"];
      }
      if (a.value_type == "multi-str") a.value_type = "multi_str";
      list.push_back(a);
    }
  }
}

namespace {

using Notes = std::vector<std::string>;
using Attributes = std::vector<Attribute>;

// The columns with a real header (a blank or pandas' "Unnamed: N" header is dropped): their indexes in
// the CSV and their trimmed names.
void header_columns(const CsvData& csv, const std::string& file, Notes& notes, std::vector<size_t>& keep,
                    std::vector<std::string>& names) {
  for (size_t c = 0; c < csv.header.size(); ++c) {
    std::string h = trim(csv.header[c]);
    if (h.empty() || h.rfind("Unnamed", 0) == 0) {
      notes.push_back(file + ": dropped column " + std::to_string(c + 1) + " without a header");
      continue;
    }
    keep.push_back(c);
    names.push_back(h);
  }
}

// A column named as the plural or singular of an attribute that has no column of its own takes the
// attribute's name (the first such column, unless it is itself an attribute).
void rename_towards_attributes(std::vector<std::string>& names, const Attributes& attrs, const std::string& file,
                               Notes& notes) {
  for (auto& a : attrs) {
    bool present = std::any_of(names.begin(), names.end(), [&](auto& n) { return iequals(n, a.name); });
    if (present) continue;
    for (auto& n : names) {
      bool is_attr = std::any_of(attrs.begin(), attrs.end(), [&](auto& b) { return iequals(b.name, n); });
      if (!is_attr && (iequals(n + "s", a.name) || iequals(n, a.name + "s"))) {
        notes.push_back(file + ": column '" + n + "' renamed to attribute '" + a.name + "'");
        n = a.name;
        break;
      }
    }
  }
}

// The kept cells: an NA token is NULL, anything else cleaned text.
std::vector<Row> gold_cells(const CsvData& csv, const std::vector<size_t>& keep) {
  std::vector<Row> rows;
  rows.reserve(csv.rows.size());
  for (auto& r : csv.rows) {
    Row row;
    row.reserve(keep.size());
    for (size_t c : keep) {
      const std::string& f = r[c];
      if (is_na_token(f)) row.push_back(Value::null());
      else row.push_back(Value::text(judge::clean_cell(f)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Without an id column, the first file-name column gives one (the file's stem).
void derive_id(std::vector<std::string>& names, std::vector<Row>& rows, const std::string& file, Notes& notes) {
  if (std::any_of(names.begin(), names.end(), [](auto& n) { return iequals(n, "id"); })) return;
  for (size_t c = 0; c < names.size(); ++c) {
    std::string l = to_lower(names[c]);
    if (l.find("filename") != std::string::npos || l.find("file_name") != std::string::npos) {
      names.push_back("id");
      for (auto& row : rows) row.push_back(row[c].is_null() ? Value::null() : Value::text(file_stem_id(row[c].s)));
      notes.push_back(file + ": no id column; id derived from '" + names[c] + "'");
      return;
    }
  }
}

// Gold rows without an id, and ids on several rows, are reported once here (gold_summary.json,
// summary.json) rather than as a warning on every query that returns them.
void note_ids(const std::vector<std::string>& names, const std::vector<Row>& rows, const std::string& file,
              Notes& notes) {
  for (size_t c = 0; c < names.size(); ++c) {
    if (!iequals(names[c], "id")) continue;
    size_t no_id = 0;
    std::map<std::string, size_t> seen;
    for (auto& row : rows) {
      if (row[c].is_null() || row[c].s.empty()) ++no_id;
      else seen[judge::canonical_key(row[c].s)]++;
    }
    if (no_id)
      notes.push_back(file + ": " + std::to_string(no_id) + " rows without an id (in a result they can only match rows " +
                      "whose id is empty)");
    std::vector<std::string> dups;
    for (auto& [id, n] : seen)
      if (n > 1) dups.push_back(id + " (" + std::to_string(n) + " rows)");
    if (!dups.empty())
      notes.push_back(file + ": " + std::to_string(dups.size()) + " id(s) on several rows: " + join(dups, ", ") +
                      " (matched inside each id by the primary key)");
    return;
  }
}

// The value_type of the attribute named `name` (the last one listed), "" when there is none.
std::string declared_type(const Attributes* attrs, const std::string& name) {
  std::string vt;
  if (attrs)
    for (auto& a : *attrs)
      if (iequals(a.name, name)) vt = a.value_type;
  return vt;
}

// Column c's SQL type: BIGINT when every non-NULL cell is a whole number (|x| <= 9e15), DOUBLE when
// every one is a finite number (read leniently — "$1,200", "12%" — when the attribute is declared
// int or float, else as Python's float()), else VARCHAR; an empty cell keeps the column textual.
// A numeric column's cells are converted in place.
std::string type_column(std::vector<Row>& rows, size_t c, bool declared_numeric) {
  auto number = [&](const std::string& s) { return declared_numeric ? judge::lenient_number(s) : py::parse_float(s); };
  bool all_int = true, all_num = true, any = false;
  for (auto& row : rows) {
    const Value& v = row[c];
    if (v.is_null()) continue;
    if (v.s.empty()) {  // whitespace-only cell: keeps the column textual
      all_int = all_num = false;
      break;
    }
    any = true;
    std::optional<double> d = number(v.s);
    if (!d || std::isnan(*d) || std::isinf(*d)) {
      all_int = all_num = false;
      break;
    }
    if (*d != std::floor(*d) || std::fabs(*d) > 9e15) all_int = false;
  }
  if (!any || (!all_int && !all_num)) return "VARCHAR";
  const std::string type = all_int ? "BIGINT" : "DOUBLE";
  for (auto& row : rows) {
    Value& v = row[c];
    if (v.is_null()) continue;
    double d = *number(v.s);
    v = type == "BIGINT" ? Value::integer(static_cast<int64_t>(d)) : Value::real(d);
  }
  return type;
}

}  // namespace

void Dataset::load_table(GoldTable& t, DuckConn& conn) {
  CsvData csv = read_csv_file(t.csv.string());
  const std::string file = t.csv.filename().string();
  const Attributes* attrs = t.attr_key.empty() ? nullptr : &attrs_[t.attr_key];
  std::vector<size_t> keep;
  std::vector<std::string> names;
  header_columns(csv, file, notes_, keep, names);
  if (attrs) rename_towards_attributes(names, *attrs, file, notes_);
  std::vector<Row> rows = gold_cells(csv, keep);
  derive_id(names, rows, file, notes_);
  note_ids(names, rows, file, notes_);
  std::vector<std::string> types(names.size(), "VARCHAR");
  for (size_t c = 0; c < names.size(); ++c) {
    const std::string vt = declared_type(attrs, names[c]);
    types[c] = type_column(rows, c, vt == "int" || vt == "float");
  }
  for (size_t c = 0; c < names.size(); ++c) {
    const std::string vt = declared_type(attrs, names[c]);
    if (attrs && (vt == "int" || vt == "float") && types[c] == "VARCHAR")
      notes_.push_back(file + ": " + vt + " attribute '" + names[c] + "' has non-numeric cells; loaded as text");
  }
  try {
    conn.load_table(t.stem, names, types, rows);
  } catch (const std::exception& e) {
    throw InputError(t.csv.string(), e.what());
  }
  t.columns = names;
  t.types = types;
  t.rows = rows.size();
}

const GoldTable* Dataset::resolve(const std::string& sql_name) const {
  auto it = table_map_.find(to_lower(sql_name));
  if (it != table_map_.end()) {
    for (auto& t : tables_)
      if (iequals(t.stem, it->second.first)) return &t;
    return nullptr;
  }
  for (auto& t : tables_)
    if (iequals(t.stem, sql_name)) return &t;
  // through the attribute key: sql name ~ attribute key ~ csv
  for (auto& t : tables_)
    if (!t.attr_key.empty() && iequals(t.attr_key, sql_name)) return &t;
  const GoldTable* m = best_match(sql_name, tables_, [](const GoldTable& t) { return t.stem; });
  if (m && (tables_.size() == 1 || name_affinity(sql_name, m->stem) > 0)) return m;
  for (auto& t : tables_)
    if (!t.attr_key.empty() && name_affinity(sql_name, t.attr_key) > 0) return &t;
  return nullptr;
}

const Attribute* Dataset::attribute(const std::string& sql_table, const std::string& column) const {
  const GoldTable* t = resolve(sql_table);
  if (!t || t->attr_key.empty()) return nullptr;
  auto it = attrs_.find(t->attr_key);
  if (it == attrs_.end()) return nullptr;
  for (auto& a : it->second)
    if (iequals(a.name, column)) return &a;
  return nullptr;
}

const Attribute* Dataset::attribute_any(const std::string& column) const {
  for (auto& k : attr_keys_)
    for (auto& a : attrs_.at(k))
      if (iequals(a.name, column)) return &a;
  return nullptr;
}

bool Dataset::has_column(const GoldTable& t, const std::string& column) const {
  return std::any_of(t.columns.begin(), t.columns.end(), [&](auto& c) { return iequals(c, column); });
}

std::vector<std::string> Dataset::ensure_names(const std::vector<std::string>& sql_names) {
  std::vector<std::string> missing;
  std::lock_guard<std::mutex> lk(names_mu_);
  std::unique_ptr<DuckConn> conn;
  for (auto& n : sql_names) {
    std::string key = to_lower(n);
    if (names_done_.count(key)) continue;
    const GoldTable* t = resolve(n);
    if (!t) {
      missing.push_back(n);
      continue;
    }
    if (!iequals(t->stem, n)) {
      if (!conn) conn = db_->connect();
      conn->run("CREATE VIEW IF NOT EXISTS " + duck_ident(key) + " AS SELECT * FROM " + duck_ident(t->stem));
    }
    names_done_.insert(key);
  }
  return missing;
}

}  // namespace sqlgrade::uda
