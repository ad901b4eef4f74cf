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

std::string verdict_key(std::string_view db, std::string_view gold_sql, std::string_view pred) {
  std::string k = gold_key(db, gold_sql);
  k.reserve(k.size() + 1 + pred.size());
  k += '\0';
  k.append(pred);
  return k;
}

}  // namespace sqlgrade::exec
