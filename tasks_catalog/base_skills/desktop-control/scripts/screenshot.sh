#!/bin/bash
# screenshot.sh [FILE]: the whole of display :99 as a PNG (default /tmp_workspace/results/screen.png).
set -euo pipefail
out="${1:-/tmp_workspace/results/screen.png}"
mkdir -p "$(dirname "$out")"
DISPLAY="${DISPLAY:-:99}" scrot --overwrite "$out"
echo "$out"
