#pragma once
// Printing for `sqlgrade spider`: the official scripts' stdout byte for byte (taoyds/spider
// evaluation.py or test-suite-sql-eval evaluation.py, chosen by the run's compat), and the JSON
// report (per-example records + the same summary numbers).
#include <string>

#include "sqlgrade/spider/run.hpp"

namespace sqlgrade::spider {

std::string render_text(const SpiderRun& run);
std::string render_json(const SpiderRun& run);

}  // namespace sqlgrade::spider
