#!/usr/bin/env bash
# PostgreSQL for the host's storage tests: install (pinned), start on the
# loopback address, create the test role and database; or stop it again.
#   .ci/postgres.sh start   prints the URL to export as HOST_TEST_POSTGRES_URL
#   .ci/postgres.sh stop
set -euo pipefail

PG_MAJOR=15
# Debian 12's current point release; a fresh machine installs exactly this.
PG_VERSION="15.20-0+deb12u1"
PORT=5432
URL="postgres://host:host@127.0.0.1:${PORT}/host_test"

install() {
    if dpkg -s "postgresql-${PG_MAJOR}" >/dev/null 2>&1; then
        return
    fi
    apt-get update -qq
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-${PG_MAJOR}=${PG_VERSION}" >/dev/null; then
        # The archive keeps only the newest point release: say so, then take it.
        echo "warning: postgresql-${PG_MAJOR}=${PG_VERSION} is gone from the archive; installing the current ${PG_MAJOR}.x" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-${PG_MAJOR}" >/dev/null
    fi
}

start() {
    install
    if ! pg_lsclusters -h | grep -q "^${PG_MAJOR} main"; then
        pg_createcluster "${PG_MAJOR}" main >/dev/null
    fi
    pg_ctlcluster "${PG_MAJOR}" main start 2>/dev/null || true
    for _ in $(seq 1 30); do
        if su postgres -c "pg_isready -q -h 127.0.0.1 -p ${PORT}"; then break; fi
        sleep 1
    done
    su postgres -c "psql -q -p ${PORT} -tc \"SELECT 1 FROM pg_roles WHERE rolname='host'\"" | grep -q 1 \
        || su postgres -c "psql -q -p ${PORT} -c \"CREATE ROLE host LOGIN PASSWORD 'host' SUPERUSER\""
    su postgres -c "psql -q -p ${PORT} -tc \"SELECT 1 FROM pg_database WHERE datname='host_test'\"" | grep -q 1 \
        || su postgres -c "createdb -p ${PORT} -O host host_test"
    echo "${URL}"
}

stop() {
    pg_ctlcluster "${PG_MAJOR}" main stop 2>/dev/null || true
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
