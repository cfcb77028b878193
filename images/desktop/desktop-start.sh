#!/bin/bash
# clawmark-desktop-start [--browser]: bring the desktop up as a detached service of the caller
# (run it as the executor user) and return once the display, the VNC server and noVNC answer.
# --browser also starts Chromium with CDP on 127.0.0.1:$CLAWMARK_CDP_PORT.
# Logs and pids: $CLAWMARK_DESKTOP_STATE (default /tmp/clawmark-desktop).
set -u
state="${CLAWMARK_DESKTOP_STATE:-/tmp/clawmark-desktop}"
display="${DISPLAY:-:99}"; geometry="${CLAWMARK_DESKTOP_GEOMETRY:-1440x900x24}"
vnc="${CLAWMARK_VNC_PORT:-5900}"; novnc="${CLAWMARK_NOVNC_PORT:-6080}"; cdp="${CLAWMARK_CDP_PORT:-9222}"
mkdir -p "$state"

launch() {  # launch NAME CMD...: detached, own session, log and pid in $state
  local name="$1"; shift
  setsid nohup "$@" > "$state/$name.log" 2>&1 < /dev/null &
  echo $! > "$state/$name.pid"
}

wait_for() {  # wait_for WHAT SECONDS CMD...: poll until CMD succeeds
  local what="$1" limit="$2"; shift 2
  for _ in $(seq $((limit * 10))); do "$@" > /dev/null 2>&1 && return 0; sleep 0.1; done
  echo "clawmark-desktop: $what did not come up in ${limit}s (logs in $state)" >&2; exit 1
}

listening() { grep -qi ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6; }

# -noreset: without it Xvfb resets when its last client (the readiness probe) leaves, and the
# clients started next find no display for a moment.
launch xvfb Xvfb "$display" -screen 0 "$geometry" -nolisten tcp -ac -noreset
wait_for "Xvfb on $display" 20 xdpyinfo -display "$display"
export DISPLAY="$display"
dbus-launch --sh-syntax > "$state/dbus.env" 2>/dev/null || true
# shellcheck disable=SC1091
. "$state/dbus.env" 2>/dev/null || true
xsetroot -solid '#2e5a88' 2>/dev/null || true
launch openbox openbox
launch tint2 tint2
wait_for "the panel" 20 sh -c 'wmctrl -l | grep -q tint2'
launch x11vnc x11vnc -display "$display" -forever -shared -nopw -quiet -rfbport "$vnc"
wait_for "x11vnc on $vnc" 20 listening "$vnc"
launch novnc websockify --web /usr/share/novnc "$novnc" "localhost:$vnc"
wait_for "noVNC on $novnc" 20 listening "$novnc"
if [ "${1:-}" = "--browser" ]; then
  # --test-type: no "unsupported flag" bar over the page in every screenshot
  launch chromium chromium --no-sandbox --test-type --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --remote-debugging-address=127.0.0.1 --remote-debugging-port="$cdp" \
    --user-data-dir="$HOME/.config/chromium" --window-size=1440,860 about:blank
  wait_for "Chromium CDP on $cdp" 60 listening "$cdp"
  # CDP answers before the window is mapped: a claw's first screenshot must already show it.
  wait_for "the Chromium window" 60 sh -c 'wmctrl -l | grep -q Chromium'
fi
echo "desktop up: DISPLAY=$display vnc=$vnc novnc=$novnc${1:+ cdp=$cdp}"
