// Throwaway PostgreSQL and MariaDB servers for the tests — see test_servers.hpp.
#include "test_servers.hpp"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <mysql.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <cerrno>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sqlgrade/engine/server_admin.hpp"

namespace sqlgrade::testing {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string find_binary(const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates) {
    if (c.find('/') != std::string::npos) {
      if (access(c.c_str(), X_OK) == 0) return c;
      continue;
    }
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    size_t b = 0;
    while (b <= p.size()) {
      size_t e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      fs::path f = fs::path(p.substr(b, e - b)) / c;
      if (access(f.c_str(), X_OK) == 0) return f.string();
      b = e + 1;
    }
  }
  return "";
}

// The newest /usr/lib/postgresql/<v>/bin/<name>, else <name> on PATH.
std::string pg_binary(const std::string& name) {
  std::vector<std::string> c;
  std::error_code ec;
  std::vector<fs::path> versions;
  for (auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) versions.push_back(e.path());
  std::sort(versions.rbegin(), versions.rend());
  for (auto& v : versions) c.push_back((v / "bin" / name).string());
  c.push_back(name);
  return find_binary(c);
}

// Run as root, the servers run as this user (neither PostgreSQL nor a MariaDB started by us runs as root).
struct RunAs {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

RunAs run_as(const char* user) {
  RunAs r;
  if (geteuid() != 0) return r;
  const passwd* pw = getpwnam(user);
  if (!pw) pw = getpwnam("nobody");
  if (!pw) throw std::runtime_error("running as root and no unprivileged user to run the server as");
  r.drop = true;
  r.uid = pw->pw_uid;
  r.gid = pw->pw_gid;
  return r;
}

// fork + exec `argv` (as `as`), output to `log`; `death_signal` sent to it if the test process dies.
pid_t spawn(const std::vector<std::string>& argv, const RunAs& as, const std::string& log, int death_signal) {
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid > 0) return pid;
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, 0);
  if (as.drop && (setgroups(0, nullptr) != 0 || setgid(as.gid) != 0 || setuid(as.uid) != 0)) _exit(126);
  if (death_signal) prctl(PR_SET_PDEATHSIG, death_signal);  // after the uid change, which would clear it
  if (getppid() != parent) _exit(125);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int run_and_wait(const std::vector<std::string>& argv, const RunAs& as, const std::string& log) {
  pid_t pid = spawn(argv, as, log, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string tail_of(const std::string& path) {
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all.size() > 1500 ? all.substr(all.size() - 1500) : all;
}

void chown_tree(const std::string& dir, const RunAs& as) {
  if (!as.drop) return;
  if (chown(dir.c_str(), as.uid, as.gid) != 0) throw std::runtime_error("chown " + dir + " failed");
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (lchown(e.path().c_str(), as.uid, as.gid) != 0) throw std::runtime_error("chown failed");
}

bool alive(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) == 0;
}

}  // namespace

