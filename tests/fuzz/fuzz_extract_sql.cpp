// libFuzzer target: SQL extraction from model answers (NeMo Gym rules and sqlgrade's extensions) and
// the UDA statement splitter. Neither may throw on any text; an extracted SQL is never empty.
#include <cstdint>
#include <cstdlib>

#include "fuzz_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/answer/extract.hpp"
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
      (void)answer::py_strip(text);
    } catch (const std::exception& e) {
      fuzz::finding("extract_sql", e);
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
