"""Run by NeMo Gym's own interpreter (.venv-gym: nemo-gym 0.4.0; .venv-gym7: 0.7.0) for test_nemo_gym.py and
bench/gym_side_by_side.py (gym_run.client): Gym's client
(nemo_gym.server_utils.ServerClient, found through Gym's head server) posts the same verify requests to
Gym's Python resources servers and to sqlgrade's, validates sqlgrade's replies with Gym's own response
models, and times a batch through each.

    python gym_client.py SPEC.json   ->   one JSON object on stdout

SPEC: {"head_port", "parity": [{"gym", "ours", "model", "rows"}], "benches": [{"gym", "ours", "rows"}],
       "concurrency"}   ->   {"parity": [...], "bench": {server: {"seconds", "rewards", "failure_reasons"}}}
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import time
from typing import Any, Dict, List

from nemo_gym.config_types import AggregateMetrics, BaseServerConfig
from nemo_gym.base_resources_server import BaseVerifyResponse
from nemo_gym.server_utils import ServerClient, get_response_json, raise_for_status


async def _post(client: ServerClient, server: str, path: str, body: Any) -> Any:
    res = await client.post(server_name=server, url_path=path, json=body)
    await raise_for_status(res)
    return await get_response_json(res)


async def _verify_all(client: ServerClient, server: str, rows: List[Dict[str, Any]], concurrency: int) -> List[Any]:
    sem = asyncio.Semaphore(concurrency)

    async def one(row: Dict[str, Any]) -> Any:
        async with sem:
            return await _post(client, server, "/verify", row)

    return await asyncio.gather(*(one(r) for r in rows))


def _model(path: str) -> Any:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


async def main(spec: Dict[str, Any]) -> Dict[str, Any]:
    head = BaseServerConfig(host="127.0.0.1", port=spec["head_port"])
    client = ServerClient.load_from_global_config(head)
    out: Dict[str, Any] = {"parity": [], "bench": {}}
    for p in spec["parity"]:
        gym = await _verify_all(client, p["gym"], p["rows"], 8)
        ours = await _verify_all(client, p["ours"], p["rows"], 8)
        model = _model(p["model"])
        invalid = []
        for i, o in enumerate(ours):  # Gym's client side accepts sqlgrade's replies as its own server's
            for m in (model, BaseVerifyResponse):
                try:
                    m.model_validate(o)
                except ValueError as e:  # pydantic's ValidationError
                    invalid.append(f"row {i}: {m.__name__}: {' '.join(str(e).split())[:300]}")
        stripped = [{"_ng_task_index": i, "_ng_rollout_index": 0, "reward": o["reward"], **{
            k: o[k] for k in ("failure_reason",) if k in o}} for i, o in enumerate(ours)]
        agg = await _post(client, p["ours"], "/aggregate_metrics", {"verify_responses": stripped})
        AggregateMetrics.model_validate(agg)
        gym_agg = await _post(client, p["gym"], "/aggregate_metrics", {"verify_responses": stripped})
        res = await client.get(server_name=p["ours"], url_path="/reverify_mode")
        await raise_for_status(res)
        root = await client.get(server_name=p["ours"], url_path="/")
        out["parity"].append({"gym": gym, "ours": ours, "aggregate": agg, "gym_aggregate": gym_agg,
                              "reverify_mode": await get_response_json(res), "root_status": root.status,
                              "invalid": invalid})
    for b in spec.get("benches", []):
        for name in (b["gym"], b["ours"]):
            await _verify_all(client, name, b["rows"][:32], spec["concurrency"])  # warm both (connections, golds)
            t0 = time.perf_counter()
            replies = await _verify_all(client, name, b["rows"], spec["concurrency"])
            out["bench"][name] = {"seconds": time.perf_counter() - t0, "rewards": [r["reward"] for r in replies],
                                  "failure_reasons": [r.get("failure_reason") for r in replies]}
    return out


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    sys.argv = sys.argv[:1]  # Gym reads the command line as Hydra overrides of its global config
    print(json.dumps(asyncio.run(main(spec))))
