"""SkyRL environment and the test-suite eval_exec_match drop-in, called as their callers do."""

from __future__ import annotations

import inspect
import os
import random
import time

import pytest

import sqlgrade
from conftest import Dbs, file_hashes, needs_native
from sqlgrade import compat, skyrl

GOLD = "SELECT name FROM item WHERE qty > 1"


# ---- SkyRL ---------------------------------------------------------------------------------------
# NovaSky SkyRL, skyrl-gym (read at yumc-afk/SkyRL @bde56ee): skyrl_gym/envs/sql/env.py and
# base_text_env.py. The generator builds the env from the dataset row and calls
#   env = SQLEnv(env_config, extras)      # extras: db_id, reward_spec={"ground_truth": gold}, data, max_turns
#   prompt, meta = env.init(chat_prompt)
#   out = env.step(action_text)           # -> observations, reward, done, metadata, postprocessed_action
#   env.close()
def skyrl_env(dbs: Dbs, **extras):
    row = {"db_id": "shop", "reward_spec": {"method": "rule", "ground_truth": GOLD}, "data": "", "max_turns": 3}
    row.update(extras)
    return skyrl.SQLEnv({"db_path": dbs.bird_dir, "wrong_result_score": 0.1}, row)


def test_skyrl_solution_ends_the_episode_with_the_verdict(srv, dbs: Dbs):
    env = skyrl_env(dbs, benchmark="bird")
    prompt = [{"role": "user", "content": "Which items have qty > 1?"}]
    assert env.init(prompt) == (prompt, {})
    out = env.step("<think>easy</think>\n<solution>SELECT name FROM item WHERE qty >= 2</solution> trailing text")
    assert set(out) == {"observations", "reward", "done", "metadata", "postprocessed_action"}
    assert out["done"] is True and out["reward"] == 1.0 and out["observations"] == []
    assert out["postprocessed_action"].endswith("</solution>")  # cut after </solution>, as SkyRL-SQL does
    assert out["metadata"]["verdict"]["extracted_sql"] == "SELECT name FROM item WHERE qty >= 2"
    env.close()
    # A fenced solution, a wrong one (shaped 0.1 from env_config), and running out of turns (-1 default).
    assert skyrl_env(dbs, benchmark="bird").step("<solution>```sql\n" + GOLD + "\n```</solution>")["reward"] == 1.0
    assert skyrl_env(dbs, benchmark="bird").step("<solution>SELECT name FROM item</solution>")["reward"] == 0.1
    env = skyrl_env(dbs, benchmark="bird", max_turns=1)
    out = env.step("I am thinking without any tags")
    assert out["done"] is True and out["reward"] == -1.0


def test_skyrl_folder_layout_and_bad_rows(srv, dbs: Dbs):
    # SkyRL-SQL's layout: <env_config.db_path>/<data sub-folder>/<db_id>/<db_id>.sqlite; here "data" is
    # empty, so the root itself holds <db_id>/<db_id>.sqlite (the BIRD folder of the fixtures).
    env = skyrl.SQLEnv({"db_path": dbs.bird_dir}, {"db_id": "shop", "benchmark": "bird", "reward_spec": {"ground_truth": GOLD}})
    assert env._kw["db"] == os.path.join(dbs.bird_dir, "shop", "shop.sqlite")
    with pytest.raises(sqlgrade.InputError, match="no gold"):
        skyrl.SQLEnv({"db_path": dbs.bird_dir}, {"db_id": "shop"})
    with pytest.raises(sqlgrade.InputError, match="no database"):
        skyrl.SQLEnv({}, {"reward_spec": {"ground_truth": GOLD}})


def test_skyrl_sql_step_through_the_server(srv, dbs: Dbs):
    # `sqlgrade serve` answers the observation step with POST /execute.
    env = skyrl_env(dbs, benchmark="bird")
    out = env.step("<think>look</think><sql>SELECT name, qty FROM item ORDER BY id</sql>")
    assert out["done"] is False and "apple | 3" in out["observations"][0]["content"]


@needs_native
def test_skyrl_sql_step_observation(settings, dbs: Dbs):
    settings(server=None, backend="native")
    env = skyrl_env(dbs, benchmark="bird")
    out = env.step("<think>look</think><sql>SELECT name, qty FROM item ORDER BY id</sql> and more")
    assert out["done"] is False and out["reward"] == 0.0
    assert out["observations"][0]["role"] == "user"
    assert "apple | 3" in out["observations"][0]["content"]
    out = env.step("<sql>SELECT nope FROM item</sql>")
    assert "no such column" in out["observations"][0]["content"]
    assert env.step(f"<solution>{GOLD}</solution>")["reward"] == 1.0


def _between_before_issue_19(text, open_tag, close_tag, last):
    """skyrl._between as it was at 515102e (quadratic in unclosed tags): the reference for its results."""
    a = text.rfind(open_tag) if last else text.find(open_tag)
    while a >= 0:
        b = text.find(close_tag, a + len(open_tag))
        if b >= 0:
            return text[a + len(open_tag):b]
        a = text.rfind(open_tag, 0, a) if last else -1
    return None


