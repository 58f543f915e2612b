#!/usr/bin/env bash
# The project's one test command (README, CI): build, lint, unit and integration tests against the
# in-repo gateway simulator, then end-to-end tests in a real n8n with the package installed the way
# n8n installs community packages, and in n8n queue mode (main, worker and webhook processes on
# PostgreSQL and Redis).
set -euo pipefail
source "$(dirname "$0")/toolchain.sh"
cd "$REPO_DIR"

results="$REPO_DIR/.cache/test-results"
mkdir -p "$results"
echo "== build"; npm run --silent build
# n8n's verification scanner (ESLint leg) over the source and over the npm pack tarball of that build.
echo "== lint (n8n's verification scanner: source and tarball)"; npm run --silent lint -- --no-build --json "$results/lint.json"
# The starter's formatter settings (.prettierrc.js): `npm run format` fixes what this finds.
echo "== format (prettier --check)"; npx prettier --check . || { echo "format: run npm run format" >&2; exit 1; }
# The real n8n comes before the unit tests too: the trigger's tests check its answers with n8n's own code.
echo "== real n8n"; bash dev/n8n-host/install.sh
echo "== real n8n 1.x"; bash dev/n8n-host/install.sh 1.x
echo "== unit and integration tests"; npx jest --ci --json --outputFile="$results/unit.json"
# The validation tests again with node code resolving zod to 4.x, as on an n8n host that ships zod 4.
echo "== validation tests on a zod 4 host"; npx jest --ci -c jest.zod4.config.js --json --outputFile="$results/zod4.json"
echo "== end-to-end tests in n8n"; npx jest --ci -c jest.e2e.config.js --runInBand --json --outputFile="$results/e2e.json"
echo "== end-to-end tests in n8n 1.x"; npx jest --ci -c jest.e2e.n8n1.config.js --runInBand --json --outputFile="$results/e2e-n8n1.json"
# Queue mode: PostgreSQL and Redis from Debian's packages, then main + worker + webhook processors.
echo "== queue-mode tests (npm run test:queue)"; npm run --silent test:queue -- --ci --json --outputFile="$results/queue.json"

# The editor in a browser: Chromium from Debian's packages (installed when missing), driven by playwright-core.
echo "== editor tests in a browser (npm run test:editor)"; npm run --silent test:editor -- --ci --json --outputFile="$results/editor.json"

# One closing line for all suites (set -e has already stopped us if either failed).
node -e '
const sum = (key) => process.argv.slice(1).reduce((n, file) => n + require(file)[key], 0);
console.log(`tests: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed`);
' "$results/lint.json" "$results/unit.json" "$results/zod4.json" "$results/e2e.json" "$results/e2e-n8n1.json" \
	"$results/queue.json" "$results/editor.json"
