#!/usr/bin/env bash
# Make sure Debian's container registry (`docker-registry`, the CNCF distribution registry) is
# installed, for the tests that pull instance images from a real registry on loopback. The tests
# start and stop their own registry process; this script only installs. Idempotent.
set -euo pipefail

say() { printf 'registry-up: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

command -v docker-registry >/dev/null 2>&1 && exit 0
say "installing docker-registry from Debian"
bash "$(dirname "$0")/apt-install.sh" registry-up docker-registry