def test_skyrl_tag_search_gives_the_same_results():
    rng = random.Random(19)
    pieces = ["<solution>", "</solution>", "<sql>", "</sql>", "<solution", "sql>", "x", " ", "SELECT 1"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        for tags in (("<solution>", "</solution>"), ("<sql>", "</sql>")):
            for last in (False, True):
                assert skyrl._between(text, *tags, last) == _between_before_issue_19(text, *tags, last), (text, tags)


def test_skyrl_is_linear_in_unclosed_tags(srv, dbs: Dbs):
    # Issue 19, finding 15: a 625 KiB action of unclosed <solution> tags took 6.5-66 s (quadratic search
    # for the last complete pair, GIL held); it is one pass now. Generous bound: 0.2 s.
    skyrl_env(dbs, benchmark="bird", max_turns=1).step(f"<solution>{GOLD}</solution>")  # warm: gold cached
    for action, turns in (("<solution>" * 64_000, 1), ("<solution>x" * 58_200, 1), ("<sql>" * 128_000, 2),
                          ("<solution>SELECT 1</solution" * 23_000, 1)):
        assert len(action) >= 625 * 1024 - 64
        env = skyrl_env(dbs, benchmark="bird", max_turns=turns)
        t0 = time.perf_counter()
        out = env.step(action)
        elapsed = time.perf_counter() - t0
        assert elapsed < 0.2, (action[:20], elapsed)
        assert out["done"] is (turns == 1)
        assert out["reward"] == (-1.0 if turns == 1 else 0.0)  # no complete solution: SkyRL-SQL's -1


# ---- test-suite eval_exec_match --------------------------------------------------------------------
# taoyds/test-suite-sql-eval @e97acc5, exec_eval.py:
#   def eval_exec_match(db: str, p_str: str, g_str: str, plug_value: bool, keep_distinct: bool,
#                       progress_bar_for_each_datapoint: bool) -> int
# evaluation.py calls it with keywords: eval_exec_match(db=db, p_str=p_str, g_str=g_str, plug_value=...,
#   keep_distinct=..., progress_bar_for_each_datapoint=...), db = <db_dir>/<db_id>/<db_id>.sqlite.
def test_eval_exec_match_signature_and_semantics(srv, dbs: Dbs):
    assert list(inspect.signature(compat.eval_exec_match).parameters) == [
        "db", "p_str", "g_str", "plug_value", "keep_distinct", "progress_bar_for_each_datapoint"]
    before = file_hashes([dbs.school, dbs.school_variant])
    gold = "SELECT name FROM student WHERE city = 'Oslo'"
    assert compat.eval_exec_match(dbs.school, "SELECT name FROM student WHERE city = 'Oslo'", gold, False, False, False) == 1
    # Equal on school.sqlite, different on school_variant.sqlite: the test suite says 0.
    assert compat.eval_exec_match(db=dbs.school, p_str="SELECT name FROM student WHERE age = 20", g_str=gold,
                                  plug_value=False, keep_distinct=False, progress_bar_for_each_datapoint=True) == 0
    assert compat.eval_exec_match(dbs.school, "SELECT nme FROM student", gold, False, False, False) == 0
    assert compat.eval_exec_match(dbs.school, "DROP TABLE student", gold, False, False, False) == 0
    assert compat.eval_exec_match(dbs.school, "", gold, False, False, False) == 0
    assert file_hashes([dbs.school, dbs.school_variant]) == before


def test_eval_exec_match_gold_error_and_flags_through_the_server(srv, dbs: Dbs):
    with pytest.raises(sqlgrade.GoldError, match="gold query") as e:
        compat.eval_exec_match(dbs.school, "SELECT 1", "SELECT nope FROM student", False, False, False)
    assert isinstance(e.value, AssertionError)  # like the original's `assert g_flag != 'exception'`
    # plug_value / keep_distinct are per-request options of `sqlgrade serve` too
    assert compat.eval_exec_match(dbs.school, "SELECT 1", "SELECT 1", True, False, False) == 1
    gold = "SELECT city FROM student"
    assert compat.eval_exec_match(dbs.school, "SELECT DISTINCT city FROM student", gold, False, False, False) == 1
    assert compat.eval_exec_match(dbs.school, "SELECT DISTINCT city FROM student", gold, False, True, False) == 0
    with pytest.raises(sqlgrade.InputError, match="no such database file"):
        compat.eval_exec_match(dbs.school + ".x", "SELECT 1", "SELECT 1", False, False, False)


@needs_native
def test_eval_exec_match_keep_distinct_native(settings, dbs: Dbs):
    settings(server=None, backend="native")
    gold = "SELECT city FROM student"
    assert compat.eval_exec_match(dbs.school, "SELECT DISTINCT city FROM student", gold, False, False, False) == 1
    assert compat.eval_exec_match(dbs.school, "SELECT DISTINCT city FROM student", gold, False, True, False) == 0
