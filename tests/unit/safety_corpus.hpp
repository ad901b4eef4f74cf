#pragma once
// The adversarial prediction corpus (tests/adversarial/*.sql): loading, placeholder expansion and the
// fixture database every benchmark mode runs it against. Used by safety_*_test.cpp.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sqlgrade::test {

// Built with AddressSanitizer (scripts/sanitize.sh)? Its allocator changes two resource figures the
// safety tests bound, so those bounds are widened there (and only there):
//  * memory: shadow memory and redzones (caps are doubled) and a quarantine that holds up to 256 MB of
//    freed blocks whatever the program's size (256 MiB more: a small cap, e.g. 130 MiB for `audit`,
//    would otherwise measure the quarantine, not the program — CI saw 455 MiB for it);
//  * time: ASan's realloc always copies (glibc grows a large block in place with mremap). SQLite grows
//    group_concat's buffer by each appended piece once it is past half the length limit (16 MiB), so
//    one progress-handler interval (1000 VM steps) there costs ~1 s of page faults instead of
//    microseconds, and memory:15 stops after ~10 s instead of 1 s.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif
#else
inline constexpr bool kUnderAsan = false;
#endif
inline constexpr size_t asan_scaled_mib(size_t mib) { return kUnderAsan ? 2 * mib + 256 : mib; }

struct AdvStatement {
  std::string group;  // file stem: writes, admin, ..., malformed, huge_format, builtins, duckdb
  int line = 0;       // 1-based line in the file
  std::string sql;    // expanded text
  std::string id() const { return group + ":" + std::to_string(line); }
  bool has_newline() const { return sql.find_first_of("\r\n") != std::string::npos; }
};

inline std::string adversarial_dir() { return std::string(SQLGRADE_SOURCE_DIR) + "/tests/adversarial"; }

// {{rep N|TEXT}} -> TEXT repeated N times; {{xHH}} -> the byte 0xHH.
inline std::string expand_placeholders(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t b = s.find("{{", i);
    if (b == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    size_t e = s.find("}}", b + 2);
    // "}}" inside TEXT is not supported (the corpus does not need it).
    if (e == std::string::npos) throw std::runtime_error("unterminated placeholder: " + s.substr(b, 40));
    out.append(s, i, b - i);
    std::string body = s.substr(b + 2, e - b - 2);
    if (body.size() == 3 && body[0] == 'x') {
      out += static_cast<char>(std::stoi(body.substr(1), nullptr, 16));
    } else if (body.rfind("rep ", 0) == 0) {
      size_t bar = body.find('|');
      if (bar == std::string::npos) throw std::runtime_error("bad placeholder: " + body);
      size_t n = std::stoul(body.substr(4, bar - 4));
      std::string text = body.substr(bar + 1);
      out.reserve(out.size() + n * text.size());
      for (size_t k = 0; k < n; ++k) out += text;
    } else {
      throw std::runtime_error("unknown placeholder: " + body);
    }
    i = e + 2;
  }
  return out;
}

// Every statement of the given groups (all groups when empty), in file-name then line order.
inline std::vector<AdvStatement> load_adversarial(const std::set<std::string>& groups = {}) {
  std::vector<std::filesystem::path> files;
  for (auto& e : std::filesystem::directory_iterator(adversarial_dir()))
    if (e.path().extension() == ".sql") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<AdvStatement> out;
  for (auto& f : files) {
    std::string g = f.stem().string();
    if (!groups.empty() && !groups.count(g)) continue;
    std::ifstream in(f, std::ios::binary);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line[0] == '#') continue;
      out.push_back({g, n, expand_placeholders(line)});
    }
  }
  return out;
}

// Groups run on SQLite benchmark databases (duckdb.sql is for the UDA gold side).
inline std::set<std::string> sqlite_groups() {
  return {"writes", "admin", "extensions", "multi", "schema_objects", "runaway", "memory", "malformed", "huge_format", "builtins"};
}
// Groups run on DuckDB (UDA gold side): all of them.
inline std::set<std::string> duckdb_groups() {
  return {"writes", "admin", "extensions", "multi", "schema_objects", "runaway", "memory", "malformed", "huge_format",
          "builtins", "duckdb"};
}
// Groups in which no statement may ever execute successfully.
inline bool must_be_refused(const std::string& group) {
  return group == "writes" || group == "admin" || group == "extensions" || group == "multi" ||
         group == "schema_objects";
}

// The benchmark database: 300 people, 300 pets, an index, a view, AUTOINCREMENT (sqlite_sequence).
inline const char* adversarial_db_script() {
  return "CREATE TABLE people(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, score REAL);"
         "CREATE TABLE pets(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES people(id), kind TEXT);"
         "CREATE INDEX idx_pets_owner ON pets(owner);"
         "CREATE VIEW v_people AS SELECT name FROM people;"
         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
         "INSERT INTO people(id, name, score) SELECT i, 'p' || i, i * 1.5 FROM n;"
         "INSERT INTO pets SELECT id, id, CASE id % 3 WHEN 0 THEN 'cat' ELSE 'dog' END FROM people;";
}

// The gold query of every adversarial item: no corpus statement returns exactly this.
inline const char* adversarial_gold_sql() { return "SELECT name FROM people WHERE id = 7"; }

// Files the corpus tries to create (ATTACH, VACUUM INTO, writefile, COPY, EXPORT ...).
inline std::vector<std::string> adversarial_side_files() {
  std::vector<std::string> out;
  for (auto& e : std::filesystem::directory_iterator("/tmp")) {
    std::string n = e.path().filename().string();
    if (n.rfind("sqlgrade-adversarial-", 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

}  // namespace sqlgrade::test
