#include "sqlgrade/bird/subset.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/random.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::bird {

// ---------------------------------------------------------------- schema prompt

namespace {

size_t codepoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string rjust(const std::string& s, size_t width) {
  size_t n = codepoints(s);
  return n >= width ? s : std::string(width - n, ' ') + s;
}

std::string quote_ident(const std::string& name) { return "\"" + replace_all(name, "\"", "\"\"") + "\""; }
std::string quote_literal(const std::string& s) { return "'" + replace_all(s, "'", "''") + "'"; }

}  // namespace

std::string nice_look_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(columns.size(), 0);
  for (size_t c = 0; c < columns.size(); ++c) {
    widths[c] = codepoints(columns[c]);
    for (auto& r : rows)
      if (c < r.size()) widths[c] = std::max(widths[c], codepoints(r[c]));
  }
  std::string header;
  for (size_t c = 0; c < columns.size(); ++c) header += rjust(columns[c], widths[c]) + " ";
  std::string body;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i) body += "\n";
    for (size_t c = 0; c < rows[i].size() && c < widths.size(); ++c) body += rjust(rows[i][c], widths[c]) + " ";
  }
  return header + "\n" + body;
}

std::string schema_prompt(const std::string& db_path, int rows, bool keep_sqlite_sequence) {
  SqliteOptions so;
  so.text_decode = SqliteOptions::TextDecode::Ignore;
  SqliteDb db(db_path, so);
  Limits lim{0, 100'000'000, size_t(1) << 40};
  std::vector<std::string> parts;
  for (const std::string& t : db.table_names()) {
    if (t == "sqlite_sequence" && !keep_sqlite_sequence) continue;
    ExecResult r = db.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=" + quote_literal(t), lim);
    if (!r.ok()) throw InputError(db_path, "cannot read the schema of table " + t + ": " + r.error);
    std::string create = r.table.rows.empty() || r.table.rows[0].empty() ? "None" : py::str(r.table.rows[0][0]);
    if (rows > 0) {
      std::string shown = t;
      if (t == "order" || t == "by" || t == "group") shown = "`" + t + "`";
      ExecResult q = db.execute("SELECT * FROM " + quote_ident(t) + " LIMIT " + std::to_string(rows), lim);
      if (!q.ok()) throw InputError(db_path, "cannot read example rows of table " + t + ": " + q.error);
      std::vector<std::vector<std::string>> cells;
      for (auto& row : q.table.rows) {
        std::vector<std::string> c;
        for (auto& v : row) c.push_back(py::str(v));
        cells.push_back(std::move(c));
      }
      std::string table = nice_look_table(q.table.columns, cells);
      std::string verbose = "/* \n " + std::to_string(rows) + " example rows: \n SELECT * FROM " + shown + " LIMIT " +
                            std::to_string(rows) + "; \n " + table + " \n */";
      create = create + " \n " + verbose;
    }
    parts.push_back(create);
  }
  return join(parts, "\n\n");
}

// ---------------------------------------------------------------- answer format

std::string answer_json(const std::string& sql) {
  return "{\"answer\": " + nlohmann::json(sql).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + "}";
}

// ---------------------------------------------------------------- subset

Subset build_subset(const SubsetOptions& opt) {
  std::string text = read_file(opt.data_path);
  strip_bom(text);
  nlohmann::ordered_json doc;
  check_json_depth(text, opt.data_path);
  try {
    doc = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    throw InputError(opt.data_path, std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_array()) throw InputError(opt.data_path, "expected a JSON array of questions (BIRD train.json)");
  std::string prompt;
  if (!opt.db_path.empty()) prompt = schema_prompt(opt.db_path, opt.rows, opt.keep_sqlite_sequence);

  std::vector<size_t> picked;
  for (size_t i = 0; i < doc.size(); ++i) {
    const auto& o = doc[i];
    if (!o.is_object()) throw InputError(opt.data_path, "item " + std::to_string(i) + " is not an object");
    auto it = o.find("db_id");
    if (it != o.end() && it->is_string() && it->get<std::string>() == opt.db_id) picked.push_back(i);
  }
  Subset out;
  out.matched = picked.size();
  py::Random rng(opt.seed);
  rng.shuffle(picked);
  auto make = [&](size_t src) {
    nlohmann::ordered_json o = doc[src];
    SubsetItem item;
    item.source_index = src;
    item.db_id = opt.db_id;
    auto sq = o.find("SQL");
    if (sq == o.end()) sq = o.find("sql");
    if (sq == o.end() || !sq->is_string())
      throw InputError(opt.data_path, "item " + std::to_string(src) + " has no string field \"SQL\"");
    item.sql = sq->get<std::string>();
    o["source_index"] = src;
    o["answer"] = answer_json(item.sql);
    if (!opt.db_path.empty()) o["schema_prompt"] = prompt;
    item.json = o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return item;
  };
  for (size_t i = 0; i < picked.size() && i < opt.train; ++i) out.train.push_back(make(picked[i]));
  for (size_t i = opt.train; i < picked.size() && i < opt.train + opt.valid; ++i) out.valid.push_back(make(picked[i]));
  return out;
}

namespace {

std::string array_of(const std::vector<SubsetItem>& items) {
  std::string out = "[\n";
  for (size_t i = 0; i < items.size(); ++i) out += "  " + items[i].json + (i + 1 < items.size() ? ",\n" : "\n");
  return out + "]\n";
}

std::string gold_of(const std::vector<SubsetItem>& items) {
  std::string out;
  for (const auto& it : items) {
    std::string sql = it.sql;
    for (char& c : sql)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    out += sql + "\t" + it.db_id + "\n";
  }
  return out;
}

}  // namespace

std::string render_subset_json(const Subset& s) {
  return "{\"train\": " + array_of(s.train) + ", \"valid\": " + array_of(s.valid) + "}\n";
}

std::vector<std::pair<std::string, std::string>> subset_files(const Subset& s) {
  return {{"train.json", array_of(s.train)},
          {"valid.json", array_of(s.valid)},
          {"train_gold.sql", gold_of(s.train)},
          {"valid_gold.sql", gold_of(s.valid)}};
}

}  // namespace sqlgrade::bird
