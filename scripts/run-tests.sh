#!/usr/bin/env bash
# The whole suite as two pytest processes side by side: most of the Docker tests' time is spent
# waiting on containers, claws and servers, not on CPU, so the pure-Python tests run beside them.
# Each process gets its own Prefect home (tests/conftest.py). Exit non-zero if either fails.
# Extra arguments go to both (e.g. PYTEST_ARGS="-x").
set -uo pipefail
cd "$(dirname "$0")/.."
PYTEST=.venv/bin/pytest
logs=$(mktemp -d)
"$PYTEST" "$@" -p no:cacheprovider tests/integration tests/claws > "$logs/docker.log" 2>&1 &
docker_pid=$!
"$PYTEST" "$@" -p no:cacheprovider tests/unit tests/e2e tests/browser > "$logs/rest.log" 2>&1 &
rest_pid=$!
wait "$docker_pid"; docker_rc=$?
wait "$rest_pid"; rest_rc=$?
for part in rest docker; do
  echo "===== pytest: $part (tests/$( [ $part = docker ] && echo 'integration tests/claws' || echo 'unit tests/e2e tests/browser'))"
  cat "$logs/$part.log"
done
rm -rf "$logs"
echo "integration+claws exit $docker_rc; unit+e2e+browser exit $rest_rc"
[ "$docker_rc" = 0 ] && [ "$rest_rc" = 0 ]
