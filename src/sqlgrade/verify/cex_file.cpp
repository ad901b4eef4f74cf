// Counterexamples as files: DIR/<stem>.sqlite (the shrunk database, built again in memory and copied
// out with the backup API) and DIR/<stem>.json (seed, strategy, mutations, both queries, both results,
// where each row's values came from). The written file is opened again read-only by the engine and
// both queries are re-executed: a refutation that this check does not confirm is not reported. A file
// that cannot be written is an error (InputError naming the folder), never a refutation dropped.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/load.hpp"
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

// The shrunk database, built again from its rows (the triggers that write are added once the rows are
// in: the file has the benchmark's whole schema); "" or why it could not be built as it was found.
std::string build_witness(const Schema& s, const Counterexample& c, ScratchDb& db) {
  create_schema(db, s);
  db.exec("BEGIN");
  for (const auto& r : c.rows)
    if (insert_checked(db, s, r.table, r.columns, r.values) != Insert::Kept) return "row rejected: " + r.table;
  if (std::string e = db.exec("COMMIT"); !e.empty()) return "commit refused: " + e;
  create_writing_triggers(db, s);
  ExecResult ic = db.run("PRAGMA integrity_check", Limits{10, 1000, 1 << 20});
  if (!ic.ok() || ic.table.rows.size() != 1 || py::text(ic.table.rows[0][0]) != "ok") return "integrity_check failed";
  ExecResult fk = db.run("PRAGMA foreign_key_check", Limits{10, 1000, 1 << 20});
  if (s.fk_enforced && (!fk.ok() || !fk.table.rows.empty())) return "foreign_key_check failed";
  return "";
}

namespace {
// A file of the folder could not be written: what this call wrote is removed, and the run stops.
[[noreturn]] void cannot_write(const std::string& dir, const fs::path& file, const std::string& why,
                               const std::vector<fs::path>& written) {
  std::error_code ec;
  for (const auto& f : written) fs::remove(f, ec);
  throw InputError(dir, "cannot write the counterexample " + file.filename().string() + ": " + first_line(why));
}
}  // namespace

nlohmann::json counterexample_json(const Item& item, const SearchOutcome& out) {
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

std::string write_counterexample(const Item& item, const SearchOutcome& out, const std::string& dir, const std::string& stem) {
  if (!out.cex) return "no counterexample";
  std::shared_ptr<const Schema> schema = schema_of(item.db_path);
  const fs::path db_file = fs::path(dir) / (stem + ".sqlite"), js_file = fs::path(dir) / (stem + ".json");
  const fs::path journal = fs::path(dir) / (stem + ".sqlite-journal");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) cannot_write(dir, db_file, ec.message(), {});
  fs::remove(db_file, ec);
  std::string err;
  {
    ScratchDb db;
    err = build_witness(*schema, *out.cex, db);
    if (err.empty())
      if (std::string io = db.save_to(db_file.string()); !io.empty()) cannot_write(dir, db_file, io, {db_file, journal});
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
  try {
    write_file_atomic(js_file, counterexample_json(item, out).dump(2) + "\n");
  } catch (const std::exception& e) {
    cannot_write(dir, js_file, e.what(), {db_file, js_file});
  }
  return "";
}

void check_counterexamples_dir(const std::string& dir) {
  OutputDir::check(dir);  // not a symbolic link, not a file
  std::error_code ec;
  fs::path at = fs::absolute(dir, ec);
  if (ec) at = dir;
  // The folder, or the nearest ancestor that exists (the folders below it are created when written).
  while (!fs::exists(fs::symlink_status(at, ec)) && at.has_parent_path() && at.parent_path() != at) at = at.parent_path();
  const std::string why = "cannot write counterexamples here: ";
  if (!fs::is_directory(fs::status(at, ec))) throw InputError(dir, why + at.string() + " is not a folder");
  if (::access(at.c_str(), W_OK | X_OK) != 0) throw InputError(dir, why + at.string() + ": " + std::strerror(errno));
}

}  // namespace sqlgrade::verify
