#include "sqlgrade/exec/runner.hpp"

namespace sqlgrade::exec {

std::string gold_key(std::string_view db, std::string_view gold_sql) {
  std::string k;
  k.reserve(db.size() + 1 + gold_sql.size());
  k.append(db);
  k += '\0';
  k.append(gold_sql);
  return k;
}

}  // namespace sqlgrade::exec
