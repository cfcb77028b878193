#!/bin/bash
# clawmark-desktop-stop: end what clawmark-desktop-start launched (by its pid files).
state="${CLAWMARK_DESKTOP_STATE:-/tmp/clawmark-desktop}"
for name in chromium novnc x11vnc tint2 openbox xvfb; do
  [ -f "$state/$name.pid" ] && kill "$(cat "$state/$name.pid")" 2>/dev/null
  rm -f "$state/$name.pid"
done
exit 0
