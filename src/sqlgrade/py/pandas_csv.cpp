// pandas.read_csv typing (pandas 1.5.3 defaults) and cells as Python objects — see pandas_csv.hpp.
#include "sqlgrade/py/pandas_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/value.hpp"

namespace sqlgrade::py {

// ---------------------------------------------------------------------------------------------
// Cells

std::string Cell::py_str() const {
  switch (type) {
    case Type::NaN: return "nan";
    case Type::Int: return std::to_string(i);
    case Type::Float: return python_float_repr(f);
    case Type::Bool: return i ? "True" : "False";
    case Type::Str: return s;
  }
  return "";
}

bool Cell::operator==(const Cell& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Type::NaN: return true;
    case Type::Int:
    case Type::Bool: return i == o.i;
    case Type::Float: return f == o.f;
    case Type::Str: return s == o.s;
  }
  return false;
}

std::vector<std::string> Frame::names() const {
  std::vector<std::string> n;
  n.reserve(columns.size());
  for (auto& c : columns) n.push_back(c.name);
  return n;
}

// ---------------------------------------------------------------------------------------------
// pandas read_csv emulation

namespace {

// pandas 1.5.3 default NA strings (STR_NA_VALUES). "None" became NA only in pandas 2.
bool is_na_string(std::string_view s) {
  static const std::set<std::string, std::less<>> na = {
      "",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
      "<NA>", "N/A",  "NA",       "NULL", "NaN",    "n/a",      "nan",  "null"};
  return na.count(s) > 0;
}

bool is_space_ascii(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// pandas str_to_int64: optional surrounding ASCII whitespace, optional sign, digits only.
std::optional<int64_t> pd_parse_int(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && is_space_ascii(s[i])) ++i;
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
  while (i < n && is_space_ascii(s[i])) ++i;
  if (i != n) return std::nullopt;
  if (neg) return acc == 9223372036854775808ULL ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(acc);
  return static_cast<int64_t>(acc);
}

// pandas xstrtod grammar: [ws][sign]digits[.digits][(e|E)[sign]digits][ws], at least one digit in the
// mantissa; plus the inf/infinity spellings _try_double accepts.
std::optional<double> pd_parse_double(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && is_space_ascii(s[i])) ++i;
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
  while (i < n && is_space_ascii(s[i])) ++i;
  if (i != n) return std::nullopt;
  std::string num(s.substr(start, num_end - start));
  return std::strtod(num.c_str(), nullptr);
}

bool is_true_string(std::string_view s) { return s == "True" || s == "TRUE" || s == "true"; }
bool is_false_string(std::string_view s) { return s == "False" || s == "FALSE" || s == "false"; }

struct RawField {
  std::string text;
  bool quoted = false;
};

// Tokenize like pandas' C parser with defaults: ',' separator, '"' quoting with doubled quotes,
// \n, \r\n or \r line ends, blank and whitespace-only lines skipped (outside quotes).
std::vector<std::vector<RawField>> tokenize(std::string_view text, const std::string& name,
                                            std::vector<long>* lines) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    text.remove_prefix(3);
  std::vector<std::vector<RawField>> rows;
  size_t i = 0, n = text.size();
  long line = 1;
  auto at_eol = [&](size_t k) { return k >= n || text[k] == '\n' || text[k] == '\r'; };
  auto skip_eol = [&](size_t& k) {
    if (k < n && text[k] == '\r' && k + 1 < n && text[k + 1] == '\n') k += 2;
    else if (k < n) ++k;
    ++line;
  };
  while (i < n) {
    // Blank / whitespace-only line?
    size_t k = i;
    while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
    if (at_eol(k)) {
      i = k;
      if (i < n) skip_eol(i);
      continue;
    }
    long row_line = line;
    std::vector<RawField> row;
    RawField f;
    bool in_quotes = false;
    while (true) {
      if (i >= n) {
        if (in_quotes) throw InputError(name, "EOF inside string starting", row_line);
        row.push_back(std::move(f));
        break;
      }
      char c = text[i];
      if (in_quotes) {
        if (c == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            f.text += '"';
            i += 2;
          } else {
            in_quotes = false;
            ++i;
          }
        } else {
          if (c == '\n' || (c == '\r' && !(i + 1 < n && text[i + 1] == '\n'))) ++line;
          f.text += c;
          ++i;
        }
        continue;
      }
      if (c == '"' && f.text.empty() && !f.quoted) {
        in_quotes = f.quoted = true;
        ++i;
      } else if (c == ',') {
        row.push_back(std::move(f));
        f = RawField{};
        ++i;
      } else if (c == '\n' || c == '\r') {
        skip_eol(i);
        row.push_back(std::move(f));
        break;
      } else {
        f.text += c;
        ++i;
      }
    }
    rows.push_back(std::move(row));
    if (lines) lines->push_back(row_line);
  }
  return rows;
}

