#pragma once
// Verified execution accuracy, one instance: search for a database with the schema of the benchmark
// database on which the gold and the prediction give different results under the benchmark's own
// comparison rule (docs/verify.md). Pure: verify(item, budget) -> SearchOutcome, the counterexample as
// data; nothing prints, nothing is written unless write_counterexample() is called.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/exec/benchmark.hpp"
#include "sqlgrade/verify.hpp"

namespace sqlgrade::verify {

// Which official rule decides "same result", and one instance to search: the Benchmark contract's
// (exec/benchmark.hpp: each benchmark makes its own item, Benchmark::search_item).
using Rule = SearchRule;
const char* to_string(Rule r);
using RuleSpec = SearchRuleSpec;
// The benchmark's verdict on two results: true when they count as the same answer.
bool same_result(const RuleSpec& rule, const Table& gold, const Table& pred);

using Item = SearchItem;

struct Budget {
  uint64_t seed = 0;
  size_t candidates = 200;        // candidate databases tried (the deterministic bound)
  double seconds = 5.0;           // wall-clock cap per instance (a safety bound; see docs/verify.md)
  size_t rows_per_table = 10;     // rows per table of a candidate before shrinking
  size_t sample_rows = 400;       // rows read per table of the original database
  double query_timeout_s = 2.0;   // per query on a candidate
  size_t shrink_tests = 300;      // candidate evaluations spent on shrinking
};

struct CexRow {
  std::string table;
  std::vector<std::string> columns;
  Row values;
  std::string source;  // original row n / generated / mutations applied, with each value's origin
};

struct Counterexample {
  uint64_t seed = 0;
  size_t candidate = 0;  // index of the candidate that first differed
  std::string strategy;
  // The changes the witness's rows carry (after shrinking: one line per changed or duplicated row
  // left; empty when every row left is an original row as the benchmark database has it); and the
  // mutations applied to the whole candidate before shrinking (shrink.hpp witness_mutations).
  std::vector<std::string> mutations, candidate_mutations;
  std::vector<CexRow> rows;                  // after shrinking
  size_t rows_before_shrink = 0;
  Table gold_result, pred_result;            // on the shrunk database, re-executed
  bool fk_enforced = true;
  std::string fk_note;
  // witness.hpp: why the witness is degenerate ("" = it is not), and the properties of the benchmark
  // data it breaks; either makes the finding an edge (Status::Edge), not a refutation.
  std::string degenerate;
  std::vector<std::string> breaks;
  bool is_edge() const { return !degenerate.empty() || !breaks.empty(); }
  // suspect.hpp: why the gold, not the prediction, looks wrong on this witness ("" = it does not),
  // and the other systems' predictions run on it ({"with_prediction", "with_gold", "neither",
  // "failed", "systems"}; null when no other prediction was run).
  std::string gold_suspect;
  nlohmann::json peers;
};

// Refuted: a clean refutation (the only status verified EX counts). Edge: the results differ only on
// a degenerate or unrealistic witness (witness.hpp). GoldSuspect: a refutation whose witness shows the
// gold's own bug (suspect.hpp: other systems side with the prediction, or the gold's grouping/EXCEPT
// key is not unique where the prediction's is a declared key). Tie: every difference found is one a
// tie-break decides (the gold's result not determined there, or the prediction's tie-break could give
// the gold's: ties.hpp); the counterexample, when kept, is such a witness (not a proof). The
// counterexample says why. Every consumer handles statuses by name (to_string), so a new class needs
// no further plumbing.
enum class Status { NoCounterexample, Refuted, Skipped, Edge, GoldSuspect, Tie };
const char* to_string(Status s);

struct SearchOutcome {
  Status status = Status::NoCounterexample;
  std::string reason;           // Skipped: why; Refuted: "results differ on a N-row database"
  size_t candidates = 0;        // candidates evaluated (search + shrinking)
  double seconds = 0;           // elapsed (wall-clock) time of this search
  double cpu_seconds = 0;       // CPU time of the thread that ran it (what the search cost)
  bool time_capped = false;     // the wall-clock cap ended the search before `candidates`
  std::optional<Counterexample> cex;
};

SearchOutcome verify(const Item& item, const Budget& budget);

// Writes DIR/<stem>.sqlite and DIR/<stem>.json (seed, strategy, mutations, both queries, both results,
// value origins), then opens the written file read-only with the engine and re-executes both queries;
// returns "" when the file proves the difference, else why not (then the caller drops the refutation
// and the written files are removed). A file that cannot be written (the folder cannot be created, the
// copy or the sidecar fails) throws InputError naming `dir`, after removing what this call wrote.
std::string write_counterexample(const Item& item, const SearchOutcome& out, const std::string& dir, const std::string& stem);

// The sidecar's JSON (also used by `sqlgrade verify --json`).
nlohmann::json counterexample_json(const Item& item, const SearchOutcome& out);

// Every path `sqlgrade audit` reads with these options (the benchmark's run inputs, databases
// included): what its --json may not replace (core/fs.hpp check_outputs_spare_inputs, issue 31).
std::vector<IoPath> audit_inputs(const AuditOptions& opt);

}  // namespace sqlgrade::verify
