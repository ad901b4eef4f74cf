"""NeMo Gym's launcher with Gym's own SQL servers beside sqlgrade's folder, on the same databases: used by
python/tests/hosts/test_nemo_gym.py (0.4.0 in .venv-gym, 0.7.0 in .venv-gym7) and by
bench/gym_side_by_side.py.

One `ng_run` (head server, one process per server, `python app.py` in each server's folder; on a Ray head
started first: see _ray_head) starts
    gym_spider2_lite / gym_bird_sql           Gym's Python servers (resources_servers/spider2_lite, bird_sql)
    sqlgrade_spider2_lite / sqlgrade_bird_sql sqlgrade's folder, configured from its shipped configs/*.yaml
in a temporary Gym root, offline: every server's venv is a link to Gym's venv where Gym looks for it
(`+uv_venv_dir`), so `+skip_venv_if_present=true` keeps Gym from building venvs with uv and the network.
Then gym_client.py (run by Gym's interpreter) posts rows through Gym's ServerClient.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Tuple

import yaml

from _hosts import REPO, clean_env, run

OURS = os.path.join(REPO, "integrations", "nemo_gym", "resources_servers", "sqlgrade")
CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gym_client.py")
SERVERS = ("gym_spider2_lite", "gym_bird_sql", "sqlgrade_spider2_lite", "sqlgrade_bird_sql")


def gym_python(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


def gym_version(venv: str) -> str:
    r, _ = run([gym_python(venv), "-c", "import importlib.metadata as m; print(m.version('nemo-gym'))"])
    return r.stdout.strip()


def gym_site(venv: str) -> str:
    r, _ = run([gym_python(venv), "-c", "import nemo_gym, os; print(os.path.dirname(os.path.dirname(nemo_gym.__file__)))"])
    return r.stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jsonl(path: str) -> List[Dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def shipped_block(config: str, key: str) -> Dict[str, Any]:
    with open(os.path.join(OURS, "configs", config), encoding="utf-8") as f:
        return yaml.safe_load(f)[key]["resources_servers"]["sqlgrade"]


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)  # Gym's own shutdown: servers, then its Ray cluster
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _layout(root: str, venv: str, data: str, sqlgrade_bin: str) -> str:
    """The Gym root: sqlgrade's folder, a venv link per server, copies of the databases, the config."""
    shutil.copytree(OURS, os.path.join(root, "resources_servers", "sqlgrade"))  # the folder a Gym user copies
    for name in ("sqlgrade", "spider2_lite", "bird_sql"):  # every server runs in Gym's venv (skip_venv_if_present)
        d = os.path.join(root, "venvs", "resources_servers", name)
        os.makedirs(d)
        os.symlink(venv, os.path.join(d, ".venv"))
    # the same databases for both sides, copied (Gym's servers open them read-write)
    s2 = os.path.join(root, "dbs", "spider2", "sqlite")
    shutil.copytree(os.path.join(data, "spider2lite", "databases"), s2)
    bird = os.path.join(root, "dbs", "bird", "dev_20240627", "dev_databases")
    shutil.copytree(os.path.join(data, "bird", "dev_databases"), bird)
    meta = {"domain": "coding", "verified": False, "description": "test", "value": "test"}
    ours_s2 = dict(shipped_block("spider2_lite.yaml", "spider2_lite_resources_server"), db_dir=s2,
                   sqlgrade_bin=sqlgrade_bin)
    ours_bird = dict(shipped_block("bird_sql.yaml", "bird_sql_resources_server"), db_dir=bird,
                     sqlgrade_bin=sqlgrade_bin)
    config = {
        "gym_spider2_lite": {"resources_servers": {"spider2_lite": {
            "entrypoint": "app.py", "spider2_lite_dir": os.path.dirname(s2), **meta}}},
        "gym_bird_sql": {"resources_servers": {"bird_sql": {
            "entrypoint": "app.py", "bird_sql_dir": os.path.dirname(os.path.dirname(bird)), **meta}}},
        "sqlgrade_spider2_lite": {"resources_servers": {"sqlgrade": ours_s2}},
        "sqlgrade_bird_sql": {"resources_servers": {"sqlgrade": ours_bird}},
    }
    cfg = os.path.join(root, "servers.yaml")
    with open(cfg, "w", encoding="utf-8") as f:
        yaml.safe_dump(config, f)
    return cfg


