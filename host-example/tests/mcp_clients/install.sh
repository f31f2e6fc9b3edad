#!/usr/bin/env bash
# Installs the pinned MCP clients the end-to-end tests drive
# (tests/mcp_python.rs, tests/mcp_typescript.rs):
#   - the Python `mcp` package (requirements.txt) into a virtual environment;
#   - the TypeScript SDK (package.json + package-lock.json) with `npm ci`.
#
# Usage: install.sh [DIR]
# DIR defaults to $CARGO_TARGET_DIR/mcp-clients, else target/mcp-clients at
# the workspace root: the place the tests look (or set MCP_CLIENTS_DIR).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
workspace="$(cd "$here/../../.." && pwd)"
dir="${1:-${MCP_CLIENTS_DIR:-${CARGO_TARGET_DIR:-$workspace/target}/mcp-clients}}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

python3 -m venv "$dir/venv"
"$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --requirement "$here/requirements.txt"

# npm ci installs next to its package.json; a copy keeps node_modules out
# of the source tree.
mkdir -p "$dir/node"
cp "$here/package.json" "$here/package-lock.json" "$dir/node/"
(cd "$dir/node" && npm ci --no-audit --no-fund --loglevel=error)

echo "MCP clients installed in $dir"
