#!/usr/bin/env bash
# Byte-identical outputs of the real runs, before and after a change (issue 20: "outputs of the real
# runs are byte-identical, timing fields aside").
#
#   scripts/compare_outputs.sh save BINARY DIR      run every case with BINARY, store the outputs in DIR
#   scripts/compare_outputs.sh diff DIR_A DIR_B     compare two saved sets; exit 1 on any difference
#   scripts/compare_outputs.sh check BASE_BINARY NEW_BINARY [WORK]   save both, then diff
#
# Cases (data from $SQLGRADE_DATA, read only): Spider dev, 5 real systems x both compat modes x
# etype all/match/exec, stdout + --json records, and all 5 systems in one pass with --json-dir; BIRD
# Mini-Dev, 4 official baselines x ex/soft-f1/em-f1 (+ one pass of all 4 with --json-dir); Spider 2.0
# exec_result (gold copies + the perturbed predictions of expected/spider2lite_preds, plain, --strict,
# --v2) and sql mode (24 gold SQL, the qwen3 answers); UDA prepare, gold --as-result and run on all six
# datasets, for gold-as-result and for a perturbed copy (every third result.csv loses its last row);
# `verify spider` on one system (candidate-bounded, so deterministic) and `audit` of both golds.
# Timing fields (wall/seconds/started_at/…) are blanked before the comparison (normalise() below).
# ONLY="uda" (or any of: spider bird spider2 uda) runs only those benchmarks' cases.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
DATA=${SQLGRADE_DATA:-$here/../shared/data}
JOBS=${JOBS:-2}
ONLY=${ONLY:-spider bird spider2 uda}
want() { [[ " $ONLY " == *" $1 "* ]]; }

