"""Lone surrogates (issue 19, finding 14): every entry point, both backends, and the server's bodies.

A model output holding a lone surrogate (``json.loads('"\\ud83d"')``: a tokenizer or a stream cut an
emoji between its UTF-16 halves) is graded as the official scripts would grade it: a surrogate outside
the SQL changes nothing; one inside the SQL is an execution error (Python's sqlite3 raises
UnicodeEncodeError on such a string, and the official scripts score an exception 0). It never fails
the other rollouts of a batch. Anything else holding one (gold, paths, ids, prompts) is an InputError
(ValueError) or an HTTP 400 naming the field. Decision: docs/python.md, "Text that is not valid Unicode".
"""

from __future__ import annotations

import asyncio
import http.client
import json
import urllib.parse

import pytest

import sqlgrade
from conftest import Dbs
from sqlgrade import areal, compat, openrlhf, skyrl, trl, verl
from sqlgrade._backend import native_available

LONE = json.loads('"\\ud83d"')  # a high surrogate without its low half
LOW = json.loads('"\\ude00"')  # a low half alone
GOLD = "SELECT name FROM item WHERE qty > 1"
RIGHT_SQL = "SELECT name FROM item WHERE qty >= 2"
RIGHT = f"```sql\n{RIGHT_SQL}\n```"
PROSE = f"Thinking {LONE} about it.\n```sql\n{RIGHT_SQL}\n```\nDone {LOW}"  # surrogates outside the SQL
# Inside the SQL: after replacing the surrogate by U+FFFD this query would still match (every name
# differs from it), so a reward of 1 here would mean the SQL was rewritten instead of graded.
IN_SQL = f"```sql\n{RIGHT_SQL} AND name <> 'x{LONE}'\n```"
IN_COMMENT = f"```sql\n{RIGHT_SQL} -- {LOW}\n```"
NOT_UNICODE = "the SQL is not valid Unicode"


@pytest.fixture(params=["server", "native"])
def backend(request, fixture_server, settings) -> str:
    if request.param == "native" and not native_available():
        pytest.skip("needs the native module sqlgrade._native")
    settings(server=fixture_server.url if request.param == "server" else None, backend=request.param, shaping={},
             db_root=None, benchmark="spider2")
    return request.param


def assert_unicode_error(v: sqlgrade.Verdict) -> None:
    assert (v.reward, v.score, v.outcome, v.failure_reason, v.executed) == (0.0, 0.0, "error", "execution_error", False), v
    assert v.failure_detail.startswith("prediction error: " + NOT_UNICODE), v.failure_detail
    assert "U+D83D" in v.failure_detail or "U+DE00" in v.failure_detail
    # Nothing that comes back holds a surrogate: the verdict encodes, prints and logs.
    json.dumps(v.to_dict(), ensure_ascii=False).encode("utf-8")


# ---- the verdict functions -----------------------------------------------------------------------
def test_verdict_grades_the_sql_not_the_surrogates_around_it(backend, dbs: Dbs):
    assert sqlgrade.verdict(PROSE, db=dbs.shop, gold_sql=GOLD).reward == 1.0
    for text in (IN_SQL, IN_COMMENT):
        v = sqlgrade.verdict(text, db=dbs.shop, gold_sql=GOLD)
        assert_unicode_error(v)
        assert "\ufffd" in (v.extracted_sql or "")  # shown with U+FFFD, never with the surrogate
    assert_unicode_error(sqlgrade.verdict(f"{RIGHT_SQL} -- {LONE}", db=dbs.shop, gold_sql=GOLD, extract=False))
    # Two halves side by side are the character they encode (what JSON and UTF-16 make of them).
    emoji = json.loads('"\\ud83d"') + json.loads('"\\ude00"')
    v = sqlgrade.verdict(f"```sql\n{RIGHT_SQL} AND name <> '{emoji}'\n```", db=dbs.shop, gold_sql=GOLD)
    assert v.reward == 1.0 and "\U0001F600" in v.extracted_sql
    # Shaping applies: the outcome is `error`.
    assert sqlgrade.verdict(IN_SQL, db=dbs.shop, gold_sql=GOLD, error_score=-0.5).score == -0.5
    # Alternatives: no gold rescues it.
    assert_unicode_error(sqlgrade.verdict(IN_SQL, db=dbs.shop, gold_sql=[GOLD, "SELECT name FROM item"]))


