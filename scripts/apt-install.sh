#!/usr/bin/env bash
# Install Debian packages for the set-up scripts, one caller at a time:
#   apt-install.sh WHO PACKAGE...      (APT_RECOMMENDS=1 to take the packages' recommends too)
# `make test` installs the browser, PostgreSQL and the registry beside the image builds, which
# install mmdebstrap: dpkg's own lock has a timeout (DPkg::Lock::Timeout), but `apt-get update`
# fails at once on another's lists lock, so the callers queue on one lock of ours. The package
# lists are refreshed when older than an hour, not by every caller.
set -euo pipefail

who=${1:?usage: apt-install.sh WHO PACKAGE...}
shift
die() { printf '%s: ERROR: %s\n' "$who" "$*" >&2; exit 1; }
[ "$#" -gt 0 ] || die "no package named"
[ "$(id -u)" = 0 ] || die "installing $* needs root (apt-get install $*)"
command -v apt-get >/dev/null 2>&1 || die "apt-get is not available to install $*"
export DEBIAN_FRONTEND=noninteractive
apt=(apt-get -o DPkg::Lock::Timeout=600)
[ "${APT_RECOMMENDS:-0}" = 1 ] || apt+=(-o APT::Install-Recommends=false)

exec 8>/var/lock/clawmark-apt.lock
flock 8
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -60 -print -quit 2>/dev/null)" ]; then
  "${apt[@]}" update -qq || die "apt-get update failed (is a Debian mirror reachable?)"
fi
"${apt[@]}" install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
