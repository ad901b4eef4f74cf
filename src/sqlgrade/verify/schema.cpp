// Reading a benchmark database's declared schema and a bounded sample of its rows (schema.hpp).
#include "sqlgrade/verify/schema.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::verify {

namespace {
constexpr size_t kDomainCap = 64;  // distinct values kept per column
constexpr size_t kSampleBytes = size_t(4) << 20;  // rows of a table's sample, as the engine counts result bytes
std::string q(const std::string& s) { return "\"" + replace_all(s, "\"", "\"\"") + "\""; }

Table must(SqliteDb& db, const std::string& sql) {
  ExecResult r = db.execute(sql, Limits{60, 10'000'000, size_t(1) << 31});
  if (!r.ok()) throw InputError(db.path(), "cannot read the schema (" + sql + "): " + r.error);
  return std::move(r.table);
}

size_t column_index(const TableInfo& t, const std::string& name) {
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (iequals(t.columns[c].name, name)) return c;
  return SIZE_MAX;
}

void read_columns(SqliteDb& db, TableInfo& t) {
  for (const Row& r : must(db, "PRAGMA table_info(" + q(t.name) + ")").rows) {
    Column c;
    c.name = py::text(r[1]);
    c.type = py::text(r[2]);
    c.affinity = affinity_of(c.type);
    c.notnull = r[3].kind == Kind::Int && r[3].i != 0;
    c.pk = r[5].kind == Kind::Int ? static_cast<int>(r[5].i) : 0;
    t.columns.push_back(std::move(c));
  }
  std::vector<size_t> pk;
  for (int k = 1; k <= static_cast<int>(t.columns.size()); ++k)
    for (size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].pk == k) pk.push_back(c);
  if (!pk.empty()) t.unique_sets.push_back(pk);
  for (const Row& r : must(db, "PRAGMA index_list(" + q(t.name) + ")").rows) {
    if (!(r[2].kind == Kind::Int && r[2].i) || (r.size() > 4 && r[4].kind == Kind::Int && r[4].i)) continue;
    std::vector<size_t> set;
    for (const Row& ir : must(db, "PRAGMA index_info(" + q(py::text(r[1])) + ")").rows)
      if (ir[1].kind == Kind::Int && ir[1].i >= 0) set.push_back(static_cast<size_t>(ir[1].i));
    if (!set.empty() && std::find(t.unique_sets.begin(), t.unique_sets.end(), set) == t.unique_sets.end())
      t.unique_sets.push_back(set);
  }
  for (const auto& set : t.unique_sets)
    if (set.size() == 1) t.columns[set[0]].single_unique = true;
}

bool is_text_column(const Column& c) {
  if (c.affinity == Affinity::Text) return true;
  return std::any_of(c.domain.begin(), c.domain.end(), [](const Value& v) { return v.kind == Kind::Text; });
}

bool in_foreign_key(const TableInfo& t, size_t col) {
  for (const ForeignKey& fk : t.fks)
    if (std::find(fk.columns.begin(), fk.columns.end(), col) != fk.columns.end()) return true;
  return false;
}

// The table's label: its first text column that is not a key (declared, or a foreign key). By the
// convention of schemas (and of the tools that show a row by one field) a table lists what names its
// rows right after its keys: shop(Shop_ID, Name, Location, District, ...), TV_series(id, Episode, ...).
// SIZE_MAX when there is none. *sole: it is the table's only such column and no text column is declared
// unique — nothing else can name the rows, as in a price list Charges(charge_id, charge_type,
// charge_amount) or a list of types; a table with a declared text key (a UNIQUE code) is named by that.
size_t label_column(const TableInfo& t, bool* sole) {
  size_t label = SIZE_MAX, texts = 0;
  bool text_key = false;
  for (size_t k = 0; k < t.columns.size(); ++k) {
    const Column& c = t.columns[k];
    if (!is_text_column(c)) continue;
    if (c.pk > 0 || c.single_unique) text_key = true;
    if (c.pk > 0 || c.single_unique || in_foreign_key(t, k)) continue;
    if (texts++ == 0) label = k;
  }
  *sole = label != SIZE_MAX && texts == 1 && !text_key;
  return label;
}