def test_both_backends_give_the_same_verdict(fixture_server, settings, dbs: Dbs):
    if not native_available():
        pytest.skip("needs the native module sqlgrade._native")
    fields = lambda v: (v.reward, v.failure_reason, v.failure_detail, v.extracted_sql, v.executed)  # noqa: E731
    texts = [PROSE, IN_SQL, IN_COMMENT, LONE, LONE + LOW]
    out = {}
    for kind in ("server", "native"):
        settings(server=fixture_server.url if kind == "server" else None, backend=kind, shaping={})
        out[kind] = [fields(v) for v in sqlgrade.verdicts([{"output": t} for t in texts], db=dbs.shop, gold_sql=GOLD)]
    assert out["server"] == out["native"]


def test_a_batch_of_64_with_one_lone_surrogate(backend, dbs: Dbs):
    texts = [RIGHT, "```sql\nSELECT name FROM item\n```", "```sql\nSELECT nme FROM item\n```", "no SQL here"] * 16
    reference = [v.reward for v in sqlgrade.verdicts([{"output": t} for t in texts], db=dbs.shop, gold_sql=GOLD)]
    assert reference.count(1.0) == 16
    batch = list(texts)
    batch[37] = IN_SQL
    vs = sqlgrade.verdicts([{"output": t} for t in batch], db=dbs.shop, gold_sql=GOLD)
    assert len(vs) == 64
    assert_unicode_error(vs[37])
    assert [v.reward for i, v in enumerate(vs) if i != 37] == [r for i, r in enumerate(reference) if i != 37]
    # A surrogate in the prose of a rollout does not change its verdict.
    batch[37] = PROSE
    assert [v.reward for v in sqlgrade.verdicts([{"output": t} for t in batch], db=dbs.shop, gold_sql=GOLD)][37] == 1.0


def test_async_forms_and_execute(backend, dbs: Dbs):
    assert_unicode_error(asyncio.run(sqlgrade.averdict(IN_SQL, db=dbs.shop, gold_sql=GOLD)))
    vs = asyncio.run(sqlgrade.averdicts([{"output": IN_SQL}, {"output": RIGHT}], db=dbs.shop, gold_sql=GOLD))
    assert [v.reward for v in vs] == [0.0, 1.0]
    r = sqlgrade.execute(dbs.shop, f"SELECT '{LONE}'")
    assert r.status == "error" and NOT_UNICODE in r.error and r.text.startswith("error: " + NOT_UNICODE)
    assert sqlgrade.execute(dbs.shop, "SELECT 1").status == "ok"


def test_eval_exec_match(backend, dbs: Dbs):
    assert compat.eval_exec_match(dbs.school, f"SELECT name FROM student -- {LONE}", "SELECT name FROM student",
                                  False, False, False) == 0
    with pytest.raises(ValueError, match=r"^`gold_sql`: not valid Unicode: a lone surrogate \(U\+D83D\); only the model output"):
        compat.eval_exec_match(dbs.school, "SELECT 1", f"SELECT '{LONE}'", False, False, False)


# ---- inputs that are not model output --------------------------------------------------------------
def test_other_inputs_raise_an_input_error_naming_the_field(backend, dbs: Dbs):
    cases = [
        (dict(gold_sql=f"SELECT '{LONE}'"), "gold_sql"),
        (dict(gold_sql=[GOLD, f"SELECT '{LOW}'"]), r"gold_sql\[1\]"),
        (dict(gold_sql=GOLD, db=dbs.shop + LONE), "db"),
        (dict(gold_sql=GOLD, db="shop" + LONE), "db"),
        (dict(gold_sql=GOLD, instance_id="q" + LONE), "instance_id"),
        (dict(gold_result=[[["apple"], ["fig" + LOW]]]), r"gold_result\[0\]\[1\]\[0\]"),
        (dict(gold_sql=GOLD, benchmark="bird" + LONE), "benchmark"),
    ]
    for kw, field in cases:
        kw = {"db": dbs.shop, **kw}
        with pytest.raises(sqlgrade.InputError, match=rf"^`{field}`: not valid Unicode: a lone surrogate \(U\+D"):
            sqlgrade.verdict(RIGHT, **kw)
        assert issubclass(sqlgrade.InputError, ValueError)
    items = [{"output": RIGHT}] * 5 + [{"output": RIGHT, "gold_sql": "SELECT " + LONE}]
    with pytest.raises(sqlgrade.InputError, match=r"^request 5: `gold_sql`: not valid Unicode"):
        sqlgrade.verdicts(items, db=dbs.shop, gold_sql=GOLD)
    items[5] = {"output": RIGHT, "gold_result": [[["fig"], [LOW]]], "gold_sql": None}
    with pytest.raises(sqlgrade.InputError, match=r"^request 5: `gold_result\[0\]\[1\]\[0\]`: not valid Unicode"):
        sqlgrade.verdicts(items, db=dbs.shop, gold_sql=GOLD)
    with pytest.raises(sqlgrade.InputError, match="^`db`: not valid Unicode"):
        sqlgrade.execute(dbs.shop + LONE, "SELECT 1")
    with pytest.raises(sqlgrade.InputError, match=r"^`gold`: not valid Unicode"):
        sqlgrade.spider.evaluate(gold="gold" + LONE + ".sql", pred="p.txt", db_dir=dbs.spider_dir)
    with pytest.raises(sqlgrade.InputError, match=r"^`option 'ex\\ud83d'`: not valid Unicode"):
        sqlgrade.bird.evaluate(pred="p.json", gold="g.sql", db_dir=dbs.bird_dir, metric="ex" + LONE)


