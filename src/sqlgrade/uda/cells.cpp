// UDA-Bench cell rules (compare.hpp): a cell's text and emptiness, the canonical key of a row key
// cell, and the rules' score of a pair of cells — what the matcher (compare.cpp) applies to each pair.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/uda/compare.hpp"
#include "sqlgrade/uda/unicode.hpp"

namespace sqlgrade::uda {

const char* to_string(CellKind k) {
  switch (k) {
    case CellKind::Int: return "int";
    case CellKind::Float: return "float";
    case CellKind::Str: return "str";
    case CellKind::Multi: return "multi_str";
    case CellKind::Aggregate: return "aggregate";
  }
  return "?";
}

double f1_of(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

namespace {

bool looks_like_extension(const std::string& ext) {
  if (ext.empty() || ext.size() > 5) return false;
  bool letter = false;
  for (char c : ext) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
    if (std::isalpha(static_cast<unsigned char>(c))) letter = true;
  }
  return letter;
}

std::optional<double> number_of(const Value& v) {
  if (v.kind == Kind::Int) return static_cast<double>(v.i);
  if (v.kind == Kind::Real) return v.r;
  if (v.is_null()) return std::nullopt;
  auto d = judge::number_in(v.s);
  if (d && std::isnan(*d)) return std::nullopt;
  return d;
}

}  // namespace

std::string text_of(const Value& v) { return v.is_null() ? std::string() : judge::clean_cell(py::text(v)); }

bool empty_cell(const Value& v) { return v.is_null() || unicode::unquote(py::text(v)).empty(); }

std::string key_text(const Value& v, bool is_id) {
  if (v.is_null()) return "";
  std::string s = unicode::unquote(py::text(v));
  if (is_id) {
    auto slash = s.find_last_of("/\\");
    if (slash != std::string::npos) s = s.substr(slash + 1);
    auto dot = s.find_last_of('.');
    if (dot != std::string::npos && looks_like_extension(s.substr(dot + 1)) && !py::parse_float(s)) s = s.substr(0, dot);
  }
  return judge::canonical_key(judge::clean_cell(s));
}

std::optional<double> rule_cell_score(CellKind kind, const Value& pred, const Value& gold, double tol) {
  bool pe = empty_cell(pred), ge = empty_cell(gold);
  if (pe && ge) return 1.0;
  if (pe != ge) return 0.0;
  if (kind == CellKind::Int || kind == CellKind::Float || kind == CellKind::Aggregate) {
    auto p = number_of(pred), g = number_of(gold);
    if (p && g) {
      if (kind == CellKind::Int) return *p == *g ? 1.0 : 0.0;
      if (kind == CellKind::Float) return std::fabs(*p - *g) <= tol * std::max(1.0, std::fabs(*g)) ? 1.0 : 0.0;
      double err = *g == 0 ? std::fabs(*p) : std::fabs(*p - *g) / std::fabs(*g);
      return 1.0 / (1.0 + err);
    }
  }
  std::string ps = text_of(pred), gs = text_of(gold);
  if (iequals(ps, gs)) return 1.0;
  if (judge::normalize_for_compare(ps) == judge::normalize_for_compare(gs)) return 1.0;
  return std::nullopt;
}

}  // namespace sqlgrade::uda
