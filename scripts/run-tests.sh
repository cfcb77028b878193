#!/usr/bin/env bash
# The whole suite as pytest processes side by side, in two phases, so a fresh machine's image
# builds (mostly waiting on package downloads) overlap the tests that need no image:
#   1. `clawmark images build --all --jobs 3` in the background, and the unit tests beside it;
#   2. once every image is there, the four Docker parts: integration, the claw kit, e2e, and
#      browser + faults.
# Four Docker parts, not more: the claws' turns are CPU-bound (an OpenClaw start is seconds of
# CPU), and seven parts on 2 cores (load 16) stretched EDICT's cases past pytest's 900 s timeout.
# Each process gets its own Prefect home (tests/conftest.py). Each part lists its ten slowest
# tests (CI's time is the budget to watch). Exit non-zero if the images or any part fail. Extra
# arguments go to every part (e.g. PYTEST_ARGS="-x").
set -uo pipefail
cd "$(dirname "$0")/.."
PYTEST=.venv/bin/pytest
logs=$(mktemp -d)

declare -A parts=(
  [unit]="tests/unit"
  [integration]="tests/integration"
  [claws]="tests/claws"
  [e2e]="tests/e2e"
  [browser-faults]="tests/browser tests/faults"
)
order=(unit claws e2e integration browser-faults)
declare -A pids

start() {  # start part $1 in the background; the other arguments go to pytest
  local name=$1
  shift
  eval "\"$PYTEST\" \"\$@\" -p no:cacheprovider --durations=10 ${parts[$name]}" > "$logs/$name.log" 2>&1 &
  pids[$name]=$!
}

.venv/bin/clawmark images build --all --jobs 3 > "$logs/images.log" 2>&1 &
images_pid=$!
start unit "$@"
images_ok=1
wait "$images_pid" || images_ok=0
echo "===== images (${SECONDS} s)"
cat "$logs/images.log"
if [ "$images_ok" = 1 ]; then
  for name in "${order[@]}"; do
    [ "$name" = unit ] || start "$name" "$@"
  done
fi
failed=()
[ "$images_ok" = 1 ] || failed+=(images)
for name in "${!pids[@]}"; do
  wait "${pids[$name]}" || failed+=("$name")
done
for name in "${order[@]}"; do
  [ -f "$logs/$name.log" ] || continue
  echo "===== pytest ${parts[$name]}"
  cat "$logs/$name.log"
done
echo "===== summary (wall ${SECONDS} s)"
for name in "${order[@]}"; do
  [ -f "$logs/$name.log" ] || { echo "$name: not run (the images did not build)"; continue; }
  echo "$name: $(grep -E '^(=+ )?[0-9]+ (passed|failed|error)|(passed|failed|error).* in [0-9.]+s' "$logs/$name.log" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$logs/$name.log" | cut -c1-300
done
rm -rf "$logs"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed parts: ${failed[*]}"
  exit 1
fi
echo "all ${#order[@]} parts passed"
