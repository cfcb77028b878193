#!/bin/bash
# open-document.sh FILE: open FILE in LibreOffice on the desktop; returns once its window shows.
set -euo pipefail
file="$1"; export DISPLAY="${DISPLAY:-:99}"
[ -e "$file" ] || { echo "no such file: $file" >&2; exit 1; }
setsid soffice --nologo --norestore "$file" > /tmp/soffice.log 2>&1 < /dev/null &
name="$(basename "$file")"
for _ in $(seq 120); do
  if wmctrl -l | grep -qF "$name"; then wmctrl -a "$name"; echo "opened $name"; exit 0; fi
  sleep 0.5
done
echo "LibreOffice did not show $name within 60s (log: /tmp/soffice.log)" >&2; exit 1