# Blank timing fields: JSON keys naming times, and "N.NNN s" figures in text.
normalise() {
  python3 - "$1" "$BIN" <<'EOF'
import json, os, re, sys
TIME_KEY = re.compile(r"(^|_)(time|times|seconds|wall|wall_s|started_at|finished_at|elapsed|duration|s)$|_s$|seconds|timestamp|started|finished")
def scrub(x):
    if isinstance(x, dict):
        return {k: ("<t>" if TIME_KEY.search(k) else scrub(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x
root = sys.argv[1]
for d, _, files in os.walk(root):
    for f in files:
        p = os.path.join(d, f)
        try:
            text = open(p, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        if f.endswith(".json"):
            try:
                text = json.dumps(scrub(json.loads(text)), indent=1, sort_keys=False, ensure_ascii=False) + "\n"
            except ValueError:
                pass
        elif f.endswith(".jsonl"):
            out = []
            for line in text.splitlines():
                try:
                    out.append(json.dumps(scrub(json.loads(line)), ensure_ascii=False))
                except ValueError:
                    out.append(line)
            text = "\n".join(out) + "\n"
        text = text.replace(root + ".work", "<tmp>").replace(root, "<out>").replace(sys.argv[2], "<bin>")
        text = re.sub(r"\b\d+\.\d+ ?s\b", "<t>s", text)
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?", "<date>", text)
        open(p, "w", encoding="utf-8").write(text)
EOF
}

# run NAME CMD...: stdout, stderr and exit code under $OUT/NAME.
run() {
  local name=$1; shift
  mkdir -p "$(dirname "$OUT/$name")"
  set +e
  "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  echo $? >"$OUT/$name.rc"
  set -e
}

save() {
  BIN=$(realpath "$1")
  OUT=$(realpath -m "$2")
  rm -rf "$OUT" && mkdir -p "$OUT"
  local SP=$DATA/spider P=$DATA/preds/spider_dev
  local systems=(c3sql_gpt35/pred.txt dail-sql_gpt4/pred.txt din-sql_gpt4/pred.derived.sql graphix-3b_picard/pred.sql
                 resdsql-3b/pred.sql)
  local all=()
  for s in "${systems[@]}"; do all+=(--pred "$P/$s"); done
  want spider && for compat in spider test-suite; do
    for etype in all match exec; do
      for s in "${systems[@]}"; do
        local n=spider/$compat/$etype/${s%%/*}
        run "$n" "$BIN" spider --gold "$SP/dev_gold.sql" --pred "$P/$s" --db "$SP/database" --table "$SP/tables.json" \
          --etype "$etype" --compat "$compat" --no-progress --jobs "$JOBS" --json "$OUT/$n.record.json"
      done
      run "spider/$compat/$etype/all5" "$BIN" spider --gold "$SP/dev_gold.sql" "${all[@]}" --db "$SP/database" \
        --table "$SP/tables.json" --etype "$etype" --compat "$compat" --no-progress --jobs "$JOBS" \
        --json-dir "$OUT/spider/$compat/$etype/all5.records"
    done
  done
  want spider && run spider/test-suite/plug_value "$BIN" spider --gold "$P/taoyds_pred_example/gold_example.txt" \
    --pred "$P/taoyds_pred_example/pred_example.txt" --db "$SP/database" --table "$SP/tables.json" --etype exec \
    --plug_value --no-progress --jobs "$JOBS"

  # verify and audit: the counterexample search is deterministic for a seed while the candidate bound,
  # not the wall-clock budget, ends it (a generous budget, a small candidate count).
  want spider && run spider/verify/resdsql-3b "$BIN" verify spider --gold "$SP/dev_gold.sql" --pred "$P/resdsql-3b/pred.sql" \
    --db "$SP/database" --table "$SP/tables.json" --verify-budget 60 --verify-candidates 40 --no-progress \
    --jobs "$JOBS" --json "$OUT/spider/verify/resdsql-3b.json"
  want spider && run spider/audit "$BIN" audit --benchmark spider --gold "$SP/dev_gold.sql" --db "$SP/database" \
    --table "$SP/tables.json" --pred "$P/resdsql-3b/pred.sql" --pred "$P/dail-sql_gpt4/pred.txt" \
    --jobs "$JOBS" --json "$OUT/spider/audit.json"

  local B=$DATA/preds/bird_minidev bpreds=()
  for f in "$B"/*/predict_*.json; do bpreds+=(--predicted_sql_path "$f"); done
  want bird && for metric in ex soft-f1 em-f1; do
    for f in "$B"/*/predict_*.json; do
      local n=bird/$metric/$(basename "$f" .json)
      run "$n" "$BIN" bird --predicted_sql_path "$f" --ground_truth_path "$DATA/bird/minidev/mini_dev_sqlite_gold.sql" \
        --db_root_path "$DATA/bird/dev_databases/" --diff_json_path "$DATA/bird/minidev/mini_dev_sqlite.json" \
        --metric "$metric" --num_cpus "$JOBS" --no-progress --json "$OUT/$n.record.json"
    done
    run "bird/$metric/all4" "$BIN" bird "${bpreds[@]}" --ground_truth_path "$DATA/bird/minidev/mini_dev_sqlite_gold.sql" \
      --db_root_path "$DATA/bird/dev_databases/" --diff_json_path "$DATA/bird/minidev/mini_dev_sqlite.json" \
      --metric "$metric" --num_cpus "$JOBS" --no-progress --json-dir "$OUT/bird/$metric/all4.records"
  done

  want bird && run bird/audit "$BIN" audit --benchmark bird --ground_truth_path "$DATA/bird/minidev/mini_dev_sqlite_gold.sql" \
    --db "$DATA/bird/dev_databases/" --diff_json_path "$DATA/bird/minidev/mini_dev_sqlite.json" \
    --pred "$B/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json" --jobs "$JOBS" --json "$OUT/bird/audit.json"

  local G=$DATA/spider2lite/gold tmp
  if want spider2; then
  tmp=$OUT.work; rm -rf "$tmp"; mkdir -p "$tmp"
  mkdir -p "$tmp/gold_copies" "$tmp/gold_sql" "$tmp/perturbed"
  for f in "$G"/exec_result/local*.csv; do
    local b id; b=$(basename "$f" .csv); id=${b%_[a-z]}
    [ -e "$tmp/gold_copies/$id.csv" ] || cp "$f" "$tmp/gold_copies/$id.csv"
  done
  cp "$G"/sql/*.sql "$tmp/gold_sql/"
  cp "$DATA"/expected/spider2lite_preds/*/*.csv "$tmp/perturbed/"
  for flags in "" "--strict" "--v2 --errors_log $tmp/errors.log"; do
    local tag=${flags%% *}; tag=${tag#--}; tag=${tag:-plain}
    # shellcheck disable=SC2086
    run "spider2/exec_result/$tag" "$BIN" spider2 --mode exec_result --result_dir "$tmp/gold_copies" \
      --result_dir "$tmp/perturbed" --gold_dir "$G" --max_workers "$JOBS" --no-progress $flags \
      --json-dir "$OUT/spider2/exec_result/$tag.records"
    # shellcheck disable=SC2086
    run "spider2/exec_result/$tag.perturbed" "$BIN" spider2 --mode exec_result --result_dir "$tmp/perturbed" \
      --gold_dir "$G" --max_workers "$JOBS" --no-progress $flags --json "$OUT/spider2/exec_result/$tag.perturbed.json"
    # shellcheck disable=SC2086
    run "spider2/sql/$tag" "$BIN" spider2 --mode sql --result_dir "$tmp/gold_sql" \
      --result_dir "$DATA/preds/spider2lite_local/qwen3-30b-a3b-thinking_nemo-gym" --gold_dir "$G" \
      --db_dir "$DATA/spider2lite/databases" --max_workers "$JOBS" --no-progress $flags \
      --json-dir "$OUT/spider2/sql/$tag.records"
  done
  rm -rf "$tmp"
  fi

  local Q=$DATA/uda-bench/Query
  if want uda; then
  tmp=$OUT.work; rm -rf "$tmp"; mkdir -p "$tmp"
  run uda/prepare "$BIN" uda prepare --dataset-dir "$Q" --out "$tmp/prep" -j "$JOBS"
  (cd "$tmp/prep" && find . -type f | sort | xargs sha256sum) >"$OUT/uda/prepare.files"
  run uda/gold "$BIN" uda gold --dataset-dir "$Q" --out "$tmp/gold" --as-result -j "$JOBS"
  (cd "$tmp/gold" && find . -type f | sort | xargs sha256sum) >"$OUT/uda/gold.files"
  run uda/run_gold "$BIN" uda run --dataset-dir "$Q" --results "$tmp/gold" -j "$JOBS" --list-errors \
    --json "$OUT/uda/run_gold.record.json"
  cp -r "$tmp/gold" "$tmp/pert"
  local k=0
  while IFS= read -r f; do
    k=$((k + 1))
    if [ $((k % 3)) -eq 0 ] && [ "$(wc -l <"$f")" -gt 2 ]; then sed -i '$d' "$f"; fi
    if [ $((k % 7)) -eq 0 ]; then rm -f "$f"; fi
  done < <(find "$tmp/pert" -name result.csv | sort)
  run uda/run_pert "$BIN" uda run --dataset-dir "$Q" --results "$tmp/pert" -j "$JOBS" --list-errors \
    --json "$OUT/uda/run_pert.record.json"
  for d in Art Player; do
    run "uda/run_pert_$d" "$BIN" uda run --dataset-dir "$Q/$d" --results "$tmp/pert" -j "$JOBS" --json "$OUT/uda/run_pert_$d.json"
  done
  rm -rf "$tmp"
  fi
  normalise "$OUT"
  echo "saved $(find "$OUT" -type f | wc -l) files in $OUT"
}

case ${1:-} in
  save) save "$2" "$3" ;;
  diff) diff -r "$2" "$3" && echo "identical: $2 $3" ;;
  check)
    W=${4:-$(mktemp -d)}
    save "$2" "$W/base"
    save "$3" "$W/new"
    diff -r "$W/base" "$W/new" && echo "identical: $W/base $W/new" ;;
  *) sed -n 2,16p "$0"; exit 2 ;;
esac