TestServer::~TestServer() {
  if (pid_ > 0) {
    kill(pid_, kind_ == Kind::PostgreSQL ? SIGINT : SIGTERM);  // PostgreSQL: fast shutdown
    const auto until = Clock::now() + std::chrono::seconds(20);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > until) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string TestServer::admin_dsn(const std::string& database) const {
  if (kind_ == Kind::PostgreSQL) return "postgresql://postgres@/" + database + "?host=" + dir_ + "&port=" + std::to_string(port_);
  return "mysql://root@localhost/" + database + "?socket=" + dir_ + "/mysqld.sock";
}

std::string TestServer::load(const std::string& name, const std::string& dump) {
  if (auto it = loaded_.find(name); it != loaded_.end()) return it->second;
  DbLoadOptions o;
  o.admin_dsn = admin_dsn(kind_ == Kind::PostgreSQL ? "postgres" : "mysql");
  o.database = name;
  o.dump = dump;
  o.reader = "sqlgrade_reader";
  DbLoadResult r = load_database(o);
  load_seconds_[name] = r.seconds;
  return loaded_[name] = r.reader_dsn;
}

double TestServer::load_seconds(const std::string& name) const {
  auto it = load_seconds_.find(name);
  return it == load_seconds_.end() ? 0 : it->second;
}

namespace {

// The first number in a file (a PID), or 0.
pid_t read_pid(const fs::path& p) {
  std::ifstream in(p);
  long v = 0;
  return in >> v && v > 0 ? static_cast<pid_t>(v) : 0;
}

bool pid_alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

// A test process killed outright (SIGKILL: no destructor runs) takes its server down with it
// (PR_SET_PDEATHSIG) but leaves the folder. Every folder records the PID of the process that made it
// (owner.pid); a folder of ours whose owner and server are both gone is removed before a new one is made.
// Nothing else is touched: no marker, a live owner or a live server keeps the folder.
}  // namespace

void sweep_stale_dirs(const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !e.is_directory(ec)) continue;
    const pid_t owner = read_pid(e.path() / "owner.pid");
    if (owner == 0 || pid_alive(owner)) continue;
    const pid_t server = std::max(read_pid(e.path() / "data" / "postmaster.pid"), read_pid(e.path() / "mysqld.pid"));
    if (pid_alive(server)) continue;
    fs::remove_all(e.path(), ec);
  }
}

