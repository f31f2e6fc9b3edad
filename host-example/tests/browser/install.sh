#!/bin/sh
# Installs what host-example's browser tests need, every version pinned:
# Debian's chromium (Playwright's own browser download is never used),
# Playwright with pytest in a virtualenv under $CARGO_TARGET_DIR/browser,
# where tests/browser.rs looks for it, and axe-core from npm beside it.
set -eu

CHROMIUM_VERSION=156.0.8078.114-1~deb12u1
PLAYWRIGHT_VERSION=1.65.2
PYTEST_VERSION=9.2.0
AXE_CORE_VERSION=4.14.1

: "${CARGO_TARGET_DIR:?set CARGO_TARGET_DIR to the target directory the tests run from}"

if [ "$(dpkg-query -W -f '${Version}' chromium 2>/dev/null || true)" != "$CHROMIUM_VERSION" ]; then
    apt-get update
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "chromium=$CHROMIUM_VERSION"; then
        # Debian's security archive keeps only the newest chromium: say so,
        # then take it (the tests launch whatever /usr/bin/chromium is).
        echo "warning: chromium=$CHROMIUM_VERSION is gone from the archive; installing the current one" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
    fi
fi

VENV="$CARGO_TARGET_DIR/browser"
# A venv whose pip does not run is made afresh: an interrupted install, or
# a venv copied or moved from another target directory (its scripts name
# the old path's interpreter).
if ! "$VENV/bin/pip" --version >/dev/null 2>&1; then
    python3 -m venv --clear "$VENV"
fi
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the pip package never fetches a
# browser itself, but say so for any later `playwright install` by mistake.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$VENV/bin/pip" install --quiet \
    "playwright==$PLAYWRIGHT_VERSION" "pytest==$PYTEST_VERSION"
"$VENV/bin/pip" show playwright pytest | grep -E "^(Name|Version)"
# axe-core (accessibility checks run from the tests), from npm, pinned.
npm install --silent --no-audit --no-fund --prefix "$VENV/axe" "axe-core@$AXE_CORE_VERSION"
echo "axe-core $(node -p "require('$VENV/axe/node_modules/axe-core/package.json').version")"
/usr/bin/chromium --version