def _priority() -> None:
    """In a child before exec (root only; otherwise a no-op): the highest CPU priority but one, for the
    Ray head and for `ng_run` alike (so for Gym's servers, Ray's workers and sqlgrade's server: every side
    of a timing runs at the same priority). Ray's raylet gives its Python agents a fixed 15 s to start;
    on this 2-core machine, shared by several builds, they missed it at the default share."""
    try:
        os.nice(-19)
    except OSError:
        pass


def _ray_head(venv: str, tmp: str, env: Dict[str, str]) -> Tuple[subprocess.Popen, str]:
    """A Ray head for Gym to join (`+ray_head_node_address`, Gym's option for an existing cluster):
    `ray start --head --block` of Gym's venv, without the dashboard, in its own session (stopped by
    its process group, never `ray stop`, which would end every Ray of the machine). Ray's node start
    has a fixed 30 s limit (ray/_private/node.py) that Gym's own in-process start kept missing on this
    2-core machine shared by several builds; a head that is not up is stopped and started again."""
    port = free_port()
    address = f"127.0.0.2:{port}"  # not 127.0.0.1: Ray replaces that by the machine's network address
    ray = os.path.join(venv, "bin", "ray")
    for attempt in range(3):
        log = os.path.join(tmp, f"ray-head.{attempt}.log")
        with open(log, "w") as f:
            proc = subprocess.Popen([ray, "start", "--head", "--block", "--port", str(port), "--node-ip-address",
                                     "127.0.0.2", "--include-dashboard", "false", "--num-cpus", "2",
                                     "--temp-dir", os.path.join(tmp, "t")], env=env, stdout=f,
                                    stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_priority)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            try:  # up when the GCS lists the node as active (the GCS alone answers before the raylet fails)
                out = subprocess.run([ray, "status", "--address", address], env=env, capture_output=True,
                                     text=True, timeout=60)
                active = out.stdout.split("Active:", 1)[-1].split("Pending:", 1)[0]
                if out.returncode == 0 and " node_" in active:
                    time.sleep(5)
                    if proc.poll() is None:
                        return proc, address
            except subprocess.TimeoutExpired:
                pass
            time.sleep(3)
        _stop(proc)
    with open(log, encoding="utf-8", errors="replace") as f:
        raise AssertionError(f"ray start --head: not up after 3 attempts:\n{f.read()[-4000:]}")


