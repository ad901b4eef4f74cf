// libFuzzer target: the RFC-4180 CSV reader (BOM, CRLF/CR, quoted newlines, ragged rows) with
// options chosen by the first byte; a parsed table is written back with csv_line and must parse
// again to the same fields. Documented failure: InputError.
#include <cstdint>
#include <cstdlib>

#include "fuzz_common.hpp"
#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/errors.hpp"

using namespace sqlgrade;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 1 << 18) return 0;
  CsvOptions o;
  uint8_t f = data[0];
  o.separator = (f & 3) == 0 ? ',' : (f & 3) == 1 ? '\t' : (f & 3) == 2 ? ';' : '|';
  o.header = f & 4;
  o.allow_ragged = f & 8;
  o.skip_blank_lines = f & 16;
  auto text = fuzz::as_text(data + 1, size - 1);
  CsvData d;
  try {
    d = parse_csv(text, "fuzz.csv", o);
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("parse_csv", e);
  }
  if (d.rows.size() != d.line.size()) std::abort();
  // Round trip: every row written with csv_line parses back to the same fields (a row of one empty
  // field is a blank line, which the reader may skip, so those are left out).
  std::string out;
  size_t expect = 0;
  std::vector<std::vector<std::string>> kept;
  for (auto& r : d.rows) {
    if (r.size() == 1 && r[0].empty()) continue;
    if (r.empty()) continue;
    out += csv_line(r, o.separator);
    kept.push_back(r);
    ++expect;
  }
  bool uniform = true;
  for (auto& r : kept) uniform &= r.size() == kept.front().size();
  if (!uniform || out.rfind("\xEF\xBB\xBF", 0) == 0) return 0;  // widths differ / BOM would be stripped
  CsvOptions o2 = o;
  o2.header = false;
  o2.allow_ragged = false;
  o2.skip_blank_lines = true;
  try {
    auto d2 = parse_csv(out, "roundtrip.csv", o2);
    if (d2.rows.size() != expect) {
      std::fprintf(stderr, "round trip: %zu rows written, %zu read\n", expect, d2.rows.size());
      std::abort();
    }
    for (size_t i = 0; i < kept.size(); ++i) {
      if (d2.rows[i] != kept[i]) {
        std::fprintf(stderr, "round trip: row %zu differs\n", i);
        std::abort();
      }
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "round trip: written CSV does not read back: %s\n", e.what());
    std::abort();
  } catch (const std::exception& e) {
    fuzz::finding("parse_csv round trip", e);
  }
  return 0;
}
