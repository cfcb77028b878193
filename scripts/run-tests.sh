#!/usr/bin/env bash
# The whole suite as four pytest processes side by side. Most of the Docker tests' time is spent
# waiting on containers, claws and servers, not on CPU, so they are split in three and the
# pure-Python tests run beside them. Each process gets its own Prefect home (tests/conftest.py).
# Each part lists its ten slowest tests (CI's time is the budget to watch). Exit non-zero if any
# part fails. Extra arguments go to every part (e.g. PYTEST_ARGS="-x").
set -uo pipefail
cd "$(dirname "$0")/.."
PYTEST=.venv/bin/pytest
logs=$(mktemp -d)
declare -A parts=(
  [integration]="tests/integration"
  [claws]="tests/claws"
  [e2e]="tests/e2e"
  [unit-browser]="tests/unit tests/browser tests/faults"
)
declare -A pids
for name in "${!parts[@]}"; do
  # shellcheck disable=SC2086  # the test paths are words
  "$PYTEST" "$@" -p no:cacheprovider --durations=10 ${parts[$name]} > "$logs/$name.log" 2>&1 &
  pids[$name]=$!
done
failed=()
for name in "${!parts[@]}"; do
  wait "${pids[$name]}" || failed+=("$name")
done
for name in unit-browser claws e2e integration; do
  echo "===== pytest ${parts[$name]}"
  cat "$logs/$name.log"
done
echo "===== summary (wall ${SECONDS} s)"
for name in unit-browser claws e2e integration; do
  echo "$name: $(grep -E '^(=+ )?[0-9]+ (passed|failed|error)|(passed|failed|error).* in [0-9.]+s' "$logs/$name.log" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$logs/$name.log" | cut -c1-300
done
rm -rf "$logs"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed parts: ${failed[*]}"
  exit 1
fi
echo "all four parts passed"
