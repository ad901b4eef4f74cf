// The registry of benchmarks (registry.hpp): one line per benchmark folder.
#include "sqlgrade/verdict/registry.hpp"

#include <nlohmann/json.hpp>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "sqlgrade/verdict/request.hpp"

namespace sqlgrade::verdicts {

const std::vector<const Benchmark*>& benchmarks() {
  static const std::vector<const Benchmark*> all{&spider2::benchmark(), &spider::benchmark(), &bird::benchmark()};
  return all;
}

const Benchmark& default_benchmark() { return spider2::benchmark(); }

const Benchmark& benchmark_named(const std::string& name) {
  const std::string b = to_lower(py::strip(name));
  for (const Benchmark* bench : benchmarks()) {
    if (b == bench->name()) return *bench;
    for (const std::string& a : bench->aliases())
      if (b == a) return *bench;
  }
  std::vector<std::string> names;
  for (const Benchmark* bench : benchmarks()) names.emplace_back(bench->name());
  throw BadRequest("unknown benchmark '" + b + "' (expected " + join_or(names) + ")");
}

void register_run_summarizers() {
  for (const Benchmark* b : benchmarks()) b->register_run_summarizer();
}

nlohmann::json registry_table() {
  nlohmann::json rows = nlohmann::json::array();
  for (const Benchmark* b : benchmarks())
    rows.push_back({{"name", b->name()},
                    {"aliases", b->aliases()},
                    {"layout", b->layout() == DbLayout::Nested ? "nested" : "flat"},
                    {"database", b->database("<root>", "<id>")},
                    {"grades_folders", b->grades_folders()},
                    {"grades_servers", b->grades_servers()}});
  std::vector<std::string> switches;
  for (const auto& s : extract_switches()) switches.push_back(s.first);
  nlohmann::json schemes = nlohmann::json::object();
  for (const ServerScheme& s : server_schemes()) schemes[s.scheme] = dialect_word(s.dialect);
  nlohmann::json shaping = nlohmann::json::array();
  const RewardShaping defaults;
  for (const ShapingField& f : shaping_fields()) shaping.push_back({{"name", f.name}, {"default", defaults.*f.member}});
  return {{"default", default_benchmark().name()}, {"benchmarks", rows},         {"label_keys", label_keys()},
          {"extract_keys", switches},           {"extract_presets", answer::preset_names()},
          {"uri_schemes", schemes},             {"shaping_fields", shaping}};
}

}  // namespace sqlgrade::verdicts
