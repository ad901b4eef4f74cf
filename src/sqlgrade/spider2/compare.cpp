// Spider 2.0-Lite official comparison rule and the pandas CSV value model it depends on.
// See spider2.hpp and shared/spec/official-evaluators.md §4.
#include "sqlgrade/spider2/compare.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/value.hpp"

namespace sqlgrade::spider2 {

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
  size_t mant_end = i;
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
  (void)mant_end;
  std::string num(s.substr(start, num_end - start));
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  return v;
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

// ---------------------------------------------------------------------------------------------
// sql mode round trip: read_sql_query(chunksize=500) -> to_csv -> read_csv

namespace {

void append_field(std::string& out, const std::string& f) {
  bool need = false;
  for (char c : f)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') {
      need = true;
      break;
    }
  if (!need) {
    out += f;
    return;
  }
  out += '"';
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_record(std::string& out, const std::vector<std::string>& fields) {
  size_t start = out.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    append_field(out, fields[i]);
  }
  // Python's csv writer quotes a record that would otherwise be an empty line.
  if (out.size() == start && !fields.empty()) out += "\"\"";
  out += '\n';
}

}  // namespace

std::string to_csv_text(const Table& t) {
  std::string out;
  append_record(out, t.columns);
  const size_t w = t.columns.size();
  const size_t chunk = 500;
  std::vector<std::string> fields(w);
  for (size_t c0 = 0; c0 < t.rows.size(); c0 += chunk) {
    size_t c1 = std::min(t.rows.size(), c0 + chunk);
    // Per chunk and column, the dtype DataFrame.from_records(coerce_float=True) gives.
    enum class K { Int, Float, Object };
    std::vector<K> kind(w, K::Int);
    for (size_t c = 0; c < w; ++c) {
      bool any_text = false, any_real = false, any_null = false, any_num = false;
      for (size_t r = c0; r < c1; ++r) {
        const Value& v = c < t.rows[r].size() ? t.rows[r][c] : Value();
        switch (v.kind) {
          case Kind::Null: any_null = true; break;
          case Kind::Int: any_num = true; break;
          case Kind::Real: any_num = any_real = true; break;
          default: any_text = true;
        }
      }
      if (any_text || !any_num) kind[c] = K::Object;
      else if (any_real || any_null) kind[c] = K::Float;
      else kind[c] = K::Int;
    }
    for (size_t r = c0; r < c1; ++r) {
      for (size_t c = 0; c < w; ++c) {
        const Value& v = c < t.rows[r].size() ? t.rows[r][c] : Value();
        std::string& f = fields[c];
        switch (v.kind) {
          case Kind::Null: f.clear(); break;
          case Kind::Int:
            f = kind[c] == K::Float ? python_float_repr(static_cast<double>(v.i)) : std::to_string(v.i);
            break;
          case Kind::Real: f = python_float_repr(v.r); break;
          case Kind::Text: f = v.s; break;
          case Kind::Blob: f = v.python_repr(); break;
        }
      }
      append_record(out, fields);
    }
  }
  return out;
}

Frame frame_from_table(const Table& t) { return frame_from_csv_text(to_csv_text(t), "<query result>"); }

// ---------------------------------------------------------------------------------------------
// Comparison

namespace {

// The vectors the official script builds: DataFrame.transpose().values.tolist(). When every selected
// column is int64/float64 and at least one is float64, numpy's common dtype makes the ints floats.
std::vector<std::vector<Cell>> column_vectors(const Frame& f, const std::vector<size_t>& cols) {
  bool all_numeric = !cols.empty(), any_float = false;
  for (size_t c : cols) {
    Dtype d = f.columns[c].dtype;
    if (d != Dtype::Int64 && d != Dtype::Float64) all_numeric = false;
    if (d == Dtype::Float64) any_float = true;
  }
  bool ints_to_float = all_numeric && any_float;
  std::vector<std::vector<Cell>> out;
  out.reserve(cols.size());
  for (size_t c : cols) {
    out.push_back(f.columns[c].cells);
    if (ints_to_float && f.columns[c].dtype == Dtype::Int64)
      for (auto& cell : out.back()) cell = Cell::real(static_cast<double>(cell.i));
  }
  return out;
}

std::vector<size_t> all_cols(const Frame& f) {
  std::vector<size_t> v(f.width());
  std::iota(v.begin(), v.end(), size_t{0});
  return v;
}

bool json_truthy(const nlohmann::json& j) {
  if (j.is_null()) return false;
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<long long>() != 0;
  if (j.is_number_float()) return j.get<double>() != 0.0;
  if (j.is_array() || j.is_object() || j.is_string()) return !j.empty();
  return true;
}

// Gold columns selected by condition_cols (pandas iloc semantics, negative indices allowed).
std::vector<size_t> select_gold_cols(const Frame& gold, const nlohmann::json& cc) {
  if (!json_truthy(cc)) return all_cols(gold);
  return iloc_columns(gold.width(), cc);
}

}  // namespace

