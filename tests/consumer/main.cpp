// Uses sqlgrade as an installed library: Spider 2.0-Lite (exec_result mode) on a tiny folder it
// writes itself, an InputError for a missing folder, UDA on the Shop fixture (gold results with
// --as-result, then a run scoring them: DuckDB loaded on first use), and the version header.
//   consumer WORK_DIR UDA_DATASET_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sqlgrade/errors.hpp>
#include <sqlgrade/spider2.hpp>
#include <sqlgrade/uda.hpp>
#include <sqlgrade/version.hpp>

namespace fs = std::filesystem;

static void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const fs::path root = argv[1];
  write(root / "gold/spider2lite_eval.jsonl",
        "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true, \"toks\": 1}\n"
        "{\"instance_id\": \"local002\", \"condition_cols\": [], \"ignore_order\": false, \"toks\": 1}\n");
  write(root / "gold/exec_result/local001.csv", "name,total\nann,1.5\nbob,2\n");
  write(root / "gold/exec_result/local002.csv", "n\n7\n");
  write(root / "pred/local001.csv", "who,sum\nbob,2.001\nann,1.5\n");  // reordered, within 0.01
  write(root / "pred/local002.csv", "n\n8\n");

  sqlgrade::spider2::Options opt;
  opt.mode = sqlgrade::spider2::Mode::ExecResult;
  opt.result_dir = (root / "pred").string();
  opt.gold_dir = (root / "gold").string();
  opt.progress = 0;
  const sqlgrade::spider2::Run run = sqlgrade::spider2::evaluate(opt);
  for (const auto& it : run.items) std::printf("%s %d\n", it.instance_id.c_str(), it.score);
  std::string text = sqlgrade::spider2::render_text(run);
  std::printf("%s", text.substr(text.find("Final score")).c_str());

  opt.result_dir = (root / "missing").string();
  try {
    sqlgrade::spider2::evaluate(opt);
    std::printf("no error\n");
  } catch (const sqlgrade::InputError& e) {
    std::printf("InputError: %s\n", e.message().c_str());
  }
  std::printf("memory size 512MiB: %d, 12 parsecs: %d\n", sqlgrade::uda::is_memory_size("512MiB"),
              sqlgrade::uda::is_memory_size("12 parsecs"));

  sqlgrade::uda::PrepareOptions prep;
  prep.dataset_dir = argv[2];
  prep.out = (root / "uda").string();
  prep.with_gold = true;
  prep.run.gold_as_result = true;
  prep.run.progress = 0;
  std::printf("%s", sqlgrade::uda::render_prepare_text(sqlgrade::uda::prepare(prep), true).c_str());
  sqlgrade::uda::Options uopt;
  uopt.dataset_dir = argv[2];
  uopt.results = prep.out;
  uopt.run.progress = 0;
  const sqlgrade::uda::Run urun = sqlgrade::uda::evaluate(uopt);
  const sqlgrade::uda::SummaryCounts t = sqlgrade::uda::totals(urun);
  std::printf("uda: %zu scored, f1 %.3f\n", t.scored, t.f1().value_or(-1));
  std::printf("sqlgrade %s\n", SQLGRADE_VERSION);
  return 0;
}
