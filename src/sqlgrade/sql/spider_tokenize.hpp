#pragma once
// The official Spider tokenizer (process_sql.tokenize): quotes → value placeholders, NLTK
// word_tokenize (nltk 3.8 "improved Treebank" rules + an untrained Punkt sentence splitter), lower
// case, placeholders restored, `! = > <` merged with a following `=`.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::spider {

// Any failure of the official parser (assertion, KeyError, IndexError, ValueError in Python).
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// NLTK word_tokenize(text) as nltk 3.8 does it on text without straight quotes.
std::vector<std::string> nltk_word_tokenize(std::string_view text);

// process_sql.tokenize. Throws ParseError("Unexpected quote") on an odd number of quotes.
std::vector<std::string> tokenize(std::string_view sql);

}  // namespace sqlgrade::spider
