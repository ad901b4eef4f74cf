// The Spider 2.0-Lite sql-mode round trip read_sql_query(chunksize=500) -> to_csv -> read_csv (the
// read_csv typing itself is py/pandas_csv.cpp). See frame.hpp and shared/spec/official-evaluators.md §4.
#include "sqlgrade/spider2/frame.hpp"

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

}  // namespace sqlgrade::spider2
