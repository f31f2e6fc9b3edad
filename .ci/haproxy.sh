#!/usr/bin/env bash
# HAProxy for the tests and the bench that put several `host-example serve`
# processes behind a round-robin proxy (host-example/tests/mcp_processes.rs,
# benches/mcp_http_load): installed (pinned) from Debian. The tests start
# and stop their own HAProxy processes; nothing runs as a service.
#   .ci/haproxy.sh install
set -euo pipefail

# Debian 12's current package; a fresh machine installs exactly this.
HAPROXY_VERSION="2.6.12-1+deb12u3"

install() {
    if dpkg -s haproxy >/dev/null 2>&1; then
        return
    fi
    apt-get update -qq
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "haproxy=${HAPROXY_VERSION}" >/dev/null; then
        # The archive keeps only the newest security release: say so, then take it.
        echo "warning: haproxy=${HAPROXY_VERSION} is gone from the archive; installing the current 2.6.x" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
    fi
    # The package starts a system service where it can; the tests need none.
    if command -v systemctl >/dev/null 2>&1; then
        systemctl disable --now haproxy >/dev/null 2>&1 || true
    fi
}

case "${1:-}" in
    install) install ;;
    *) echo "usage: $0 install" >&2; exit 2 ;;
esac
