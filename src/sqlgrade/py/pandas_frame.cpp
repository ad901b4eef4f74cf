// pandas frames as sqlgrade keeps them — cells as Python objects, compact typed columns — see
// pandas_frame.hpp. pandas_csv.cpp reads them.
#include "sqlgrade/py/pandas_frame.hpp"

#include <charconv>
#include <cstring>

#include "sqlgrade/core/table.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::py {

// ---------------------------------------------------------------------------------------------
// Cells

std::string Cell::py_str() const {
  switch (type) {
    case Type::NaN: return "nan";
    case Type::Int: return std::to_string(i);
    case Type::Float: return float_repr(f);
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

// ---------------------------------------------------------------------------------------------
// Cells read in place, compact columns

void CellView::append_py_str(std::string& out) const {
  switch (type) {
    case Cell::Type::NaN: out += "nan"; return;
    case Cell::Type::Int: {
      char b[24];
      auto r = std::to_chars(b, b + sizeof b, i);
      out.append(b, r.ptr);
      return;
    }
    case Cell::Type::Float: out += float_repr(f); return;
    case Cell::Type::Bool: out += i ? "True" : "False"; return;
    case Cell::Type::Str: out += s; return;
  }
}

bool CellView::operator==(const CellView& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Cell::Type::NaN: return true;
    case Cell::Type::Int:
    case Cell::Type::Bool: return i == o.i;
    case Cell::Type::Float: return f == o.f;
    case Cell::Type::Str: return s == o.s;
  }
  return false;
}

Cell CellView::to_cell() const {
  switch (type) {
    case Cell::Type::NaN: return Cell::nan();
    case Cell::Type::Int: return Cell::integer(i);
    case Cell::Type::Float: return Cell::real(f);
    case Cell::Type::Bool: return Cell::boolean(i != 0);
    case Cell::Type::Str: return Cell::str(std::string(s));
  }
  return Cell::nan();
}

CellView Column::at(size_t r) const {
  CellView v;
  v.type = types_[r];
  const uint64_t d = data_[r];
  switch (v.type) {
    case Cell::Type::NaN: break;
    case Cell::Type::Int:
    case Cell::Type::Bool: v.i = static_cast<int64_t>(d); break;
    case Cell::Type::Float: std::memcpy(&v.f, &d, sizeof d); break;
    case Cell::Type::Str: {
      const uint64_t b = d ? text_end_[d - 1] : 0;
      v.s = std::string_view(text_.data() + b, text_end_[d] - b);
      break;
    }
  }
  return v;
}

void Column::push_real(double v) {
  uint64_t d;
  std::memcpy(&d, &v, sizeof d);
  push(Cell::Type::Float, d);
}

void Column::push_str(std::string_view v) {
  text_.append(v);
  text_end_.push_back(text_.size());
  push(Cell::Type::Str, text_end_.size() - 1);
}

void Column::push(const CellView& c) {
  switch (c.type) {
    case Cell::Type::NaN: push_nan(); return;
    case Cell::Type::Int: push_int(c.i); return;
    case Cell::Type::Float: push_real(c.f); return;
    case Cell::Type::Bool: push_bool(c.i != 0); return;
    case Cell::Type::Str: push_str(c.s); return;
  }
}

void Column::push(const Cell& c) {
  CellView v;
  v.type = c.type;
  v.i = c.i;
  v.f = c.f;
  v.s = c.s;
  push(v);
}

void Column::truncate(size_t n) {
  if (n >= size()) return;
  for (size_t r = n; r < size(); ++r)
    if (types_[r] == Cell::Type::Str) {  // the first str cell dropped: its text and the later ones go
      const uint64_t k = data_[r];
      text_.resize(k ? text_end_[k - 1] : 0);
      text_end_.resize(k);
      break;
    }
  types_.resize(n);
  data_.resize(n);
}

void Column::reserve(size_t n) {
  types_.reserve(n);
  data_.reserve(n);
}

void Column::to_float(size_t r0, size_t r1) {
  for (size_t r = r0; r < r1 && r < size(); ++r)
    if (types_[r] == Cell::Type::Int) {
      double v = static_cast<double>(static_cast<int64_t>(data_[r]));
      types_[r] = Cell::Type::Float;
      std::memcpy(&data_[r], &v, sizeof v);
    }
}

size_t Column::heap_bytes() const {
  return sqlgrade::heap_bytes(name) + vector_heap_bytes(types_) + vector_heap_bytes(data_) +
         sqlgrade::heap_bytes(text_) + vector_heap_bytes(text_end_);
}

size_t heap_bytes(const Frame& f) {
  size_t b = vector_heap_bytes(f.columns);
  for (auto& c : f.columns) b += c.heap_bytes();
  return b;
}

std::vector<std::string> Frame::names() const {
  std::vector<std::string> n;
  n.reserve(columns.size());
  for (auto& c : columns) n.push_back(c.name);
  return n;
}

}  // namespace sqlgrade::py