// The properties the data shows in practice (schema.hpp Column::data_*), over the first kMinedRows
// rows: one aggregate query per table. Run once the foreign keys are read (label_column).
void mine_practice(SqliteDb& db, TableInfo& t) {
  if (t.columns.empty()) return;
  std::string sel = "count(*)", cols;
  for (size_t k = 0; k < t.columns.size(); ++k) {
    cols += (k ? "," : "") + q(t.columns[k].name);
    sel += ",count(" + q(t.columns[k].name) + "),count(DISTINCT " + q(t.columns[k].name) + ")";
  }
  ExecResult r = db.execute("SELECT " + sel + " FROM (SELECT " + cols + " FROM " + q(t.name) + " LIMIT " +
                                std::to_string(kMinedRows) + ")",
                            Limits{30, 10, 256u << 20});
  if (!r.ok() || r.table.rows.size() != 1) return;  // too slow or too large: no claim about the data
  const Row& row = r.table.rows[0];
  const int64_t n = row[0].i;
  bool sole_label = false;
  const size_t label = label_column(t, &sole_label);
  for (size_t k = 0; k < t.columns.size(); ++k) {
    Column& c = t.columns[k];
    const int64_t non_null = row[1 + 2 * k].i, distinct = row[2 + 2 * k].i;
    c.data_never_null = n >= 3 && non_null == n;
    // Uniqueness in practice (schema.hpp kUniqueValues): what names the table's rows — a name-like
    // column or the table's label — after a few values; any other column only after many, since few
    // all-distinct values are what chance gives (9 districts, 9 managers).
    const bool names_rows = is_text_column(c) && (name_like(t, c) || k == label);
    const size_t needed = !names_rows ? kUniqueValues : k == label && sole_label ? kUniqueLabelValues : kUniqueNamingValues;
    c.data_unique = !c.single_unique && distinct == non_null && non_null >= static_cast<int64_t>(needed);
    const bool all_text = !c.domain.empty() && std::all_of(c.domain.begin(), c.domain.end(),
                                                           [](const Value& v) { return v.kind == Kind::Text; });
    c.data_closed = all_text && non_null >= 10 && distinct <= 3 && c.domain.size() == static_cast<size_t>(distinct);
  }
}

}  // namespace

bool name_like(const TableInfo& ti, const Column& c) {
  const std::string n = to_lower(c.name), t = to_lower(ti.name);
  return n.find("name") != std::string::npos || n.find("title") != std::string::npos || n == t || n + "s" == t ||
         n + "es" == t;
}

