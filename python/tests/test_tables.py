"""The library's tables read instead of copied (issue 32, "generated, not copied"): the registry of
benchmarks and the `--shard i/n` parser come from C++ (the native module, or the build's JSON)."""

import importlib
import json
import os

import pytest

import sqlgrade
from sqlgrade import _tables
from sqlgrade._dbref import resolve_db
from sqlgrade._evaluate import shard_pair
from sqlgrade.errors import InputError

from conftest import Dbs, needs_native

config = importlib.import_module("sqlgrade.config")


@needs_native
def test_registry_json_is_the_native_export():
    from sqlgrade import _native
    native = json.loads(_native.registry())
    with open(_tables._REGISTRY, encoding="utf-8") as f:
        assert json.load(f) == native  # the server-only mode's data file: the same table
    assert _tables.registry() == native
    assert [b["name"] for b in native["benchmarks"]] == ["spider2", "spider", "bird"]
    spider2 = native["benchmarks"][0]
    assert "spider2-lite" in spider2["aliases"] and spider2["layout"] == "flat"
    assert spider2["database"] == "<root>/<id>.sqlite"
    assert native["benchmarks"][2]["database"] == "<root>/<id>/<id>.sqlite"


def test_python_keeps_no_copy_of_the_names():
    for mod in (config, _tables, importlib.import_module("sqlgrade._dbref")):
        source = open(mod.__file__, encoding="utf-8").read()
        for alias in ("spider2_lite", "spider2lite", "testsuite", "test-suite"):
            assert f'"{alias}"' not in source, (mod.__name__, alias)
    assert config.BENCHMARKS == ("spider2", "spider", "bird")


def test_names_are_looked_up_as_the_library_does():
    # whitespace around a name is ignored, any case: the rule of verdicts::benchmark_named too
    assert config.normalize_benchmark(" Spider2-Lite\n") == "spider2"
    assert config.normalize_benchmark("TEST-SUITE") == "spider"
    assert config.normalize_benchmark("bird") == "bird"
    for bad in ("spider 2", "", None, 3):
        with pytest.raises(sqlgrade.InputError, match=r"unknown benchmark .* \(expected spider2, spider or bird\)"):
            config.normalize_benchmark(bad)


@needs_native
def test_native_and_python_accept_the_same_names(dbs: Dbs):
    from sqlgrade import _native
    for name in (" bird ", "\tspider2_lite", "Test-Suite "):
        db = dbs.school if "suite" in name.lower() else dbs.shop
        req = {"benchmark": name, "db_id": "x", "db": db, "sql": "SELECT 1", "gold_sql": "SELECT 1"}
        reply = _native.verdict(req)  # verdicts::benchmark_named strips as _tables.canonical does
        assert reply["benchmark"] == config.normalize_benchmark(name) and reply["reward"] == 1.0


def test_database_paths_follow_the_registry():
    assert _tables.database_path("spider2", "/d", "x") == "/d/x.sqlite"
    assert _tables.database_path("bird", "/d/", "x") == "/d/x/x.sqlite"


