// pandas.read_csv typing (pandas 1.5.3 defaults) — see pandas_csv.hpp; the frame it fills is pandas_frame.cpp.
#include "sqlgrade/py/pandas_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/value.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::py {

// ---------------------------------------------------------------------------------------------
// pandas read_csv emulation

namespace {

// pandas 1.5.3 default NA strings (STR_NA_VALUES). "None" became NA only in pandas 2.
bool is_na_string(std::string_view s) {
  static constexpr std::string_view na[] = {
      "",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
      "<NA>", "N/A",  "NA",       "NULL", "NaN",    "n/a",      "nan",  "null"};
  if (s.size() > 8) return false;
  for (std::string_view x : na)
    if (x == s) return true;
  return false;
}

// pandas str_to_int64: optional surrounding ASCII whitespace, optional sign, digits only.
std::optional<int64_t> pd_parse_int(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && is_ascii_space(s[i])) ++i;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  size_t d0 = i;
  unsigned long long acc = 0;
  const unsigned long long lim = neg ? 9223372036854775808ULL : 9223372036854775807ULL;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    unsigned d = static_cast<unsigned>(s[i] - '0');
    if (acc > (lim - d) / 10) return std::nullopt;  // overflow: pandas falls back to float
    acc = acc * 10 + d;
    ++i;
  }
  if (i == d0) return std::nullopt;
  while (i < n && is_ascii_space(s[i])) ++i;
  if (i != n) return std::nullopt;
  if (neg) return acc == 9223372036854775808ULL ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(acc);
  return static_cast<int64_t>(acc);
}

// pandas xstrtod grammar: [ws][sign]digits[.digits][(e|E)[sign]digits][ws], at least one digit in the
// mantissa; plus the inf/infinity spellings _try_double accepts.
std::optional<double> pd_parse_double(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && is_ascii_space(s[i])) ++i;
  size_t start = i;
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) {
    // inf spellings (pandas compares the whole field with strcasecmp: no surrounding whitespace)
    if (s.size() > 9) return std::nullopt;
    std::string w;
    for (char ch : s) w += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (w == "inf" || w == "+inf" || w == "infinity" || w == "+infinity") return std::numeric_limits<double>::infinity();
    if (w == "-inf" || w == "-infinity") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
    size_t e0 = j;
    while (j < n && s[j] >= '0' && s[j] <= '9') ++j;
    if (j > e0) i = j;  // else the exponent is not consumed and the trailing text makes it fail
  }
  size_t num_end = i;
  while (i < n && is_ascii_space(s[i])) ++i;
  if (i != n) return std::nullopt;
  std::string_view num = s.substr(start, num_end - start);
  char small[64];
  if (num.size() < sizeof small) {  // strtod needs a terminated string: no allocation for short numbers
    std::memcpy(small, num.data(), num.size());
    small[num.size()] = '\0';
    return std::strtod(small, nullptr);
  }
  return std::strtod(std::string(num).c_str(), nullptr);
}

bool is_true_string(std::string_view s) { return s == "True" || s == "TRUE" || s == "true"; }
bool is_false_string(std::string_view s) { return s == "False" || s == "FALSE" || s == "false"; }

// A tokenised CSV in three flat arrays instead of a string per field: the fields' unescaped bytes one
// after the other, where each field ends, and where each row starts. About a byte per input byte plus
// 4 bytes per field (was ~40 bytes per field plus a vector per row).
struct Tokens {
  std::string buf;
  std::vector<uint32_t> end;    // field k is buf[end[k-1], end[k])
  std::vector<uint32_t> first;  // row r is fields [first[r], first[r+1]); first.back() = field count
  std::vector<uint32_t> line;   // 1-based line where row r starts

  size_t rows() const { return line.size(); }
  size_t width(size_t r) const { return first[r + 1] - first[r]; }
  std::string_view field(size_t k) const {
    size_t b = k ? end[k - 1] : 0;
    return std::string_view(buf.data() + b, end[k] - b);
  }
};

