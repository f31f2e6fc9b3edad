#!/bin/sh
# Instructions per call of the gate paths for several commits side by side:
# the current driver (instructions.rs and its common/ and corpus/) is built
# against each commit's tool-core, then each path is counted as in
# callgrind.sh. "." stands for the working tree.
#
#   tool-core/benches/callgrind-compare.sh REV... [-- PATH...]
#   tool-core/benches/callgrind-compare.sh acf24bf . -- bare registry gated check
#
# The building and counting are callgrind-revs.sh's, shared with
# benches-registry/scripts/callgrind-build.sh.
set -eu
cd "$(dirname "$0")/../.."
. tool-core/benches/callgrind-revs.sh

driver_name=instructions

build_driver() {
    (cd "$1" && cargo clean --release -p tool-core -p tool-derive -p tool-rules 2>/dev/null || true)
    (cd "$1" && cargo bench -p tool-core --bench instructions --no-run --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*instructions[^"]*\)".*/\1/p' | tail -n 1
}

prepare_tree() {
    rm -rf "$1/tool-core/benches/common" "$1/tool-core/benches/corpus"
    cp -r tool-core/benches/instructions.rs tool-core/benches/common tool-core/benches/corpus "$1/tool-core/benches/"
    grep -q 'name = "instructions"' "$1/tool-core/Cargo.toml" ||
        printf '\n[[bench]]\nname = "instructions"\nharness = false\n' >>"$1/tool-core/Cargo.toml"
    # Before issue 16 a declaration had no timeout or retry fields.
    grep -q 'pub idempotent' "$1/tool-core/src/declaration.rs" ||
        sed -i '/^            timeout: None,$/d; /^            idempotent: true,$/d' "$1/tool-core/benches/common/mod.rs"
}

repeats() { case $1 in resolve | tokenize | regex) echo 200 ;; redact-*) echo 2000 ;; *) echo 20000 ;; esac; }

compare_revs "bare registry gated check" "$@"
