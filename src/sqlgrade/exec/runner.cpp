#include "sqlgrade/exec/runner.hpp"

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/digest.hpp"

namespace sqlgrade::exec {

std::string gold_key(std::initializer_list<std::string_view> parts) {
  // A gold computed under a pinned SQL clock (a request's `now`, a run's --now) is another entry than
  // the same gold under another clock or the real one (core/clock.hpp); keys without a pin ignore it.
  if (auto at = sql_clock::pinned()) {
    std::string tag("\0now", 4);
    tag.append(reinterpret_cast<const char*>(&*at), sizeof *at);
    return sha256_parts(parts, tag);
  }
  return sha256_parts(parts);
}

std::string verdict_key(std::string_view db, std::string_view gold_sql, std::string_view pred) {
  return gold_key({"verdict", db, gold_sql, pred});
}

}  // namespace sqlgrade::exec
