// Spider tokenizer (process_sql.tokenize): quoted values become placeholders, the text goes through
// NLTK word_tokenize (nltk.cpp), then it is lower-cased, the values come back and `! = > <` merge with a
// following `=`. Also the TokenList buffer.
#include "sqlgrade/spider/tokenize.hpp"

#include <algorithm>

#include "sqlgrade/spider/nltk.hpp"

namespace sqlgrade::spider {

namespace {

// "__val_<a>_<b>__" -> (a, b); false for anything else (leading zeros included: Python's keys have none).
bool placeholder_offsets(std::string_view t, uint64_t& a, uint64_t& b) {
  if (t.size() < 13 || t.substr(0, 6) != "__val_" || t.substr(t.size() - 2) != "__") return false;
  std::string_view mid = t.substr(6, t.size() - 8);
  size_t us = mid.find('_');
  if (us == std::string_view::npos || us == 0 || us + 1 >= mid.size()) return false;
  auto num = [](std::string_view d, uint64_t& v) {
    if (d.empty() || d.size() > 18 || (d.size() > 1 && d[0] == '0')) return false;
    v = 0;
    for (char c : d) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
  };
  return num(mid.substr(0, us), a) && num(mid.substr(us + 1), b);
}

}  // namespace

void TokenList::push_back(std::string_view t) {
  if (text_.size() + t.size() > UINT32_MAX) throw ParseError("statement too long to tokenize (over 4 GiB of tokens)");
  text_.append(t);
  ends_.push_back(static_cast<uint32_t>(text_.size()));
}

std::vector<std::string> TokenList::to_vector() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.emplace_back((*this)[i]);
  return out;
}


std::vector<std::string> tokenize(std::string_view sql) { return tokenize_list(sql).to_vector(); }

namespace {

// A quoted value of the statement: its code-point offsets (the placeholder's name) and its bytes in
// the statement, quotes included.
struct Span {
  uint32_t cp1, cp2;
  uint32_t begin, len;
};

// evaluation.py tokenize: every quoted span of `s` (quotes already all '"', an even number of them)
// becomes a placeholder "__val_<cp1>_<cp2>__" (Python's code-point offsets) that comes back after
// tokenizing. Spans are in text order, so their start offsets are sorted. Returns the text to tokenize.
std::string substitute_values(const std::string& s, std::vector<Span>& vals) {
  std::string sub;
  sub.reserve(s.size() + 16);
  size_t pos = 0, cp = 0, copied = 0;
  auto advance_cp = [&](size_t to) {
    for (; pos < to; ++pos)
      if ((static_cast<unsigned char>(s[pos]) & 0xC0) != 0x80) ++cp;
  };
  for (size_t open = s.find('"'); open != std::string::npos;) {
    size_t close = s.find('"', open + 1);
    advance_cp(open);
    size_t cp1 = cp;
    advance_cp(close);
    size_t cp2 = cp;
    sub.append(s, copied, open - copied);
    sub += "__val_" + std::to_string(cp1) + "_" + std::to_string(cp2) + "__";
    vals.push_back({static_cast<uint32_t>(cp1), static_cast<uint32_t>(cp2), static_cast<uint32_t>(open),
                    static_cast<uint32_t>(close - open + 1)});
    copied = close + 1;
    open = s.find('"', close + 1);
  }
  sub.append(s, copied, std::string::npos);
  return sub;
}

}  // namespace

TokenList tokenize_list(std::string_view sql) {
  if (sql.size() >= UINT32_MAX) throw ParseError("statement too long to tokenize (4 GiB or more)");
  std::string s(sql);
  size_t quotes = 0;
  for (char& c : s) {
    if (c == '\'') c = '"';
    quotes += c == '"';
  }
  if (quotes % 2 != 0) throw ParseError("Unexpected quote");

  std::vector<Span> vals;
  std::string sub;
  if (quotes == 0) sub.swap(s);  // no values to restore: `s` is not needed any more
  else sub = substitute_values(s, vals);

  TokenList words;
  nltk_into(std::move(sub), words);
  for (char& c : words.text())
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');

  // One pass: placeholders restored; "!", ">", "<" merged with a following "=". Python merges right
  // to left over the "=" positions found once; merges never overlap (the token before a merged "=" is
  // not "="), so left to right gives the same list. Only an "=" at index 0 differs: its "previous"
  // token is toks[-1], and Python then builds toks[:-1] + [pre + "="] + toks[1:] (done last, below).
  auto restored = [&](std::string_view t) -> std::string_view {
    uint64_t a, b;
    if (vals.empty() || !placeholder_offsets(t, a, b)) return t;
    auto it = std::lower_bound(vals.begin(), vals.end(), a, [](const Span& v, uint64_t x) { return v.cp1 < x; });
    if (it == vals.end() || it->cp1 != a || it->cp2 != b) return t;
    return std::string_view(s).substr(it->begin, it->len);
  };
  auto is_prefix = [](std::string_view t) { return t == "!" || t == ">" || t == "<"; };
  const size_t n = words.size();
  bool changes = n > 1 && words[0] == "=" && is_prefix(words[n - 1]);
  for (size_t i = 0; i < n && !changes; ++i)
    changes = (i + 1 < n && is_prefix(words[i]) && words[i + 1] == "=") || restored(words[i]).data() != words[i].data();
  if (!changes) return words;
  TokenList out;
  out.reserve(words.size(), words.text().size());
  for (size_t i = 0; i < n; ++i) {
    std::string_view t = words[i];
    if (i + 1 < n && is_prefix(t) && words[i + 1] == "=") {
      out.push_back(std::string(t) + "=");
      ++i;
    } else {
      out.push_back(restored(t));
    }
  }
  if (n > 1 && words[0] == "=" && is_prefix(out.back())) {
    TokenList quirk;
    const size_t m = out.size();
    for (size_t i = 0; i + 1 < m; ++i) quirk.push_back(out[i]);
    quirk.push_back(std::string(out.back()) + "=");
    for (size_t i = 1; i < m; ++i) quirk.push_back(out[i]);
    return quirk;
  }
  return out;
}

}  // namespace sqlgrade::spider
