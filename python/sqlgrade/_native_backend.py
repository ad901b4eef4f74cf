"""The in-process backend: a thin wrapper over the pybind11 module ``sqlgrade._native``.

The module is imported lazily, on first use, so ``import sqlgrade`` works without it (server
mode). Its interface is exactly ``sqlgrade/_native.pyi`` (protocol version 1); this wrapper only
sends the same request body as the server backend (plus ``db``), translates ``_native.InputError``
into :class:`sqlgrade.InputError` and checks the version.
"""

from __future__ import annotations

import importlib
from typing import Any, List

from ._server import verify_body
from .errors import BackendUnavailable, InputError

__all__ = ["NativeBackend", "PROTOCOL_VERSION"]

PROTOCOL_VERSION = 1

_BUILD_HINT = (
    "sqlgrade: no backend: the native module sqlgrade._native is not built ({why}), and SQLGRADE_SERVER "
    "is not set. Either start a reward server (`build/sqlgrade serve --db-dir DIR --port 8000`) and set "
    "SQLGRADE_SERVER=http://127.0.0.1:8000, or build the native module (docs/python.md, "
    "\"Native backend\")."
)


class NativeBackend:
    name = "native"

    def __init__(self, module: Any) -> None:
        self._m = module
        self._gold_dir = ""  # the spider2_gold_dir the module's Grader reads

    def _configure(self) -> None:
        """The module grades with the current setting's official Spider 2.0-Lite gold folder."""
        from .config import config

        d = config().spider2_gold_dir or ""
        if d != self._gold_dir:
            self._call(self._m.set_spider2_gold_dir, d)
            self._gold_dir = d

    @classmethod
    def load(cls) -> "NativeBackend":
        try:
            m = importlib.import_module("sqlgrade._native")
        except ImportError as e:
            raise BackendUnavailable(_BUILD_HINT.format(why=str(e) or type(e).__name__)) from e
        version = getattr(m, "PROTOCOL_VERSION", None)
        if version != PROTOCOL_VERSION:
            raise BackendUnavailable(
                f"sqlgrade: sqlgrade._native speaks protocol {version!r}, this package needs {PROTOCOL_VERSION}; "
                "rebuild the native module from the same checkout")
        return cls(m)

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except self._m.InputError as e:
            raise InputError(str(e)) from None

    @staticmethod
    def _need_path(request: dict, prefix: str = "") -> None:
        if not request.get("db"):
            raise InputError(f"{prefix}{request.get('db_id')}: the native backend needs a database path "
                             "(pass a path, or set db_root to resolve ids)")

    @staticmethod
    def _body(request: dict) -> dict:
        """The /verify body the server backend would send, plus the database path: the module and
        the server then see the same fields (and echo the same ones)."""
        body = verify_body(request)
        body["db"] = request["db"]
        return body

    def verdict(self, request: dict) -> dict:
        self._need_path(request)
        self._configure()
        return self._call(self._m.verdict, self._body(request))

    def verdicts(self, requests: List[dict], threads: int) -> List[dict]:
        for i, r in enumerate(requests):
            self._need_path(r, f"request {i}: ")
        self._configure()
        return self._call(self._m.verdicts, [self._body(r) for r in requests], threads)

    def execute(self, request: dict) -> dict:
        self._need_path(request)
        return self._call(self._m.execute, request["db"], request["sql"], float(request["timeout"]),
                          int(request["max_rows"]), int(request["max_bytes"]), request.get("now") or "")
