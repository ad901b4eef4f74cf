"""Database references: a path (file or folder) or a bare db_id, resolved per benchmark.

Layouts, as ``sqlgrade serve`` resolves a ``db_id`` under its folders: a bare id under ``db_root`` is
looked up by the library itself (``_native.locate_database``, the benchmark's ``Benchmark::locate``), so
Python and the server cannot disagree. Its own layout first, then the other one:

* spider2: ``<dir>/<db_id>.sqlite`` (or ``<dir>/<db_id>/<db_id>.sqlite``)
* bird:    ``<dir>/<db_id>/<db_id>.sqlite`` (or ``<dir>/<db_id>.sqlite``)
* spider:  ``<dir>/<db_id>/<db_id>.sqlite``, else the folder ``<dir>/<db_id>/``; every ``*.sqlite`` in it
  is a test-suite database (the registry's ``grades_folders``); a flat ``<dir>/<db_id>.sqlite`` is refused

So a path names its db_id: a file's stem (spider2, bird) or its folder's name (spider), and a
folder its own name. A bare id (no path separator, no ``.sqlite``) is looked up under
``db_root`` when one is configured; otherwise only a server can resolve it (in its own folders). Without
the native module (server-only mode) a bare id is left to the server: its requests carry ``db_id``, never
a path.

A PostgreSQL or MySQL database (benchmark bird, docs/bird.md "PostgreSQL and MySQL") is its URI,
``postgresql://reader@host/bird`` or ``mysql://reader@host/BIRD?socket=...``: the native backend
connects to it; a reward server never takes a URI and grades on its own ``--dsn`` database of that
dialect (the request carries ``dialect``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple, Union

from . import _tables
from ._unicode import check_text
from .errors import InputError

__all__ = ["DbRef", "resolve_db"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class DbRef:
    db_id: str
    path: Optional[str]  # absolute; None when only a server can resolve the id; a server database's URI
    dialect: Optional[str] = None  # "postgresql" / "mysql" for a server database, else None


def _server_ref(db: str) -> Optional[DbRef]:
    """A PostgreSQL / MySQL URI as a reference: its database name is the db_id. The schemes are the
    library's one list (``engine/server.hpp`` ``server_schemes``, in the registry)."""
    scheme, sep, rest = db.partition("://")
    dialect = _tables.uri_schemes().get(scheme.lower()) if sep else None
    if dialect is None:
        return None
    name = rest.split("?", 1)[0].partition("/")[2]
    if not name:
        raise InputError(f"{db}: the URI names no database")
    return DbRef(name, db, dialect)


def _looks_like_path(s: str) -> bool:
    return os.sep in s or "/" in s or s.endswith((".sqlite", ".db", ".sqlite3")) or os.path.exists(s)


def resolve_db(db: object, benchmark: str, db_root: Optional[str] = None,
               memo: Optional[Dict[Tuple[str, str, Optional[str]], DbRef]] = None) -> DbRef:
    """Resolve ``db`` (path or id) for ``benchmark``; raises InputError for a missing path.
    ``memo`` (one batch's dict) keeps each resolved reference: a 2,048-rollout batch on a few
    databases then stats each once instead of twice per rollout (~20% of the batch's Python time)."""
    if isinstance(db, os.PathLike):
        db = os.fspath(db)
    if memo is None or not isinstance(db, str):
        return _resolve(db, benchmark, db_root)
    key = (db, benchmark, db_root)
    ref = memo.get(key)
    if ref is None:
        ref = memo[key] = _resolve(db, benchmark, db_root)
    return ref


def _resolve(db: object, benchmark: str, db_root: Optional[str]) -> DbRef:
    if not isinstance(db, str) or not db.strip():
        raise InputError(f"db must be a database path or id, got {db!r}")
    check_text(db, "db")
    server = _server_ref(db)
    if server is not None:
        return server
    if not _looks_like_path(db):
        if db.startswith(".") or "\\" in db or "\0" in db:
            raise InputError(f"{db}: not a valid database id")
        return DbRef(db, _under_root(db, benchmark, db_root) if db_root else None)
    path = os.path.abspath(db)
    if os.path.isdir(path):
        name = os.path.basename(path.rstrip(os.sep))
        if not _tables.grades_folders(benchmark):
            inner = os.path.join(path, name + ".sqlite")
            if not os.path.isfile(inner):
                raise InputError(f"{db}: folder has no {name}.sqlite")
            return DbRef(name, inner)
        return DbRef(name, path)
    if not os.path.isfile(path):
        raise InputError(f"{db}: no such database file")
    if _tables.grades_folders(benchmark):
        return DbRef(os.path.basename(os.path.dirname(path)), path)
    return DbRef(os.path.splitext(os.path.basename(path))[0], path)


def _under_root(db_id: str, benchmark: str, root: str) -> Optional[str]:
    mod = _tables.native()
    if mod is None:
        return None  # server-only mode: the server resolves the id in its own folders
    path, error = mod.locate_database(benchmark, root, db_id)
    if error:
        raise InputError(error)
    if not path:
        raise InputError(f"{db_id}: no database for it under {root}")
    return os.path.abspath(path)
