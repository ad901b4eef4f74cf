# The interface of the pybind11 module `sqlgrade._native` (protocol version 1), built from
# python/native/module.cpp over the public C++ API (include/sqlgrade/verdict.hpp: Grader;
# include/sqlgrade/execute.hpp: execute). `sqlgrade/_native_backend.py` is the only caller. Requests and replies are the dicts of
# the backend protocol (sqlgrade/_backend.py and docs/python.md, "Backend protocol"); every function
# releases the GIL while it executes SQL and compares results, and is safe to call from many threads.
from typing import Any, Dict, List, Optional, Tuple

PROTOCOL_VERSION: int  # == 1

class InputError(ValueError):
    """A bad request; str(e) is the one-line message (the text `sqlgrade serve` puts in its 400)."""

def version() -> str:
    """The sqlgrade version the module was built from (SQLGRADE_VERSION)."""

def verdict(request: Dict[str, Any]) -> Dict[str, Any]:
    """One verdict. `request["db"]` is an absolute path (spider: a .sqlite file or its folder; all
    *.sqlite files of the folder are the test suite). Gold results are cached inside the process
    (one cache shared by every thread), keyed like the server's (benchmark, db, gold SQL).
    Returns the reply dict, with `pred_executed` (bool) and `timings` (extract_s, gold_s, pred_s,
    compare_s, total_s) always set. Raises InputError for a bad request. `model_output` and `sql`
    may hold lone surrogates (passed on as WTF-8: a graded SQL holding one is an execution error);
    a surrogate in any other field raises InputError naming it ("`gold_result[0][1][0]`: ...")."""

def set_spider2_gold_dir(path: str) -> None:
    """Grade spider2 requests by instance_id against this official gold folder (spider2lite_eval.jsonl +
    exec_result/), read as `sqlgrade serve --spider2-gold-dir` reads it; "" for none. InputError when
    the folder has no spider2lite_eval.jsonl."""


def verdicts(requests: List[Dict[str, Any]], threads: int) -> List[Dict[str, Any]]:
    """Verdicts in request order on `threads` worker threads (0: all cores), GIL released for the
    whole batch. All requests are validated first: a bad one raises InputError("request <i>: ...")
    before any work starts."""

def bounds() -> List[Any]:
    """The library's table of numeric bounds (core/bounds.hpp), row by row: (name, min, max, min_open,
    max_open, integer, unit, note, describe)."""

def bound_error(row: str, value: float) -> Any:
    """The library's message for `value` on row `row`, or None when it is accepted."""

def has_top_level_order_by(sql: str) -> bool:
    """The top-level ORDER BY rule of `order: "top_level"` (src/sqlgrade/verdict/shaping.cpp)."""

def label_keys() -> List[str]:
    """The library's one table of label keys (src/sqlgrade/verdict/request.hpp): the adapters' data
    contract, which /get_reward reads too (sqlgrade._rows.LABEL_KEYS is read from it)."""

def registry() -> str:
    """The registry of benchmarks as JSON text (src/sqlgrade/verdict/registry.hpp registry_table()):
    {"default", "benchmarks": [{"name", "aliases", "layout", "database", "grades_folders",
    "grades_servers"}], "label_keys", "extract_keys", "extract_presets"} (sqlgrade._tables reads it)."""

def cli_flags() -> str:
    """The CLI's flag table as JSON text (src/cli/flag_table.hpp): per command path ("spider", "uda
    run"), its flags {"names", "positional", "value", "type", "path"} (sqlgrade._tables reads it)."""

def parse_shard(spec: str) -> Tuple[int, int]:
    """`--shard i/n` as (i, n) by the CLI's parser (runs::parse_shard); InputError otherwise."""

def locate_database(benchmark: str, root: str, db_id: str) -> Tuple[str, str]:
    """Where `db_id` is under `root`, as the reward server looks it up (Benchmark::locate): (path, "")
    when found, ("", why) when the folder cannot serve it, ("", "") when nothing is there."""

def execute(db: str | bytes, sql: str | bytes, timeout: float, max_rows: int, max_bytes: int, now: str = "") -> Dict[str, Any]:
    """Run one statement read-only (authorizer, query_only, one statement, deadline `timeout`
    seconds, at most `max_rows` rows and `max_bytes` bytes of result). Returns {"status": "ok" |
    "error" | "timeout" | "too_large", "columns": [str], "rows": [[cell]], "truncated": bool,
    "error": str, "timings": {"total_s": float}}; cells are None, int, float, str or bytes. A failing
    query is a reply with status "error", never an exception (so is a `sql` that is not valid
    Unicode: it is not run); a missing database raises InputError."""

# ---- whole-benchmark evaluation (python/native/evaluate.cpp, spider_eval.cpp; used by sqlgrade.spider/bird/spider2/uda) ----
# Each returns {"text": what the CLI prints, "json": what its --json writes (spider, bird, spider2),
# "warnings": [str], "summary": ..., "instances": [...], ...}, runs with the GIL released and no
# progress bar, and raises InputError with the CLI's one-line message (without "sqlgrade: ").