Column infer_column(std::string name, const std::vector<const std::string*>& raw) {
  Column col;
  col.name = std::move(name);
  const size_t n = raw.size();
  col.cells.reserve(n);
  if (n == 0) {
    col.dtype = Dtype::Object;
    return col;
  }
  size_t na = 0;
  std::vector<char> isna(n, 0);
  for (size_t r = 0; r < n; ++r)
    if (is_na_string(*raw[r])) isna[r] = 1, ++na;
  // int64 (only when there is no NA)
  if (na == 0) {
    std::vector<int64_t> ints(n);
    bool ok = true;
    for (size_t r = 0; r < n && ok; ++r) {
      auto v = pd_parse_int(*raw[r]);
      if (!v) ok = false;
      else ints[r] = *v;
    }
    if (ok) {
      col.dtype = Dtype::Int64;
      for (auto v : ints) col.cells.push_back(Cell::integer(v));
      return col;
    }
  }
  // float64 (numbers and/or NA)
  {
    std::vector<double> fl(n, 0.0);
    bool ok = true;
    for (size_t r = 0; r < n && ok; ++r) {
      if (isna[r]) continue;
      auto v = pd_parse_double(*raw[r]);
      if (!v) ok = false;
      else fl[r] = *v;
    }
    if (ok) {
      col.dtype = Dtype::Float64;
      for (size_t r = 0; r < n; ++r) col.cells.push_back(isna[r] ? Cell::nan() : Cell::real(fl[r]));
      return col;
    }
  }
  // bool (True/False spellings; with NA the column is object holding bools and NaN)
  {
    bool ok = true;
    for (size_t r = 0; r < n && ok; ++r)
      if (!isna[r] && !is_true_string(*raw[r]) && !is_false_string(*raw[r])) ok = false;
    if (ok) {
      col.dtype = na ? Dtype::Object : Dtype::Bool;
      for (size_t r = 0; r < n; ++r)
        col.cells.push_back(isna[r] ? Cell::nan() : Cell::boolean(is_true_string(*raw[r])));
      return col;
    }
  }
  col.dtype = Dtype::Object;
  for (size_t r = 0; r < n; ++r) col.cells.push_back(isna[r] ? Cell::nan() : Cell::str(*raw[r]));
  return col;
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

Column infer_column_chunked(std::string name, const std::vector<const std::string*>& raw, size_t table_width) {
  const size_t chunk = buffer_lines(table_width);
  if (raw.size() <= chunk) return infer_column(std::move(name), raw);
  std::vector<Column> parts;
  for (size_t r0 = 0; r0 < raw.size(); r0 += chunk) {
    std::vector<const std::string*> slice(raw.begin() + r0, raw.begin() + std::min(raw.size(), r0 + chunk));
    parts.push_back(infer_column(name, slice));
  }
  std::set<Dtype> dtypes;
  for (auto& p : parts) dtypes.insert(p.dtype);
  Column col;
  col.name = std::move(name);
  if (dtypes.size() == 1) col.dtype = *dtypes.begin();
  else if (dtypes == std::set<Dtype>{Dtype::Int64, Dtype::Float64}) col.dtype = Dtype::Float64;
  else col.dtype = Dtype::Object;
  for (auto& p : parts)
    for (auto& c : p.cells)
      col.cells.push_back(col.dtype == Dtype::Float64 && c.type == Cell::Type::Int ? Cell::real(static_cast<double>(c.i))
                                                                                    : std::move(c));
  return col;
}

// pandas header handling: blank names become "Unnamed: i"; duplicates are mangled as pandas' C parser does
// ("a", "a" -> "a", "a.1"; a later "a.1" then becomes "a.1.1").
std::vector<std::string> header_names(const std::vector<RawField>& hdr) {
  std::vector<std::string> names;
  std::map<std::string, int> counts;
  for (size_t i = 0; i < hdr.size(); ++i) {
    std::string name = hdr[i].text.empty() ? "Unnamed: " + std::to_string(i) : hdr[i].text;
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

Frame frame_from_csv_text(std::string_view csv, const std::string& name) {
  // pandas decodes the file as strict UTF-8 (encoding_errors="strict").
  if (!is_valid_utf8(csv)) throw InputError(name, "'utf-8' codec can't decode the file (invalid UTF-8)");
  std::vector<long> lines;
  auto rows = tokenize(csv, name, &lines);
  if (rows.empty()) throw InputError(name, "No columns to parse from file");
  std::vector<std::string> names = header_names(rows[0]);
  const size_t w = names.size();
  // pandas: when the first data row has k more fields than the header, its first k fields are an implicit
  // index (not columns); later rows may not have more than w + k fields.
  const size_t lead = rows.size() > 1 && rows[1].size() > w ? rows[1].size() - w : 0;
  for (size_t r = 1; r < rows.size(); ++r)
    if (rows[r].size() > w + lead)
      throw InputError(name, "Error tokenizing data. C error: Expected " + std::to_string(w + lead) + " fields in line " +
                                 std::to_string(lines[r]) + ", saw " + std::to_string(rows[r].size()),
                       lines[r]);
  Frame f;
  f.rows = rows.size() - 1;
  static const std::string empty;
  std::vector<const std::string*> raw(f.rows);
  for (size_t c = 0; c < w; ++c) {
    for (size_t r = 0; r < f.rows; ++r) {
      auto& row = rows[r + 1];
      raw[r] = c + lead < row.size() ? &row[c + lead].text : &empty;  // short rows are padded with NaN
    }
    f.columns.push_back(infer_column_chunked(names[c], raw, w + lead));
  }
  return f;
}

Frame frame_from_csv_file(const std::string& path) {
  std::string text = read_file(path);
  return frame_from_csv_text(text, path);
}

}  // namespace sqlgrade::py
