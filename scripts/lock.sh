#!/usr/bin/env bash
# Regenerates the pinned Python requirements (python/requirements/*.lock: exact versions, hashes) from
# their *.in files with the project's uv (.venv/bin/uv, scripts/setup.sh). Run after editing an .in
# file, then scripts/setup.sh installs the new lock (its hash changed).
set -euo pipefail
cd "$(dirname "$0")/../python/requirements"
UV=${UV:-../../.venv/bin/uv}
"$UV" pip compile -q --generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu dev.in -o dev.lock
"$UV" pip compile -q --generate-hashes --python-version 3.11 uv.in -o uv.lock
"$UV" pip compile -q --no-deps --generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu nodeps.in -o nodeps.lock
"$UV" pip compile -q --generate-hashes --python-version 3.12 --python-platform x86_64-unknown-linux-gnu gym.in -o gym.lock
# NeMo Gym 0.7.0 requires Python >= 3.13.14: resolved for that version, installed into pyenv's 3.13.0
"$UV" pip compile -q --generate-hashes --python-version 3.13.14 --python-platform x86_64-unknown-linux-gnu gym7.in -o gym7.lock
# one lock for the four wheel-building interpreters (scripts/wheels.sh): --universal, markers for 3.10
"$UV" pip compile -q --universal --generate-hashes --python-version 3.10 wheels.in -o wheels.lock
echo "lock: dev.lock uv.lock nodeps.lock gym.lock gym7.lock wheels.lock regenerated"
