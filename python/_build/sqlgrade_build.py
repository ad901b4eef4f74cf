"""In-tree PEP 517 build backend for the sqlgrade Python package (standard library only).

Why not setuptools: ``pip install --no-build-isolation ./python`` must work offline, and the
setuptools here (65) needs the separate ``wheel`` package to build a wheel, which is not
installed and may not be downloaded. This backend needs nothing: it zips ``sqlgrade/`` with its
metadata (``pyproject.toml`` [project], version from ``sqlgrade/__init__.py``).

Hooks: build_wheel, build_sdist, build_editable (a ``.pth`` pointing at this folder), the
``prepare_metadata_*`` hooks, and ``get_requires_*`` (nothing).

Native module: if ``sqlgrade/_native*.so`` exists (built by CMake, see docs/python.md)
it goes into the wheel and the wheel is tagged for this interpreter and platform instead of
``py3-none-any``; ``config_settings={"native": "<path to _native*.so>"}`` names one built elsewhere.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import io
import os
import sys
import sysconfig
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the python/ folder
PACKAGE = "sqlgrade"


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        raw = f.read()
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        tomllib = None
    if tomllib is not None:
        return tomllib.loads(raw.decode("utf-8"))["project"]
    project, section = {}, None  # fallback: the flat `key = "value"` lines of [project]
    for line in raw.decode("utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section == "project" and "=" in line and not line.startswith("#"):
            k, v = (s.strip() for s in line.split("=", 1))
            if v.startswith('"') and v.endswith('"'):
                project[k] = v[1:-1]
    return project


def _version():
    with open(os.path.join(ROOT, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=", 1)[1].strip().strip("\"'")
    raise RuntimeError("sqlgrade/__init__.py has no __version__")


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {_version()}",
             f"Summary: {p.get('description', '')}", f"Requires-Python: {p.get('requires-python', '>=3.9')}"]
    lic = p.get("license")
    if isinstance(lic, dict):
        lic = lic.get("text")
    if lic:
        lines.append(f"License: {lic}")
    return "\n".join(lines) + "\n"


def _dist_info():
    return f"{_project()['name'].replace('-', '_')}-{_version()}.dist-info"


def _native(config_settings):
    path = (config_settings or {}).get("native")
    if path:
        if not os.path.isfile(path):
            raise RuntimeError(f"native: {path}: no such file")
        return path
    # The module built for this interpreter (CMake writes it here; see python/CMakeLists.txt).
    mine = os.path.join(ROOT, PACKAGE, "_native" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if os.path.isfile(mine):
        return mine
    found = sorted(glob.glob(os.path.join(ROOT, PACKAGE, "_native*.so")))
    return found[-1] if found else None


def _tag(native):
    if not native:
        return "py3-none-any", True
    impl = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    return f"{impl}-{impl}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}", False


def _package_files():
    for folder, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".pyi", ".typed")):
                full = os.path.join(folder, name)
                yield full, os.path.relpath(full, ROOT).replace(os.sep, "/")


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, arcname, data):
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, dist_info):
        record = f"{dist_info}/RECORD"
        self.zip.writestr(record, "\n".join(self.records + [f"{record},,"]) + "\n")
        self.zip.close()


def _write_metadata_files(w, dist_info, tag, purelib):
    w.add(f"{dist_info}/METADATA", _metadata().encode())
    w.add(f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: sqlgrade_build\nRoot-Is-Purelib: "
                                 f"{'true' if purelib else 'false'}\nTag: {tag}\n").encode())
    w.add(f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())


def _wheel_name(tag):
    return f"{_project()['name'].replace('-', '_')}-{_version()}-{tag}.whl"


# ---- PEP 517 hooks ------------------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = _dist_info()
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    native = _native(config_settings)
    tag, purelib = _tag(native)
    name = _wheel_name(tag)
    w = _Wheel(os.path.join(wheel_directory, name))
    for full, arc in _package_files():
        with open(full, "rb") as f:
            w.add(arc, f.read())
    if native:
        with open(native, "rb") as f:
            w.add(f"{PACKAGE}/{os.path.basename(native)}", f.read())
    _write_metadata_files(w, _dist_info(), tag, purelib)
    w.close(_dist_info())
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    tag, purelib = _tag(None)
    name = _wheel_name(tag)
    w = _Wheel(os.path.join(wheel_directory, name))
    w.add(f"__editable__.{PACKAGE}.pth", (ROOT + "\n").encode())
    _write_metadata_files(w, _dist_info(), tag, purelib)
    w.close(_dist_info())
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{_project()['name'].replace('-', '_')}-{_version()}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(arc, data):
            info = tarfile.TarInfo(f"{base}/{arc}")
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            tar.addfile(info, io.BytesIO(data))

        for rel in ("pyproject.toml", "_build/sqlgrade_build.py"):
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel, f.read())
        for full, arc in _package_files():
            with open(full, "rb") as f:
                add(arc, f.read())
        add("PKG-INFO", _metadata().encode())
    return name
