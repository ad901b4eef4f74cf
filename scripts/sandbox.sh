#!/usr/bin/env bash
# Runs a command where only chosen system libraries exist (root; a private mount namespace, nothing
# outside it changes): used by the portable-wheel tests (python/tests/wheels/test_wheels.py).
#   scripts/sandbox.sh --lib DIR [--cover FOLDER]... -- COMMAND [ARG]...
# In the namespace /usr/lib/x86_64-linux-gnu (and so /lib/x86_64-linux-gnu and ld.so's own path) is DIR,
# /usr/include is an empty tmpfs, and so is every --cover folder (the checkout, build trees, DuckDB's
# folder): what the command loads must come from its own files or DIR.
set -euo pipefail
lib="" covers=()
while [ $# -gt 0 ]; do
  case $1 in
    --lib) lib=$2; shift 2 ;;
    --cover) covers+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "sandbox: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -d "$lib" ] && [ $# -gt 0 ] || { echo "usage: sandbox.sh --lib DIR [--cover FOLDER]... -- COMMAND..." >&2; exit 2; }
[ -e "$lib/ld-linux-x86-64.so.2" ] || { echo "sandbox: $lib has no ld-linux-x86-64.so.2" >&2; exit 2; }
mounts="mount -t tmpfs sandbox /usr/include"
for c in "${covers[@]}"; do mounts="$mounts && mount -t tmpfs sandbox $(printf '%q' "$c")"; done
# the library folder last: `mount` itself needs the system's libmount
mounts="$mounts && mount --bind $(printf '%q' "$lib") /usr/lib/x86_64-linux-gnu"
exec unshare --mount --propagation private -- /bin/sh -c "$mounts && exec \"\$@\"" sandbox "$@"
