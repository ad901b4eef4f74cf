// libFuzzer target: the Spider tokenizer (process_sql.tokenize, NLTK word_tokenize) and parser
// (process_sql.get_sql) on arbitrary bytes, with both LIMIT conventions. Documented failure:
// spider::ParseError.
#include <cstdint>

#include "fuzz_common.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/schema.hpp"

using namespace sqlgrade;

namespace {
const spider::SpiderSchema& schema() {
  static const spider::SpiderSchema s = spider::schema_from_catalogue(
      {{"people", {"id", "name", "score", "born"}}, {"pets", {"id", "owner", "kind", "name"}}, {"city", {"id", "name"}}});
  return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  auto text = fuzz::as_text(data, size);
  try {
    (void)spider::nltk_word_tokenize(text);
  } catch (const spider::ParseError&) {
  } catch (const std::exception& e) {
    fuzz::finding("nltk_word_tokenize", e);
  }
  for (bool ts : {false, true}) {
    try {
      spider::ParseOptions o;
      o.testsuite_limit = ts;
      (void)spider::parse_sql(schema(), text, o);
    } catch (const spider::ParseError&) {
    } catch (const std::exception& e) {
      fuzz::finding("spider::parse_sql", e);
    }
  }
  return 0;
}