# ---- the RL adapters -------------------------------------------------------------------------------
def test_verl(backend, dbs: Dbs):
    info = {"db_path": dbs.shop}
    out = verl.compute_score(data_source="spider2_lite", solution_str=IN_SQL, ground_truth=GOLD, extra_info=info)
    assert out == {"score": 0.0, "acc": 0.0, "sql_found": 1.0, "sql_executed": 0.0, "sql_refuted": 0.0,
                   "sql_unverified": 0.0}
    assert verl.compute_score("spider2_lite", PROSE, GOLD, info)["score"] == 1.0
    assert asyncio.run(verl.compute_score_async("spider2_lite", IN_SQL, GOLD, info))["acc"] == 0.0
    batch = verl.compute_score_batch(["spider2_lite"] * 3, [RIGHT, IN_SQL, PROSE], [GOLD] * 3, [info] * 3)
    assert [s["score"] for s in batch] == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match=r"^`gold_sql\[0\]`: not valid Unicode"):
        verl.compute_score("spider2_lite", RIGHT, GOLD + LONE, info)


def test_trl(backend, dbs: Dbs):
    cols = {"gold_sql": [GOLD] * 3, "db_path": [dbs.shop] * 3}
    assert trl.reward_func(prompts=["p"] * 3, completions=[RIGHT, IN_SQL, PROSE], **cols) == [1.0, 0.0, 1.0]
    chats = [[{"role": "assistant", "content": t}] for t in (IN_COMMENT, RIGHT, PROSE)]
    assert trl.RewardFunc(error_score=-1.0)(prompts=["p"] * 3, completions=chats, **cols) == [-1.0, 1.0, 1.0]


def test_openrlhf(backend, dbs: Dbs):
    prompt = "<|im_start|>user\nWhich items?<|im_end|>\n<|im_start|>assistant\n"
    label = {"gold_sql": GOLD, "db_path": dbs.shop}
    out = openrlhf.reward_func([prompt + t for t in (RIGHT, IN_SQL, PROSE)], [prompt] * 3, [label] * 3)
    assert [float(x) for x in out["rewards"]] == [1.0, 0.0, 1.0]
    assert [float(x) for x in out["extra_logs"]["sql_executed"]] == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match=r"^`prompts\[1\]`: not valid Unicode"):
        openrlhf.reward_func([prompt + RIGHT] * 2, [prompt, prompt + LONE], [label] * 2)


def test_areal_and_skyrl(backend, dbs: Dbs):
    data = {"gold_sql": GOLD, "db_path": dbs.shop}
    assert [areal.reward_fn("p", t, [1], [2], **data) for t in (RIGHT, IN_SQL, PROSE)] == [1.0, 0.0, 1.0]
    env = skyrl.SQLEnv({"db_path": dbs.bird_dir}, {"db_id": "shop", "benchmark": "bird", "gold_sql": GOLD})
    env.init([{"role": "user", "content": "Which items?"}])
    obs = env.step(f"<sql>SELECT name FROM item WHERE name <> '{LONE}'</sql>")
    assert obs["done"] is False and NOT_UNICODE in obs["observations"][0]["content"]
    out = env.step(f"<solution>{RIGHT_SQL} -- {LONE}</solution>")
    assert out["done"] is True and out["reward"] == 0.0
    assert out["metadata"]["verdict"]["failure_detail"].startswith("prediction error: " + NOT_UNICODE)
    env = skyrl.SQLEnv({"db_path": dbs.bird_dir}, {"db_id": "shop", "benchmark": "bird", "gold_sql": GOLD})
    assert env.step(f"{LONE}<solution>{RIGHT_SQL}</solution>")["reward"] == 1.0


