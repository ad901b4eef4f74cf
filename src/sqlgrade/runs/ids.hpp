#pragma once
// Instance ids: their order and the shard each belongs to.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

// Natural order: ids are split into runs of ASCII digits and other bytes; digit runs compare by
// numeric value (so "2" < "10", "local009" < "local10"), other runs bytewise; a digit run sorts
// before a non-digit run; ties (e.g. "01" vs "1") fall back to bytewise comparison. A strict weak
// order on all byte strings.
bool id_less(std::string_view a, std::string_view b);

// The shard of an id among n (0-based): the first 8 bytes of SHA-256(id as UTF-8 bytes) read as a
// big-endian unsigned 64-bit integer, modulo n. Stable across machines, runs and languages:
//   python3 -c 'import hashlib,sys; print(int.from_bytes(hashlib.sha256(sys.argv[1].encode()).digest()[:8],"big") % int(sys.argv[2]))' ID N
uint64_t shard_of(std::string_view id, uint64_t n);

// "--shard i/n" (1 <= i <= n <= 1,000,000); InputError naming `flag` otherwise.
Shard parse_shard(std::string_view spec, const std::string& flag = "--shard");
std::string to_string(const Shard& s);  // "i/n", "i/n by db"
// --shard-by: "" or "id" → ShardBy::Id, "db" → ShardBy::Db; InputError naming --shard-by otherwise.
ShardBy parse_shard_by(std::string_view by);
const char* to_string(ShardBy by);  // "id" | "db"
// A benchmark's (shard_index, shard_count, shard_by) options (parsed by the CLI with parse_shard) as a
// Shard: nullopt when count is 0 (everything); InputError naming --shard when index is not in 1..count.
std::optional<Shard> shard_option(int index, int count, std::string_view by = {});
// The same from an "i/n" spec (Spider 2.0's option): nullopt when spec is empty.
std::optional<Shard> shard_spec(std::string_view spec, std::string_view by = {});
// Whether an item belongs to shard s: shard_of(key, s.count) == s.index - 1, the key being the id, or
// with ShardBy::Db the item's database (Spider/BIRD/Spider 2.0 db_id, UDA dataset).
bool in_shard(const Shard& s, std::string_view id, std::string_view db);
// The same for an instance of a record: its database is its "db" category (UDA: "dataset"); an
// instance without one has the database "" (as a runner that knows none passes it).
bool in_shard(const Instance& in, const Shard& s);
// The database of an instance as in_shard reads it (nullptr when it has none).
const std::string* shard_db(const Instance& in);

}  // namespace sqlgrade::runs
