#!/usr/bin/env bash
# Make sure Debian's Chromium is installed for the browser tests (report, Prefect UI, noVNC).
# Playwright's Python package drives it by executable path; no browser is ever downloaded.
# Idempotent; a missing browser is a failure of the test run, never a skip.
set -euo pipefail

say() { printf 'browser-up: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

browser="${CLAWMARK_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$browser" ]; then
  say "chromium present ($("$browser" --version 2>/dev/null))"
  exit 0
fi
say "installing chromium from Debian"
bash "$(dirname "$0")/apt-install.sh" browser-up chromium fonts-noto-cjk
[ -x "$browser" ] || die "chromium installed but $browser is not executable"
say "chromium installed ($("$browser" --version 2>/dev/null))"