class SpiderOptions:
    """sqlgrade::spider::Options: the library's defaults (the CLI's); `timeout` and `jobs` are checked
    against the table of bounds when set, `etype`/`compat` parsed by the library (InputError)."""
    gold: str
    pred: str
    db_dir: str
    table: str
    etype: Any  # set a str (match | exec | all); reads back the enum's value
    compat: Any  # set a str (spider | test-suite); "both" is spider_evaluate_both, not a value of it
    plug_value: bool
    keep_distinct: bool
    timeout: float
    jobs: int
    shard_index: int  # --shard i/n (0/0: everything), checked by evaluate
    shard_count: int
    shard_by: str  # "" | "id" | "db"
    name: str  # --name: the system's name in the run record ("": the prediction file's name)
    now: str  # SQL's clock, a TIMESTAMP ("" = the real clock); checked and made canonical when set

class BirdOptions:
    """sqlgrade::bird::Options (pred, gold, db_dir, diff_json, data_mode, sql_dialect, answer_json, metric,
    pair_by, jobs, timeout, gold_timeout, repeat, max_rows, shard_index, shard_count, shard_by, name, now), checked as
    SpiderOptions."""
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...

class Spider2Options:
    """sqlgrade::spider2::Options (result_dir, gold_dir, db_dir, meta, strict, v2, errors_log, mode, jobs,
    timeout, shard "i/n", shard_by, name, now), checked as SpiderOptions."""
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...

class VerifyOptions:
    """sqlgrade::verify::Options, the CLI's --verify flags: budget (--verify-budget), candidates
    (--verify-candidates), seed (--seed), each checked against the table of bounds when set, and
    counterexamples (--counterexamples DIR)."""
    budget: float
    candidates: int
    seed: int
    counterexamples: str

def spider_evaluate(options: SpiderOptions, verify: Optional[VerifyOptions] = None) -> Dict[str, Any]:
    """`sqlgrade spider [--verify]` (include/sqlgrade/spider.hpp check_required + evaluate +
    render_text/render_json; with verify, verify::check_verifiable + verify_spider, the verification
    lines appended to "text", the record with the verification in "json", and "verify": the report as
    `sqlgrade verify --json` writes it; python/native/verify_eval.hpp)."""

def spider_evaluate_both(options: SpiderOptions, verify: Optional[VerifyOptions] = None) -> Dict[str, Any]:
    """`sqlgrade spider --compat both` (spider.hpp check_required + evaluate_both, one pass; options.compat
    ignored): {"spider": ..., "test_suite": ... (each what spider_evaluate returns for that compat),
    "text": the CLI's stdout (both_header + each mode's text), "statements": {"executed", "spider",
    "test_suite", "lent"} (spider::ExecCounts, the CLI's stderr line)}. python/native/spider_eval.cpp."""

def bird_evaluate(options: BirdOptions, verify: Optional[VerifyOptions] = None) -> Dict[str, Any]:
    """`sqlgrade bird [--verify]` (bird.hpp); also "metric" and "log_block" (the --output_log_path block);
    verify as spider_evaluate's."""

def spider2_evaluate(options: Spider2Options, write_outputs: bool, verify: Optional[VerifyOptions] = None) -> Dict[str, Any]:
    """`sqlgrade spider2 [--verify]` (spider2.hpp); writes the official output files only with
    write_outputs; verify as spider_evaluate's."""

class UdaOptions:
    """sqlgrade::uda::Options with the CLI's flags as flat properties (dataset_dir, results, name,
    shard_index, shard_count, shard_by, attributes_file, gt_dir, table_map, memory_limit, gold_timeout, primary_key, float_tolerance,
    multi_value_sep, jobs, judge, llm_*, judge_log, now), checked as SpiderOptions."""
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...

class UdaQueryOptions(UdaOptions):
    """sqlgrade::uda::QueryOptions: UdaOptions' flags (but name and shard_*) plus sql_file, dataset, query_root, query_id,
    result_csv, output_dir."""

def uda_run(options: UdaOptions, list_errors: bool) -> Dict[str, Any]:
    """`sqlgrade uda run` (uda.hpp evaluate + render_text); also "datasets", and "json" = the run
    record `uda run --json` writes."""

def uda_eval(options: UdaQueryOptions) -> Dict[str, Any]:
    """`sqlgrade uda eval` (uda.hpp evaluate_query): "ok", "error_kind", "reason", "acc_json", "text"."""

def check_outputs(outputs: List[Tuple[str, str, bool]], inputs: List[Tuple[str, str]]) -> None:
    """core/fs.hpp check_outputs_spare_inputs: InputError "<output>: the <role> output would replace the
    input <input> (<role>); write it elsewhere" before anything is written (issue 31)."""
def merge(parts: List[str], command: List[str], output: str) -> Dict[str, Any]:
    """`sqlgrade merge` (runs.hpp merge_files; written atomically to `output` unless ""): {"record": the
    merged record's text, "text": the recomputed printed summary or None, "parts", "instances"}; bad
    parts (or an output that is one of them) raise InputError."""

class DiffOptions:
    """sqlgrade::runs::DiffFilesOptions: a, b, bootstrap, seed, confidence, common, axes, agree, list, json_out."""

class ReportOptions:
    """sqlgrade::runs::ReportFilesOptions: runs, title, bootstrap, seed, common, output."""

def diff(options: DiffOptions) -> Dict[str, Any]:
    """`sqlgrade diff` (runs.hpp diff_files): {"text", "json"}; options.json_out written unless ""."""

def report(options: ReportOptions) -> Dict[str, Any]:
    """`sqlgrade report` (runs.hpp report_files): {"html", "runs", "instances"}; options.output written unless ""."""
