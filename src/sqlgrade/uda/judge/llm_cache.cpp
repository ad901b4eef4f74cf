// SQLite-backed persistent cache of judge replies (see llm_cache.hpp).
#include "sqlgrade/uda/judge/llm_cache.hpp"

#include <sqlite3.h>

#include <cstdlib>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::uda::judge {

namespace {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) s = nullptr;
  }
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

LlmCache::LlmCache(const std::filesystem::path& file) : path_(file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  int rc = open_cache_file(file.string(), &db_);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(file.string(), "cannot open the LLM cache: " + msg);
  }
  sqlite3_busy_timeout(db_, 10000);
  // WAL lets several sqlgrade processes share one cache; NORMAL sync is durable enough for a cache.
  const char* setup =
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS llm_replies ("
      "  model TEXT NOT NULL,"
      "  prompt TEXT NOT NULL,"
      "  reply TEXT NOT NULL,"
      "  created TEXT NOT NULL DEFAULT (datetime('now')),"
      "  PRIMARY KEY (model, prompt));";
  char* err = nullptr;
  rc = sqlite3_exec(db_, setup, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(file.string(), "not a usable LLM cache: " + msg);
  }
}

LlmCache::~LlmCache() {
  if (db_) sqlite3_close(db_);
}

std::optional<std::string> LlmCache::get(const std::string& model, const std::string& key) {
  std::lock_guard<std::mutex> lk(mu_);
  Stmt st(db_, "SELECT reply FROM llm_replies WHERE model = ?1 AND prompt = ?2");
  if (!st.s) return std::nullopt;
  sqlite3_bind_text(st.s, 1, model.data(), static_cast<int>(model.size()), SQLITE_STATIC);
  sqlite3_bind_text(st.s, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  if (sqlite3_step(st.s) != SQLITE_ROW) return std::nullopt;
  const unsigned char* t = sqlite3_column_text(st.s, 0);
  int n = sqlite3_column_bytes(st.s, 0);
  return std::string(reinterpret_cast<const char*>(t ? t : reinterpret_cast<const unsigned char*>("")), n);
}

void LlmCache::put(const std::string& model, const std::string& key, const std::string& reply) {
  std::lock_guard<std::mutex> lk(mu_);
  Stmt st(db_, "INSERT OR REPLACE INTO llm_replies (model, prompt, reply) VALUES (?1, ?2, ?3)");
  if (!st.s) return;
  sqlite3_bind_text(st.s, 1, model.data(), static_cast<int>(model.size()), SQLITE_STATIC);
  sqlite3_bind_text(st.s, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_text(st.s, 3, reply.data(), static_cast<int>(reply.size()), SQLITE_STATIC);
  sqlite3_step(st.s);  // a failed insert only costs a call on the next run
}

size_t LlmCache::size() {
  std::lock_guard<std::mutex> lk(mu_);
  Stmt st(db_, "SELECT count(*) FROM llm_replies");
  if (!st.s || sqlite3_step(st.s) != SQLITE_ROW) return 0;
  return static_cast<size_t>(sqlite3_column_int64(st.s, 0));
}

std::string default_cache_path() {
  if (const char* e = std::getenv("SQLGRADE_LLM_CACHE"); e && *e) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/sqlgrade/llm-judge.sqlite";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/sqlgrade/llm-judge.sqlite";
  return "";
}

}  // namespace sqlgrade::uda::judge
