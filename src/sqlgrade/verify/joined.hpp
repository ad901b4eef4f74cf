#pragma once
// Joined rows where the data has none (docs/verify.md "Search", "Starved joins"). When two columns a
// query equates never match in the benchmark's rows (flight_2: every flights.SourceAirport is ' APG'
// with a leading space, every airports.AirportCode 'APG'), no subset of the data joins, and the
// ordinary strategies reach a joined row only by re-pointing one key at a time: groups of several
// joined members (a city with two busy airports) are beyond them. The `joined` strategy builds them:
// real rows of the referenced table (often several that share a value of a column the queries show,
// so that groups have several members), and for each of them one to four copies of real rows of the
// referencing table whose join key points at it, the other references at rows of the candidate, the
// keys and the columns unique in the data fresh. Every value is the data's own except the join keys
// (aligned) and the fresh keys.
#include <vector>

#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/witness.hpp"

namespace sqlgrade::verify {

// A pair of equated columns (QueryFacts::equated) whose parent side is a key of its table (declared,
// or unique in the data) and whose samples have no pair of rows that match.
struct StarvedJoin {
  size_t child = 0, child_col = 0, parent = 0, parent_col = 0;
};
std::vector<StarvedJoin> starved_joins(const Schema& s, const QueryFacts& f);

// Candidates the search tries after its cycle when it has found no clean refutation and a join is
// starved (verify.cpp).
constexpr size_t kJoinedCandidates = 48;

// One `joined` candidate for the starved join `j`; the other used tables get a few of their rows.
Candidate joined_candidate(const GenContext& g, Rng& rng, const StarvedJoin& j);

}  // namespace sqlgrade::verify
