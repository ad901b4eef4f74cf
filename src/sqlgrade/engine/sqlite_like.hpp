#pragma once
// Deadline-aware like(pattern, string[, escape]) and glob(pattern, string): the SQLite functions
// sqlite_builtins.cpp registers (sqlite_like.cpp). sqlite3_user_data of the call is the Deadline*.
struct sqlite3_context;
struct sqlite3_value;

namespace sqlgrade::sqlite_guard {

void like_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv);
void glob_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv);

}  // namespace sqlgrade::sqlite_guard
