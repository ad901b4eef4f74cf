// Natural id order and the shard function. See ids.hpp.
#include "sqlgrade/runs/ids.hpp"

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/digest.hpp"

namespace sqlgrade::runs {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Compares two digit runs by value: strip leading zeros, then length, then digits.
int compare_digits(std::string_view a, std::string_view b) {
  auto strip = [](std::string_view s) {
    size_t i = 0;
    while (i + 1 < s.size() && s[i] == '0') ++i;
    return s.substr(i);
  };
  a = strip(a), b = strip(b);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace

bool id_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = is_digit(a[i]), db = is_digit(b[j]);
    size_t ie = i, je = j;
    while (ie < a.size() && is_digit(a[ie]) == da) ++ie;
    while (je < b.size() && is_digit(b[je]) == db) ++je;
    std::string_view ra = a.substr(i, ie - i), rb = b.substr(j, je - j);
    int c;
    if (da && db) c = compare_digits(ra, rb);
    else if (da != db) c = da ? -1 : 1;
    else c = ra.compare(rb) < 0 ? -1 : ra.compare(rb) > 0 ? 1 : 0;
    if (c) return c < 0;
    i = ie, j = je;
  }
  if ((i < a.size()) != (j < b.size())) return j < b.size();
  return a < b;
}

uint64_t shard_of(std::string_view id, uint64_t n) {
  auto d = sha256_bytes(id);
  uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v = v << 8 | d[static_cast<size_t>(k)];
  return n ? v % n : 0;
}

Shard parse_shard(std::string_view spec, const std::string& flag) {
  auto bad = [&]() { return InputError(flag, "expected i/n with 1 <= i <= n (e.g. 2/8), got '" + std::string(spec) + "'"); };
  size_t slash = spec.find('/');
  if (slash == std::string_view::npos) throw bad();
  auto num = [&](std::string_view s) {
    if (s.empty() || s.size() > 7) throw bad();
    long v = 0;
    for (char c : s) {
      if (!is_digit(c)) throw bad();
      v = v * 10 + (c - '0');
    }
    return v;
  };
  long i = num(spec.substr(0, slash)), n = num(spec.substr(slash + 1));
  if (bounds::violation(bounds::bound("shard_count"), static_cast<double>(n)) || i < 1 || i > n) throw bad();
  return Shard{static_cast<int>(i), static_cast<int>(n)};
}

ShardBy parse_shard_by(std::string_view by) {
  if (by.empty() || by == "id") return ShardBy::Id;
  if (by == "db") return ShardBy::Db;
  throw InputError("--shard-by", "expected id or db, got '" + std::string(by) + "'");
}

const char* to_string(ShardBy by) { return by == ShardBy::Db ? "db" : "id"; }

std::optional<Shard> shard_option(int index, int count, std::string_view by) {
  const ShardBy b = parse_shard_by(by);  // checked even without --shard, so a typo never passes silently
  if (count <= 0) return std::nullopt;
  if (index < 1 || index > count) throw InputError("--shard", "shard index must be in 1.." + std::to_string(count));
  return Shard{index, count, b};
}

std::optional<Shard> shard_spec(std::string_view spec, std::string_view by) {
  const ShardBy b = parse_shard_by(by);
  if (spec.empty()) return std::nullopt;
  Shard s = parse_shard(spec);
  s.by = b;
  return s;
}

std::string to_string(const Shard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count) + (s.by == ShardBy::Db ? " by db" : "");
}

bool in_shard(const Shard& s, std::string_view id, std::string_view db) {
  return shard_of(s.by == ShardBy::Db ? db : id, static_cast<uint64_t>(s.count)) == static_cast<uint64_t>(s.index - 1);
}

const std::string* shard_db(const Instance& in) {
  if (const std::string* db = in.category_of("db")) return db;
  return in.category_of("dataset");
}

bool in_shard(const Instance& in, const Shard& s) {
  if (s.by == ShardBy::Id) return in_shard(s, in.id, {});
  const std::string* db = shard_db(in);
  return in_shard(s, in.id, db ? std::string_view(*db) : std::string_view());
}

}  // namespace sqlgrade::runs
