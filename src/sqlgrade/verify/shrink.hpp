#pragma once
// Shrinking a differing candidate database to a small witness (docs/verify.md "Shrinking"): delta
// debugging over its rows. The caller says what "still shows the difference" means (the probe of
// verify.cpp, plus the witness rules of witness.hpp) — shrinking only ever keeps a subset that passes.
#include <cstddef>
#include <functional>

#include "sqlgrade/verify/candidate.hpp"

namespace sqlgrade::verify {

// True when `c` still shows the difference; `kept` receives the rows the database accepted (a row
// whose foreign-key parent was removed is dropped by SQLite and gone for good).
using StillDiffers = std::function<bool(const Candidate& c, Candidate* kept)>;

// The rows of `c` at the given (table, row) positions, in that order, with their sources.
Candidate subset(const Candidate& c, const std::vector<std::pair<size_t, size_t>>& keep);

// What the rows of a (shrunk) candidate carry that the benchmark database's rows do not, read from
// each row's source: "<table>: <column> := <value> (<why>)" per change, "<table>: a duplicated row
// (fresh key values)", "<table>: a generated row"; identical lines once, with "(n rows)" when several
// rows carry them. Empty when every row is an original row as the benchmark database has it.
std::vector<std::string> witness_mutations(const Schema& s, const Candidate& c);

// Delta debugging (ddmin over complements) over the rows of a differing candidate; at most
// `max_tests` calls of `differs`, each counted in *spent.
Candidate shrink(Candidate c, size_t max_tests, const StillDiffers& differs, size_t* spent = nullptr);

}  // namespace sqlgrade::verify
