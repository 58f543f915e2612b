#!/usr/bin/env bash
# `npm start`: the demo. Works on a fresh clone: brings Node 24 and the dev dependencies
# (toolchain.sh), builds the package, installs the pinned real n8n into .cache/ (the first time takes
# several minutes and about 3 GB; later runs about a second), then runs dev/demo.js, which starts
# the gateway simulator and n8n with the package and the example workflows, until Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/toolchain.sh"
cd "$REPO_DIR"

echo "== build"
npm run --silent build
echo "== real n8n (the first run downloads it: several minutes)"
bash dev/n8n-host/install.sh
echo "== demo"
# exec: the demo gets Ctrl-C / SIGTERM itself and stops n8n and the simulator before exiting.
exec node dev/demo.js "$@"
