// libFuzzer target: the JSON/JSONL input readers — BIRD predictions (JSON object), BIRD questions
// (JSON array or JSONL), BIRD gold (SQL<TAB>db_id lines), Spider 2.0-Lite spider2lite_eval.jsonl,
// Spider tables.json (+ the schema built from each entry), and the reward server's request body.
// Documented failure for the readers: InputError (one line naming the file); the server answers
// every body with a status (400 for bad requests) and never throws.
#include <cstdint>
#include <memory>

#include "fuzz_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/core/text.hpp"

using namespace sqlgrade;

namespace {
template <class F>
void expect_input_error_only(const char* what, F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding(what, e);
  }
}

serve::RewardServer& server() {
  static std::unique_ptr<serve::RewardServer> s = [] {
    serve::ServerOptions o;
    o.db_dir = fuzz::scratch_path() + ".nodb";  // no databases: verdict paths stop at db lookup
    o.grader.timeout_s = 0.2;
    return std::make_unique<serve::RewardServer>(o);
  }();
  return *s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 18) return 0;
  auto text = fuzz::as_text(data, size);
  const std::string& p = fuzz::write_scratch(text, ".json");
  expect_input_error_only("bird::load_predictions", [&] { (void)bird::load_predictions(p); });
  expect_input_error_only("bird::load_questions", [&] { (void)bird::load_questions(p); });
  expect_input_error_only("bird::load_gold", [&] { (void)bird::load_gold(p); });
  expect_input_error_only("spider2::load_eval_jsonl", [&] { (void)spider2::load_eval_jsonl(p); });
  expect_input_error_only("spider::load_tables_json", [&] {
    auto tables = spider::load_tables_json(p);
    for (auto& [db, entry] : tables) {
      (void)spider::dataset_schema(entry);
      (void)spider::foreign_key_pairs(entry);
    }
  });
  // The server answers every body with a status and never throws (replies are dumped with
  // invalid UTF-8 replaced, so byte soup in a request cannot escape as a JSON type error).
  try {
    auto r = server().verify(text);
    if (r.status < 200 || r.status > 599) std::abort();
    auto a = server().aggregate_metrics(text);
    if (a.status < 200 || a.status > 599) std::abort();
  } catch (const std::exception& e) {
    fuzz::finding("RewardServer::verify", e);
  }
  return 0;
}
