// bird_dialects_floor: the time a PostgreSQL or MySQL server itself takes for a BIRD run's queries — each
// distinct SQL text of the gold file and of every prediction file executed ONCE, in file order, on one
// connection opened beforehand, through the plain client API (libpq PQexec, MariaDB mysql_real_query +
// mysql_store_result), results fetched and dropped: no transaction, no conversion, no comparison.
// The floor beside `sqlgrade bird` in bench/bird_dialects.sh.
//   usage: bird_dialects_floor URI GOLD.sql PRED.json [PRED.json ...]
// URI: postgresql://... (handed to libpq) or mysql://user@host/DB?socket=PATH. Prints seconds and count.
#include <libpq-fe.h>
#include <mysql.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sqlgrade/engine/server.hpp"

namespace {

std::vector<std::string> distinct_sql(int argc, char** argv) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& s) {
    if (seen.insert(s).second) out.push_back(s);
  };
  std::ifstream g(argv[2]);
  for (std::string line; std::getline(g, line);) {
    auto tab = line.rfind('\t');
    if (tab != std::string::npos) add(line.substr(0, tab));
  }
  const std::string sep = "\t----- bird -----\t";
  for (int f = 3; f < argc; ++f) {
    std::ifstream p(argv[f]);
    std::stringstream ss;
    ss << p.rdbuf();
    const nlohmann::ordered_json preds = nlohmann::ordered_json::parse(ss.str());
    for (auto& [k, v] : preds.items()) {
      std::string s = v.is_string() ? v.get<std::string>() : " ";
      auto pos = s.find(sep);
      add(pos == std::string::npos ? s : s.substr(0, pos));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s URI GOLD.sql PRED.json [PRED.json ...]\n", argv[0]);
    return 2;
  }
  const std::vector<std::string> sqls = distinct_sql(argc, argv);
  const sqlgrade::ServerDsn dsn = sqlgrade::parse_server_dsn(argv[1]);
  double seconds = 0;
  if (dsn.dialect == sqlgrade::ServerDialect::PostgreSQL) {
    PGconn* c = PQconnectdb(dsn.uri.c_str());
    if (PQstatus(c) != CONNECTION_OK) return std::fprintf(stderr, "%s", PQerrorMessage(c)), 2;
    auto t0 = std::chrono::steady_clock::now();
    for (const std::string& s : sqls) PQclear(PQexec(c, s.c_str()));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    PQfinish(c);
  } else {
    MYSQL* m = mysql_init(nullptr);
    if (!mysql_real_connect(m, dsn.socket.empty() ? dsn.host.c_str() : "localhost", dsn.user.c_str(),
                            dsn.password.empty() ? nullptr : dsn.password.c_str(), dsn.database.c_str(),
                            static_cast<unsigned>(dsn.port), dsn.socket.empty() ? nullptr : dsn.socket.c_str(), 0))
      return std::fprintf(stderr, "%s\n", mysql_error(m)), 2;
    auto t0 = std::chrono::steady_clock::now();
    for (const std::string& s : sqls)
      if (mysql_real_query(m, s.data(), s.size()) == 0)
        if (MYSQL_RES* r = mysql_store_result(m)) mysql_free_result(r);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    mysql_close(m);
  }
  std::printf("%.4f %zu\n", seconds, sqls.size());
  return 0;
}
