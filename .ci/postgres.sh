#!/usr/bin/env bash
# Install (if needed) and start a throwaway PostgreSQL server on 127.0.0.1:55432 with
# user/password rubricjudge and database rubricjudge_test, for the registry tests.
set -euo pipefail
PORT=55432
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
fi
BIN=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")
DATA=/tmp/rubricjudge-pg-data
if "$BIN/pg_isready" -h 127.0.0.1 -p "$PORT" -q; then
    echo "PostgreSQL already running on $PORT"
else
    rm -rf "$DATA"
    mkdir -p "$DATA"
    chown postgres:postgres "$DATA"
    su postgres -c "$BIN/initdb -D $DATA -A trust -U postgres" >/dev/null
    su postgres -c "$BIN/pg_ctl -D $DATA -o '-p $PORT -k /tmp -c listen_addresses=127.0.0.1' -l $DATA/log -w start" >/dev/null
fi
psql_() { su postgres -c "psql -h 127.0.0.1 -p $PORT -U postgres -v ON_ERROR_STOP=1 -qtAc \"$1\""; }
[ "$(psql_ "SELECT 1 FROM pg_roles WHERE rolname='rubricjudge'")" = 1 ] \
    || psql_ "CREATE ROLE rubricjudge LOGIN PASSWORD 'rubricjudge' CREATEDB"
[ "$(psql_ "SELECT 1 FROM pg_database WHERE datname='rubricjudge_test'")" = 1 ] \
    || psql_ "CREATE DATABASE rubricjudge_test OWNER rubricjudge"
echo "PostgreSQL ready on 127.0.0.1:$PORT"
