#pragma once
// Python's int() and float() of a text, as the official scripts and sqlgrade's readers apply them to
// CSV cells and answers (UDA-Bench's eval_acc number checks, BIRD's question ids, the gold tables'
// numeric columns). CPython 3 semantics on ASCII: surrounding whitespace (ASCII only here) allowed;
// float() takes digits with an optional '.' and exponent, and "nan", "inf", "infinity" in any case
// with an optional sign. Not reproduced: underscores between digits
// (int("1_000")), non-ASCII digits and whitespace, and int()'s arbitrary precision (a value beyond
// 64 bits is no int here).
#include <optional>
#include <string_view>

namespace sqlgrade::py {

std::optional<long long> parse_int(std::string_view s);   // int(s) when it does not raise
std::optional<double> parse_float(std::string_view s);    // float(s) when it does not raise

// int(t) of one SQL token as Spider's process_sql.py parse_sql applies it to the LIMIT value: an
// optional sign, then digits with single underscores between them ("1_000"), nothing else (a token
// has no surrounding whitespace). False where int() raises. Python's int is unbounded: here the value
// stops growing past 2^58 instead of failing. (parse_int above is the bounded 64-bit reading of a
// whole field, surrounding whitespace allowed, no underscores.)
bool parse_int_token(std::string_view t, long long& out);

}  // namespace sqlgrade::py