// One record starting at text[i] (not a blank line): its fields appended to t, i moved past its line end.
void read_record(Tokens& t, std::string_view text, size_t& i, long& line, const std::string& name, DeadlineTicker& tick) {
  const size_t n = text.size();
  const long row_line = line;
  auto end_field = [&] {
    t.end.push_back(static_cast<uint32_t>(t.buf.size()));
    tick.tick();
  };
  size_t field_start = t.buf.size();
  bool quoted = false, in_quotes = false;
  while (true) {
    if (i >= n) {
      if (in_quotes) throw InputError(name, "EOF inside string starting", row_line);
      end_field();
      return;
    }
    // Plain bytes up to the next byte that matters are appended at once.
    size_t run = i;
    while (run < n && text[run] != '"' && text[run] != '\n' && text[run] != '\r' && (in_quotes || text[run] != ',')) ++run;
    t.buf.append(text.data() + i, run - i);
    i = run;
    if (i >= n) continue;
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < n && text[i + 1] == '"') {
        t.buf += '"';
        i += 2;
      } else if (c == '"') {
        in_quotes = false;
        ++i;
      } else {  // a line end inside quotes is part of the field
        if (c == '\n' || (c == '\r' && !(i + 1 < n && text[i + 1] == '\n'))) ++line;
        t.buf += c;
        ++i;
      }
    } else if (c == '"' && t.buf.size() == field_start && !quoted) {
      in_quotes = quoted = true;
      ++i;
    } else if (c == ',') {
      end_field();
      field_start = t.buf.size();
      quoted = false;
      ++i;
    } else if (c == '\n' || c == '\r') {
      i += (c == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      ++line;
      end_field();
      return;
    } else {
      t.buf += c;  // a quote inside an unquoted field, or after a closing quote: kept literally
      ++i;
    }
  }
}

// Tokenize like pandas' C parser with defaults: ',' separator, '"' quoting with doubled quotes,
// \n, \r\n or \r line ends, blank and whitespace-only lines skipped (outside quotes).
Tokens tokenize(std::string_view text, const std::string& name, DeadlineTicker& tick) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    text.remove_prefix(3);
  // Offsets are 32-bit: far above every input bound (--max-input-mb, --max-result-mb).
  if (text.size() >= 0xFFFFFFF0u) throw InputError(name, "a CSV text of 4 GiB or more is not supported");
  Tokens t;
  // Reserved from a count of separators and line ends, so that no array grows by doubling.
  const size_t seps = static_cast<size_t>(std::count(text.begin(), text.end(), ','));
  const size_t eols = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) +
                      static_cast<size_t>(std::count(text.begin(), text.end(), '\r'));
  t.buf.reserve(text.size());
  t.end.reserve(seps + eols + 1);
  t.first.reserve(eols + 2);
  t.line.reserve(eols + 1);
  t.first.push_back(0);
  size_t i = 0;
  const size_t n = text.size();
  long line = 1;
  while (i < n) {
    // Blank / whitespace-only line?
    size_t k = i;
    while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (k >= n || text[k] == '\n' || text[k] == '\r') {
      i = k;
      if (i < n) {
        i += (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
        ++line;
      }
      continue;
    }
    t.line.push_back(static_cast<uint32_t>(std::min<long>(line, UINT32_MAX)));
    read_record(t, text, i, line, name, tick);
    t.first.push_back(static_cast<uint32_t>(t.end.size()));
  }
  return t;
}

// One column's fields of the data rows (short rows are padded with NaN, i.e. an empty field).
struct ColumnFields {
  const Tokens& t;
  size_t col;  // field index inside a row (the implicit index columns come first)
  std::string_view operator()(size_t data_row) const {
    const size_t r = data_row + 1;  // row 0 is the header
    return col < t.width(r) ? t.field(t.first[r] + col) : std::string_view();
  }
};

// Appends the cells of rows [r0, r1) as `parse` reads them (NA cells as NaN); false, with nothing
// appended, at the first cell it does not read.
template <class Parse, class Push>
bool fill_all(Column& col, const ColumnFields& raw, size_t r0, size_t r1, const std::vector<char>& isna, Parse parse,
              Push push, DeadlineTicker& tick) {
  const size_t base = col.size();
  for (size_t r = r0; r < r1; ++r) {
    if (isna[r - r0]) {
      col.push_nan();
      continue;
    }
    auto v = parse(raw(r));
    if (!v) {
      tick.tick(r - r0);
      col.truncate(base);
      return false;
    }
    push(*v);
  }
  tick.tick(r1 - r0);
  return true;
}

// pandas' per-chunk type inference of rows [r0, r1), appended to `col`: int64 (no NA), else float64
// (numbers and/or NA), else bool (True/False spellings; with NA the chunk is object holding bools and
// NaN), else object (str and NaN). Returns the chunk's dtype.
Dtype infer_chunk(Column& col, const ColumnFields& raw, size_t r0, size_t r1, DeadlineTicker& tick) {
  std::vector<char> isna(r1 - r0, 0);
  size_t na = 0;
  for (size_t r = r0; r < r1; ++r)
    if (is_na_string(raw(r))) isna[r - r0] = 1, ++na;
  tick.tick(r1 - r0);
  if (na == 0 && fill_all(col, raw, r0, r1, isna, pd_parse_int, [&](int64_t v) { col.push_int(v); }, tick))
    return Dtype::Int64;
  if (fill_all(col, raw, r0, r1, isna, pd_parse_double, [&](double v) { col.push_real(v); }, tick)) return Dtype::Float64;
  bool all_bool = true;
  for (size_t r = r0; r < r1 && all_bool; ++r)
    if (!isna[r - r0] && !is_true_string(raw(r)) && !is_false_string(raw(r))) all_bool = false;
  if (all_bool) {
    for (size_t r = r0; r < r1; ++r)
      if (isna[r - r0]) col.push_nan();
      else col.push_bool(is_true_string(raw(r)));
    return na ? Dtype::Object : Dtype::Bool;
  }
  for (size_t r = r0; r < r1; ++r)
    if (isna[r - r0]) col.push_nan();
    else col.push_str(raw(r));
  tick.tick(r1 - r0);
  return Dtype::Object;
}