namespace {
void read_rows(SqliteDb& db, TableInfo& t, size_t sample_rows) {
  Table c = must(db, "SELECT count(*) FROM " + q(t.name));
  t.total_rows = c.rows.empty() ? 0 : static_cast<size_t>(c.rows[0][0].i);
  std::string cols;
  for (size_t k = 0; k < t.columns.size(); ++k) cols += (k ? "," : "") + q(t.columns[k].name);
  // The sample is kept between searches (cache.hpp): at most kSampleBytes of rows per table, whatever
  // the size of the database's values.
  Limits lim{60, sample_rows, kSampleBytes};
  lim.keep_partial = true;
  ExecResult r = db.execute("SELECT " + cols + " FROM " + q(t.name) + " LIMIT " + std::to_string(sample_rows), lim);
  if (!r.ok() && r.status != ExecStatus::TooLarge) throw InputError(db.path(), "cannot read the rows of " + t.name + ": " + r.error);
  t.sample = std::move(r.table.rows);
  for (size_t k = 0; k < t.columns.size(); ++k) {
    std::set<std::string> seen;
    for (const Row& r : t.sample) {
      if (r[k].is_null() || t.columns[k].domain.size() >= kDomainCap) continue;
      if (seen.insert(std::to_string(int(r[k].kind)) + py::repr(r[k])).second) t.columns[k].domain.push_back(r[k]);
    }
  }
}

// Parents before children; a cycle (or a self reference) keeps file order among its tables.
void order_by_foreign_keys(Schema& s) {
  std::vector<TableInfo> out;
  std::vector<bool> placed(s.tables.size(), false);
  while (out.size() < s.tables.size()) {
    size_t before = out.size();
    for (size_t i = 0; i < s.tables.size(); ++i) {
      if (placed[i]) continue;
      bool ready = true;
      for (const auto& fk : s.tables[i].fks)
        if (fk.parent != SIZE_MAX && fk.parent != i && !placed[fk.parent]) ready = false;
      if (!ready) continue;
      placed[i] = true;
      out.push_back(s.tables[i]);
    }
    if (out.size() == before) {  // a cycle: take its first table in file order
      size_t i = static_cast<size_t>(std::find(placed.begin(), placed.end(), false) - placed.begin());
      placed[i] = true;
      out.push_back(s.tables[i]);
    }
  }
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < out.size(); ++i) at[to_lower(out[i].name)] = i;
  // Re-point parents at the new positions (they were indices into the old order).
  for (auto& t : out)
    for (auto& fk : t.fks)
      if (fk.parent != SIZE_MAX) fk.parent = at[to_lower(s.tables[fk.parent].name)];
  s.tables = std::move(out);
}

void read_foreign_keys(SqliteDb& db, Schema& s) {
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < s.tables.size(); ++i) at[to_lower(s.tables[i].name)] = i;
  for (TableInfo& t : s.tables) {
    std::map<long long, ForeignKey> by_id;
    for (const Row& r : must(db, "PRAGMA foreign_key_list(" + q(t.name) + ")").rows) {
      ForeignKey& fk = by_id[r[0].i];
      auto p = at.find(to_lower(py::text(r[2])));
      fk.parent = p == at.end() ? SIZE_MAX : p->second;
      fk.columns.push_back(column_index(t, py::text(r[3])));
      size_t pc = SIZE_MAX;
      if (fk.parent != SIZE_MAX) {
        const TableInfo& pt = s.tables[fk.parent];
        if (!r[4].is_null()) pc = column_index(pt, py::text(r[4]));
        else if (!pt.unique_sets.empty() && pt.unique_sets[0].size() > fk.parent_columns.size())
          pc = pt.unique_sets[0][fk.parent_columns.size()];
      }
      fk.parent_columns.push_back(pc);
    }
    for (auto& [id, fk] : by_id) {
      bool ok = std::find(fk.columns.begin(), fk.columns.end(), SIZE_MAX) == fk.columns.end() &&
                std::find(fk.parent_columns.begin(), fk.parent_columns.end(), SIZE_MAX) == fk.parent_columns.end();
      if (!ok) fk.parent = SIZE_MAX;
      t.fks.push_back(fk);
    }
  }
}

// Whether SQLite can enforce the declared foreign keys (it cannot when a key names a missing table or
// a parent column set that is not a PRIMARY KEY/UNIQUE: "foreign key mismatch").
void check_enforceable(Schema& s) {
  ScratchDb db;
  for (const auto& t : s.tables) db.exec(t.create_sql);
  std::string err = db.exec("PRAGMA foreign_keys=ON; PRAGMA foreign_key_check;");
  if (!err.empty()) {
    s.fk_enforced = false;
    s.fk_note = "the schema's foreign keys cannot be enforced by SQLite (" + err + "); parent rows are still "
                "kept for every child row the generator writes";
  }
}
}  // namespace

