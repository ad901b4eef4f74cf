"""The ``sqlgrade`` console command and ``python -m sqlgrade``: run the C++ CLI shipped in the wheel.

The wheel carries the same binary ``sqlgrade`` that ``cmake --build`` makes (``sqlgrade/bin/sqlgrade``,
RUNPATH ``$ORIGIN/../lib`` for the bundled libduckdb.so), so ``sqlgrade spider2 ...`` after ``pip install``
prints exactly what the build's CLI prints. The launcher replaces this Python process with it (exec):
signals, exit codes, stdin and stdout are the binary's own, and ``sqlgrade serve`` stops on SIGTERM
as documented.
"""

from __future__ import annotations

import os
import sys
from typing import List, NoReturn, Optional

__all__ = ["binary", "main"]


def binary() -> str:
    """Path of the sqlgrade CLI: the wheel's ``sqlgrade/bin/sqlgrade``; in a source checkout (no
    bundled binary) ``$SQLGRADE_BIN``. Raises FileNotFoundError naming both when neither exists."""
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "sqlgrade")
    if os.access(bundled, os.X_OK):
        return bundled
    env = os.environ.get("SQLGRADE_BIN")
    if env and os.access(env, os.X_OK):
        return env
    raise FileNotFoundError(f"sqlgrade: the CLI is not bundled here ({bundled}) and SQLGRADE_BIN is not set "
                            "to a built `sqlgrade` (install the wheel, or build with scripts/setup.sh)")


def main(argv: Optional[List[str]] = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        raise SystemExit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["sqlgrade", *args])


if __name__ == "__main__":  # pragma: no cover
    main()
