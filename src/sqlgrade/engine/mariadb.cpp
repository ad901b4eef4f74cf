// The MySQL / MariaDB engine: connecting and the login check — see mariadb.hpp, server.hpp.
//
// Connections are made as PyMySQL 1.1.1 makes them (utf8mb4, SET NAMES, no CLIENT_MULTI_STATEMENTS, so a
// text of two statements fails with error 1064 as it does for the official script), without
// LOAD DATA LOCAL. The login may hold SELECT, SHOW VIEW and USAGE only (SHOW GRANTS).
#include "sqlgrade/engine/mariadb.hpp"
#include "sqlgrade/engine/server_loader.hpp"


#include <cmath>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade {

using server_lib::my;
using server_lib::pq;

namespace {

// The privileges of one SHOW GRANTS line that go beyond reading ("" when none): SELECT, SHOW VIEW and
// USAGE are reading; a role granted to the login is refused (its privileges are not listed here).
std::string write_privileges(const std::string& line) {
  if (!starts_with_ci(line, "GRANT ")) return "";
  const size_t on = line.find(" ON ");
  const size_t to = line.find(" TO ");
  if (on == std::string::npos || (to != std::string::npos && to < on)) return "a role (" + line.substr(6, to - 6) + ")";
  std::string privs = line.substr(6, on - 6), bad;
  int depth = 0;
  std::string cur;
  auto flush = [&] {
    std::string p = to_upper(trim(cur));
    if (size_t paren = p.find('('); paren != std::string::npos) p = trim(p.substr(0, paren));
    if (!p.empty() && p != "SELECT" && p != "USAGE" && p != "SHOW VIEW") bad += (bad.empty() ? "" : ", ") + p;
    cur.clear();
  };
  for (char c : privs) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) flush();
    else cur += c;
  }
  flush();
  return bad;
}

}  // namespace

MYSQL* MariaDb::connect(const ServerDsn& dsn, double timeout_s) {
  MYSQL* m = my().mysql_init(nullptr);
  if (!m) throw InputError(dsn.redacted(), "cannot connect to MySQL: out of memory");
  unsigned int t = static_cast<unsigned int>(std::max(1.0, std::ceil(timeout_s)));
  unsigned int no = 0;
  my().mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
  my().mysql_optionsv(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  my().mysql_optionsv(m, MYSQL_OPT_LOCAL_INFILE, &no);
  const char* host = dsn.socket.empty() ? (dsn.host.empty() ? "localhost" : dsn.host.c_str()) : "localhost";
  if (!my().mysql_real_connect(m, host, dsn.user.empty() ? nullptr : dsn.user.c_str(),
                          dsn.password.empty() ? nullptr : dsn.password.c_str(),
                          dsn.database.empty() ? nullptr : dsn.database.c_str(), static_cast<unsigned>(dsn.port),
                          dsn.socket.empty() ? nullptr : dsn.socket.c_str(), 0)) {
    std::string msg = my().mysql_error(m);
    my().mysql_close(m);
    throw InputError(dsn.redacted(), "cannot connect to MySQL: " + msg);
  }
  return m;
}

MariaDb::MariaDb(const ServerDsn& dsn, const ServerOptions& opt) : ServerDb(dsn), opt_(opt) {
  m_ = connect(dsn, opt.connect_timeout_s);
  try {
    check_login();
    std::string err;
    if (!session_setup(&err)) throw InputError(dsn_.redacted(), "cannot set up the session: " + err);
  } catch (...) {
    my().mysql_close(m_);
    m_ = nullptr;
    throw;
  }
}

MariaDb::~MariaDb() {
  if (m_) my().mysql_close(m_);
}

bool MariaDb::healthy() const { return m_ && !broken_; }

std::string MariaDb::server_version() { return m_ ? std::string("MySQL ") + my().mysql_get_server_info(m_) : "MySQL"; }

// PyMySQL's str(exception): the tuple (errno, message) as Python prints it.
std::string MariaDb::error_text() const {
  return "(" + std::to_string(my().mysql_errno(m_)) + ", " + py::str_repr(my().mysql_error(m_)) + ")";
}

bool MariaDb::exec_simple(const std::string& sql, std::string* error) {
  if (my().mysql_real_query(m_, sql.data(), sql.size()) != 0) {
    if (error) *error = error_text();
    return false;
  }
  if (MYSQL_RES* r = my().mysql_store_result(m_)) my().mysql_free_result(r);
  return true;
}

// As PyMySQL: SET NAMES utf8mb4 (the server's default collation for it). The session's statement time
// is set per query (mariadb_query.cpp).
bool MariaDb::session_setup(std::string* error) {
  thread_id_ = my().mysql_thread_id(m_);
  statement_time_ = -1;
  profiling_ = false;
  return exec_simple("SET NAMES utf8mb4", error);
}

void MariaDb::check_login() {
  if (my().mysql_real_query(m_, "SHOW GRANTS", 11) != 0)
    throw InputError(dsn_.redacted(), "cannot check what the login may do: " + std::string(my().mysql_error(m_)));
  MYSQL_RES* r = my().mysql_store_result(m_);
  std::string bad;
  while (MYSQL_ROW row = r ? my().mysql_fetch_row(r) : nullptr) {
    std::string line = row[0] ? row[0] : "";
    std::string w = write_privileges(line);
    if (!w.empty()) bad += (bad.empty() ? "" : "; ") + w;
  }
  if (r) my().mysql_free_result(r);
  if (bad.empty()) return;
  throw InputError(dsn_.redacted(), "the login may do more than read (" + (bad.size() > 200 ? bad.substr(0, 200) + "..." : bad) +
                                        "): sqlgrade queries a server only through a login that can only read "
                                        "(`sqlgrade db load` creates one; docs/bird.md)");
}

// KILL QUERY from a connection of its own (the login may kill its own sessions' queries).
void MariaDb::kill_query() const {
  try {
    MYSQL* k = connect(dsn_, 5);
    const std::string q = "KILL QUERY " + std::to_string(thread_id_);
    my().mysql_real_query(k, q.data(), q.size());
    my().mysql_close(k);
  } catch (...) {
  }
}

}  // namespace sqlgrade
