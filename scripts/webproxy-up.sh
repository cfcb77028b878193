#!/usr/bin/env bash
# The web proxy's own venv: mitmproxy 11.0.2 (the last release for Python 3.11) pins h11<=0.14
# and an older cryptography than clawmark's venv carries, so it cannot share .venv.
# Idempotent; clawmark finds it at .venv-webproxy/bin/mitmdump (or $CLAWMARK_MITMDUMP).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-webproxy
VERSION=11.0.2
if [ -x "$VENV/bin/mitmdump" ] && [[ "$("$VENV/bin/mitmdump" --version 2>/dev/null)" == *"Mitmproxy: $VERSION"* ]]; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -qq --disable-pip-version-check "mitmproxy==$VERSION"
# mitmdump dies of SIGPIPE if a reader closes early (head -1), and pipefail turns that into a failure.
version_line=$("$VENV/bin/mitmdump" --version)
echo "${version_line%%$'\n'*}"
