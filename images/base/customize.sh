#!/bin/sh
# mmdebstrap customize hook: customize.sh ROOTFS_DIR HOST_CA_BUNDLE
set -eu
root="$1"; ca="$2"
# The host bundle goes in last so ca-certificates' postinst cannot overwrite it; without it
# pip/npm over HTTPS find nothing on machines behind an intercepting proxy.
cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
# Debian's /etc/profile resets PATH, so `bash -lc` would lose an image's ENV PATH (venvs,
# /usr/local/go/bin, ...). Keep an inherited PATH and only fall back to Debian's default.
sed -i 's|^\( *\)PATH="\(.*\)"$|\1PATH="${PATH:-\2}"|' "$root/etc/profile"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
