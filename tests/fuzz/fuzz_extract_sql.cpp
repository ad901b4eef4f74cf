// libFuzzer target: SQL extraction from model answers (NeMo Gym rules and sqlgrade's extensions) and
// the UDA statement splitter (and the gym-bird presets). Neither may throw on any text; an extracted SQL is never empty.
#include <cstdint>
#include <cstdlib>

#include "fuzz_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/uda/statements.hpp"

using namespace sqlgrade;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 18) return 0;
  auto text = fuzz::as_text(data, size);
  for (int v = 0; v < 8; ++v) {
    answer::ExtractOptions o;
    o.word_boundary = v & 1;
    o.tags_and_json = v & 2;
    o.raw_fallback = v & 4;
    try {
      auto e = answer::extract_sql(text, o);
      if (e.sql && e.sql->empty() && e.source != answer::ExtractSource::SqlBlock) std::abort();
      (void)py::strip_view(text);
    } catch (const std::exception& e) {
      fuzz::finding("extract_sql", e);
    }
  }
  // The NeMo Gym bird_sql presets (answer/gym_bird.cpp): never throw, never an empty SQL.
  for (ExtractPreset p : {ExtractPreset::GymBird04, ExtractPreset::GymBird07}) {
    answer::ExtractOptions o;
    o.preset = p;
    try {
      auto e = answer::extract_sql(text, o);
      if (e.sql && e.sql->empty()) std::abort();
    } catch (const std::exception& e) {
      fuzz::finding("extract_sql preset", e);
    }
  }
  try {
    auto st = uda::split_sql_statements(text, "fuzz.sql");
    (void)st;
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding("split_sql_statements", e);
  }
  return 0;
}
