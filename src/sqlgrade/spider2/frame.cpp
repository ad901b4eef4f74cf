// The Spider 2.0-Lite sql-mode round trip read_sql_query(chunksize=500) -> to_csv -> read_csv (the
// read_csv typing itself is py/pandas_csv.cpp). See frame.hpp and shared/spec/official-evaluators.md §4.
#include "sqlgrade/spider2/frame.hpp"

#include <algorithm>
#include <charconv>

#include "sqlgrade/core/value.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::spider2 {

// ---------------------------------------------------------------------------------------------
// sql mode round trip: read_sql_query(chunksize=500) -> to_csv -> read_csv

namespace {

// Python's csv writer (QUOTE_MINIMAL): quoted when it holds a separator, a quote or a line end.
void append_field(std::string& out, std::string_view f) {
  if (f.find_first_of(",\"\n\r") == std::string_view::npos) {
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

// The CSV text in blocks of about 1 MiB, joined once at the end; bounded by `max_bytes`.
class BlockText {
 public:
  explicit BlockText(size_t max_bytes) : max_(max_bytes) {}
  std::string& cur() { return cur_; }
  // After each record: a full block is put aside.
  void record_done() {
    if (max_ && total_ + cur_.size() > max_)
      throw ResultTooLarge("the result as CSV is larger than " + std::to_string(max_) + " bytes");
    if (cur_.size() >= kBlock) flush();
  }
  std::string join() {
    flush();
    std::string out;
    out.reserve(total_);
    for (auto& b : blocks_) {
      out += b;
      std::string().swap(b);
    }
    return out;
  }

 private:
  static constexpr size_t kBlock = size_t(1) << 20;
  void flush() {
    if (cur_.empty()) return;
    total_ += cur_.size();
    blocks_.push_back(std::move(cur_));
    cur_ = std::string();
    cur_.reserve(kBlock + 4096);
  }
  size_t max_, total_ = 0;
  std::string cur_;
  std::vector<std::string> blocks_;
};

// Per chunk and column, the dtype DataFrame.from_records(coerce_float=True) gives.
enum class K { Int, Float, Object };

std::vector<K> chunk_kinds(const Table& t, size_t c0, size_t c1) {
  const size_t w = t.columns.size();
  std::vector<K> kind(w, K::Int);
  for (size_t c = 0; c < w; ++c) {
    bool any_text = false, any_real = false, any_null = false, any_num = false;
    for (size_t r = c0; r < c1; ++r) {
      const Kind k = c < t.rows[r].size() ? t.rows[r][c].kind : Kind::Null;
      switch (k) {
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
  return kind;
}

void append_value(std::string& out, const Value& v, K kind) {
  switch (v.kind) {
    case Kind::Null: break;
    case Kind::Int:
      if (kind == K::Float) {
        out += py::float_repr(static_cast<double>(v.i));
      } else {
        char b[24];
        out.append(b, std::to_chars(b, b + sizeof b, v.i).ptr);
      }
      break;
    case Kind::Real: out += py::float_repr(v.r); break;
    case Kind::Text: append_field(out, v.s); break;
    case Kind::Blob: append_field(out, py::repr(v)); break;
    default: append_field(out, py::str(v)); break;  // server kinds (Decimal, dates): their str()
  }
}

}  // namespace

namespace {

// `consume`: each row's cells are freed once written (the table is being given up), so that the peak
// is the table or its text, not both.
std::string csv_text(const Table& t, Table* consume, const Deadline& deadline, size_t max_bytes) {
  BlockText text(max_bytes);
  DeadlineTicker tick(deadline);
  const size_t w = t.columns.size();
  for (size_t c = 0; c < w; ++c) {
    if (c) text.cur() += ',';
    append_field(text.cur(), t.columns[c]);
  }
  // Python's csv writer quotes a record that would otherwise be an empty line.
  if (w == 1 && t.columns[0].empty()) text.cur() += "\"\"";
  text.cur() += '\n';
  text.record_done();
  static const Value kNull;
  const size_t chunk = 500;
  for (size_t c0 = 0; c0 < t.rows.size(); c0 += chunk) {
    const size_t c1 = std::min(t.rows.size(), c0 + chunk);
    const std::vector<K> kind = chunk_kinds(t, c0, c1);
    for (size_t r = c0; r < c1; ++r) {
      std::string& out = text.cur();
      const size_t start = out.size();
      for (size_t c = 0; c < w; ++c) {
        if (c) out += ',';
        append_value(out, c < t.rows[r].size() ? t.rows[r][c] : kNull, kind[c]);
      }
      if (out.size() == start && w > 0) out += "\"\"";
      out += '\n';
      text.record_done();
      tick.tick(w + 1);
    }
    if (consume)
      for (size_t r = c0; r < c1; ++r) Row().swap(consume->rows[r]);
  }
  if (consume) consume->rows = std::vector<Row>();
  return text.join();
}

}  // namespace

std::string to_csv_text(const Table& t, const Deadline& deadline, size_t max_bytes) {
  return csv_text(t, nullptr, deadline, max_bytes);
}

std::string to_csv_text(Table&& t, const Deadline& deadline, size_t max_bytes) {
  return csv_text(t, &t, deadline, max_bytes);
}

Frame frame_from_table(const Table& t, const Deadline& deadline, size_t max_bytes) {
  return frame_from_csv_text(to_csv_text(t, deadline, max_bytes), "<query result>", deadline);
}

}  // namespace sqlgrade::spider2