# ---- the HTTP server's request bodies --------------------------------------------------------------
def post(url: str, path: str, payload) -> tuple:
    """POST JSON as OpenRLHF's and most clients' encoders write it: ASCII, a lone surrogate as "\\ud83d"."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode("ascii")
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def test_http_verify_and_execute_bodies(fixture_server, dbs: Dbs):
    url = fixture_server.url
    status, r = post(url, "/verify", {"db_id": "shop", "gold_sql": GOLD, "model_output": PROSE})
    assert status == 200 and r["reward"] == 1.0, r
    status, r = post(url, "/verify", {"db_id": "shop", "gold_sql": GOLD, "model_output": IN_SQL})
    assert status == 200 and r["reward"] == 0.0 and r["failure_reason"] == "execution_error", r
    assert r["failure_detail"].startswith("prediction error: " + NOT_UNICODE) and "U+D83D" in r["failure_detail"]
    status, r = post(url, "/verify", {"db_id": "shop", "gold_sql": GOLD, "sql": f"{RIGHT_SQL} -- {LOW}"})
    assert status == 200 and r["reward"] == 0.0 and "U+DE00" in r["failure_detail"], r
    # A character that marks surrogates while the body is parsed (U+FDD0) stays what it is.
    status, r = post(url, "/verify", {"db_id": "shop", "gold_sql": GOLD,
                                      "model_output": f"{LONE}\ufdd0```sql\n{RIGHT_SQL} AND name <> '\ufdd0'\n```"})
    assert status == 200 and r["reward"] == 1.0 and "\ufdd0" in r["extracted_sql"], r
    for payload, field in (({"db_id": "shop", "gold_sql": "SELECT " + LONE, "model_output": RIGHT}, "`gold_sql`"),
                           ({"db_id": "shop" + LONE, "gold_sql": GOLD, "model_output": RIGHT}, "`db_id`"),
                           ({"db_id": "shop", "gold_sql": GOLD, "model_output": RIGHT, "question": LOW}, "`question`"),
                           ({"db_id": "shop", "gold_sql": GOLD, "model_output": RIGHT, "x" + LONE: 1}, "a field name")):
        status, r = post(url, "/verify", payload)
        assert status == 400 and r["error"].startswith(field) and "lone surrogate" in r["error"], (status, r)
    # A lone surrogate and another error: the parse error is reported.
    status, r = post(url, "/verify", b'{"db_id": "shop", "model_output": "\\ud83d",}')
    assert status == 400 and r["error"].startswith("invalid JSON"), r
    status, r = post(url, "/execute", {"db_id": "shop", "sql": f"SELECT '{LONE}'"})
    assert status == 200 and r["status"] == "error" and NOT_UNICODE in r["error"], r


@pytest.mark.parametrize("path", ["/get_reward", "/openrlhf"])
def test_http_openrlhf_batch_of_64_with_one_lone_surrogate(fixture_server, path):
    prompt = "<|im_start|>user\nWhich items?<|im_end|>\n<|im_start|>assistant\n"
    texts = [RIGHT, "```sql\nSELECT name FROM item\n```", "no SQL"] * 21 + [RIGHT]
    label = json.dumps({"gold_sql": GOLD, "db_id": "shop"})
    status, ref = post(fixture_server.url, path, {"query": [prompt + t for t in texts], "prompts": [prompt] * 64,
                                                   "labels": [label] * 64})
    assert status == 200 and ref["rewards"].count(1.0) == 22, ref
    texts[10] = IN_SQL
    texts[21] = PROSE
    status, r = post(fixture_server.url, path, {"query": [prompt + t for t in texts], "prompts": [prompt] * 64,
                                                 "labels": [label] * 64})
    assert status == 200, r
    assert r["rewards"][10] == 0.0 and r["extra_logs"]["sql_executed"][10] == 0.0
    assert r["rewards"][21] == 1.0
    assert [x for i, x in enumerate(r["rewards"]) if i != 10] == [x for i, x in enumerate(ref["rewards"]) if i != 10]
    # Not model output: a 400 naming the field.
    labels = [{"gold_sql": GOLD, "db_id": "shop"}] * 64
    labels[3] = {"gold_sql": GOLD + LOW, "db_id": "shop"}
    status, r = post(fixture_server.url, path, {"query": [prompt + RIGHT] * 64, "prompts": [prompt] * 64,
                                                 "labels": labels})
    assert status == 400 and r["error"].startswith("`labels[3].gold_sql`: not valid Unicode"), r
    status, r = post(fixture_server.url, path, {"query": [prompt + RIGHT] * 2, "prompts": [prompt, prompt + LONE],
                                                 "labels": labels[:2]})
    assert status == 400 and r["error"].startswith("`prompts[1]`: not valid Unicode"), r
