#pragma once
// BIRD printing: the official tables (byte for byte), the Mini-Dev output log block and the
// per-question JSON report.
#include <array>
#include <string>

#include "sqlgrade/bird/run.hpp"

namespace sqlgrade::bird {

struct Summary {
  std::array<size_t, 4> counts{};   // simple, moderate, challenging, total
  std::array<double, 4> scores{};   // printed values (x100 for EX/F1/EM+F1, already scaled for VES)
  std::array<bool, 4> empty{};      // bucket without questions (the official scripts crash there)
};

// Buckets by difficulty with the official arithmetic: sum in question order, then / count (* 100).
Summary summarize(const RunResult& r);

// The table block shared by the scripts: header row, count row, "=== <metric> ===" line, score row.
// `sep` is the text between the '=' runs; empty buckets print "-".
std::string format_table(const Summary& s, const std::string& label, const std::string& separator);

// Exactly what the official script prints on stdout for this run (Mini-Dev or original layout).
std::string format_stdout(const RunResult& r);
// The block Mini-Dev appends to --output_log_path.
std::string format_log_block(const RunResult& r);
// Per-question JSON report (+ summary, warnings, timings).
std::string format_json(const RunResult& r, const Options& opt);

}  // namespace sqlgrade::bird
