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
  // $SQLGRADE_DUCKDB_LIBRARY; then the name, found through the caller's RUNPATH (the build tree's
  // DuckDB folder; in the Python wheel $ORIGIN/lib beside the module, or bin/../lib beside the CLI, so
  // an installed wheel uses its own copy even where the build tree still exists); then the absolute
  // path sqlgrade was built against (a program linking the installed libraries, whose RUNPATH is its own).
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SQLGRADE_DUCKDB_LIBRARY"); env && *env) candidates.push_back(env);
  candidates.push_back("libduckdb.so");
#ifdef SQLGRADE_DUCKDB_PATH
  candidates.push_back(SQLGRADE_DUCKDB_PATH);
#endif
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