def start(root: str, venv: str, data: str, sqlgrade_bin: str, attempts: int = 2) -> Dict[str, Any]:
    """Lays out the Gym root, starts a Ray head and `ng_run` on it; returns {"proc", "ray", "root", "site",
    "head", "log", "seconds", "version", "venv"} once Gym reports every server ready. AssertionError with
    the log's tail when not."""
    cfg = _layout(root, venv, data, sqlgrade_bin)
    head = free_port()
    # Ray: its own temp folder, a token of this run only (not the machine's ~/.ray token), a longer
    # wait for its agents (a loaded 2-core machine needs more than the default to register them).
    ray_tmp = tempfile.mkdtemp(prefix="rg", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = clean_env(RAY_USAGE_STATS_ENABLED="0", PYTHONUNBUFFERED="1", RAY_TMPDIR=os.path.join(ray_tmp, "t"),
                    RAY_agent_register_timeout_ms="180000", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    env = {k: v for k, v in env.items() if k != "RAY_ADDRESS"}
    t0 = time.monotonic()
    ray_proc, ray_address = _ray_head(venv, ray_tmp, env)
    log_path = os.path.join(root, "ng_run.log")
    ready, proc = False, None
    for _ in range(attempts):
        with open(log_path, "w") as log:
            proc = subprocess.Popen([os.path.join(venv, "bin", "ng_run"), f"+config_paths=[{cfg}]",
                                     "+head_server.host=127.0.0.1", f"+head_server.port={head}",
                                     f"+ray_head_node_address={ray_address}",
                                     "+skip_venv_if_present=true", f"+uv_venv_dir={os.path.join(root, 'venvs')}"],
                                    cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=_priority)
        deadline = time.monotonic() + 420
        while time.monotonic() < deadline and proc.poll() is None:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                if f"All {len(SERVERS)} / {len(SERVERS)} servers ready" in f.read():
                    ready = True
                    break
            time.sleep(2)
        if ready:
            break
        _stop(proc)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if not ready:
        _stop(ray_proc)
    assert ready, text[-6000:]
    return {"proc": proc, "ray": ray_proc, "root": root, "site": gym_site(venv), "head": head, "log": log_path,
            "ray_tmp": ray_tmp, "seconds": time.monotonic() - t0, "version": gym_version(venv), "venv": venv}


def stop(g: Dict[str, Any]) -> None:
    _stop(g["proc"])
    _stop(g["ray"])
    shutil.rmtree(g["ray_tmp"], ignore_errors=True)


def client(g: Dict[str, Any], spec: Dict[str, Any], cwd: str, timeout: float = 900) -> Dict[str, Any]:
    """Runs gym_client.py with Gym's interpreter on `spec` (head_port filled in); returns its JSON."""
    path = os.path.join(cwd, "spec.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dict(spec, head_port=g["head"]), f)
    r, _ = run([gym_python(g["venv"]), CLIENT, path], env=clean_env(), cwd=cwd, timeout=timeout)
    return json.loads(r.stdout.strip().splitlines()[-1])


# The verify reply's own fields: a rollout row holds them, a verify request must not (Gym's server
# builds its reply with reward=... and fails with "multiple values for keyword argument 'reward'").
_REPLY_FIELDS = ("reward", "model_output", "extracted_sql", "execution_match", "failure_reason", "had_codeblock")


def _request(row: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in row.items() if k not in _REPLY_FIELDS}


def spider2_rows(site: str) -> List[Dict[str, Any]]:
    return [_request(r) for r in jsonl(os.path.join(site, "resources_servers", "spider2_lite", "data",
                                                    "example_rollouts.jsonl"))]


def bird_rows(site: str) -> List[Dict[str, Any]]:
    d = os.path.join(site, "resources_servers", "bird_sql", "data")
    tasks, rollouts = jsonl(os.path.join(d, "example.jsonl")), jsonl(os.path.join(d, "example_rollouts.jsonl"))
    assert len(tasks) == len(rollouts)
    rows = []
    for t, r in zip(tasks, rollouts):  # the rollouts file keeps only the model side; the task row has the rest
        prompt = " ".join(str(m.get("content", "")) for m in r["responses_create_params"]["input"])
        assert t["question"].strip()[:80] in prompt  # the same task, in the same order
        rows.append(_request(dict(t, response=r["response"])))
    return rows


def text(row: Dict[str, Any]) -> str:
    return "".join(c.get("text", "") for o in row["response"]["output"] if o.get("type") == "message"
                   for c in o.get("content", []) if c.get("type") == "output_text")


def _with_text(row: Dict[str, Any], answer: str, i: int) -> Dict[str, Any]:
    r = json.loads(json.dumps(row))
    msg = next(o for o in r["response"]["output"] if o.get("type") == "message")
    msg["content"] = [{"type": "output_text", "text": answer, "annotations": []}]
    r["_ng_task_index"], r["_ng_rollout_index"] = i // 16, i % 16
    return r


def bench_rows(rows: List[Dict[str, Any]], gold_key: str = "gold_sql", n: int = 2048) -> List[Dict[str, Any]]:
    """n rollouts over the example tasks: the recorded answer, the gold, a wrong query, a failing one, no SQL."""
    out = []
    for i in range(n):
        row = rows[i % len(rows)]
        kind = (i // len(rows)) % 5
        answer = [text(row), f"```sql\n{row[gold_key]}\n```", "```sql\nSELECT 1\n```",
                  "```sql\nSELECT nope FROM nowhere\n```", "I do not know."][kind]
        out.append(_with_text(row, answer, i))
    return out
