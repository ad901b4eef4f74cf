// dlopen of libduckdb on first use. See duckdb_loader.hpp.
#include "sqlgrade/engine/duckdb_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace sqlgrade::duck {

namespace {

Api load() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SQLGRADE_DUCKDB_LIBRARY"); env && *env) candidates.push_back(env);
#ifdef SQLGRADE_DUCKDB_PATH
  candidates.push_back(SQLGRADE_DUCKDB_PATH);
#endif
  candidates.push_back("libduckdb.so");
  void* h = nullptr;
  std::string tried;
  for (const auto& c : candidates) {
    h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) break;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(err ? err : c);
  }
  if (!h) throw std::runtime_error("cannot load DuckDB (set SQLGRADE_DUCKDB_LIBRARY to libduckdb.so): " + tried);
  Api a;
#define SQLGRADE_DUCKDB_RESOLVE(name)                                                              \
  a.name = reinterpret_cast<decltype(&::name)>(dlsym(h, #name));                                   \
  if (!a.name) throw std::runtime_error("DuckDB library lacks " #name " (sqlgrade needs DuckDB 1.4)");
  SQLGRADE_DUCKDB_FUNCTIONS(SQLGRADE_DUCKDB_RESOLVE)
#undef SQLGRADE_DUCKDB_RESOLVE
  return a;  // the handle stays open for the life of the process
}

}  // namespace

const Api& api() {
  static const Api a = load();
  return a;
}

}  // namespace sqlgrade::duck
