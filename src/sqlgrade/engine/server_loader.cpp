// dlopen of libpq and MariaDB Connector/C on first use. See server_loader.hpp.
#include "sqlgrade/engine/server_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sqlgrade/errors.hpp"

namespace sqlgrade::server_lib {

namespace {

void* open_library(const char* what, const char* env, const char* soname, const char* built, const char* package) {
  std::vector<std::string> candidates;
  if (const char* e = std::getenv(env); e && *e) candidates.push_back(e);
  candidates.push_back(soname);
  if (built && *built) candidates.push_back(built);
  std::string tried;
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;  // open for the life of the process
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(err ? err : c);
  }
  throw InputError(what, std::string("cannot load the client library (install ") + package + ", or set " + env +
                             " to its path): " + tried);
}

#ifndef SQLGRADE_LIBPQ_PATH
#define SQLGRADE_LIBPQ_PATH ""
#endif
#ifndef SQLGRADE_LIBMARIADB_PATH
#define SQLGRADE_LIBMARIADB_PATH ""
#endif

Pq load_pq() {
  void* h = open_library("libpq", "SQLGRADE_LIBPQ", "libpq.so.5", SQLGRADE_LIBPQ_PATH, "libpq5");
  Pq a;
#define SQLGRADE_RESOLVE(name)                                                  \
  a.name = reinterpret_cast<decltype(&::name)>(dlsym(h, #name));                \
  if (!a.name) throw InputError("libpq", "the library lacks " #name " (sqlgrade needs libpq 14 or later)");
  SQLGRADE_LIBPQ_FUNCTIONS(SQLGRADE_RESOLVE)
#undef SQLGRADE_RESOLVE
  return a;
}

My load_my() {
  void* h = open_library("libmariadb", "SQLGRADE_LIBMARIADB", "libmariadb.so.3", SQLGRADE_LIBMARIADB_PATH, "libmariadb3");
  My a;
#define SQLGRADE_RESOLVE(name)                                                  \
  a.name = reinterpret_cast<decltype(&::name)>(dlsym(h, #name));                \
  if (!a.name) throw InputError("libmariadb", "the library lacks " #name " (sqlgrade needs MariaDB Connector/C 3)");
  SQLGRADE_LIBMARIADB_FUNCTIONS(SQLGRADE_RESOLVE)
#undef SQLGRADE_RESOLVE
  a.mysql_server_init(0, nullptr, nullptr);  // mysql_library_init, once, before any connection
  return a;
}

}  // namespace

const Pq& pq() {
  static const Pq a = load_pq();
  return a;
}

const My& my() {
  static const My a = load_my();
  return a;
}

}  // namespace sqlgrade::server_lib
