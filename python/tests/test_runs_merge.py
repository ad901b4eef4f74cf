"""`sqlgrade.runs.merge` (the library's `sqlgrade merge`, in-process) and `sqlgrade.uda.run`'s run record
(`run.json`, with `shard`/`shard_by`/`name`): parity with the CLI of the same build, on the UDA Shop
fixture (gold fed back as the system's results, one result removed, one unusable).

What could go wrong and is checked: a part's record differing from `uda run --shard i/n --json`; the
merged record or its printed table differing from `sqlgrade merge` on the same parts; a merge that
does not give the one-process run's summary and ids; bad parts not refused with the CLI's message;
something written under the output's name when the merge is refused.
"""

from __future__ import annotations

import json
import os
from typing import List

import pytest

import sqlgrade
from conftest import needs_native, read_text
from sqlgrade import runs, uda
from test_evaluate import cli, input_error_of, needs_cli, stable, uda_fx  # noqa: F401 - uda_fx is a fixture

pytestmark = [needs_native, needs_cli]


def _parts(fx, results: str, n: int, by: str, where: str) -> List[str]:
    """uda.run on each shard i/n (by `by`), its record written to where/part-i.json; and the same shard
    graded by the CLI into where/cli-i.json, compared."""
    paths = []
    for i in range(1, n + 1):
        run = uda.run(dataset_dir=fx["dataset"], results=results, shard=f"{i}/{n}", shard_by=by, name="shop-sys")
        assert run.json is not None
        paths.append(os.path.join(where, f"part-{i}.json"))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(run.json)
        ref = os.path.join(where, f"cli-{i}.json")
        rc, _, err = cli("uda", "run", "--dataset-dir", fx["dataset"], "--results", results, "--shard", f"{i}/{n}",
                         "--shard-by", by, "--name", "shop-sys", "--json", ref)
        assert rc == 0, err
        with open(ref, encoding="utf-8") as f:
            assert stable(json.loads(run.json)) == stable(json.load(f))
    return paths


@pytest.mark.parametrize("by", ["id", "db"])
def test_uda_shards_merged_in_process_equal_the_cli(uda_fx, tmp_path, by) -> None:
    fx = uda_fx
    whole = str(tmp_path / "whole.json")
    rc, _, err = cli("uda", "run", "--dataset-dir", fx["dataset"], "--results", fx["results"], "--name", "shop-sys",
                     "--json", whole)
    assert rc == 0, err
    with open(whole, encoding="utf-8") as f:
        ref = json.load(f)
    assert len(ref["instances"]) >= 3
    parts = _parts(fx, fx["results"], 3, by, str(tmp_path))
    if by == "id":  # the fixture's statements are split; by dataset (one here), one part holds them all
        assert sum(1 for p in parts if json.loads(read_text(p))["instances"]) >= 2
    out = str(tmp_path / "merged.json")
    m = runs.merge(parts, out, command=["x"])
    cli_out = str(tmp_path / "cli-merged.json")
    rc, stdout, err = cli("merge", *parts, "-o", cli_out)
    assert rc == 0, err
    assert m.text == stdout and m.parts == 3 and len(m.instances) == len(ref["instances"])
    assert [i["id"] for i in m.instances] == [i["id"] for i in json.loads(m.json)["instances"]]
    with open(out, encoding="utf-8") as a, open(cli_out, encoding="utf-8") as b:
        written, by_cli = json.load(a), json.load(b)
    assert written == m.record and stable(written) == stable(by_cli)
    assert written["command"] == ["x"]
    assert written["summary"] == ref["summary"]
    assert [i["id"] for i in written["instances"]] == [i["id"] for i in ref["instances"]]
    assert stable(written["instances"]) == stable(ref["instances"])


def test_merge_refuses_bad_parts_like_the_cli(uda_fx, tmp_path) -> None:
    fx = uda_fx
    parts = _parts(fx, fx["results"], 2, "id", str(tmp_path))
    out = str(tmp_path / "merged.json")
    for bad in ([parts[0], parts[0]], [parts[0]], [parts[0], str(tmp_path / "missing.json")]):
        msg = input_error_of(["merge", *bad, "-o", out])
        with pytest.raises(sqlgrade.InputError) as e:
            runs.merge(bad, out)
        assert str(e.value) == msg
        assert not os.path.exists(out)  # nothing written under the output's name
    msg = input_error_of(["merge", *parts, "-o", parts[1]])
    before = read_text(parts[1])
    with pytest.raises(sqlgrade.InputError) as e:
        runs.merge(parts, parts[1])
    assert str(e.value) == msg and "would replace the input" in msg
    assert read_text(parts[1]) == before
    with pytest.raises(sqlgrade.InputError, match="parts must be a list"):
        runs.merge(parts[0])
    with pytest.raises(sqlgrade.InputError, match="no parts given"):
        runs.merge([])


def test_uda_run_shard_is_checked_like_the_cli(uda_fx, tmp_path) -> None:
    fx = uda_fx
    for shard, by in (("3/2", "id"), ("0/2", "db"), ("1/2", "table")):
        args = ["uda", "run", "--dataset-dir", fx["dataset"], "--results", fx["results"], "--shard", shard]
        rc, _, err = cli(*args, "--shard-by", by)
        assert rc == 2, err
        with pytest.raises(sqlgrade.InputError) as e:
            uda.run(dataset_dir=fx["dataset"], results=fx["results"], shard=shard, shard_by=by)
        if by == "table":  # the CLI's flag parser refuses the choice; the library names the option
            assert "table" in str(e.value) and "--shard-by" in err
        else:
            assert err.strip().splitlines()[-1] == f"sqlgrade: {e.value}"