// pandas' C parser reads with low_memory=True: rows are typed in chunks of `buffer_lines` rows (the largest
// power of two below 2**20 / table width), and chunks whose dtypes differ are concatenated with pandas'
// common type: int64 + float64 -> float64; anything involving object or mixing bool with non-bool ->
// object, each value keeping its chunk's type (ints stay ints next to strings). Only large files have
// several chunks.
size_t buffer_lines(size_t table_width) {
  size_t heuristic = (size_t{1} << 20) / std::max<size_t>(table_width, 1);
  size_t b = 1;
  while (b * 2 < heuristic) b *= 2;
  return b;
}

Column infer_column(std::string name, const ColumnFields& raw, size_t rows, size_t table_width, DeadlineTicker& tick) {
  Column col;
  col.name = std::move(name);
  col.dtype = Dtype::Object;
  if (rows == 0) return col;
  col.reserve(rows);
  const size_t chunk = buffer_lines(table_width);
  std::set<Dtype> dtypes;
  std::vector<std::pair<size_t, size_t>> int_chunks;
  for (size_t r0 = 0; r0 < rows; r0 += chunk) {
    const size_t r1 = std::min(rows, r0 + chunk);
    Dtype d = infer_chunk(col, raw, r0, r1, tick);
    dtypes.insert(d);
    if (d == Dtype::Int64) int_chunks.emplace_back(r0, r1);
  }
  if (dtypes.size() == 1) col.dtype = *dtypes.begin();
  else if (dtypes == std::set<Dtype>{Dtype::Int64, Dtype::Float64}) col.dtype = Dtype::Float64;
  else col.dtype = Dtype::Object;
  if (col.dtype == Dtype::Float64)
    for (auto [r0, r1] : int_chunks) col.to_float(r0, r1);
  return col;
}

// pandas header handling: blank names become "Unnamed: i"; duplicates are mangled as pandas' C parser does
// ("a", "a" -> "a", "a.1"; a later "a.1" then becomes "a.1.1").
std::vector<std::string> header_names(const Tokens& t) {
  std::vector<std::string> names;
  std::map<std::string, int> counts;
  for (size_t i = 0; i < t.width(0); ++i) {
    std::string_view f = t.field(t.first[0] + i);
    std::string name = f.empty() ? "Unnamed: " + std::to_string(i) : std::string(f);
    int count = counts.count(name) ? counts[name] : 0;
    while (count > 0) {
      counts[name] = count + 1;
      name = name + "." + std::to_string(count);
      count = counts.count(name) ? counts[name] : 0;
    }
    counts[name] = count + 1;
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

Frame frame_from_csv_text(std::string_view csv, const std::string& name, const Deadline& deadline) {
  // pandas decodes the file as strict UTF-8 (encoding_errors="strict").
  if (!is_valid_utf8(csv)) throw InputError(name, "'utf-8' codec can't decode the file (invalid UTF-8)");
  DeadlineTicker tick(deadline);
  const Tokens t = tokenize(csv, name, tick);
  if (t.rows() == 0) throw InputError(name, "No columns to parse from file");
  std::vector<std::string> names = header_names(t);
  const size_t w = names.size();
  // pandas: when the first data row has k more fields than the header, its first k fields are an implicit
  // index (not columns); later rows may not have more than w + k fields.
  const size_t lead = t.rows() > 1 && t.width(1) > w ? t.width(1) - w : 0;
  for (size_t r = 1; r < t.rows(); ++r)
    if (t.width(r) > w + lead)
      throw InputError(name, "Error tokenizing data. C error: Expected " + std::to_string(w + lead) + " fields in line " +
                                 std::to_string(t.line[r]) + ", saw " + std::to_string(t.width(r)),
                       t.line[r]);
  Frame f;
  f.rows = t.rows() - 1;
  f.columns.reserve(w);
  for (size_t c = 0; c < w; ++c)
    f.columns.push_back(infer_column(std::move(names[c]), ColumnFields{t, c + lead}, f.rows, w + lead, tick));
  return f;
}

Frame frame_from_csv_file(const std::string& path, const Deadline& deadline) {
  std::string text = read_file(path);
  return frame_from_csv_text(text, path, deadline);
}

}  // namespace sqlgrade::py