Affinity affinity_of(const std::string& declared_type) {
  std::string t = to_upper(declared_type);
  if (t.find("INT") != std::string::npos) return Affinity::Integer;
  if (t.find("CHAR") != std::string::npos || t.find("CLOB") != std::string::npos || t.find("TEXT") != std::string::npos)
    return Affinity::Text;
  if (t.find("BLOB") != std::string::npos || t.empty()) return Affinity::Blob;
  if (t.find("REAL") != std::string::npos || t.find("FLOA") != std::string::npos || t.find("DOUB") != std::string::npos)
    return Affinity::Real;
  return Affinity::Numeric;
}

void create_schema(ScratchDb& db, const Schema& s, bool writing_triggers) {
  for (const auto& t : s.tables) db.exec(t.create_sql);
  for (const auto& d : s.after_ddl) db.exec(d);
  for (const auto& d : s.guard_triggers) db.exec(d);
  if (writing_triggers) create_writing_triggers(db, s);
  if (s.fk_enforced) db.exec("PRAGMA foreign_keys=ON");
}

void create_writing_triggers(ScratchDb& db, const Schema& s) {
  for (const auto& d : s.writing_triggers) db.exec(d);
}

bool trigger_only_selects(const std::string& sql) {
  // Words (lower case) and punctuation outside strings, quoted names and comments.
  std::vector<std::string> toks;
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`' || c == '[') {
      const char close = c == '[' ? ']' : c;
      size_t j = i + 1;
      for (; j < sql.size(); ++j) {
        if (sql[j] != close) continue;
        if (close != ']' && j + 1 < sql.size() && sql[j + 1] == close) {
          ++j;  // a doubled quote
          continue;
        }
        break;
      }
      toks.push_back("?");
      i = j + 1;
    } else if (sql.compare(i, 2, "--") == 0) {
      i = sql.find('\n', i);
      if (i == std::string::npos) break;
    } else if (sql.compare(i, 2, "/*") == 0) {
      i = sql.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_')) ++j;
      toks.push_back(to_lower(sql.substr(i, j - i)));
      i = j;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) toks.push_back(std::string(1, c));
      ++i;
    }
  }
  auto begin = std::find(toks.begin(), toks.end(), "begin");
  if (begin == toks.end()) return false;
  bool at_start = true, ended = false;
  for (auto it = begin + 1; it != toks.end() && !ended; ++it) {
    if (at_start) {
      if (*it == "end") ended = true;
      else if (*it != "select") return false;
      at_start = false;
    } else if (*it == ";") {
      at_start = true;
    }
  }
  return ended;
}

std::vector<std::string> TableInfo::column_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

std::shared_ptr<const Schema> read_schema(const std::string& db_path, size_t sample_rows) {
  auto s = std::make_shared<Schema>();
  s->version = file_version(db_path);  // before reading: a file replaced meanwhile is read again later
  SqliteDb db(db_path);
  s->path = db_path;
  for (const Row& r : must(db, "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").rows) {
    std::string type = py::text(r[0]), name = py::text(r[1]);
    if (starts_with_ci(name, "sqlite_")) continue;
    if (type == "table") {
      TableInfo t;
      t.name = name;
      t.create_sql = py::text(r[2]);
      s->tables.push_back(std::move(t));
    } else if (type == "index" || type == "view") {
      s->after_ddl.push_back(py::text(r[2]));
    } else if (type == "trigger") {  // created after every table, index and view (schema.hpp)
      const std::string sql = py::text(r[2]);
      (trigger_only_selects(sql) ? s->guard_triggers : s->writing_triggers).push_back(sql);
    }
  }
  for (TableInfo& t : s->tables) {
    s->deferred_fks = s->deferred_fks || to_lower(t.create_sql).find("deferred") != std::string::npos;
    read_columns(db, t);
    read_rows(db, t, sample_rows);
  }
  read_foreign_keys(db, *s);
  for (TableInfo& t : s->tables) mine_practice(db, t);
  order_by_foreign_keys(*s);
  check_enforceable(*s);
  return s;
}

}  // namespace sqlgrade::verify
