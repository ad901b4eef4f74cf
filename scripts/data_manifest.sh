#!/usr/bin/env bash
# Prints a manifest of a folder: one line per entry (type and path) and a SHA-256 per regular file,
# sorted. .ci/run compares the manifest of SQLGRADE_DATA before and after the test runs: the tests
# must leave the shared benchmark data byte-identical (they copy what they write into temp folders).
#   scripts/data_manifest.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/data_manifest.sh DIR}
cd "$dir"
find . -print0 | LC_ALL=C sort -z | xargs -0 -r stat -c '%F %n'
find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
