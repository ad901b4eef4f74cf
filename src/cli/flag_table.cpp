// The CLI's flag definitions as data (flag_table.hpp).
#include "flag_table.hpp"

#include <functional>
#include <string>
#include <vector>

#include "flags.hpp"

namespace sqlgrade::cli {

namespace {

nlohmann::json option_row(const CLI::Option* o) {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  for (const auto& n : o->get_snames()) names.push_back("-" + n);
  const bool positional = names.empty();
  const std::string type = o->get_type_name();  // "FLOAT:(0, 86400] seconds": the type, then the check
  return {{"names", names},
          {"positional", positional ? nlohmann::json(o->get_name()) : nlohmann::json()},
          {"value", o->get_expected_max() != 0},  // a switch (add_flag) takes none
          {"type", type.substr(0, type.find(':'))},
          {"path", to_string(path_role_of(o))}};
}

void walk(const CLI::App* a, const std::string& path, const nlohmann::json& inherited, nlohmann::json& out) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CLI::Option* o : a->get_options())
    if (!o->get_lnames().empty() || !o->get_snames().empty() || o->get_positional())
      if (o != a->get_help_ptr()) rows.push_back(option_row(o));
  nlohmann::json all = rows;
  if (a->get_fallthrough())
    for (const auto& r : inherited) all.push_back(r);
  out[path] = all;
  for (const CLI::App* sub : a->get_subcommands(std::function<bool(const CLI::App*)>{}))
    walk(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), all, out);
}

}  // namespace

nlohmann::json flag_table(const CLI::App& app) {
  nlohmann::json out = nlohmann::json::object();
  walk(&app, "", nlohmann::json::array(), out);
  return out;
}

}  // namespace sqlgrade::cli
