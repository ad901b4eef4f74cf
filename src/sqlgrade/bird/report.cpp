#include "sqlgrade/bird/report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sqlgrade::bird {

namespace {

const char* const kLevels[4] = {"simple", "moderate", "challenging", "total"};
const std::string kRule(91, '=');

bool scaled_x100(Metric m) { return m == Metric::Ex || m == Metric::SoftF1 || m == Metric::EmF1; }

std::string cell(const std::string& s) { return fmt::format(" {:<20}", s); }

}  // namespace

Summary summarize(const Run& r) {
  Summary s;
  std::array<double, 4> sums{};
  for (const Instance& it : r.items) {
    int b = it.difficulty == "simple" ? 0 : it.difficulty == "moderate" ? 1 : it.difficulty == "challenging" ? 2 : -1;
    if (b >= 0) {
      sums[b] += it.outcome.score;
      ++s.counts[b];
    }
    sums[3] += it.outcome.score;
    ++s.counts[3];
  }
  for (int b = 0; b < 4; ++b) {
    s.empty[b] = s.counts[b] == 0;
    if (s.empty[b]) continue;
    double mean = sums[b] / static_cast<double>(s.counts[b]);
    s.scores[b] = scaled_x100(r.metric) ? mean * 100 : mean;
  }
  return s;
}

std::string format_table(const Summary& s, const std::string& label, const std::string& separator) {
  std::string out = fmt::format("{:20}", "");
  for (const char* l : kLevels) out += cell(l);
  out += "\n" + fmt::format("{:20}", "count");
  for (size_t c : s.counts) out += cell(std::to_string(c));
  out += "\n" + separator + "\n" + fmt::format("{:20}", label);
  for (int b = 0; b < 4; ++b) out += cell(s.empty[b] ? "-" : fmt::format("{:.2f}", s.scores[b]));
  return out + "\n";
}

std::string render_text(const Run& r) {
  Summary s = summarize(r);
  if (r.layout == Layout::Original && (r.metric == Metric::Ex || r.metric == Metric::Ves)) {
    // DAMO-ConvAI evaluation.py / evaluation_ves.py
    bool ex = r.metric == Metric::Ex;
    std::string out = "start calculate\n";
    out += format_table(s, ex ? "accuracy" : "ves",
                        ex ? "======================================    ACCURACY    ====================================="
                           : "=========================================    VES   ========================================");
    out += kRule + "\nFinished evaluation\n";
    return out;
  }
  std::string metric = metric_name(r.metric);
  std::string start = r.metric == Metric::SoftF1 ? "Soft F1" : metric;  // evaluation_f1.py says "Soft F1"
  // evaluation_f1.py also says "Finished EX evaluation"; R-VES says R-VES.
  std::string finished = r.metric == Metric::SoftF1 ? "EX" : metric;
  std::string out = "start calculate " + start + "\n";
  out += format_table(s, metric, "======================================    " + metric + "    =====================================");
  out += kRule + "\n";
  out += "Finished " + finished + " evaluation for " + r.sql_dialect + " on Mini Dev set\n";
  out += "\n\n\n";  // print("\n\n")
  return out;
}

std::string render_log_block(const Run& r) {
  Summary s = summarize(r);
  std::string metric = metric_name(r.metric);
  std::string out = "start calculate " + metric + "\n";
  // The log's separator has three spaces after the metric name (print_data in evaluation_utils.py).
  out += format_table(s, metric, "======================================    " + metric + "   =====================================");
  out += kRule + "\n";
  out += "Finished " + metric + " evaluation for mini dev set\n\n";
  return out;
}

}  // namespace sqlgrade::bird
