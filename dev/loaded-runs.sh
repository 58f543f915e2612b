#!/usr/bin/env bash
# The proof issue #16 asks for: `npm test` from a fresh clone, N times in a row (default 3), each with two
# CPU-bound processes running beside it. Run it on a machine where nothing else runs.
#   bash dev/loaded-runs.sh [N]    clones this checkout's HEAD into /tmp/loaded-run-<i>/repo, with
#                                  ../shared linked beside it as CI has it, and runs CI=true bash .ci/run
# Prints one line per run (exit code, seconds, the suite's closing line) and stops at the first failure.
set -u
RUNS=${1:-3}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=$(cd "$SRC/../shared" 2>/dev/null && pwd || true)
for i in $(seq 1 "$RUNS"); do
	ROOT=/tmp/loaded-run-$i
	rm -rf "$ROOT" && mkdir -p "$ROOT"
	git clone -q "$SRC" "$ROOT/repo" || exit 1
	[ -n "$SHARED" ] && ln -s "$SHARED" "$ROOT/shared"
	node -e 'for(;;){}' & burner1=$!
	node -e 'for(;;){}' & burner2=$!
	start=$(date +%s)
	(cd "$ROOT/repo" && CI=true bash .ci/run >"$ROOT/ci.log" 2>&1)
	rc=$?
	kill "$burner1" "$burner2"
	echo "run $i of $RUNS at $(git -C "$ROOT/repo" rev-parse --short HEAD): exit $rc, $(($(date +%s) - start)) s, $(tail -n 1 "$ROOT/ci.log") (log: $ROOT/ci.log)"
	[ "$rc" -eq 0 ] || exit "$rc"
done
