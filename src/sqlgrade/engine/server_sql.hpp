#pragma once
// Reading a statement's text before it goes to a server: where PostgreSQL statements end (so that
// psycopg2's "several statements, the last result" can be reproduced one piece at a time), and
// whether a statement is a query (the only thing server engines run). Lexical only — quotes, quoted
// identifiers, dollar quotes, comments — and conservative: when unsure, the text is refused or sent as
// one piece, and the server (extended protocol: one statement at most; MySQL without multi-statements)
// refuses what is not one statement.
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/engine/server.hpp"

namespace sqlgrade::server_sql {

// PostgreSQL: the statements of `sql`, split at the semicolons outside quotes and comments, each
// trimmed, empty ones (only spaces and comments) left out — as the server's simple query protocol
// sees them (standard_conforming_strings on: a backslash is an escape only inside E'...').
std::vector<std::string> split_postgres(std::string_view sql);

// The first word of a statement after spaces, comments and opening parentheses, in upper case ("" when
// there is none). MySQL: `/*! ... */` and `/*M! ... */` are code, not comments, so their text counts.
std::string first_word(std::string_view sql, ServerDialect dialect);

// Empty when `sql` is a query a server engine may run (its first word is SELECT, WITH, VALUES or
// TABLE), else why not ("not a query: SET statements are not run on the server ...").
std::string refusal(std::string_view sql, ServerDialect dialect);

// True when only spaces and comments remain (PostgreSQL's and MySQL's empty query).
bool is_empty_statement(std::string_view sql, ServerDialect dialect);

}  // namespace sqlgrade::server_sql