std::vector<size_t> iloc_columns(size_t width, const nlohmann::json& positions) {
  nlohmann::json list = positions.is_array() ? positions : nlohmann::json::array({positions});
  std::vector<size_t> out;
  const long long w = static_cast<long long>(width);
  for (auto& e : list) {
    if (!e.is_number_integer()) throw std::out_of_range("condition_cols element is not an integer: " + e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    // Python ints do not wrap: 18446744073709551615 is out of bounds (IndexError), not -1.
    if (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      throw std::out_of_range("positional indexers are out-of-bounds");
    long long k = e.get<long long>();
    if (k < 0) k += w;
    if (k < 0 || k >= w) throw std::out_of_range("positional indexers are out-of-bounds");
    out.push_back(static_cast<size_t>(k));
  }
  return out;
}

namespace {

bool py_isclose(double a, double b, double rel_tol, double abs_tol) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  double diff = std::fabs(b - a);
  return diff <= std::fabs(rel_tol * b) || diff <= std::fabs(rel_tol * a) || diff <= abs_tol;
}

struct KeyedCell {
  std::string key;
  bool num;
  Cell cell;
};

std::vector<Cell> normalized_sorted(const std::vector<Cell>& v, bool sort) {
  std::vector<Cell> out;
  out.reserve(v.size());
  for (auto& c : v) out.push_back(c.is_nan() ? Cell::integer(0) : c);
  if (!sort) return out;
  std::vector<KeyedCell> k;
  k.reserve(out.size());
  for (auto& c : out) k.push_back({c.py_str(), c.is_number(), std::move(c)});
  std::stable_sort(k.begin(), k.end(), [](const KeyedCell& a, const KeyedCell& b) {
    int cmp = a.key.compare(b.key);
    if (cmp != 0) return cmp < 0;
    return a.num < b.num;
  });
  out.clear();
  for (auto& e : k) out.push_back(std::move(e.cell));
  return out;
}

bool cells_match(const Cell& a, const Cell& b, double abs_tol) {
  if (a.is_number() && b.is_number()) return py_isclose(a.as_double(), b.as_double(), 1e-9, abs_tol);
  if (a.is_number() || b.is_number()) return false;
  if (a.is_nan() && b.is_nan()) return true;
  return a == b;
}

// Sorted by value (numbers first, by magnitude; then strings): what the string sort was meant to do.
std::vector<Cell> numeric_sorted(const std::vector<Cell>& v) {
  std::vector<Cell> out;
  for (auto& c : v) out.push_back(c.is_nan() ? Cell::integer(0) : c);
  std::stable_sort(out.begin(), out.end(), [](const Cell& a, const Cell& b) {
    if (a.is_number() != b.is_number()) return a.is_number();
    if (a.is_number()) return a.as_double() < b.as_double();
    return a.py_str() < b.py_str();
  });
  return out;
}

bool prepared_match(const std::vector<Cell>& a, const std::vector<Cell>& b, double abs_tol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!cells_match(a[i], b[i], abs_tol)) return false;
  return true;
}

}  // namespace

bool vectors_match(const std::vector<Cell>& gold, const std::vector<Cell>& pred, bool ignore_order, double abs_tol) {
  if (gold.size() != pred.size()) return false;
  return prepared_match(normalized_sorted(gold, ignore_order), normalized_sorted(pred, ignore_order), abs_tol);
}

namespace {

int compare_frames_impl(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order,
                        bool value_sort) {
  auto gold_vecs = column_vectors(gold, select_gold_cols(gold, condition_cols));
  auto pred_vecs = column_vectors(pred, all_cols(pred));
  auto prep = [&](const std::vector<Cell>& v) {
    return value_sort && ignore_order ? numeric_sorted(v) : normalized_sorted(v, ignore_order);
  };
  std::vector<std::vector<Cell>> pred_prep;
  pred_prep.reserve(pred_vecs.size());
  for (auto& p : pred_vecs) pred_prep.push_back(prep(p));
  for (auto& g : gold_vecs) {
    auto gp = prep(g);
    bool found = false;
    for (auto& p : pred_prep)
      if (prepared_match(gp, p, 1e-2)) {
        found = true;
        break;
      }
    if (!found) return 0;
  }
  return 1;
}

}  // namespace

int compare_frames(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, false);
}

int compare_frames_value_sort(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                              bool ignore_order) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, true);
}

