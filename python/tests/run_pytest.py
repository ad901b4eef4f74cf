"""Run the Python package's tests (ctest `python.pytest` and `python.hosts.*`; also by hand).

The tests run under the project venv's interpreter (.venv/bin/python, made by scripts/setup.sh from
python/requirements/dev.lock: pytest and every other test dependency pinned there), never with the
system's packages. Plugin autoloading is off (only pytest itself), no cache is written into the tree.

    .venv/bin/python python/tests/run_pytest.py [pytest args]      # SQLGRADE_BIN=build/sqlgrade by default
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.dont_write_bytecode = True
    try:
        import pytest
    except ImportError:
        print(f"run_pytest: pytest is not installed for {sys.executable}: run the tests with the project venv "
              "(.venv/bin/python, made by scripts/setup.sh)", file=sys.stderr)
        return 2
    print(f"run_pytest: {sys.executable} (Python {sys.version.split()[0]}), pytest {pytest.__version__} "
          f"from {os.path.dirname(pytest.__file__)}", flush=True)
    args = sys.argv[1:]
    if not any(os.path.exists(a.split("::")[0]) for a in args):
        args += [HERE, f"--ignore={os.path.join(HERE, 'hosts')}",  # no test path given: the package's suite
                 f"--ignore={os.path.join(HERE, 'ray')}", f"--ignore={os.path.join(HERE, 'wheels')}",
                 f"--ignore={os.path.join(HERE, 'servers')}"]
    return pytest.main(["-p", "no:cacheprovider", "-rs", *args])


if __name__ == "__main__":
    sys.exit(main())
