#!/usr/bin/env bash
# Installs the two servers n8n's queue mode needs, from Debian's packages: PostgreSQL (the shared
# database) and Redis (the Bull queue). Only the packages: no cluster is created and no service is
# started here; dev/n8n-host/services.js runs throwaway instances on free ports and stops them by PID.
# Idempotent: does nothing when both server binaries are already there.
set -euo pipefail

have_postgres() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
have_redis() { command -v redis-server >/dev/null; }

if have_postgres && have_redis; then
	exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-services: need root or sudo to apt-get install postgresql redis-server" >&2; exit 1; }
	SUDO=(sudo -n)
fi

LOG=$(mktemp "${TMPDIR:-/tmp}/n8n-host-services.XXXXXX")
trap 'rc=$?; if [ $rc -ne 0 ]; then tail -n 40 "$LOG" >&2; echo "install-services: FAILED (log: $LOG)" >&2; else rm -f "$LOG"; fi' EXIT
export DEBIAN_FRONTEND=noninteractive
install() { "${SUDO[@]}" apt-get install -y --no-install-recommends postgresql redis-server >>"$LOG" 2>&1; }
# A fresh machine's package lists may be stale or empty: refresh once if the first try fails.
install || { "${SUDO[@]}" apt-get update >>"$LOG" 2>&1 && install; }
have_postgres && have_redis
echo "install-services: postgresql and redis-server installed"