namespace {

std::string make_dir(const char* prefix) {
  sweep_stale_dirs(prefix);
  std::string templ = (fs::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  std::ofstream(templ + "/owner.pid") << getpid() << "\n";
  return templ;
}

bool wait_postgres(const std::string& dir, int port, pid_t pid, double seconds) {
  const std::string conninfo = "host=" + dir + " port=" + std::to_string(port) + " dbname=postgres user=postgres connect_timeout=2";
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (PQping(conninfo.c_str()) == PQPING_OK) return true;
    if (!alive(pid)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool wait_mariadb(const std::string& socket, pid_t pid, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    MYSQL* m = mysql_init(nullptr);
    unsigned int t = 2;
    mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
    const bool ok = mysql_real_connect(m, "localhost", "root", nullptr, nullptr, 0, socket.c_str(), 0) != nullptr;
    mysql_close(m);
    if (ok) return true;
    if (!alive(pid)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

std::unique_ptr<TestServer> TestServer::start(Kind kind, std::string& why, bool& skip, int tcp_port) {
  skip = false;
  const auto t0 = Clock::now();
  const bool pg = kind == Kind::PostgreSQL;
  const std::string init = pg ? pg_binary("initdb") : find_binary({"mariadb-install-db", "mysql_install_db"});
  const std::string server = pg ? pg_binary("postgres") : find_binary({"/usr/sbin/mariadbd", "mariadbd", "/usr/sbin/mysqld"});
  if (init.empty() || server.empty()) {
    why = pg ? "PostgreSQL server binaries (initdb, postgres) not installed (Debian: postgresql-15)"
             : "MariaDB server binaries (mariadb-install-db, mariadbd) not installed (Debian: mariadb-server)";
    skip = true;
    return nullptr;
  }
  auto s = std::unique_ptr<TestServer>(new TestServer);
  s->kind_ = kind;
  if (tcp_port > 0) s->port_ = tcp_port;
  s->dir_ = make_dir(pg ? "sqlgrade-pg-" : "sqlgrade-my-");
  const RunAs as = run_as(pg ? "postgres" : "mysql");
  const std::string log = s->dir_ + "/server.log";
  std::vector<std::string> init_argv, run_argv;
  if (pg) {
    init_argv = {init, "-D", s->dir_ + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"};
    run_argv = {server, "-D", s->dir_ + "/data", "-k", s->dir_, "-c",
                std::string("listen_addresses=") + (tcp_port > 0 ? "127.0.0.1" : ""), "-c", "port=" + std::to_string(s->port_),
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "autovacuum=off",
                "-c", "max_connections=60", "-c", "shared_buffers=16MB"};
  } else {
    const std::string cnf = s->dir_ + "/my.cnf";
    std::ofstream(cnf) << "[mariadbd]\ndatadir=" << s->dir_ << "/data\nsocket=" << s->dir_ << "/mysqld.sock\npid-file="
                       << s->dir_ << "/mysqld.pid\n"
                       << (tcp_port > 0 ? "bind-address=127.0.0.1\nport=" + std::to_string(tcp_port) : std::string("skip-networking"))
                       << "\nskip-name-resolve\nlower_case_table_names=1\n"
                       << "character-set-server=utf8mb4\ncollation-server=utf8mb4_general_ci\n"
                       << "innodb_buffer_pool_size=32M\ninnodb_log_file_size=16M\nperformance_schema=OFF\n"
                       << "max_connections=80\nlog-error=" << s->dir_ << "/error.log\n";
    init_argv = {init, "--defaults-file=" + cnf, "--auth-root-authentication-method=normal", "--skip-test-db"};
    run_argv = {server, "--defaults-file=" + cnf};
  }
  chown_tree(s->dir_, as);
  if (run_and_wait(init_argv, as, log) != 0) {
    why = "initialising the server failed: " + tail_of(log);
    return nullptr;
  }
  s->pid_ = spawn(run_argv, as, log, pg ? SIGINT : SIGTERM);
  const bool up = pg ? wait_postgres(s->dir_, s->port_, s->pid_, 120) : wait_mariadb(s->dir_ + "/mysqld.sock", s->pid_, 120);
  if (!up) {
    why = "the server did not start: " + tail_of(log) + (pg ? "" : tail_of(s->dir_ + "/error.log"));
    return nullptr;
  }
  s->start_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
  return s;
}

namespace {
std::mutex g_mu;
std::map<TestServer::Kind, std::unique_ptr<TestServer>> g_servers;
std::map<TestServer::Kind, std::pair<std::string, bool>> g_why;

struct Cleanup {
  ~Cleanup() { g_servers.clear(); }  // stops the servers when the test process exits normally
} g_cleanup;
}  // namespace

TestServer* shared_server(TestServer::Kind kind, std::string& why, bool& skip) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (auto it = g_servers.find(kind); it != g_servers.end()) return it->second.get();
  if (auto it = g_why.find(kind); it != g_why.end()) {
    why = it->second.first;
    skip = it->second.second;
    return nullptr;
  }
  std::unique_ptr<TestServer> s;
  try {
    s = TestServer::start(kind, why, skip);
  } catch (const std::exception& e) {
    why = e.what();
    skip = false;
  }
  if (!s) {
    g_why[kind] = {why, skip};
    return nullptr;
  }
  return (g_servers[kind] = std::move(s)).get();
}

std::string minidev_dsn(TestServer::Kind kind, std::string& why, bool& skip) {
  const char* env = std::getenv("SQLGRADE_DATA");
  const std::string data = env && *env ? env : SQLGRADE_DEFAULT_DATA;
  const bool pg = kind == TestServer::Kind::PostgreSQL;
  const std::string dump = data + (pg ? "/bird/minidev_postgresql/BIRD_dev.sql" : "/bird/minidev_mysql/BIRD_dev.sql");
  std::error_code ec;
  if (!fs::is_regular_file(dump, ec)) {
    why = "benchmark data not found (set SQLGRADE_DATA; looked for " + dump + ")";
    skip = true;
    return "";
  }
  TestServer* s = shared_server(kind, why, skip);
  if (!s) return "";
  std::lock_guard<std::mutex> lk(g_mu);
  try {
    return s->load(pg ? "bird" : "BIRD", dump);
  } catch (const std::exception& e) {
    why = std::string("loading the dump failed: ") + e.what();
    skip = false;
    return "";
  }
}

}  // namespace sqlgrade::testing
