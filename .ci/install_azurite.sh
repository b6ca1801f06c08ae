#!/usr/bin/env bash
# Install the Azurite blob emulator (npm) into .azurite/ at the repository root.
#
# Idempotent: does nothing when the pinned version is already there. The folder is git-ignored.
# tests/azure/conftest.py and benchmarks/bench_azurite_fetch.py look for
# .azurite/node_modules/.bin/azurite-blob first, then for azurite-blob on PATH.
#
# AZURITE_VERSION overrides the pin. 3.37.0 honours the List Blobs `startFrom` parameter that
# delta-rs (object_store) uses to find new commits; 3.35.0 (the version in the field notes)
# ignores it, and a third write_deltalake to one table then fails with "Invalid table version".
set -euo pipefail

version="${AZURITE_VERSION:-3.37.0}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$repo/.azurite"
bin="$dest/node_modules/.bin/azurite-blob"
stamp="$dest/.installed-version"

if [[ -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
    echo "azurite $version already installed in $dest"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install_azurite.sh: npm not found; install Node.js 18+ (apt-get install nodejs npm)" >&2
    exit 1
fi

mkdir -p "$dest"
if [[ ! -f "$dest/package.json" ]]; then
    printf '{\n  "name": "deltaforensics-azurite",\n  "private": true\n}\n' >"$dest/package.json"
fi

echo "installing azurite $version into $dest"
npm install --prefix "$dest" --save-exact --no-audit --no-fund --loglevel=error \
    "azurite@$version"

if [[ ! -x "$bin" ]]; then
    echo "install_azurite.sh: npm finished but $bin is missing" >&2
    exit 1
fi
echo "$version" >"$stamp"
echo "azurite $version installed: $bin"
