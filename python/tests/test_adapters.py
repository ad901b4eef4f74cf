"""verl, TRL, OpenRLHF and AReaL adapters, called exactly as each framework's code calls them.

The frameworks cannot be installed here; every test names the code it reproduces (repository,
file, commit or version read with the search tool) and makes the same call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json

import pytest

import sqlgrade
from conftest import Dbs
from sqlgrade import areal, openrlhf, trl, verl

GOLD = "SELECT name FROM item WHERE qty > 1"
RIGHT = "<think>qty above one</think>\n```sql\nSELECT name FROM item WHERE qty >= 2\n```"
WRONG = "```sql\nSELECT name FROM item\n```"
BROKEN = "```sql\nSELECT nme FROM item\n```"
NO_SQL = "I cannot answer that."


# ---- verl ----------------------------------------------------------------------------------------
def test_verl_naive_reward_manager_call(srv, dbs: Dbs):
    # verl-project/verl verl/workers/reward_manager/naive.py @31d143a, NaiveRewardManager.__call__:
    #   extra_info = non_tensor_batch.get("extra_info", {}); extra_info["num_turns"] = ...;
    #   extra_info["rollout_reward_scores"] = ...
    #   score = self.compute_score(data_source=data_source, solution_str=response_str,
    #                              ground_truth=ground_truth, extra_info=extra_info)
    #   reward = score["score"] if isinstance(score, dict) else score; extra keys -> reward_extra_info
    extra_info = {"db_path": dbs.shop, "num_turns": None, "rollout_reward_scores": {}}
    got = {t: verl.compute_score(data_source="spider2_lite", solution_str=t, ground_truth=GOLD, extra_info=extra_info)
           for t in (RIGHT, WRONG, BROKEN, NO_SQL)}
    never = {"sql_refuted": 0.0, "sql_unverified": 0.0}  # no `verify` asked: never refuted, never cut
    assert got[RIGHT] == {"score": 1.0, "acc": 1.0, "sql_found": 1.0, "sql_executed": 1.0, **never}
    assert got[WRONG] == {"score": 0.0, "acc": 0.0, "sql_found": 1.0, "sql_executed": 1.0, **never}
    assert got[BROKEN] == {"score": 0.0, "acc": 0.0, "sql_found": 1.0, "sql_executed": 0.0, **never}
    assert got[NO_SQL] == {"score": 0.0, "acc": 0.0, "sql_found": 0.0, "sql_executed": 0.0, **never}
    assert len({tuple(d) for d in got.values()}) == 1  # same keys every call: verl appends them per sample


def test_verl_reward_kwargs_and_reward_loop_keywords(srv, dbs: Dbs):
    # verl/trainer/ppo/reward.py: custom_reward_function.reward_kwargs are merged into the call's keywords
    # (_call_with_kwargs); the reward loop (volcengine/verl verl/experimental/reward/reward_loop/naive.py
    # @5329446) also passes reward_model=..., reward_model_tokenizer=... (later: reward_router_address=...).
    kw = dict(wrong_result_score=0.1, no_sql_score=-1.0, error_score=-0.5, reward_model=None,
              reward_model_tokenizer=None, reward_router_address="127.0.0.1:1")
    info = {"db_path": dbs.shop}
    scores = [verl.compute_score("spider2", t, GOLD, info, **kw)["score"] for t in (RIGHT, WRONG, BROKEN, NO_SQL)]
    assert scores == [1.0, 0.1, -0.5, -1.0]
    assert verl.compute_score("spider2", WRONG, GOLD, info, return_dict=False, wrong_result_score=0.1) == 0.1


def test_verl_data_contract(srv, dbs: Dbs):
    school_gold = "SELECT name FROM student WHERE city = 'Oslo'"
    test_suite_wrong = "```sql\nSELECT name FROM student WHERE age = 20\n```"  # right on school.sqlite only
    # data_source picks the comparison; extra_info["benchmark"] wins over it.
    assert verl.compute_score("xlangai/spider", test_suite_wrong, school_gold, {"db_path": dbs.school})["acc"] == 0.0
    assert verl.compute_score("my_sql_set", test_suite_wrong, school_gold,
                              {"db_path": dbs.school, "benchmark": "spider"})["acc"] == 0.0
    assert verl.compute_score("bird_train", WRONG.replace("item", "item WHERE qty > 1"), GOLD,
                              {"db_path": dbs.bird_shop})["acc"] == 1.0
    # Alternative golds.
    alt = {"db_path": dbs.shop, "alternative_answers": ["SELECT name FROM item"]}
    assert verl.compute_score("spider2", WRONG, GOLD, alt)["acc"] == 1.0
    # A JSON string extra_info (parquet columns are sometimes serialised) works too.
    assert verl.compute_score("spider2", RIGHT, GOLD, json.dumps({"db_path": dbs.shop}))["acc"] == 1.0
    with pytest.raises(sqlgrade.InputError, match="no database"):
        verl.compute_score("spider2", RIGHT, GOLD, {"other": 1})
    with pytest.raises(sqlgrade.InputError, match="no gold"):
        verl.compute_score("spider2", RIGHT, None, {"db_path": dbs.shop})
    with pytest.raises(sqlgrade.InputError, match="no such database file"):
        verl.compute_score("spider2", RIGHT, GOLD, {"db_path": dbs.shop + ".missing"})


def test_verl_async_reward_loop(srv, dbs: Dbs):
    # reward_loop/naive.py @5329446: is_async = inspect.iscoroutinefunction(compute_score);
    #   result = await self.compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...,
    #                                     reward_model=..., reward_model_tokenizer=...)
    assert inspect.iscoroutinefunction(verl.compute_score_async)

    async def loop():
        calls = [verl.compute_score_async(data_source="spider2", solution_str=t, ground_truth=GOLD,
                                          extra_info={"db_path": dbs.shop}, reward_model=None,
                                          reward_model_tokenizer=None) for t in (RIGHT, WRONG) * 4]
        return await asyncio.gather(*calls)

    assert [r["score"] for r in asyncio.run(loop())] == [1.0, 0.0] * 4


def test_verl_batch_reward_manager(srv, dbs: Dbs):
    # verl-project/verl verl/workers/reward_manager/batch.py @45c6d15, BatchRewardManager.verify:
    #   scores = self.compute_score(data_sources=data_sources, solution_strs=responses_str,
    #                               ground_truths=ground_truths, extra_infos=extras, **self.reward_kwargs)
    #   (extras[i]["rollout_reward_scores"] is set; data_sources is a numpy object array)
    texts = [RIGHT, WRONG, BROKEN, NO_SQL] * 8
    extras = [{"db_path": dbs.shop, "rollout_reward_scores": {}} for _ in texts]
    scores = verl.compute_score_batch(data_sources=["spider2"] * len(texts), solution_strs=texts,
                                      ground_truths=[GOLD] * len(texts), extra_infos=extras, no_sql_score=-1.0)
    assert [s["score"] for s in scores] == [1.0, 0.0, 0.0, -1.0] * 8
    with pytest.raises(sqlgrade.InputError, match="extra_infos\\[1\\]: no database"):
        verl.compute_score_batch(["spider2"] * 2, [RIGHT] * 2, [GOLD] * 2, [{"db_path": dbs.shop}, {}])
    with pytest.raises(sqlgrade.InputError, match="2 solutions but 1 data_sources"):
        verl.compute_score_batch(["spider2"], [RIGHT] * 2, [GOLD] * 2, [{"db_path": dbs.shop}] * 2)


# ---- TRL -----------------------------------------------------------------------------------------
def trl_call(func, prompts, completions, **columns):
    # huggingface/trl trl/trainer/grpo_trainer.py, GRPOTrainer._calculate_rewards (TRL 0.20-0.25):
    #   keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
    #   reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
    #   reward_kwargs["trainer_state"] = self.state
    #   output_reward_func = reward_func(prompts=prompts, completions=completions,
    #                                    completion_ids=completion_ids_list, **reward_kwargs)
    #   then None -> NaN, reward_func.__name__ names the column in the logs
    assert isinstance(func.__name__, str)
    return func(prompts=prompts, completions=completions, completion_ids=[[1, 2]] * len(completions),
                trainer_state=object(), **columns)


def test_trl_standard_and_conversational(srv, dbs: Dbs):
    texts = [RIGHT, WRONG, BROKEN, NO_SQL]
    cols = {"gold_sql": [GOLD] * 4, "db_path": [dbs.shop] * 4, "question": ["q"] * 4}
    assert trl_call(trl.reward_func, ["p"] * 4, texts, **cols) == [1.0, 0.0, 0.0, 0.0]
    chats = [[{"role": "assistant", "content": t}] for t in texts]
    prompts = [[{"role": "user", "content": "Which items?"}]] * 4
    assert trl_call(trl.reward_func, prompts, chats, **cols) == [1.0, 0.0, 0.0, 0.0]
    parts = [[{"role": "assistant", "content": [{"type": "text", "text": RIGHT}]}]]
    assert trl_call(trl.reward_func, ["p"], parts, gold_sql=[GOLD], db_path=[dbs.shop]) == [1.0]


def test_trl_rows_without_gold_db_id_and_options(srv, dbs: Dbs, settings):
    # A mixed dataset: rows that are not SQL tasks have no gold -> None (TRL: not applicable).
    out = trl_call(trl.reward_func, ["p"] * 3, [RIGHT, RIGHT, WRONG], gold_sql=[GOLD, None, GOLD],
                   db_path=[dbs.shop, None, dbs.shop])
    assert out == [1.0, None, 0.0]
    # db_id with a database folder: per function, or process-wide.
    rf = trl.RewardFunc(db_root=dbs.spider2_dir, wrong_result_score=0.1, no_sql_score=-1.0, name="sql_exec")
    assert trl_call(rf, ["p"] * 3, [RIGHT, WRONG, NO_SQL], gold_sql=[GOLD] * 3, db_id=["shop"] * 3) == [1.0, 0.1, -1.0]
    assert rf.__name__ == "sql_exec"
    settings(db_root=dbs.bird_dir, benchmark="bird")
    assert trl_call(trl.reward_func, ["p"], [RIGHT], gold_sql=[GOLD], db_id=["shop"]) == [1.0]
    with pytest.raises(sqlgrade.InputError, match="column db_path has 1 values for 2 completions"):
        trl_call(trl.reward_func, ["p"] * 2, [RIGHT] * 2, gold_sql=[GOLD] * 2, db_path=[dbs.shop])
    with pytest.raises(sqlgrade.InputError, match="no gold_sql column"):
        trl_call(trl.reward_func, ["p"], [RIGHT], db_path=[dbs.shop])
    with pytest.raises(sqlgrade.InputError, match="completion 0: no database"):
        trl_call(trl.reward_func, ["p"], [RIGHT], gold_sql=[GOLD])
    with pytest.raises(TypeError):
        trl.RewardFunc(wrong_score=1)


# ---- OpenRLHF --------------------------------------------------------------------------------------
def test_openrlhf_file_mode_reward_func(srv, dbs: Dbs):
    # OpenRLHF 0.8 (README "Reinforced Fine-tuning with Custom Rewards"; openrlhf/utils/remote_rm_utils.py
    # RemoteRewardModel.get_rewards): the --remote_rm_url .py file's reward_func is wrapped in ray.remote and
    # called positionally on micro-batches: reward_func(queries[i:j], prompts[i:j], labels[i:j]);
    # queries = prompt + response (decoded), labels = the --label_key column; it returns
    # {"rewards": ..., "scores": ..., "extra_logs": {...}}.
    prompt = "<|im_start|>user\nWhich items have qty > 1?<|im_end|>\n<|im_start|>assistant\n"
    label = {"gold_sql": GOLD, "db_path": dbs.shop}
    texts = [RIGHT, WRONG, BROKEN, NO_SQL]
    queries = [prompt + t + "<|im_end|>" for t in texts]
    labels = [json.dumps(label), label, json.dumps(label), label]
    out = openrlhf.reward_func(queries, [prompt] * 4, labels)
    assert set(out) == {"rewards", "scores", "extra_logs"}
    as_list = lambda x: [float(v) for v in x]  # noqa: E731  (torch tensor or list)
    assert as_list(out["rewards"]) == [1.0, 0.0, 0.0, 0.0]
    assert as_list(out["scores"]) == [1.0, 0.0, 0.0, 0.0]
    assert {k: as_list(v) for k, v in out["extra_logs"].items()} == {
        "sql_acc": [1.0, 0.0, 0.0, 0.0], "sql_found": [1.0, 1.0, 1.0, 0.0], "sql_executed": [1.0, 1.0, 0.0, 0.0],
        "sql_refuted": [0.0] * 4, "sql_unverified": [0.0] * 4}
    shaped = openrlhf.reward_func(queries, [prompt] * 4, labels, wrong_result_score=0.1, no_sql_score=-1.0)
    assert as_list(shaped["rewards"]) == [1.0, 0.1, 0.0, -1.0] and as_list(shaped["scores"]) == [1.0, 0.0, 0.0, 0.0]
    # A query that does not start with its prompt (re-tokenised) is graded whole.
    assert as_list(openrlhf.reward_func(["User: x\n" + RIGHT], ["other"], [label])["rewards"]) == [1.0]


def test_openrlhf_bad_labels(srv, dbs: Dbs):
    with pytest.raises(sqlgrade.InputError, match=r"labels\[0\]: expected a JSON object"):
        openrlhf.reward_func([RIGHT], [""], ["SELECT 1"])
    with pytest.raises(sqlgrade.InputError, match=r"labels\[1\]: no gold_sql"):
        openrlhf.reward_func([RIGHT] * 2, [""] * 2, [{"gold_sql": GOLD, "db_path": dbs.shop}, {"db_path": dbs.shop}])
    with pytest.raises(sqlgrade.InputError, match="2 queries but 1 prompts"):
        openrlhf.reward_func([RIGHT] * 2, [""], [{}] * 2)


# ---- AReaL -----------------------------------------------------------------------------------------
def test_areal_reward_fn_through_a_process_pool(srv, dbs: Dbs):
    # inclusionAI/AReaL areal/workflow/rlvr.py @072480e, RLVRWorkflow.arun_episode:
    #   reward = await self.async_reward_fn(prompt_str, completions_str, resp.input_tokens,
    #                                       resp.output_tokens, **data)
    # areal/api/reward_api.py @1c17804, AsyncRewardWrapper.__call__:
    #   loop.run_in_executor(ProcessPoolExecutor(max_workers), partial(self.reward_fn, *args, **kwargs)),
    #   wrapped in asyncio.wait_for(..., timeout=15 s by default)
    data = {"messages": [{"role": "user", "content": "Which items?"}], "gold_sql": GOLD, "db_path": dbs.shop,
            "query_id": "q1"}

    async def episode(pool):
        loop = asyncio.get_event_loop()
        futs = [asyncio.wait_for(loop.run_in_executor(pool, functools.partial(areal.reward_fn, "prompt", t,
                                                                              [1, 2, 3], [4, 5], **data)), 15)
                for t in (RIGHT, WRONG, BROKEN, NO_SQL)]
        return await asyncio.gather(*futs)

    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        rewards = asyncio.run(episode(pool))
    assert rewards == [1.0, 0.0, 0.0, 0.0] and all(isinstance(r, float) for r in rewards)
    assert areal.reward_fn("p", WRONG, [1], [2], **data, alternative_answers=["SELECT name FROM item"]) == 1.0
    with pytest.raises(sqlgrade.InputError, match="no gold_sql"):
        areal.reward_fn("p", RIGHT, [1], [2], messages=[], db_path=dbs.shop)
