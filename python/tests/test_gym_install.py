"""`python -m sqlgrade.gym install GYM_ROOT` (issue 34 item 6): the NeMo Gym folder written into a Gym
root from the package (here the checkout's copy; the wheel's `sqlgrade/gym_server` is checked by
hosts/test_wheel.py and wheels/test_wheels.py), its configs/local.yaml read back by the folder's own
app.py into the `sqlgrade serve` command Gym will start, and the one-line errors."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
import yaml

import sqlgrade.gym as sg

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _gym(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlgrade.gym", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60)


def test_install_writes_the_folder_the_local_config_and_the_venv_link(tmp_path):
    root, dbs = tmp_path / "gym", tmp_path / "dbs it's"  # a quote in the path: YAML quoting
    root.mkdir()
    dbs.mkdir()
    r = _gym("install", str(root), "--benchmark", "bird", "--db-dir", str(dbs), cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    dest = root / "resources_servers" / "sqlgrade"
    assert f"wrote {dest}" in r.stdout and "configs/local.yaml" in r.stdout
    shipped = os.path.join(REPO, "integrations", "nemo_gym", "resources_servers", "sqlgrade")
    for rel in ("app.py", "requirements.txt", "configs/spider2_lite.yaml", "configs/bird_sql.yaml", "configs/spider.yaml"):
        with open(os.path.join(shipped, rel), "rb") as a, open(dest / rel, "rb") as b:
            assert a.read() == b.read(), rel
    assert os.path.realpath(dest / ".venv") == os.path.realpath(sys.prefix)
    assert not (tmp_path / "gym" / "resources_servers" / "sqlgrade.partial").exists()

    cfg = yaml.safe_load((dest / "configs" / "local.yaml").read_text())
    assert list(cfg) == ["bird_sql_resources_server"]  # Gym's own top-level name; no agent, no model server
    server = cfg["bird_sql_resources_server"]["resources_servers"]["sqlgrade"]
    assert server["db_dir"] == str(dbs) and server["benchmark"] == "bird" and server["entrypoint"] == "app.py"
    # the folder's app.py turns it into the command Gym's launcher will exec
    spec = importlib.util.spec_from_file_location("gym_app", dest / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    args = app.serve_args(dict(server, host="127.0.0.1", port=4321))
    assert args[:9] == ["serve", "--host", "127.0.0.1", "--port", "4321", "--benchmark", "bird", "--db-dir", str(dbs)]
    assert ["--bird-db-dir", str(dbs)] == args[9:11] and "--timeout" in args
    # Gym's and axolotl's default verify timeout: the whole verify, from dispatch (--request-budget)
    assert server["verify_timeout_s"] == 30.0 and args[args.index("--request-budget") + 1] == "30.0"
    for rel in ("spider2_lite.yaml", "bird_sql.yaml", "spider.yaml"):
        shipped_cfg = yaml.safe_load((dest / "configs" / rel).read_text())
        node = next(iter(next(iter(shipped_cfg.values()))["resources_servers"].values()))
        assert node["verify_timeout_s"] == 30.0, rel
    more = app.serve_args(dict(server, extract_preset="gym-bird-0.7", reward_components=True, queue_timeout_s=5))
    assert more[-7:-2] == ["--queue-timeout", "5", "--extract-preset", "gym-bird-0.7", "--reward-components"]
    # Gym validates replies with its own models: failure_reason in Gym's words (docs/serve.md)
    assert args[-2:] == more[-2:] == ["--failure-codes", "gym"]


def test_install_refuses_to_overwrite_and_reports_bad_input(tmp_path):
    root = tmp_path / "gym"
    root.mkdir()
    assert _gym("install", str(root), "--no-venv", cwd=str(tmp_path)).returncode == 0
    assert not (root / "resources_servers" / "sqlgrade" / ".venv").exists()
    assert not (root / "resources_servers" / "sqlgrade" / "configs" / "local.yaml").exists()  # no --db-dir
    r = _gym("install", str(root), cwd=str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "exists (--force replaces it)" in r.stderr, r.stderr
    assert _gym("install", str(root), "--force", "--db-dir", str(tmp_path), cwd=str(tmp_path)).returncode == 0
    r = _gym("install", str(tmp_path / "nowhere"), cwd=str(tmp_path))
    assert r.returncode == 2 and "nowhere: no such folder" in r.stderr
    r = _gym("install", str(root), "--force", "--db-dir", str(tmp_path / "nodb"), cwd=str(tmp_path))
    assert r.returncode == 2 and "nodb: no such folder (--db-dir" in r.stderr
    with pytest.raises(ValueError, match="unknown benchmark 'x'"):
        sg.install(str(root), benchmark="x", force=True)


def test_path_names_the_shipped_folder(tmp_path):
    r = _gym("path", cwd=str(tmp_path))
    assert r.returncode == 0 and os.path.isfile(os.path.join(r.stdout.strip(), "app.py"))
