#!/bin/bash
# apt-user-install.sh PKG...: install Debian packages. As root: apt-get install. As any other
# user (clawmark's executor is not root): download the packages with a per-user apt state and
# unpack them under $APT_USER_ROOT (default ~/.local/apt), then print the exports to use them.
# Unpacking installs no dependencies and runs no maintainer scripts: name what you need.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PKG..." >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
  exit 0
fi
root="${APT_USER_ROOT:-$HOME/.local/apt}"; cache="$HOME/.cache/apt-user"
mkdir -p "$root" "$cache/lists/partial" "$cache/archives/partial"
opts=(-o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache" -o "Dir::Cache::archives=$cache/archives"
      -o Debug::NoLocking=1 -o "APT::Sandbox::User=$(id -un)")
apt-get "${opts[@]}" update -qq 2>&1 | grep -v '^W: ' >&2 || true
cd "$cache/archives"
apt-get "${opts[@]}" download "$@" >&2
for pkg in "$@"; do
  deb="$(ls -t "${pkg}"_*.deb | head -1)"
  dpkg -x "$deb" "$root"
  echo "unpacked $deb" >&2
done
libs="$(find "$root" -name '*.so*' -printf '%h\n' 2>/dev/null | sort -u | paste -sd: -)"
echo "export PATH=\"$root/usr/bin:$root/usr/games:$root/bin:\$PATH\""
[ -z "$libs" ] || echo "export LD_LIBRARY_PATH=\"$libs:\${LD_LIBRARY_PATH:-}\""
