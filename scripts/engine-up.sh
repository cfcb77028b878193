#!/usr/bin/env bash
# Make sure a Docker engine answers: reuse a running one, else install Debian's docker.io
# and start dockerd in the background. Idempotent; safe to call before every test run.
set -euo pipefail

log_dir="${CLAWMARK_ENGINE_LOG_DIR:-/var/log}"
sock="/var/run/docker.sock"

say() { printf 'engine-up: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  say "engine already answering (server $(docker version --format '{{.Server.Version}}'))"
  exit 0
fi
if [ -n "${DOCKER_HOST:-}" ]; then
  die "DOCKER_HOST=$DOCKER_HOST is set but no engine answers there; start it or unset DOCKER_HOST"
fi
[ "$(id -u)" = 0 ] || die "no engine answers and starting one needs root (run as root, or start dockerd yourself)"

if ! command -v dockerd >/dev/null 2>&1; then
  avail_kb=$(df -Pk /var | awk 'NR==2 {print $4}')
  [ "${avail_kb:-0}" -gt 2000000 ] || die "less than 2 GB free under /var: free disk before installing docker.io"
  say "installing docker.io from Debian"
  bash "$(dirname "$0")/apt-install.sh" engine-up docker.io iptables
fi

answering() { [ -S "$sock" ] && docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# A pid file can outlive its daemon (killed with -9, a zombie nobody reaps, a recycled pid): trust
# it only when /proc shows a live process named dockerd.
dockerd_alive() {
  local pid
  pid=$(cat /var/run/docker.pid 2>/dev/null) || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] || return 1
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

start_dockerd() {
  say "starting dockerd (log: $log_dir/dockerd.log)"
  mkdir -p "$log_dir"
  setsid dockerd >"$log_dir/dockerd.log" 2>&1 < /dev/null &
}

# Two callers at once (make test in two shells) must not start two daemons.
exec 9>/var/lock/clawmark-engine-up.lock
flock 9
if dockerd_alive; then
  say "dockerd (pid $(cat /var/run/docker.pid)) is starting; waiting for it"
else
  start_dockerd
fi
restarted=0
for _ in $(seq 1 120); do
  if answering; then
    say "engine up (server $(docker version --format '{{.Server.Version}}'))"
    exit 0
  fi
  # The daemon we waited for died before answering (e.g. it was being killed): start one, once.
  if [ "$restarted" = 0 ] && ! dockerd_alive && ! pgrep -x dockerd >/dev/null; then
    restarted=1
    start_dockerd
  fi
  sleep 0.5
done
tail -n 20 "$log_dir/dockerd.log" >&2 || true
die "dockerd did not answer within 60 s; see $log_dir/dockerd.log"
