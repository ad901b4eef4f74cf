#pragma once
// DuckDB loaded on first use. libduckdb is 64 MB and mapping it costs 10-30 ms at startup, which
// commands that never touch DuckDB (spider, bird, spider2, diff, ...) must not pay. So nothing links
// it: the first DuckDb (or DuckDb::version()) dlopens the library and resolves the C API functions
// duckdb.cpp calls, listed below. Where it looks, in order: $SQLGRADE_DUCKDB_LIBRARY; "libduckdb.so" on
// the loader's search path (LD_LIBRARY_PATH, the caller's RUNPATH — the build tree's DuckDB folder, or
// the Python wheel's own sqlgrade/lib —, ld.so.cache); the libduckdb sqlgrade was built against
// (absolute path, SQLGRADE_DUCKDB_PATH).
#include <duckdb.h>

namespace sqlgrade::duck {

// The C API functions sqlgrade uses (add one here when duckdb.cpp calls a new one).
#define SQLGRADE_DUCKDB_FUNCTIONS(X) \
  X(duckdb_append_double) \
  X(duckdb_append_int64) \
  X(duckdb_append_null) \
  X(duckdb_append_varchar_length) \
  X(duckdb_appender_close) \
  X(duckdb_appender_create) \
  X(duckdb_appender_destroy) \
  X(duckdb_appender_end_row) \
  X(duckdb_appender_error) \
  X(duckdb_close) \
  X(duckdb_column_count) \
  X(duckdb_column_name) \
  X(duckdb_column_type) \
  X(duckdb_connect) \
  X(duckdb_create_config) \
  X(duckdb_decimal_to_double) \
  X(duckdb_destroy_config) \
  X(duckdb_destroy_result) \
  X(duckdb_disconnect) \
  X(duckdb_free) \
  X(duckdb_hugeint_to_double) \
  X(duckdb_interrupt) \
  X(duckdb_library_version) \
  X(duckdb_open_ext) \
  X(duckdb_query) \
  X(duckdb_result_error) \
  X(duckdb_row_count) \
  X(duckdb_set_config) \
  X(duckdb_uhugeint_to_double) \
  X(duckdb_value_blob) \
  X(duckdb_value_decimal) \
  X(duckdb_value_double) \
  X(duckdb_value_hugeint) \
  X(duckdb_value_int64) \
  X(duckdb_value_is_null) \
  X(duckdb_value_uhugeint) \
  X(duckdb_value_string_internal) \
  X(duckdb_value_uint64) \
  X(duckdb_value_varchar)

struct Api {
#define SQLGRADE_DUCKDB_MEMBER(name) decltype(&::name) name = nullptr;
  SQLGRADE_DUCKDB_FUNCTIONS(SQLGRADE_DUCKDB_MEMBER)
#undef SQLGRADE_DUCKDB_MEMBER
};

// The loaded API (thread-safe; loads once). Throws std::runtime_error naming what it tried when the
// library or one of the functions cannot be found.
const Api& api();

}  // namespace sqlgrade::duck
