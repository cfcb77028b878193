#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on loopback for the tests of a Prefect server on
# PostgreSQL: reuse a running one, else install Debian's postgresql and start its cluster.
# Creates the role the tests use (clawmark, may create databases; each test makes a fresh one).
# Idempotent. Prints the URL the tests read as CLAWMARK_TEST_POSTGRES_URL.
set -euo pipefail

port="${CLAWMARK_PG_PORT:-5432}"
role="${CLAWMARK_PG_ROLE:-clawmark}"
password="${CLAWMARK_PG_PASSWORD:-clawmark}"  # a local test role on loopback, not a secret

say() { printf 'postgres-up: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
as_postgres() { runuser -u postgres -- "$@"; }

[ "$(id -u)" = 0 ] || die "setting up PostgreSQL needs root (or start a server yourself and set CLAWMARK_TEST_POSTGRES_URL)"
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  say "installing postgresql from Debian"
  bash "$(dirname "$0")/apt-install.sh" postgres-up postgresql
fi

cluster=$(pg_lsclusters --no-header | awk -v p="$port" '$3 == p {print $1 " " $2; exit}')
if [ -z "$cluster" ]; then
  version=$(ls /usr/lib/postgresql | sort -n | tail -1)
  say "creating cluster $version/clawmark on port $port"
  pg_createcluster "$version" clawmark --port "$port" >/dev/null || die "pg_createcluster failed"
  cluster="$version clawmark"
fi
set -- $cluster
if ! pg_lsclusters --no-header | awk -v v="$1" -v n="$2" '$1 == v && $2 == n && $4 == "online" {found=1} END {exit !found}'; then
  say "starting cluster $1/$2"
  pg_ctlcluster "$1" "$2" start || die "pg_ctlcluster $1 $2 start failed (see /var/log/postgresql/postgresql-$1-$2.log)"
fi
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p "$port" && break
  sleep 1
done
pg_isready -q -h 127.0.0.1 -p "$port" || die "PostgreSQL on 127.0.0.1:$port did not answer within 60 s"

if [ "$(as_postgres psql -p "$port" -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" != 1 ]; then
  say "creating role $role"
  as_postgres psql -p "$port" -q -c "CREATE ROLE $role LOGIN CREATEDB PASSWORD '$password'" || die "CREATE ROLE failed"
fi
say "ready: postgresql+asyncpg://$role:***@127.0.0.1:$port/postgres"
