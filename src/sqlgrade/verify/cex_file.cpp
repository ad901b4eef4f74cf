// Counterexamples as files: DIR/<stem>.sqlite (the shrunk database, built again in memory and copied
// out with the backup API) and DIR/<stem>.json (seed, strategy, mutations, both queries, both results,
// where each row's values came from). The written file is opened again read-only by the engine and
// both queries are re-executed: a refutation that this check does not confirm is not reported.
#include <filesystem>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/verify/schema.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/suspect.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/verify/witness.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::verify {

namespace fs = std::filesystem;

namespace {
nlohmann::json value_json(const Value& v) {
  switch (v.kind) {
    case Kind::Null: return nullptr;
    case Kind::Int: return v.i;
    case Kind::Real: return v.r;
    case Kind::Text: return v.s;
    case Kind::Blob: return nlohmann::json{{"blob", py::repr(v)}};
    default: return py::str(v);  // server kinds (never in a SQLite counterexample)
  }
  return nullptr;
}

nlohmann::json table_json(const Table& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& r : t.rows) {
    nlohmann::json row = nlohmann::json::array();
    for (const Value& v : r) row.push_back(value_json(v));
    rows.push_back(std::move(row));
  }
  return {{"columns", t.columns}, {"rows", rows}};
}
}  // namespace

std::string build_witness(const Schema& s, const Counterexample& c, ScratchDb& db) {
  create_schema(db, s);
  db.exec("BEGIN");
  for (const auto& r : c.rows)
    if (std::string e = db.insert(r.table, r.columns, r.values); !e.empty()) return "row rejected: " + e;
  db.exec("COMMIT");
  ExecResult ic = db.run("PRAGMA integrity_check", Limits{10, 1000, 1 << 20});
  if (!ic.ok() || ic.table.rows.size() != 1 || py::text(ic.table.rows[0][0]) != "ok") return "integrity_check failed";
  ExecResult fk = db.run("PRAGMA foreign_key_check", Limits{10, 1000, 1 << 20});
  if (s.fk_enforced && (!fk.ok() || !fk.table.rows.empty())) return "foreign_key_check failed";
  return "";
}

nlohmann::json counterexample_json(const Item& item, const Outcome& out) {
  nlohmann::json j{{"id", item.id}, {"database", item.db_path}, {"rule", to_string(item.rule.rule)},
                   {"order_matters", item.rule.order_matters}, {"gold_sql", item.gold_sql},
                   {"pred_sql", item.pred_sql}, {"status", to_string(out.status)}, {"reason", out.reason},
                   {"candidates", out.candidates}, {"seconds", out.seconds}, {"cpu_seconds", out.cpu_seconds}};
  if (item.rule.rule == Rule::Spider2Columns)
    j["condition_cols"] = item.rule.condition_cols, j["ignore_order"] = item.rule.ignore_order;
  if (!out.cex) return j;
  const Counterexample& c = *out.cex;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    nlohmann::json vals = nlohmann::json::object();
    for (size_t k = 0; k < r.columns.size() && k < r.values.size(); ++k) vals[r.columns[k]] = value_json(r.values[k]);
    rows.push_back({{"table", r.table}, {"columns", r.columns}, {"values", vals}, {"source", r.source}});  // columns: schema order
  }
  j["counterexample"] = {{"seed", c.seed}, {"candidate", c.candidate}, {"strategy", c.strategy},
                         {"mutations", c.mutations}, {"candidate_mutations", c.candidate_mutations},
                         {"rows", rows}, {"rows_before_shrink", c.rows_before_shrink},
                         {"gold_result", table_json(c.gold_result)}, {"pred_result", table_json(c.pred_result)},
                         {"foreign_keys_enforced", c.fk_enforced}};
  if (!c.fk_note.empty()) j["counterexample"]["foreign_keys_note"] = c.fk_note;
  if (!c.gold_suspect.empty()) j["counterexample"]["gold_suspect"] = c.gold_suspect;
  if (!c.peers.is_null()) j["counterexample"]["peers"] = c.peers;
  j["counterexample"].update(witness_json(c));  // witness_rows, degenerate, breaks (witness.hpp)
  return j;
}

std::string write_counterexample(const Item& item, const Outcome& out, const std::string& dir, const std::string& stem) {
  if (!out.cex) return "no counterexample";
  std::shared_ptr<const Schema> schema = schema_of(item.db_path);
  const fs::path db_file = fs::path(dir) / (stem + ".sqlite"), js_file = fs::path(dir) / (stem + ".json");
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::remove(db_file, ec);
  std::string err;
  {
    ScratchDb db;
    err = build_witness(*schema, *out.cex, db);
    if (err.empty()) err = db.save_to(db_file.string());
  }
  if (err.empty()) {
    // The proof: the written file, opened read-only by the engine as every benchmark database is.
    SqliteDb file(db_file.string());
    Limits lim{30, 100'000, 64u << 20};
    ExecResult g = file.execute(item.gold_sql, lim), p = file.execute(item.pred_sql, lim);
    if (!g.ok() || !p.ok()) err = "re-execution on the written file failed: " + (g.ok() ? p.error : g.error);
    else if (same_result(item.rule, g.table, p.table)) err = "the written file does not reproduce the difference";
  }
  if (!err.empty()) {
    fs::remove(db_file, ec);
    return err;
  }
  write_file_atomic(js_file, counterexample_json(item, out).dump(2) + "\n");
  return "";
}

}  // namespace sqlgrade::verify
