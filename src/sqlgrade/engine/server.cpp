// Connection URIs, opening a server engine, and the pool of server connections — see server.hpp.
#include "sqlgrade/engine/server.hpp"

#include <cctype>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/mariadb.hpp"
#include "sqlgrade/engine/postgres.hpp"
#include "sqlgrade/engine/server_admin.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade {

const char* dialect_name(ServerDialect d) { return d == ServerDialect::PostgreSQL ? "PostgreSQL" : "MySQL"; }
const char* dialect_word(ServerDialect d) { return d == ServerDialect::PostgreSQL ? "postgresql" : "mysql"; }

const std::vector<ServerScheme>& server_schemes() {
  static const std::vector<ServerScheme> s{{"postgresql", ServerDialect::PostgreSQL},
                                           {"postgres", ServerDialect::PostgreSQL},
                                           {"mysql", ServerDialect::MySQL},
                                           {"mariadb", ServerDialect::MySQL}};
  return s;
}

std::optional<ServerDialect> dialect_of_scheme(std::string_view scheme) {
  const std::string l = to_lower(scheme);
  for (const ServerScheme& s : server_schemes())
    if (l == s.scheme) return s.dialect;
  return std::nullopt;
}

namespace {

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoding; false on a bad escape.
bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size() || hexval(in[i + 1]) < 0 || hexval(in[i + 2]) < 0) return false;
    out += static_cast<char>(hexval(in[i + 1]) * 16 + hexval(in[i + 2]));
    i += 2;
  }
  return true;
}

struct UriParts {
  std::string scheme, user, password, host, port, path;
  std::map<std::string, std::string> params;
};

// scheme://[user[:password]@][host][:port][/path][?k=v&...], each part percent-decoded.
UriParts split_uri(const std::string& uri, const std::string& what) {
  UriParts u;
  const size_t sep = uri.find("://");
  if (sep == std::string::npos) throw InputError(what, "not a connection URI (expected postgresql://... or mysql://...)");
  u.scheme = to_lower(uri.substr(0, sep));
  std::string rest = uri.substr(sep + 3), query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string authority = rest;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    authority = rest.substr(0, slash);
    u.path = rest.substr(slash + 1);
  }
  std::string hostport = authority;
  if (size_t at = authority.rfind('@'); at != std::string::npos) {
    std::string userinfo = authority.substr(0, at);
    hostport = authority.substr(at + 1);
    size_t colon = userinfo.find(':');
    u.user = userinfo.substr(0, colon);
    if (colon != std::string::npos) u.password = userinfo.substr(colon + 1);
  }
  if (size_t colon = hostport.rfind(':'); colon != std::string::npos && hostport.find(']') == std::string::npos) {
    u.port = hostport.substr(colon + 1);
    hostport = hostport.substr(0, colon);
  }
  u.host = hostport;
  for (std::string* p : {&u.user, &u.password, &u.host, &u.path}) {
    std::string d;
    if (!percent_decode(*p, d)) throw InputError(what, "bad %-escape in the connection URI");
    *p = d;
  }
  for (const std::string& kv : split(query, "&")) {
    if (kv.empty()) continue;
    size_t eq = kv.find('=');
    std::string k, v;
    if (!percent_decode(kv.substr(0, eq), k) || !percent_decode(eq == std::string::npos ? "" : kv.substr(eq + 1), v))
      throw InputError(what, "bad %-escape in the connection URI");
    u.params[k] = v;
  }
  return u;
}

}  // namespace

ServerDsn parse_server_dsn(const std::string& uri, const std::string& what) {
  UriParts u = split_uri(uri, what);
  ServerDsn d;
  d.uri = uri;
  if (auto dialect = dialect_of_scheme(u.scheme)) d.dialect = *dialect;
  else throw InputError(what, "unknown database scheme '" + u.scheme + "' (postgresql://, mysql://)");
  d.user = u.user;
  d.password = u.password;
  d.database = u.path;
  d.host = u.host;
  if (!u.port.empty()) {
    if (u.port.size() > 5 || u.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(u.port) > 65535)
      throw InputError(what, "bad port '" + u.port + "' in the connection URI");
    d.port = std::stoi(u.port);
  }
  for (const char* k : {"host", "socket", "unix_socket"})
    if (auto it = u.params.find(k); it != u.params.end()) (std::string(k) == "host" ? d.host : d.socket) = it->second;
  if (d.dialect == ServerDialect::MySQL) {
    if (!d.host.empty() && d.host[0] == '/') d.socket = d.host;  // mysql://user@%2Frun%2Fmysqld.sock/db
    if (d.database.empty()) throw InputError(what, "the MySQL URI names no database (mysql://user@host/DATABASE)");
    for (auto& [k, v] : u.params)
      if (k != "socket" && k != "unix_socket" && k != "host")
        throw InputError(what, "unknown MySQL URI parameter '" + k + "' (socket, unix_socket)");
  }
  return d;
}

