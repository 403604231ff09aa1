#!/usr/bin/env bash
# Installs the Standard Webhooks reference library for JavaScript (npm package standardwebhooks),
# which the signed-webhook tests' receiver verifies with, into a cache outside the repository.
# Idempotent: does nothing when the pinned version is already there. Prints the directory that
# holds node_modules.
set -euo pipefail
VERSION=1.1.1
DIR="${KOLLECT_STANDARDWEBHOOKS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kollect/standardwebhooks}"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is not installed: the signed-webhook tests need node and npm (apt-get install nodejs npm)" >&2
    exit 3
  fi
done
MARKER="$DIR/node_modules/standardwebhooks/package.json"
if [ -f "$MARKER" ] && grep -q "\"version\": \"$VERSION\"" "$MARKER"; then
  echo "$DIR"
  exit 0
fi
mkdir -p "$DIR"
# the npm registry is reachable from developer machines and CI
npm install --prefix "$DIR" --no-save --no-audit --no-fund --loglevel=error \
  "standardwebhooks@$VERSION" >&2
echo "$DIR"
