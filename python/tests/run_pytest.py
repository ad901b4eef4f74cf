"""Run the Python package's tests (ctest test ``python.pytest``; also by hand).

The tests must run under the interpreter the package is for: the ``python3`` on PATH (the
README's; phase 2 builds the native module for it). That interpreter may not have pytest (the
pyenv one here does not, and nothing may be downloaded), so when ``import pytest`` fails this
falls back to Debian's python3-pytest, a pure-Python package, by appending its folder to the end
of sys.path: the interpreter's own packages still come first. Plugin autoloading is off, so only
pytest itself is used, whatever else that folder holds.

    python3 python/tests/run_pytest.py [pytest args]      # SQLGRADE_BIN=build/sqlgrade by default
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def main() -> int:
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.dont_write_bytecode = True
    try:
        import pytest
    except ImportError:
        sys.path.append(DEBIAN_DIST_PACKAGES)
        try:
            import pytest
        except ImportError:
            print(f"run_pytest: pytest is not importable by {sys.executable}, nor from {DEBIAN_DIST_PACKAGES}; "
                  "install Debian's python3-pytest (scripts/setup.sh does)", file=sys.stderr)
            return 2
    print(f"run_pytest: {sys.executable} (Python {sys.version.split()[0]}), pytest {pytest.__version__} "
          f"from {os.path.dirname(pytest.__file__)}", flush=True)
    args = sys.argv[1:]
    if not any(os.path.exists(a.split("::")[0]) for a in args):
        args.append(HERE)  # no test path given: the whole suite
    return pytest.main(["-p", "no:cacheprovider", "-rs", *args])


if __name__ == "__main__":
    sys.exit(main())
