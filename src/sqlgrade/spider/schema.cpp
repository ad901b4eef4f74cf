#include "sqlgrade/spider/schema.hpp"

#include <algorithm>
#include <set>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::spider {

bool SpiderSchema::has_column(int table_pos, const std::string& col) const {
  const auto& cols = table_columns[static_cast<size_t>(table_pos)];
  return std::find(cols.begin(), cols.end(), col) != cols.end();
}

namespace {

// Python dict semantics for schema[table] = cols: first insertion fixes the key order, the last
// assignment wins.
void add_table(SpiderSchema& s, const std::string& name, std::vector<std::string> cols) {
  auto it = s.table_index.find(name);
  if (it != s.table_index.end()) {
    s.table_columns[static_cast<size_t>(it->second)] = std::move(cols);
    return;
  }
  s.table_index.emplace(name, static_cast<int>(s.table_names.size()));
  s.table_names.push_back(name);
  s.table_columns.push_back(std::move(cols));
}

}  // namespace

SpiderSchema schema_from_catalogue(const CatalogueTables& tables) {
  SpiderSchema s;
  for (const auto& [t, cols] : tables) {
    std::vector<std::string> lc;
    lc.reserve(cols.size());
    for (const auto& c : cols) lc.push_back(to_lower(c));
    add_table(s, to_lower(t), std::move(lc));
  }
  std::unordered_map<std::string, int> sym;
  auto intern = [&](const std::string& name) {
    auto it = sym.find(name);
    if (it != sym.end()) return it->second;
    int id = static_cast<int>(s.names.size());
    s.names.push_back(name);
    sym.emplace(name, id);
    return id;
  };
  s.id_map["*"] = intern("__all__");
  for (size_t i = 0; i < s.table_names.size(); ++i)
    for (const auto& c : s.table_columns[i]) {
      std::string key = s.table_names[i] + "." + c;
      s.id_map[key] = intern("__" + key + "__");
    }
  for (const auto& t : s.table_names) s.id_map[t] = intern("__" + t + "__");
  return s;
}

CatalogueTables read_sqlite_catalogue(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(path, "database file not found");
  auto db = SqlitePool::lease(path, SqliteOptions{});
  CatalogueTables out;
  for (const auto& t : db->table_names()) out.emplace_back(t, db->column_names(t));
  return out;
}