std::vector<std::optional<nlohmann::json>> resolve_condition_cols(const nlohmann::json& cc, size_t n) {
  std::vector<std::optional<nlohmann::json>> out(n);
  auto empty_like = [&]() {
    if (cc.is_null()) return true;
    if (!cc.is_array()) return false;
    if (cc.empty()) return true;
    if (cc.size() == 1 && ((cc[0].is_array() && cc[0].empty()) || cc[0].is_null())) return true;
    return false;
  };
  if (empty_like()) {
    for (auto& o : out) o = nlohmann::json::array();
    return out;
  }
  bool all_lists = cc.is_array();
  if (cc.is_array())
    for (auto& e : cc)
      if (!e.is_array()) all_lists = false;
  if (n > 1 && !all_lists) {
    for (auto& o : out) o = cc;
    return out;
  }
  // Element i for alternative i (the single-alternative flat-list quirk: element 0 is an int).
  for (size_t i = 0; i < n; ++i)
    if (cc.is_array() && i < cc.size()) out[i] = cc[i];
  return out;
}

int score_against_golds(const Frame& pred, const std::vector<Frame>& golds, const EvalEntry& entry, bool single_file,
                        std::string* error) {
  try {
    if (single_file && golds.size() == 1) {
      const auto& cc = entry.condition_cols;
      if (cc.is_array())
        for (auto& e : cc)
          if (!e.is_number_integer()) throw std::out_of_range("condition_cols is not a flat list of integers");
      return compare_frames(pred, golds[0], cc, entry.ignore_order);
    }
    auto per = resolve_condition_cols(entry.condition_cols, golds.size());
    for (size_t i = 0; i < golds.size(); ++i) {
      if (!per[i]) throw std::out_of_range("list index out of range");
      if (compare_frames(pred, golds[i], *per[i], entry.ignore_order)) return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    if (error) *error = std::string("Python Script Error: ") + e.what();
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// --strict diagnostics

std::vector<std::string> strict_findings(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                                         bool ignore_order) {
  std::vector<std::string> out;
  std::vector<size_t> gcols;
  try {
    gcols = select_gold_cols(gold, condition_cols);
  } catch (const std::exception&) {
    return out;
  }
  auto gold_vecs = column_vectors(gold, gcols);
  auto pred_vecs = column_vectors(pred, all_cols(pred));
  // 1. Tolerance broken by the string sort: official mismatch, but a numeric sort would match.
  std::vector<int> chosen(gold_vecs.size(), -1);
  for (size_t g = 0; g < gold_vecs.size(); ++g) {
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (vectors_match(gold_vecs[g], pred_vecs[p], ignore_order)) {
        chosen[g] = static_cast<int>(p);
        break;
      }
    if (chosen[g] >= 0 || !ignore_order) continue;
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (gold_vecs[g].size() == pred_vecs[p].size() &&
          prepared_match(numeric_sorted(gold_vecs[g]), numeric_sorted(pred_vecs[p]), 1e-2)) {
        out.push_back("gold column " + std::to_string(gcols[g]) + " ('" + gold.columns[gcols[g]].name +
                      "') matches pred column " + std::to_string(p) + " ('" + pred.columns[p].name +
                      "') within tolerance, but the official string-representation sort misaligns the values");
        break;
      }
  }
  // 2. Rows scrambled across columns: every gold column matched on its own, but the rows do not.
  bool all_matched = std::all_of(chosen.begin(), chosen.end(), [](int c) { return c >= 0; });
  if (all_matched && !gold_vecs.empty()) {
    const size_t n = gold.rows;
    std::vector<char> used(n, 0);
    size_t unmatched = 0;
    auto row_eq = [&](size_t gr, size_t pr) {
      for (size_t g = 0; g < gold_vecs.size(); ++g) {
        const Cell& a = gold_vecs[g][gr];
        const Cell& b = pred_vecs[chosen[g]][pr];
        if (!cells_match(a.is_nan() ? Cell::integer(0) : a, b.is_nan() ? Cell::integer(0) : b, 1e-2)) return false;
      }
      return true;
    };
    if (n <= 20000) {
      for (size_t gr = 0; gr < n; ++gr) {
        bool ok = false;
        if (!ignore_order) {
          ok = row_eq(gr, gr);
        } else {
          for (size_t pr = 0; pr < n && !ok; ++pr)
            if (!used[pr] && row_eq(gr, pr)) used[pr] = 1, ok = true;
        }
        if (!ok) ++unmatched;
      }
      if (unmatched)
        out.push_back(std::to_string(unmatched) + " of " + std::to_string(n) +
                      " gold rows have no matching pred row: the columns match one by one but the rows are " +
                      "scrambled across columns");
    }
  }
  return out;
}

}  // namespace sqlgrade::spider2
