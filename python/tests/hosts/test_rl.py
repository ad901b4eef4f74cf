"""RL frameworks, for real where they install without a GPU stack (docs/python.md, "Tested against
the real packages"):

* skyrl-gym 0.4.0 (dev.lock): sqlgrade.skyrl.SQLEnv is a real BaseTextEnv subclass, registered and
  built by skyrl_gym.make, and run through an episode (an <sql> observation, a <solution> verdict).
* OpenRLHF 0.11.2 (nodeps.lock, installed without its dependencies: torch, deepspeed, flash-attn,
  vllm...): its reward client, openrlhf/utils/agent.py SingleTurnAgentExecutor, loaded from the
  installed package, calls `sqlgrade serve` /get_reward over HTTP (aiohttp) and the file-mode
  reward_func.py exactly as it does in training. The package's __init__ imports torch, so the module
  is loaded by file with the two parent packages as plain namespaces.
* verl, TRL, AReaL: not installable here without torch and the CUDA wheels; their adapters keep the
  call-shape tests (python/tests/test_adapters.py).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import types

import pytest

from conftest import Dbs, file_hashes

GOLD = "SELECT name FROM item WHERE qty > 1"


# ---- skyrl-gym ----------------------------------------------------------------------------------
def test_skyrl_env_is_a_real_base_text_env(srv, dbs: Dbs):
    skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym not installed: run scripts/setup.sh")
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

    from sqlgrade.skyrl import SQLEnv

    assert issubclass(SQLEnv, BaseTextEnv)
    if "sqlgrade_sql" not in skyrl_gym.envs.registration.registry:
        skyrl_gym.envs.register(id="sqlgrade_sql", entry_point="sqlgrade.skyrl:SQLEnv")
    extras = {"db_id": "shop", "benchmark": "bird", "reward_spec": {"method": "rule", "ground_truth": GOLD},
              "data": "", "max_turns": 3}
    env = skyrl_gym.make("sqlgrade_sql", env_config={"db_path": dbs.bird_dir}, extras=extras)
    assert isinstance(env, SQLEnv) and isinstance(env, BaseTextEnv)
    prompt = [{"role": "user", "content": "Which items have qty > 1?"}]
    assert env.init(prompt)[0] == prompt
    out = env.step("<think>look first</think><sql>SELECT name, qty FROM item ORDER BY id</sql>")
    assert set(out) == set(BaseTextEnvStepOutput.__annotations__)
    assert out["done"] is False and out["reward"] == 0.0 and "apple | 3" in out["observations"][0]["content"]
    out = env.step("<solution>SELECT name FROM item WHERE qty >= 2</solution>")
    assert out["done"] is True and out["reward"] == 1.0
    env.close()


# ---- OpenRLHF -----------------------------------------------------------------------------------
def _openrlhf_agent():
    spec = importlib.util.find_spec("openrlhf")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("openrlhf not installed: run scripts/setup.sh (python/requirements/nodeps.lock)")
    pytest.importorskip("aiohttp")
    root = list(spec.submodule_search_locations)[0]
    saved = {k: sys.modules.get(k) for k in ("openrlhf", "openrlhf.utils")}
    for name, path in (("openrlhf", root), ("openrlhf.utils", os.path.join(root, "utils"))):
        pkg = types.ModuleType(name)
        pkg.__path__ = [path]  # a namespace: the real __init__ imports torch
        sys.modules[name] = pkg
    try:
        mod_spec = importlib.util.spec_from_file_location("openrlhf.utils.agent", os.path.join(root, "utils", "agent.py"))
        agent = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(agent)
        return agent
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def _rollouts(dbs: Dbs):
    prompts = ["Q1: items with qty > 1? ", "Q2: items with qty > 1? ", "Q3: items with qty > 1? "]
    answers = ["```sql\nSELECT name FROM item WHERE qty >= 2\n```", "```sql\nSELECT name FROM item\n```", "no idea"]
    labels = [{"gold_sql": GOLD, "db_id": "shop", "benchmark": "bird"}] * 3
    return [p + a for p, a in zip(prompts, answers)], prompts, labels


def test_openrlhf_http_reward_client_against_sqlgrade_serve(fixture_server, dbs: Dbs):
    agent = _openrlhf_agent()
    ex = agent.SingleTurnAgentExecutor(remote_rm_url=fixture_server.url + "/get_reward")
    queries, prompts, labels = _rollouts(dbs)
    before = file_hashes(dbs.all_files())
    replies = asyncio.run(ex._fetch_rewards_via_http(queries, prompts, labels))
    assert len(replies) == 1
    assert replies[0]["rewards"] == [1.0, 0.0, 0.0] and replies[0]["scores"] == [1.0, 0.0, 0.0]
    # sql_graded: 1.0 per rollout graded within the request budget (docs/serve.md, issue 19)
    assert set(replies[0]["extra_logs"]) == {"sql_acc", "sql_found", "sql_executed", "sql_graded", "sql_refuted",
                                             "sql_unverified"}
    assert replies[0]["extra_logs"]["sql_graded"] == [1.0, 1.0, 1.0]
    assert file_hashes(dbs.all_files()) == before


def test_openrlhf_file_mode_reward_func(srv, dbs: Dbs, tmp_path):
    agent = _openrlhf_agent()
    f = tmp_path / "reward_func.py"
    f.write_text("from sqlgrade.openrlhf import reward_func  # noqa: F401\n")
    ex = agent.SingleTurnAgentExecutor(remote_rm_url=str(f))  # loads reward_func from the file, as in training
    queries, prompts, labels = _rollouts(dbs)
    labels = [dict(l, db_path=dbs.bird_shop) for l in labels]
    out = asyncio.run(ex._fetch_rewards_via_func(queries, prompts, labels))
    assert [float(o["scores"][0]) for o in out] == [1.0, 0.0, 0.0]  # one call per rollout (batch_size 1)
