// The in-memory writable database of scratch_db.hpp, on the engine's SqliteScratch: never opened on a
// file; a file is written only by save_to() (counterexamples under --counterexamples DIR).
#include "sqlgrade/verify/scratch_db.hpp"

#include <algorithm>

namespace sqlgrade::verify {

namespace {
// Text is read as the test-suite evaluator reads it (invalid UTF-8 bytes dropped); an empty statement
// is an error, not an empty result.
SqliteOptions scratch_options() {
  SqliteOptions o;
  o.text_decode = SqliteOptions::TextDecode::Ignore;
  o.empty_is_ok = false;
  return o;
}
}  // namespace

ScratchDb::ScratchDb() : SqliteScratch(scratch_options()) {}

ExecResult ScratchDb::run(std::string_view sql, const Limits& limits) {
  Limits l = limits;
  l.max_bytes = std::min(l.max_bytes, kScratchResultBytes);
  l.max_memory = l.max_memory == 0 ? kScratchQueryMemory : std::min(l.max_memory, kScratchQueryMemory);
  l.max_spill = 0;
  l.keep_partial = false;
  return execute(sql, l);
}

}  // namespace sqlgrade::verify
