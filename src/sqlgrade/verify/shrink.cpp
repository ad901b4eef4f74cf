// Delta debugging over the rows of a candidate (shrink.hpp).
#include "sqlgrade/verify/shrink.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "sqlgrade/core/cancel.hpp"

namespace sqlgrade::verify {

namespace {
using Positions = std::vector<std::pair<size_t, size_t>>;

Positions positions(const Candidate& c) {
  Positions items;
  for (size_t t = 0; t < c.rows.size(); ++t)
    for (size_t r = 0; r < c.rows[t].size(); ++r) items.push_back({t, r});
  return items;
}
}  // namespace

Candidate subset(const Candidate& c, const Positions& keep) {
  Candidate out{{}, {}, c.strategy, c.mutations};
  out.rows.resize(c.rows.size());
  out.src.resize(c.rows.size());
  for (auto [t, r] : keep) {
    out.rows[t].push_back(c.rows[t][r]);
    out.src[t].push_back(c.src[t][r]);
  }
  return out;
}

std::vector<std::string> witness_mutations(const Schema& s, const Candidate& c) {
  std::vector<std::string> order;
  std::map<std::string, size_t> rows;
  auto note = [&](const std::string& line) {
    if (rows[line]++ == 0) order.push_back(line);
  };
  for (size_t t = 0; t < c.src.size() && t < s.tables.size(); ++t)
    for (const std::string& src : c.src[t]) {
      const std::string table = s.tables[t].name + ": ";
      if (src.rfind("generated", 0) == 0) note(table + "a generated row");
      // The origin, then "; <column> := <value> (<why>)" per change and "; duplicated with fresh key values".
      for (size_t at = src.find("; "); at != std::string::npos; at = src.find("; ", at + 2)) {
        const size_t end = src.find("; ", at + 2);
        const std::string part = src.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
        if (part == "duplicated with fresh key values") note(table + "a duplicated row (fresh key values)");
        else if (part.find(" := ") != std::string::npos) note(table + part);
      }
    }
  std::vector<std::string> out;
  for (const std::string& line : order)
    out.push_back(rows[line] > 1 ? line + " (" + std::to_string(rows[line]) + " rows)" : line);
  return out;
}

Candidate shrink(Candidate c, size_t max_tests, const StillDiffers& differs, size_t* spent_out) {
  Positions items = positions(c);
  size_t n = 2, spent = 0;
  while (items.size() >= 2 && spent < max_tests && !cancel_requested()) {
    const size_t chunk = (items.size() + n - 1) / n;
    bool reduced = false;
    for (size_t i = 0; i * chunk < items.size() && spent < max_tests; ++i) {
      Positions rest(items.begin(), items.begin() + i * chunk);
      rest.insert(rest.end(), items.begin() + std::min(items.size(), (i + 1) * chunk), items.end());
      ++spent;
      Candidate kept;
      if (!differs(subset(c, rest), &kept)) continue;
      c = std::move(kept);  // rows SQLite dropped (orphans) are gone for good
      items = positions(c);
      n = std::max<size_t>(n - 1, 2);
      reduced = true;
      break;
    }
    if (!reduced) {
      if (n >= items.size()) break;
      n = std::min(items.size(), n * 2);
    }
  }
  if (spent_out) *spent_out += spent;
  return c;
}

}  // namespace sqlgrade::verify
