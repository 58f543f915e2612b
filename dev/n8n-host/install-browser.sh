#!/usr/bin/env bash
# Installs the browser the editor tests drive, from Debian's packages: Chromium. playwright-core (an npm
# devDependency) only speaks its protocol; no browser is downloaded from outside the package mirrors.
# Idempotent: does nothing when the binary is already there. CHROMIUM_PATH names another binary.
set -euo pipefail

BIN=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$BIN" ]; then
	exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-browser: need root or sudo to apt-get install chromium" >&2; exit 1; }
	SUDO=(sudo -n)
fi

LOG=$(mktemp "${TMPDIR:-/tmp}/n8n-host-browser.XXXXXX")
trap 'rc=$?; if [ $rc -ne 0 ]; then tail -n 40 "$LOG" >&2; echo "install-browser: FAILED (log: $LOG)" >&2; else rm -f "$LOG"; fi' EXIT
export DEBIAN_FRONTEND=noninteractive
# fonts-dejavu-core: the editor's text needs a font with Latin glyphs for readable screenshots.
install() { "${SUDO[@]}" apt-get install -y --no-install-recommends chromium fonts-dejavu-core >>"$LOG" 2>&1; }
# A fresh machine's package lists may be stale or empty: refresh once if the first try fails.
install || { "${SUDO[@]}" apt-get update >>"$LOG" 2>&1 && install; }
[ -x "$BIN" ]
echo "install-browser: $("$BIN" --version 2>/dev/null || echo chromium) installed"
