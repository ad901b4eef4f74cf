// The verification search's per-database items of the engine's SqlitePool (cache.hpp).
#include "sqlgrade/verify/cache.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "sqlgrade/core/fs.hpp"

namespace sqlgrade::verify {

namespace {

// A schema kept by the pool while idle.
class SchemaItem : public PoolItem {
 public:
  explicit SchemaItem(std::shared_ptr<const Schema> s) : schema(std::move(s)), bytes_(schema_bytes(*schema)) {}
  size_t resident_bytes() const override { return bytes_; }
  std::shared_ptr<const Schema> schema;

 private:
  size_t bytes_;
};

}  // namespace

namespace {
CancelToken::Clock::time_point search_deadline(double budget_s, double query_timeout_s) {
  if (!(budget_s > 0) || budget_s > 1e7) return CancelToken::Clock::time_point::max();
  const double s = budget_s + std::max(budget_s, std::max(query_timeout_s, 0.0));
  return CancelToken::Clock::now() + std::chrono::duration_cast<CancelToken::Clock::duration>(std::chrono::duration<double>(s));
}
}  // namespace

SearchScope::SearchScope(double budget_s, double query_timeout_s)
    : token_(current_cancel_token(), search_deadline(budget_s, query_timeout_s)), scope_(&token_) {}

size_t schema_bytes(const Schema& s) {
  size_t b = sizeof(Schema) + kMallocHeader + heap_bytes(s.path) + heap_bytes(s.version) + heap_bytes(s.fk_note) +
             vector_heap_bytes(s.tables) + vector_heap_bytes(s.after_ddl);
  for (const auto& d : s.after_ddl) b += heap_bytes(d);
  b += vector_heap_bytes(s.guard_triggers) + vector_heap_bytes(s.writing_triggers);
  for (const auto* v : {&s.guard_triggers, &s.writing_triggers})
    for (const auto& d : *v) b += heap_bytes(d);
  for (const TableInfo& t : s.tables) {
    b += heap_bytes(t.name) + heap_bytes(t.create_sql) + vector_heap_bytes(t.columns) + vector_heap_bytes(t.unique_sets) +
         vector_heap_bytes(t.fks) + vector_heap_bytes(t.sample);
    for (const Column& c : t.columns) {
      b += heap_bytes(c.name) + heap_bytes(c.type) + vector_heap_bytes(c.domain);
      for (const Value& v : c.domain) b += heap_bytes(v.s);
    }
    for (const auto& u : t.unique_sets) b += vector_heap_bytes(u);
    for (const auto& fk : t.fks) b += vector_heap_bytes(fk.columns) + vector_heap_bytes(fk.parent_columns);
    for (const Row& r : t.sample) {
      b += vector_heap_bytes(r);
      for (const Value& v : r) b += heap_bytes(v.s);
    }
  }
  return b;
}

std::shared_ptr<const Schema> schema_of(const std::string& db_path, size_t sample_rows) {
  // the file's version is in the key: a database replaced at its path is read again (core/fs.hpp)
  const std::string key = "verify-schema\n" + db_path + "\n" + std::to_string(sample_rows) + "\n" + file_version(db_path);
  auto item = SqlitePool::hold<SchemaItem>(key, [&] { return std::make_unique<SchemaItem>(read_schema(db_path, sample_rows)); });
  return item->schema;
}

WorkDb lease_work_db(const Schema& s) {
  // a database replaced at its path gets a fresh schema copy (its schema has a new version)
  return SqlitePool::hold<ScratchDb>("verify-work\n" + s.path + "\n" + s.version, [&] {
    auto db = std::make_unique<ScratchDb>();
    create_schema(*db, s);
    return db;
  });
}

}  // namespace sqlgrade::verify
