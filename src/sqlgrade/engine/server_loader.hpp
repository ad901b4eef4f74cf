#pragma once
// The server client libraries loaded on first use, as DuckDB is (duckdb_loader.hpp): libpq pulls in 20
// more libraries (Kerberos, LDAP, SASL, GnuTLS), MariaDB Connector/C a few, and commands that never reach
// a server (spider, bird on SQLite, serve without --dsn, diff, ...) must not map them, nor must the
// portable wheels carry them. So nothing links them: the first PostgreSQL (or MySQL) connection dlopens
// the library and resolves the functions listed below. Where it looks, in order: $SQLGRADE_LIBPQ /
// $SQLGRADE_LIBMARIADB; the soname (libpq.so.5, libmariadb.so.3) on the loader's search path; the
// library sqlgrade was built against (SQLGRADE_LIBPQ_PATH, SQLGRADE_LIBMARIADB_PATH).
// The headers give the types and constants only.
#include <libpq-fe.h>
#include <mysql.h>

namespace sqlgrade::server_lib {

#define SQLGRADE_LIBPQ_FUNCTIONS(X) \
  X(PQcancel) X(PQclear) X(PQconnectdb) X(PQconnectdbParams) X(PQconsumeInput) X(PQenterPipelineMode) \
  X(PQerrorMessage) X(PQescapeIdentifier) X(PQescapeLiteral) X(PQexec) X(PQexecParams) X(PQexitPipelineMode) \
  X(PQfinish) X(PQfname) X(PQfreeCancel) X(PQfreemem) X(PQftype) X(PQgetCancel) X(PQgetResult) X(PQgetisnull) \
  X(PQgetlength) X(PQgetvalue) X(PQisBusy) X(PQnfields) X(PQntuples) X(PQparameterStatus) X(PQpipelineSync) \
  X(PQreset) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsendQueryParams) \
  X(PQsetSingleRowMode) X(PQsocket) X(PQstatus)

#define SQLGRADE_LIBMARIADB_FUNCTIONS(X) \
  X(mysql_close) X(mysql_errno) X(mysql_error) X(mysql_fetch_fields) X(mysql_fetch_lengths) X(mysql_fetch_row) \
  X(mysql_field_count) X(mysql_free_result) X(mysql_get_server_info) X(mysql_get_socket) X(mysql_init) \
  X(mysql_server_init) X(mysql_num_fields) X(mysql_optionsv) X(mysql_query) X(mysql_real_connect) \
  X(mysql_real_escape_string) X(mysql_real_query) X(mysql_reset_connection) X(mysql_store_result) \
  X(mysql_thread_id) X(mysql_use_result)

#define SQLGRADE_SERVER_LIB_MEMBER(name) decltype(&::name) name = nullptr;
struct Pq {
  SQLGRADE_LIBPQ_FUNCTIONS(SQLGRADE_SERVER_LIB_MEMBER)
};
struct My {
  SQLGRADE_LIBMARIADB_FUNCTIONS(SQLGRADE_SERVER_LIB_MEMBER)
};
#undef SQLGRADE_SERVER_LIB_MEMBER

// The loaded libraries (thread-safe; each loads once). Throw InputError ("libpq" / "libmariadb") naming
// what was tried when the library or one of its functions cannot be found.
const Pq& pq();
const My& my();

}  // namespace sqlgrade::server_lib