SpiderSchema dataset_schema(const nlohmann::json& entry) {
  SpiderSchema s;
  const auto& cols = entry.at("column_names_original");
  const auto& tabs = entry.at("table_names_original");
  for (size_t i = 0; i < tabs.size(); ++i) {
    std::vector<std::string> cs;
    for (const auto& c : cols)
      if (c.at(0).get<long>() == static_cast<long>(i)) cs.push_back(to_lower(c.at(1).get<std::string>()));
    add_table(s, to_lower(tabs[i].get<std::string>()), std::move(cs));
  }
  for (size_t i = 0; i < cols.size(); ++i) {
    long t = cols[i].at(0).get<long>();
    std::string name;
    if (t == -1) {
      s.id_map.clear();  // quirk of the dataset script: idMap = {'*': i}
      s.id_map["*"] = static_cast<int>(i);
    } else {
      std::string key = to_lower(tabs.at(static_cast<size_t>(t)).get<std::string>()) + "." +
                        to_lower(cols[i].at(1).get<std::string>());
      s.id_map[key] = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < tabs.size(); ++i) s.id_map[to_lower(tabs[i].get<std::string>())] = static_cast<int>(i);
  return s;
}

std::vector<std::pair<std::string, std::string>> foreign_key_pairs(const nlohmann::json& entry) {
  const auto& cols_orig = entry.at("column_names_original");
  const auto& tabs = entry.at("table_names_original");
  std::vector<std::string> cols;
  for (const auto& c : cols_orig) {
    long t = c.at(0).get<long>();
    if (t >= 0)
      cols.push_back("__" + to_lower(tabs.at(static_cast<size_t>(t)).get<std::string>()) + "." +
                     to_lower(c.at(1).get<std::string>()) + "__");
    else
      cols.push_back("__all__");
  }
  std::vector<std::set<long>> groups;
  for (const auto& fk : entry.at("foreign_keys")) {
    long a = fk.at(0).get<long>(), b = fk.at(1).get<long>();
    std::set<long>* g = nullptr;
    for (auto& s : groups)
      if (s.count(a) || s.count(b)) {
        g = &s;
        break;
      }
    if (!g) {
      groups.emplace_back();
      g = &groups.back();
    }
    g->insert(a);
    g->insert(b);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& g : groups) {
    long m = *g.begin();
    for (long i : g) out.emplace_back(cols.at(static_cast<size_t>(i)), cols.at(static_cast<size_t>(m)));
  }
  return out;  // later pairs overwrite earlier ones for the same key
}

namespace {
// Checks the fields the schema builders read, so that a malformed tables.json is an InputError
// naming the file and the entry instead of a JSON type error (or an out-of-range index) later.
void validate_tables_entry(const std::string& path, size_t k, const nlohmann::json& e) {
  auto bad = [&](const std::string& what) {
    std::string id = e["db_id"].is_string() ? e["db_id"].get<std::string>() : std::to_string(k);
    throw InputError(path, "entry " + id + ": " + what);
  };
  if (!e["db_id"].is_string()) bad("db_id is not a string");
  const auto& tabs = e["table_names_original"];
  if (!tabs.is_array()) bad("table_names_original is not an array");
  for (const auto& t : tabs)
    if (!t.is_string()) bad("table_names_original holds a non-string");
  const auto& cols = e["column_names_original"];
  if (!cols.is_array()) bad("column_names_original is not an array");
  const long ntab = static_cast<long>(tabs.size()), ncol = static_cast<long>(cols.size());
  for (const auto& c : cols) {
    if (!c.is_array() || c.size() != 2 || !c[0].is_number_integer() || !c[1].is_string())
      bad("column_names_original holds an item that is not [table index, name]");
    long t = c[0].get<long>();
    if (t < -1 || t >= ntab) bad("column_names_original names table " + std::to_string(t) + " of " + std::to_string(ntab));
  }
  const auto& fks = e["foreign_keys"];
  if (!fks.is_array()) bad("foreign_keys is not an array");
  for (const auto& fk : fks) {
    if (!fk.is_array() || fk.size() != 2 || !fk[0].is_number_integer() || !fk[1].is_number_integer())
      bad("foreign_keys holds an item that is not [column index, column index]");
    for (int s = 0; s < 2; ++s) {
      long c = fk[s].get<long>();
      if (c < 0 || c >= ncol) bad("foreign_keys names column " + std::to_string(c) + " of " + std::to_string(ncol));
    }
  }
}
}  // namespace

std::unordered_map<std::string, nlohmann::json> load_tables_json(const std::string& path) {
  std::string text = read_file(path);
  strip_bom(text);
  nlohmann::json j;
  check_json_depth(text, path);
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw InputError(path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_array()) throw InputError(path, "expected a JSON array of database entries");
  std::unordered_map<std::string, nlohmann::json> out;
  for (size_t k = 0; k < j.size(); ++k) {
    auto& e = j[k];
    if (!e.is_object() || !e.contains("db_id") || !e.contains("column_names_original") ||
        !e.contains("table_names_original"))
      throw InputError(path, "entry " + std::to_string(k) +
                                 " without db_id / column_names_original / table_names_original");
    if (!e.contains("foreign_keys")) e["foreign_keys"] = nlohmann::json::array();
    validate_tables_entry(path, k, e);
    out[e["db_id"].get<std::string>()] = e;
  }
  return out;
}

int DbInfo::intern(const std::string& name) {
  for (size_t i = 0; i < schema.names.size(); ++i)
    if (schema.names[i] == name) return static_cast<int>(i);
  schema.names.push_back(name);
  size_t dot = name.find('.');
  prefix.push_back(dot == std::string::npos ? std::string() : name.substr(0, dot));
  return static_cast<int>(schema.names.size() - 1);
}

std::shared_ptr<DbInfo> make_db_info(const std::string& db_id, const CatalogueTables& tables,
                                     const nlohmann::json* tables_entry) {
  auto info = std::make_shared<DbInfo>();
  info->db_id = db_id;
  info->schema = schema_from_catalogue(tables);
  info->n_idmap = info->schema.names.size();
  for (const auto& nm : info->schema.names) {
    size_t dot = nm.find('.');
    info->prefix.push_back(dot == std::string::npos ? std::string() : nm.substr(0, dot));
  }
  if (tables_entry) {
    std::unordered_map<std::string, int> sym;
    for (size_t i = 0; i < info->schema.names.size(); ++i) sym.emplace(info->schema.names[i], static_cast<int>(i));
    auto id = [&](const std::string& s) {
      auto it = sym.find(s);
      if (it != sym.end()) return it->second;
      int k = info->intern(s);
      sym.emplace(s, k);
      return k;
    };
    for (const auto& [from, to] : foreign_key_pairs(*tables_entry)) {
      auto it = sym.find(from);
      // A key the SQLite schema lacks can never be a valid column, so it is never replaced.
      if (it == sym.end()) continue;
      info->kmap[it->second] = id(to);
    }
  }
  return info;
}

}  // namespace sqlgrade::spider