std::string ServerDsn::redacted() const {
  if (password.empty()) return uri;
  const size_t sep = uri.find("://");
  const size_t at = uri.find('@', sep);
  const size_t colon = uri.find(':', sep + 3);
  if (sep == std::string::npos || at == std::string::npos || colon == std::string::npos || colon > at) return uri;
  return uri.substr(0, colon + 1) + "***" + uri.substr(at);
}

namespace {
std::string percent_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += std::string("%") + hex[c >> 4] + hex[c & 15];
  }
  return out;
}
}  // namespace

std::string with_login(const ServerDsn& dsn, const std::string& user, const std::string& password,
                       const std::string& database) {
  const std::string& uri = dsn.uri;
  const size_t start = uri.find("://") + 3;
  size_t end = uri.find_first_of("/?", start);
  if (end == std::string::npos) end = uri.size();
  std::string authority = uri.substr(start, end - start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  std::string userinfo = percent_encode(user);
  if (!password.empty()) userinfo += ":" + percent_encode(password);
  const size_t q = uri.find('?', start);
  const std::string query = q == std::string::npos ? "" : uri.substr(q);
  return uri.substr(0, start) + (userinfo.empty() ? "" : userinfo + "@") + authority + "/" + percent_encode(database) + query;
}

std::unique_ptr<ServerDb> open_server(const ServerDsn& dsn, const ServerOptions& opt) {
  if (dsn.dialect == ServerDialect::PostgreSQL) return std::make_unique<PostgresDb>(dsn, opt);
  return std::make_unique<MariaDb>(dsn, opt);
}

// ---------------------------------------------------------------- the pool

struct ServerPool::Lease::Slot {
  std::string key;
  std::unique_ptr<ServerDb> db;
};

namespace {

using Slot = ServerPool::Lease::Slot;

struct PoolState {
  std::mutex mu;
  std::condition_variable returned;
  size_t max_per_server = 16;
  std::map<std::string, size_t> open;  // per key: leased + idle + being opened
  std::multimap<std::string, std::unique_ptr<Slot>> idle;
};

PoolState& pool() {
  static PoolState* s = new PoolState;  // never destroyed: leases may end after static destruction
  return *s;
}

std::string pool_key(const ServerDsn& dsn, const ServerOptions& o) {
  return dsn.uri + "\n" + (o.pg_last_result ? "l" : "1") + std::to_string(o.work_mem_kb) + "/" +
         std::to_string(o.cancel_grace_s);
}

}  // namespace

ServerPool::Lease::Lease(Slot* slot, ServerDb* db) : slot_(slot), db_(db) {}
ServerPool::Lease::Lease(Lease&& o) noexcept : slot_(o.slot_), db_(o.db_) { o.slot_ = nullptr; }

ServerPool::Lease::~Lease() {
  if (!slot_) return;
  PoolState& s = pool();
  std::unique_ptr<Slot> slot(slot_);
  std::unique_ptr<Slot> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (slot->db && slot->db->healthy() && s.open[slot->key] <= s.max_per_server) {
      const std::string key = slot->key;
      s.idle.emplace(key, std::move(slot));
    } else {
      --s.open[slot->key];
      closing = std::move(slot);
    }
  }
  s.returned.notify_all();
}

ServerPool::Lease ServerPool::lease(const ServerDsn& dsn, const ServerOptions& opt) {
  PoolState& s = pool();
  const std::string key = pool_key(dsn, opt);
  {
    std::unique_lock<std::mutex> lk(s.mu);
    for (;;) {
      auto it = s.idle.find(key);
      if (it != s.idle.end()) {
        Slot* slot = it->second.release();
        s.idle.erase(it);
        return Lease(slot, slot->db.get());
      }
      if (s.open[key] < s.max_per_server) break;
      s.returned.wait(lk);
    }
    ++s.open[key];
  }
  auto slot = std::make_unique<Slot>();
  slot->key = key;
  try {
    slot->db = open_server(dsn, opt);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lk(s.mu);
      --s.open[key];
    }
    s.returned.notify_all();
    throw;
  }
  ServerDb* db = slot->db.get();
  return Lease(slot.release(), db);
}

void ServerPool::configure(size_t max_open_per_server) {
  PoolState& s = pool();
  std::lock_guard<std::mutex> lk(s.mu);
  s.max_per_server = std::max<size_t>(1, max_open_per_server);
}

size_t ServerPool::max_open() {
  PoolState& s = pool();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.max_per_server;
}

size_t ServerPool::open_count() {
  PoolState& s = pool();
  std::lock_guard<std::mutex> lk(s.mu);
  size_t n = 0;
  for (auto& [k, c] : s.open) n += c;
  return n;
}

void ServerPool::close_idle() {
  PoolState& s = pool();
  std::multimap<std::string, std::unique_ptr<Slot>> closing;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    for (auto& [k, slot] : s.idle) --s.open[k];
    closing.swap(s.idle);
  }
  s.returned.notify_all();
}

}  // namespace sqlgrade
