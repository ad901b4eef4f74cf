// The test-suite evaluator's --plug_value (test-suite-sql-eval parse.py: reformat_query,
// replace_values, extract_query_values, get_all_preds_for_execution) on the sqlparse emulation of
// sqlparse.cpp — see plug_value.hpp.
#include "sqlgrade/spider/plug_value.hpp"

#include <algorithm>
#include <limits>

#include "sqlgrade/py/str.hpp"

namespace sqlgrade::spider::sqlparse {

namespace {

std::string replace_all_str(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t f = s.find(from, pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out.append(to);
    pos = f + from.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

bool dig(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// re.findall(r"[-+]?\d*\.\d+", s)
std::vector<std::string> find_floats(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t p = i;
    if (s[p] == '-' || s[p] == '+') ++p;
    while (dig(s, p)) ++p;
    if (p < s.size() && s[p] == '.' && dig(s, p + 1)) {
      size_t e = p + 1;
      while (dig(s, e)) ++e;
      out.emplace_back(s.substr(i, e - i));
      i = e;
    } else {
      i += char_len_at(s, i);
    }
  }
  return out;
}

// [m.strip() for m in re.findall(r"[^tT]\d+", s)]
std::vector<std::string> find_ints(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t n = char_len_at(s, i);
    if (s[i] != 't' && s[i] != 'T' && dig(s, i + n)) {
      size_t e = i + n;
      while (dig(s, e)) ++e;
      out.push_back(py::strip(s.substr(i, e - i)));
      i = e;
    } else {
      i += n;
    }
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// re.sub(r"(T\d+\.)\s", r"\1", s)
std::string drop_space_after_alias_dot(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == 'T' && dig(s, i + 1)) {
      size_t p = i + 1;
      while (dig(s, p)) ++p;
      size_t n = p + 1 < s.size() ? py::space_len(s, p + 1) : 0;
      if (p < s.size() && s[p] == '.' && n) {
        out.append(s.substr(i, p + 1 - i));
        i = p + 1 + n;
        continue;
      }
      out.append(s.substr(i, p - i));
      i = p;
      continue;
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

QueryValues extract_query_values(std::string_view sql) {
  QueryValues qv;
  // reformat_query
  std::string q = py::strip(sql);
  q = replace_all_str(std::move(q), ";", "");
  q = replace_all_str(std::move(q), "\t", "");
  bool found = false;
  std::vector<Token> toks = first_statement(q, &found);
  if (!found) return qv;
  std::string joined;
  bool first = true;
  for (auto& tk : toks) {
    if (tk.type == TokType::Whitespace) continue;
    if (!first) joined += ' ';
    joined += tk.text();
    first = false;
  }
  for (const char* ts : {"t1.*", "t2.*", "t3.*", "T1.*", "T2.*", "T3.*"}) joined = replace_all_str(std::move(joined), ts, "*");
  // replace_values: sqlparse.format (keyword case only; see header) then the alias-dot fix.
  q = drop_space_after_alias_dot(joined);
  // strip_query
  bool f2 = false;
  std::vector<Token> toks2 = first_statement(q, &f2);
  std::vector<std::string> string_values;
  for (auto& tk : toks2)
    if (tk.type == TokType::StringSingle || tk.type == TokType::StringSymbol) string_values.emplace_back(tk.text());
  static const std::string SYM = "VALUERARE";
  for (auto& v : string_values) {
    qv.values.push_back(v);
    q = replace_all_str(std::move(q), py::strip(v), SYM);
  }
  std::vector<std::string> qt = py::split(q);
  std::vector<std::string> floats = find_floats(q);
  for (auto& t : qt)
    if (contains(floats, t)) {
      qv.values.push_back(t);
      t = SYM;
    }
  std::string q2;
  for (size_t k = 0; k < qt.size(); ++k) {
    if (k) q2 += ' ';
    q2 += qt[k];
  }
  std::vector<std::string> ints = find_ints(q2);
  for (auto& t : qt)
    if (contains(ints, t)) {
      qv.values.push_back(t);
      t = SYM;
    }
  for (auto& tok : qt) {
    if (tok.find('.') != std::string::npos) {
      bool alias = false;  // re.findall(r"[Tt]\d+\.", tok)
      for (size_t k = 0; k + 2 < tok.size() + 1 && !alias; ++k) {
        if (tok[k] != 'T' && tok[k] != 't') continue;
        size_t p = k + 1;
        if (!dig(tok, p)) continue;
        while (dig(tok, p)) ++p;
        if (p < tok.size() && tok[p] == '.') alias = true;
      }
      if (alias) {
        for (auto& part : py::split(replace_all_str(tok, ".", " . ")))
          if (!part.empty()) qv.tokens.push_back(lower_ascii(part));
      } else {
        qv.tokens.push_back(lower_ascii(tok));
      }
    } else if (!tok.empty()) {
      qv.tokens.push_back(lower_ascii(tok));
    }
  }
  qv.ok = true;
  return qv;
}

PlugCandidates::PlugCandidates(std::string_view gold, std::string_view pred) {
  QueryValues g = extract_query_values(gold);
  QueryValues p = extract_query_values(pred);
  if (!g.ok || !p.ok) return;
  ok_ = true;
  for (auto& v : g.values)
    if (!contains(values_, v)) values_.push_back(v);
  tokens_ = std::move(p.tokens);
  for (auto& t : tokens_)
    if (t == "valuerare") ++slots_;
  count_ = 1;
  for (size_t k = 0; k < slots_; ++k) {
    if (values_.empty()) { count_ = 0; break; }
    if (count_ > std::numeric_limits<uint64_t>::max() / values_.size()) { count_ = std::numeric_limits<uint64_t>::max(); break; }
    count_ *= values_.size();
  }
}

std::string PlugCandidates::candidate(uint64_t index) const {
  // itertools.product order: the last slot varies fastest.
  std::vector<size_t> pick(slots_, 0);
  const uint64_t base = values_.size();
  for (size_t k = slots_; k-- > 0;) {
    pick[k] = static_cast<size_t>(index % base);
    index /= base;
  }
  std::string out;
  size_t slot = 0;
  for (size_t k = 0; k < tokens_.size(); ++k) {
    if (k) out += ' ';
    if (tokens_[k] == "valuerare") out += values_[pick[slot++]];
    else out += tokens_[k];
  }
  return out;
}

}  // namespace sqlgrade::spider::sqlparse
