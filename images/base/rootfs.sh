#!/usr/bin/env bash
# Build the clawmark base root filesystem OFFLINE from the Debian mirror (no registry needed):
#   rootfs.sh OUT.tar
# Debian bookworm with the tools every task and claw relies on, plus the host's CA bundle so
# HTTPS to PyPI/npm works inside later builds. The caller imports OUT.tar as an image.
set -euo pipefail

out="${1:?usage: rootfs.sh OUT.tar}"
suite="${CLAWMARK_BASE_SUITE:-bookworm}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf 'base-rootfs: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# The mirror the host itself uses (deb822 or one-line format); deb.debian.org otherwise.
host_mirror() {
  local m=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
  fi
  echo "${m:-http://deb.debian.org/debian}"
}

if ! command -v mmdebstrap >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "mmdebstrap is missing; install it (apt-get install mmdebstrap) or run as root"
  say "installing mmdebstrap"
  apt_install="$here/../../scripts/apt-install.sh"  # queues behind the other set-up scripts' apt
  [ -f "$apt_install" ] || die "mmdebstrap is missing and $apt_install is not here to install it (apt-get install mmdebstrap)"
  APT_RECOMMENDS=1 bash "$apt_install" base-rootfs mmdebstrap
fi
ca_bundle=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca_bundle" ] || die "host CA bundle $ca_bundle is missing"

mirror="${CLAWMARK_DEBIAN_MIRROR:-$(host_mirror)}"
packages=bash,coreutils,util-linux,git,patch,file,procps,python3,ca-certificates,xz-utils,less
say "mmdebstrap $suite from $mirror"
# Docs, man pages and locales are dropped: smaller image, faster import.
# customize.sh finishes the tree (CA bundle, /etc/profile, apt caches).
mmdebstrap --variant=apt --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --aptopt='APT::Install-Recommends "false"' \
  --customize-hook="\"$here/customize.sh\" \"\$1\" \"$ca_bundle\"" \
  "$suite" "$out" "$mirror"
say "wrote $out ($(du -h "$out" | cut -f1))"
