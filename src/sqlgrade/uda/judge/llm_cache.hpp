#pragma once
// Persistent answer cache of the LLM judge: a SQLite file mapping (model, prompt) to the model's raw
// reply, so a re-run of the same evaluation makes no calls. Only replies the server actually gave
// (HTTP 200) are stored — transport failures are never cached. Replies are stored raw and parsed on
// read, so a better parser also improves cached answers.
//
// Safe for concurrent use by the threads of one process (one connection behind a mutex) and by
// several processes (WAL journal, busy timeout). The cache file is the only thing sqlgrade writes
// with SQLite directly; benchmark databases are always opened read-only through engine/sqlite.hpp.
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

struct sqlite3;

namespace sqlgrade::uda::judge {

class LlmCache {
 public:
  // Opens (creating the file and its folder if needed) the cache; InputError naming the file when it
  // cannot be opened or is not a cache.
  explicit LlmCache(const std::filesystem::path& file);
  ~LlmCache();
  LlmCache(const LlmCache&) = delete;
  LlmCache& operator=(const LlmCache&) = delete;

  // key = everything that determines the reply (model, system and user prompt, max_tokens).
  std::optional<std::string> get(const std::string& model, const std::string& key);
  void put(const std::string& model, const std::string& key, const std::string& reply);
  size_t size();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
};

// Default cache location: $SQLGRADE_LLM_CACHE, else $XDG_CACHE_HOME/sqlgrade/llm-judge.sqlite, else
// ~/.cache/sqlgrade/llm-judge.sqlite ("" when none of these is set).
std::string default_cache_path();

}  // namespace sqlgrade::uda::judge
