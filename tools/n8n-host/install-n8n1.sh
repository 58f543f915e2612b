#!/usr/bin/env bash
# Installs n8n 1.123.81 (the maintained 1.x line) into .cache/n8n1 for test/e2e/transport.test.ts,
# which proves on both lines that the API key never leaves the gateway's origin. Optional: without
# it that test reports the 1.x block as skipped. It runs on the machine's Node.js (20).
# Two registry quirks (see the project's n8n facts): xlsx is fetched from a CDN unless pinned to the
# registry's version, and sqlite3 must be built from source.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${N8N_HOST_CACHE:-$ROOT/.cache}
DIR=$CACHE/n8n1
VERSION=1.123.81
STAMP=$DIR/.install-stamp

if [ "$(cat "$STAMP" 2>/dev/null || true)" = "n8n-$VERSION node-$(node --version)" ] && [ -x "$DIR/node_modules/.bin/n8n" ]; then
	echo "n8n-host: n8n $VERSION already in $DIR"
	exit 0
fi
LOG=$(mktemp "${TMPDIR:-/tmp}/n8n1-install.XXXXXX")
trap 'rc=$?; if [ $rc -ne 0 ]; then tail -n 40 "$LOG" >&2; echo "n8n-host: n8n $VERSION install FAILED (log: $LOG)" >&2; fi' EXIT
rm -rf "$DIR"
mkdir -p "$DIR"
printf '{"private":true,"dependencies":{"n8n":"%s"},"overrides":{"xlsx":"0.18.5"}}\n' "$VERSION" >"$DIR/package.json"
(cd "$DIR" && npm install --ignore-scripts --no-audit --no-fund >>"$LOG" 2>&1)
(cd "$DIR" && npm_config_build_from_source=true npm rebuild sqlite3 >>"$LOG" 2>&1)
(cd "$DIR" && node -e "require('sqlite3')" >>"$LOG" 2>&1)
echo "n8n-$VERSION node-$(node --version)" >"$STAMP"
echo "n8n-host: n8n $VERSION installed in $DIR"
