#pragma once
// The official Spider tokenizer (process_sql.tokenize): quotes → value placeholders, NLTK
// word_tokenize (nltk 3.8 "improved Treebank" rules + an untrained Punkt sentence splitter), lower
// case, placeholders restored, `! = > <` merged with a following `=`.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::spider {

// Any failure of the official parser (assertion, KeyError, IndexError, ValueError in Python).
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A token list in one buffer: the tokens' text back to back plus a 4-byte end offset per token, so a
// prediction of 20 million one-character tokens costs ~100 MB here instead of over 1 GB as strings.
class TokenList {
 public:
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](size_t i) const {
    size_t b = i ? ends_[i - 1] : 0;
    return std::string_view(text_).substr(b, ends_[i] - b);
  }
  std::string_view back() const { return (*this)[size() - 1]; }
  // Throws ParseError when the tokens' text would pass 4 GiB.
  void push_back(std::string_view t);
  // Capacity only: untouched memory is not resident, so an upper bound is cheap.
  void reserve(size_t tokens, size_t bytes) {
    ends_.reserve(tokens);
    text_.reserve(bytes);
  }
  std::string& text() { return text_; }  // for in-place changes that keep every token's length
  std::vector<std::string> to_vector() const;

 private:
  std::string text_;
  std::vector<uint32_t> ends_;
};

// NLTK word_tokenize(text) as nltk 3.8 does it on text without straight quotes.
std::vector<std::string> nltk_word_tokenize(std::string_view text);

// process_sql.tokenize. Throws ParseError("Unexpected quote") on an odd number of quotes.
TokenList tokenize_list(std::string_view sql);
// The same as strings (tests, tools).
std::vector<std::string> tokenize(std::string_view sql);

}  // namespace sqlgrade::spider
