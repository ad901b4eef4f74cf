#pragma once
// Server result cells as the Python objects the official BIRD scripts compare: what psycopg2 2.9.9
// (its default typecasters, by type OID, on the text format) and PyMySQL 1.1.1 (its decoders, by field
// type and character set, on the text protocol) return. The kinds are core/value.hpp's; how each
// compares is py/equality.hpp's.
//
// PostgreSQL (psycopg2):  int2/int4/int8/oid → int; float4/float8 → float (of the server's text, so a
//   REAL keeps its float4 rounding: 9.128532 → 9.128532); numeric → Decimal; bool → bool; text, varchar,
//   char, name, unknown → str; date → date; timestamp → datetime; timestamptz → aware datetime; time,
//   timetz → time; interval → timedelta; bytea → bytes (psycopg2's memoryview equals and hashes as
//   bytes); json/jsonb → what json.loads gives (a dict or list cannot be hashed); the arrays psycopg2
//   registers → list; range types → psycopg2's Range (Kind::Other); any other type → str.
//   Values Python cannot hold (a date beyond year 9999 or BC) fail the query, as psycopg2 raises.
// MySQL (PyMySQL):  TINY/SHORT/LONG/LONGLONG/INT24/YEAR → int; FLOAT/DOUBLE → float; DECIMAL/NEWDECIMAL →
//   Decimal (integer division's 4 decimals stay: Decimal('14.8148')); DATE → date; DATETIME/TIMESTAMP →
//   datetime; TIME → timedelta (each a str when PyMySQL's parser refuses the text, e.g. 0000-00-00);
//   character types → str, or bytes for the binary character set (BLOB, BINARY, BIT); JSON → str.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sqlgrade/core/value.hpp"

namespace sqlgrade::py {
struct Decimal;
}  // namespace sqlgrade::py

namespace sqlgrade::server_values {

// One PostgreSQL text-format cell of type `oid`. nullopt (with `error` set) where psycopg2 raises.
std::optional<Value> from_postgres(uint32_t oid, std::string_view text, std::string& error);

// One MySQL text-protocol cell. `type` is enum_field_types, `charsetnr` the field's character set
// number (63 = binary). nullopt (with `error` set) where PyMySQL raises (text that is not UTF-8).
std::optional<Value> from_mysql(int type, unsigned charsetnr, std::string_view bytes, std::string& error);

// Python's int(text) / float(text) for the digits servers write; nullopt when Python would raise.
// An integer beyond int64 becomes a Decimal-kind value of the same number (Python's int is unbounded).
std::optional<Value> python_int(std::string_view text);
std::optional<Value> python_float(std::string_view text);

// A Decimal cell (psycopg2's and PyMySQL's decimal.Decimal) of `d`'s text.
Value decimal_value(const py::Decimal& d);

}  // namespace sqlgrade::server_values
