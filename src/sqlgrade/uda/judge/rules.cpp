#include <cctype>
#include <cmath>
#include <cstdio>

#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/uda/unicode.hpp"
#include "sqlgrade/py/number.hpp"

namespace sqlgrade::uda::judge {

std::vector<Answer> RulesJudge::ask(const std::vector<Question>& questions) {
  std::vector<Answer> out(questions.size());
  for (auto& a : out) {
    a.answered = true;
    a.yes = false;
    a.count = 0;
    a.raw = "rules: not decided";
  }
  return out;
}

std::string clean_cell(std::string_view s) {
  return unicode::collapse_space(replace_all(std::string(s), "||", " || "));
}

std::vector<std::string> split_multi(std::string_view s, std::string_view sep) {
  std::vector<std::string> parts = split(s, sep);
  // A quotation mark around the whole cell ("a || b ||", as a tool that quotes its cells writes it)
  // belongs to no item: it is removed before the split, as the plan reads a cell (issue 31; before, the
  // split left the items `"a` and a lone `"`, which counted in |items| and matched nothing). Items
  // quoted one by one ("\"a\" || \"b\"") are not such a cell: each item's quotes are the item rules'.
  if (parts.size() > 1) {
    const std::string first = unicode::collapse_space(parts.front());
    if (unicode::unquote(first) == first) {
      std::string whole = unicode::unquote(s);
      if (whole != unicode::collapse_space(s)) parts = split(whole, sep);
    }
  }
  std::vector<std::string> out;
  for (auto& part : parts) {
    std::string t = unicode::collapse_space(part);
    if (!t.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::string canonical_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
  }
  char b[40];
  std::snprintf(b, sizeof b, "%.15g", v);
  return b;
}

std::optional<double> lenient_number(std::string_view in) {
  std::string s = trim(in);
  if (s.empty()) return std::nullopt;
  if (auto d = py::parse_float(s)) return d;
  // Strip a currency sign, a trailing percent sign, and thousands separators in 1,234,567 form.
  std::string t;
  bool neg = false;
  size_t i = 0;
  if (s[i] == '-' || s[i] == '+') {
    neg = s[i] == '-';
    ++i;
  }
  if (i < s.size() && (s[i] == '$' || s.compare(i, 2, "\xc2\xa3") == 0 || s.compare(i, 3, "\xe2\x82\xac") == 0)) {
    i += s[i] == '$' ? 1 : (static_cast<unsigned char>(s[i]) == 0xC2 ? 2 : 3);
  }
  std::string body = s.substr(i);
  if (!body.empty() && body.back() == '%') body.pop_back();
  // thousands separators: digits groups of 3 after the first comma
  size_t comma = body.find(',');
  if (comma != std::string::npos) {
    size_t dot = body.find('.');
    std::string intpart = body.substr(0, dot == std::string::npos ? body.size() : dot);
    auto groups = split(intpart, ",");
    if (groups.empty() || groups[0].empty() || groups[0].size() > 3) return std::nullopt;
    for (size_t g = 1; g < groups.size(); ++g)
      if (groups[g].size() != 3) return std::nullopt;
    for (auto& g : groups)
      for (char c : g)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    t = join(groups, "") + (dot == std::string::npos ? "" : body.substr(dot));
  } else {
    t = body;
  }
  auto d = py::parse_float(t);
  if (!d) return std::nullopt;
  return neg ? -*d : *d;
}

std::optional<std::string> canonical_date(std::string_view in) {
  std::string s = trim(in);
  int y = 0, m = 0, d = 0;
  char s1 = 0, s2 = 0;
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d%c%2d%c%2d%n", &y, &s1, &m, &s2, &d, &consumed) == 5 &&
      consumed == static_cast<int>(s.size()) && s1 == s2 && (s1 == '-' || s1 == '/' || s1 == '.') && y >= 1000 &&
      m >= 1 && m <= 12 && d >= 1 && d <= 31) {
    char b[32];  // y is at most 4 digits here (%4d), but the compiler cannot know
    std::snprintf(b, sizeof b, "%04d-%02d-%02d", y, m, d);
    return std::string(b);
  }
  return std::nullopt;
}

std::optional<double> number_in(std::string_view s) {
  return lenient_number(unicode::unquote(unicode::fold(s)));
}

std::string normalize_for_compare(std::string_view in) {
  // Quotes go before anything is recognised: "\"-0.68\"" is the number -0.68, "'1842/1/27'" a date.
  std::string s = unicode::unquote(unicode::fold(in));
  if (s.empty()) return s;
  if (auto d = canonical_date(s)) return *d;
  if (auto v = lenient_number(s)) return canonical_number(*v);
  std::u32string u = unicode::decode(s), out;
  out.reserve(u.size());
  auto digit_at = [&](size_t k) { return k < u.size() && unicode::is_digit(u[k]); };
  for (size_t i = 0; i < u.size(); ++i) {
    char32_t c = u[i];
    bool punct = unicode::is_punct(c);
    // keep a '.' or ',' between two digits (decimal numbers inside text)
    if (punct && (c == '.' || c == ',') && i > 0 && unicode::is_digit(u[i - 1]) && digit_at(i + 1)) punct = false;
    // a sign is never punctuation: '-' or '+' starting a number ("-5", "(-0.5)"), but not a hyphen
    // inside a word or between numbers ("COVID-19", "1990-2000")
    if (punct && (c == '-' || c == '+') && (digit_at(i + 1) || (i + 1 < u.size() && u[i + 1] == '.' && digit_at(i + 2))) &&
        (i == 0 || py::is_space(u[i - 1]) || unicode::is_punct(u[i - 1])))
      punct = false;
    out += punct ? U' ' : c;
  }
  return unicode::collapse_space(unicode::encode(out));
}

std::string canonical_key(std::string_view in) {
  std::string s = unicode::unquote(unicode::fold(in));
  if (auto v = py::parse_float(s)) return canonical_number(*v);
  return s;
}

}  // namespace sqlgrade::uda::judge
