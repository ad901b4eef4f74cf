// BIRD: a run's inputs read and paired — input files, the difficulty-file checks, --pair-by (auto,
// index, question_id, position), the instances with their predictions, ids and the shard.
#include "sqlgrade/bird/pairing.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/bird/check.hpp"

#include <map>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::bird {

namespace {

std::string join_path(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

std::string db_file(const std::string& root, const std::string& db_id) {
  return benchmark().database(root, db_id);
}

std::string preview_list(const std::vector<std::string>& xs, size_t max = 10) {
  std::string out;
  for (size_t i = 0; i < xs.size() && i < max; ++i) out += (i ? ", " : "") + xs[i];
  if (xs.size() > max) out += ", ... (" + std::to_string(xs.size() - max) + " more)";
  return out;
}

std::optional<long long> int_key(const std::string& k) {
  auto v = py::parse_int(k);
  if (!v) return std::nullopt;
  return *v;
}

// The question indices of every question_id of the difficulty file (aligned by position).
std::map<long long, std::vector<size_t>> questions_by_id(const Inputs& in) {
  std::map<long long, std::vector<size_t>> by_qid;
  for (size_t i = 0; i < in.gold.size() && i < in.questions.size(); ++i)
    if (in.questions[i].question_id >= 0) by_qid[in.questions[i].question_id].push_back(i);
  return by_qid;
}

// --pair-by auto: by index when every key is a gold index, else by question_id when every key is one.
PairBy choose_pairing(const Inputs& in, const Options& opt, const Warn& warn) {
  if (opt.pair_by != PairBy::Auto) return opt.pair_by;
  const size_t n = in.gold.size();
  bool all_index = !in.preds.entries.empty();
  for (auto& e : in.preds.entries) {
    auto k = int_key(e.key);
    if (!k || *k < 0 || static_cast<size_t>(*k) >= n) {
      all_index = false;
      break;
    }
  }
  if (all_index) return PairBy::Index;
  const auto by_qid = questions_by_id(in);
  bool all_qid = !by_qid.empty() && !in.preds.entries.empty();
  for (auto& e : in.preds.entries) {
    auto k = int_key(e.key);
    if (!k || !by_qid.count(*k)) {
      all_qid = false;
      break;
    }
  }
  if (all_qid) warn("prediction keys are question_ids of the difficulty file: pairing by question_id");
  return all_qid ? PairBy::QuestionId : PairBy::Index;
}

// Each pair_by_* fills pred_of (sized to the gold, all -1) and returns the keys that match no question.
std::vector<std::string> pair_by_position(const Inputs& in, std::vector<int>& pred_of, const Warn& warn) {
  std::vector<std::string> extra;
  size_t out_of_order = 0;
  for (size_t i = 0; i < in.preds.entries.size(); ++i) {
    if (i >= in.gold.size()) {
      extra.push_back(in.preds.entries[i].key);
      continue;
    }
    pred_of[i] = static_cast<int>(i);
    auto k = int_key(in.preds.entries[i].key);
    if (!k || *k != static_cast<long long>(i)) ++out_of_order;
  }
  if (out_of_order)
    warn("--pair-by position: " + std::to_string(out_of_order) +
         " keys do not equal their position in the file; predictions may be paired with the wrong questions "
         "(mini_dev#41)");
  return extra;
}

std::vector<std::string> pair_by_index(const Inputs& in, std::vector<int>& pred_of) {
  std::vector<std::string> extra;
  for (size_t e = 0; e < in.preds.entries.size(); ++e) {
    auto k = int_key(in.preds.entries[e].key);
    // Out of range, or "5" after "05" (same index): not paired.
    if (!k || *k < 0 || static_cast<size_t>(*k) >= in.gold.size() || pred_of[*k] >= 0)
      extra.push_back(in.preds.entries[e].key);
    else pred_of[*k] = static_cast<int>(e);
  }
  return extra;
}

std::vector<std::string> pair_by_question_id(const Inputs& in, const Options& opt, std::vector<int>& pred_of) {
  const auto by_qid = questions_by_id(in);
  if (by_qid.empty())
    throw InputError(opt.diff_json.empty() ? "--diff_json_path" : opt.diff_json,
                     "--pair-by question_id needs a question file with question_id fields");
  std::vector<std::string> extra;
  for (size_t e = 0; e < in.preds.entries.size(); ++e) {
    auto k = int_key(in.preds.entries[e].key);
    auto it = k ? by_qid.find(*k) : by_qid.end();
    if (it == by_qid.end()) {
      extra.push_back(in.preds.entries[e].key);
      continue;
    }
    for (size_t gi : it->second)
      if (pred_of[gi] < 0) pred_of[gi] = static_cast<int>(e);
  }
  return extra;
}

// The prediction problems found while building the instances (one warning each at the end).
struct PredProblems {
  std::vector<std::string> missing, not_string, no_sep, db_diff;
};

// In the original layout, a prediction naming another database runs (with its gold) there (quirk).
void use_prediction_db(const Options& opt, Instance& it, const std::string& pdb) {
  std::error_code ec;
  if (!is_plain_name(pdb)) {
    // "/x" would replace --db_root_path and "../x" climb out of it: a prediction never picks a
    // database outside the folder the user gave.
    it.has_pred = false;
    fail_before_running(it, "pred_error", "the prediction's database '" + pdb + "' is not a folder name inside --db_root_path");
  } else if (fs::is_regular_file(db_file(opt.db_dir, pdb), ec)) {
    it.db_id = pdb;
  } else {
    it.has_pred = false;
    fail_before_running(it, "pred_error", "the prediction's database '" + pdb + "' does not exist");
  }
}

// The prediction of gold question i (its SQL, or why there is none), into it.
void read_prediction(const Inputs& in, const Options& opt, int e, size_t i, Instance& it, PredProblems& pp) {
  if (e < 0) {
    fail_before_running(it, "no_prediction", "no prediction for this question");
    pp.missing.push_back(std::to_string(i));
    return;
  }
  const PredEntry& pe = in.preds.entries[e];
  it.key = pe.key;
  if (!pe.is_string) {
    fail_before_running(it, "not_a_string", "prediction is a JSON " + pe.type_name + ", not a string");
    pp.not_string.push_back(pe.key);
    return;
  }
  bool sep = false;
  auto [sql, pdb] = split_prediction(pe.raw, &sep);
  if (!sep) pp.no_sep.push_back(pe.key);
  if (opt.answer_json) {
    auto ans = answer::json_answer(sql, answer::JsonAnswerRule::WholeFencedOrLastObject);
    if (!ans) {
      fail_before_running(it, "no_answer", "no {\"answer\": \"...\"} object in the model output");
      it.pred_sql = sql;
      return;
    }
    sql = *ans;
  }
  it.has_pred = true;
  it.pred_sql = sql;
  if (sep && pdb != in.gold[i].db_id) {
    pp.db_diff.push_back(pe.key);
    if (in.files.original) use_prediction_db(opt, it, pdb);
  }
}

void warn_problems(const PredProblems& pp, size_t n, bool original, const Warn& warn) {
  if (!pp.missing.empty())
    warn("MISSING predictions: " + std::to_string(pp.missing.size()) + " of " + std::to_string(n) +
         " questions have none and score 0 (gold indices " + preview_list(pp.missing) + ")");
  if (!pp.not_string.empty())
    warn("NON-STRING predictions: " + std::to_string(pp.not_string.size()) +
         " values are not strings and score 0 (keys " + preview_list(pp.not_string) + ")");
  if (!pp.no_sep.empty())
    warn(std::to_string(pp.no_sep.size()) + " predictions lack exactly one '\\t----- bird -----\\t' separator; the "
         "whole string (stripped) is used as SQL (keys " + preview_list(pp.no_sep) + ")");
  if (!pp.db_diff.empty())
    warn(std::to_string(pp.db_diff.size()) + " predictions name a different db_id than their gold line (keys " +
         preview_list(pp.db_diff) + "); " +
         (original ? "the original BIRD script runs them on the prediction's database, as we do"
                   : "Mini-Dev uses the gold's database, as we do"));
}

}  // namespace

InputFiles input_files(const Options& opt) {
  InputFiles f{opt.pred, opt.gold, false};
  std::error_code ec;
  f.original = !opt.data_mode.empty() || fs::is_directory(f.pred, ec);
  if (f.original) {
    std::string mode = opt.data_mode.empty() ? "dev" : opt.data_mode;
    if (fs::is_directory(f.pred, ec)) f.pred = join_path(f.pred, "predict_" + mode + ".json");
    if (fs::is_directory(f.gold, ec)) f.gold = join_path(f.gold, mode + "_gold.sql");
  }
  return f;
}

Inputs read_inputs(const Options& opt, const Warn& warn) {
  Inputs in;
  in.files = input_files(opt);
  in.gold = load_gold(in.files.gold);
  in.preds = load_predictions(in.files.pred);
  if (!opt.diff_json.empty()) in.questions = load_questions(opt.diff_json);
  else warn("no --diff_json_path: every question counts in 'total' only (the official scripts require it)");
  return in;
}

void check_questions(const Inputs& in, const Warn& warn) {
  const size_t n = in.gold.size(), nq = in.questions.size();
  if (nq && nq != n)
    warn("the difficulty file has " + std::to_string(nq) + " entries but the gold file has " + std::to_string(n) +
         " questions; entries are matched by position" +
         (nq > n ? " (extra entries ignored)" : " (questions without an entry count in 'total' only)"));
  size_t no_diff = 0;
  std::vector<std::string> mism;
  for (size_t i = 0; i < n && i < nq; ++i) {
    const auto& q = in.questions[i];
    if (q.difficulty.empty()) ++no_diff;
    if (!q.db_id.empty() && q.db_id != in.gold[i].db_id) mism.push_back(std::to_string(i));
  }
  if (no_diff && nq)
    warn(std::to_string(no_diff) + " entries of the difficulty file have no 'difficulty'; they count in 'total' only");
  if (!mism.empty())
    warn("the difficulty file's db_id differs from the gold file's at " + std::to_string(mism.size()) +
         " positions (" + preview_list(mism) + "): are the files aligned?");
  for (auto& [qid, where] : questions_by_id(in)) {
    if (where.size() < 2) continue;
    std::vector<std::string> lines;
    for (size_t w : where) lines.push_back(std::to_string(in.gold[w].line));
    warn("DUPLICATE question_id " + std::to_string(qid) + " appears " + std::to_string(where.size()) +
         " times (gold lines " + preview_list(lines) + "); each occurrence is graded separately");
  }
}

Pairing pair_predictions(const Inputs& in, const Options& opt, const Warn& warn) {
  for (auto& [k, cnt] : in.preds.duplicate_keys)
    warn("DUPLICATE prediction key \"" + k + "\" appears " + std::to_string(cnt) + " times in " + in.files.pred +
         "; the last value is used (as Python's json module does)");
  Pairing p;
  p.mode = choose_pairing(in, opt, warn);
  p.pred_of.assign(in.gold.size(), -1);
  const std::vector<std::string> extra = p.mode == PairBy::Position ? pair_by_position(in, p.pred_of, warn)
                                         : p.mode == PairBy::Index  ? pair_by_index(in, p.pred_of)
                                                                    : pair_by_question_id(in, opt, p.pred_of);
  p.extra = extra.size();
  if (!extra.empty())
    warn("EXTRA predictions: " + std::to_string(extra.size()) + " keys match no question and are ignored (" +
         preview_list(extra) + ")");
  return p;
}

std::vector<Instance> build_instances(const Inputs& in, const Pairing& p, const Options& opt, const Warn& warn) {
  const size_t n = in.gold.size();
  std::vector<Instance> items(n);
  PredProblems pp;
  for (size_t i = 0; i < n; ++i) {
    Instance& it = items[i];
    it.index = i;
    it.gold_sql = in.gold[i].sql;
    it.db_id = in.gold[i].db_id;
    if (i < in.questions.size()) {
      it.difficulty = in.questions[i].difficulty;
      it.question = in.questions[i].question;
      it.question_id = in.questions[i].question_id;
    }
    read_prediction(in, opt, p.pred_of[i], i, it, pp);
  }
  warn_problems(pp, n, in.files.original, warn);
  return items;
}

void assign_ids(std::vector<Instance>& items) {
  std::map<long long, int> seen;
  for (auto& it : items) {
    if (it.question_id >= 0) {
      int k = ++seen[it.question_id];
      it.id = std::to_string(it.question_id) + (k > 1 ? "#" + std::to_string(k) : "");
    } else {
      it.id = std::to_string(it.index);
    }
  }
}

std::vector<char> shard_mask(const std::vector<Instance>& items, const Options& opt) {
  std::vector<char> in_shard(items.size(), 1);
  if (const std::optional<runs::Shard> sh = runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by))
    for (size_t i = 0; i < items.size(); ++i) in_shard[i] = runs::in_shard(*sh, items[i].id, items[i].db_id) ? 1 : 0;
  return in_shard;
}

}  // namespace sqlgrade::bird
