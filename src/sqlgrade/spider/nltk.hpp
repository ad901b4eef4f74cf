#pragma once
// NLTK 3.8 word_tokenize (the "improved Treebank" rules and an untrained Punkt sentence splitter) on
// text without straight quotes, as the Spider tokenizer (tokenize.cpp) calls it. nltk_word_tokenize,
// the same as strings, is declared in tokenize.hpp.
#include <string>

#include "sqlgrade/spider/tokenize.hpp"

namespace sqlgrade::spider {

// Appends the word tokens of `text` to `out` (sentence by sentence, as word_tokenize does).
void nltk_into(std::string&& text, TokenList& out);

}  // namespace sqlgrade::spider
