// libFuzzer target: run records and what reads instance text (issue 15) — the validating reader
// (documented failure: InputError), the writer round trip (a record that was read is written and
// read back unchanged), the SQL feature classifier, terminal sanitising and the HTML report (whose
// data block must never contain '<', '>' or '&').
#include <cstdint>

#include "fuzz_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/sql_features.hpp"
#include "sqlgrade/runs/terminal.hpp"
#include "sqlgrade/core/text.hpp"

using namespace sqlgrade;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 18) return 0;
  const std::string_view text = fuzz::as_text(data, size);
  (void)runs::classify_sql(text);
  if (!is_valid_utf8(runs::terminal_safe(text, 40))) fuzz::finding("terminal_safe", std::runtime_error("invalid UTF-8 out"));
  runs::RunRecord r;
  try {
    r = runs::parse_run_record(std::string(text), "fuzz.json");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("parse_run_record", e);
  }
  try {
    const std::string once = runs::render_run_record(r);
    const runs::RunRecord again = runs::parse_run_record(once, "again.json");
    if (runs::render_run_record(again) != once) throw std::runtime_error("round trip changed the record");
    const std::string html = runs::render_report({{"fuzz.json", &r}}, {{10, 1, 0.95}, false, ""});
    const std::string open = "type=\"application/json\">";
    const size_t b = html.find(open) + open.size(), e = html.find("</script>", b);
    if (html.substr(b, e - b).find_first_of("<>&") != std::string::npos) throw std::runtime_error("unescaped data block");
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding("run record round trip / report", e);
  }
  return 0;
}