@needs_native
def test_a_bare_id_is_looked_up_by_the_servers_rule(tmp_path):
    """resolve_db's db_root lookup is the library's Benchmark::locate (the reward server's): each case
    of each layout, and Spider's refusal of a flat file, as the server answers it."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "a.sqlite").write_bytes(b"")
    (tmp_path / "b.sqlite").write_bytes(b"")
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "v1.sqlite").write_bytes(b"")
    root = str(tmp_path)
    assert resolve_db("a", "bird", root).path == str(tmp_path / "a" / "a.sqlite")
    assert resolve_db("b", "bird", root).path == str(tmp_path / "b.sqlite")  # the other layout, second
    assert resolve_db("b", "spider2", root).path == str(tmp_path / "b.sqlite")
    assert resolve_db("a", "spider2", root).path == str(tmp_path / "a" / "a.sqlite")
    assert resolve_db("a", "spider", root).path == str(tmp_path / "a" / "a.sqlite")
    assert resolve_db("suite", "spider", root).path == str(tmp_path / "suite")  # the folder is the suite
    for bench in ("bird", "spider2"):  # a folder without its namesake is no database of theirs
        with pytest.raises(InputError, match="no database for it under"):
            resolve_db("suite", bench, root)
    with pytest.raises(InputError, match="needs the test-suite layout") as e:
        resolve_db("b", "spider", root)  # before: Python took the flat file the server refuses
    from sqlgrade import _native
    assert str(e.value) == _native.locate_database("spider", root, "b")[1]
    with pytest.raises(InputError, match="no database for it under"):
        resolve_db("zz", "bird", root)


def test_uri_schemes_are_the_librarys():
    assert _tables.uri_schemes() == {"postgresql": "postgresql", "postgres": "postgresql",
                                     "mysql": "mysql", "mariadb": "mysql"}
    ref = resolve_db("MariaDB://reader@h/BIRD?socket=/s", "bird")
    assert (ref.db_id, ref.dialect) == ("BIRD", "mysql")
    assert resolve_db("postgres://r@h/bird", "bird").dialect == "postgresql"


@needs_native
def test_shard_is_parsed_by_the_cli_parser():
    assert shard_pair("2/8") == (2, 8)
    assert shard_pair(None) == (0, 0)
    for bad in ("0/3", "4/3", "1/", "x/2", "\u00b2/3", "1/99999999"):
        with pytest.raises(sqlgrade.InputError) as e:
            shard_pair(bad)
        assert str(e.value) == f"--shard: expected i/n with 1 <= i <= n (e.g. 2/8), got '{bad}'"
    source = open(os.path.join(os.path.dirname(_tables.__file__), "_evaluate.py"), encoding="utf-8").read()
    assert "isdigit" not in source  # no second parser


def _flags_file():
    with open(_tables._CLI_FLAGS, encoding="utf-8") as f:
        return json.load(f)


@needs_native
def test_cli_flag_table_json_is_the_native_export():
    from sqlgrade import _native
    assert json.loads(_native.cli_flags()) == _flags_file() == _tables.cli_flags()


def test_every_cli_flag_has_its_path_role():
    spider = _tables.command_flags("spider")
    assert spider["gold"]["path"] == "reads_file" and spider["db"]["path"] == "reads_folder"
    assert spider["etype"]["path"] == "value" and spider["j"] is spider["jobs"]
    assert spider["json"]["path"] == "writes_file" and spider["json-dir"]["path"] == "writes_folder"
    assert spider["plug-value"]["value"] is False  # a switch: takes no value
    bird = _tables.command_flags("bird")
    assert bird["db-root-path"] is bird["db"] and bird["predicted-sql-path"]["path"] == "reads_file"
    assert _tables.command_flags("spider2")["result-dir"]["path"] == "reads_folder"
    assert _tables.command_flags("uda run")["results"]["path"] == "reads_folder"
    assert _tables.command_flags("diff")["json"]["path"] == "writes_file"
    assert [r["path"] for r in _tables.cli_flags()["diff"] if r["positional"]] == ["reads_file", "reads_file"]
    # A text option whose name speaks of files, folders or databases is a path unless it is one of
    # these values: a new flag is given its role where it is defined (src/cli, flags.hpp path_role).
    values = {"--sql_dialect", "--data_mode", "--mode_predict", "--mode_gt", "--db-id", "--database", "--dataset",
              "--dsn", "--admin-dsn", "--dialect"}
    words = ("file", "dir", "path", "json", "log", "out", "db", "gold", "pred", "table", "question", "result",
             "meta", "cache", "input", "request", "dump", "root", "data", "csv", "counterexample", "temp", "sql")
    for command, rows in _tables.cli_flags().items():
        for r in rows:
            name = (r["names"] or [r["positional"]])[0]
            if r["value"] and r["path"] == "value" and r["type"] not in ("INT", "UINT", "FLOAT") and name not in values:
                assert not any(w in name.lower() for w in words), (command, name)


def test_label_and_extract_keys_are_the_librarys():
    from sqlgrade import _rows
    table = _tables.registry()
    assert _rows.LABEL_KEYS == tuple(table["label_keys"]) and "alternative_answers" in _rows.LABEL_KEYS
    assert config.EXTRACT_KEYS == ("word_boundary", "tags_and_json", "raw_fallback", "after_think")
    assert config.EXTRACT_PRESETS == ("sqlgrade", "gym-bird-0.4", "gym-bird-0.7")
    assert '"reward_components"' not in open(_rows.__file__, encoding="utf-8").read()
    source = open(config.__file__, encoding="utf-8").read()
    assert '"tags_and_json"' not in source and '"gym-bird-0.4"' not in source


@needs_native
def test_label_keys_are_the_native_table():
    from sqlgrade import _native, _rows
    assert _rows.LABEL_KEYS == tuple(_native.label_keys())


def test_shaping_fields_are_the_librarys():
    """Shaping declares the request's score fields for the Python API; the library's list (names, order,
    defaults) is the one the request parser reads, so a field added or renamed on one side fails here."""
    import dataclasses
    from sqlgrade import shaping
    lib = _tables.registry()["shaping_fields"]
    declared = [f for f in dataclasses.fields(shaping.Shaping) if f.name != "order"]
    assert [f.name for f in declared] == [f["name"] for f in lib] == list(shaping.SCORE_FIELDS)
    assert [f.default for f in declared] == [f["default"] for f in lib]
    assert set(shaping.SHAPING_KWARGS) == {f["name"] + "_score" for f in lib} | {"order"}
    sent = shaping.Shaping(wrong_result=0.25).request_fields()
    assert sent == {"order": "benchmark", "shaping": {"correct": 1.0, "wrong_result": 0.25, "error": 0.0,
                                                      "no_sql": 0.0, "gold_error": 0.0}}
