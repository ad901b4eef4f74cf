// Writes the registry of benchmarks (verdict/registry.hpp registry_table()) as JSON data for the Python
// package: python/sqlgrade/_tables.py reads it when the native module is not there (the server-only
// mode), as it reads _bounds_table.json (bounds_table.cpp). Run by the build (python/CMakeLists.txt).
//
//   sqlgrade_registry_table OUT.json
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/verdict/registry.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sqlgrade_registry_table OUT.json\n");
    return 2;
  }
  try {
    sqlgrade::write_file_atomic(argv[1], sqlgrade::verdicts::registry_table().dump(1) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlgrade_registry_table: %s\n", e.what());
    return 2;
  }
  return 0;
}
