#!/bin/sh
# Instructions of building (and dropping) a registry of 1,000 derived tools,
# for several commits side by side: the current driver
# (benches/build_instructions.rs and the `bench_tool!` macro of src/lib.rs)
# is built against each commit's tool-core, then each path is counted by
# callgrind as (count for N builds - count for 0 builds) / N, both after one
# warm-up build (N = $BUILDS, 5 unless set). "." stands for the working tree.
#
#   benches-registry/scripts/callgrind-build.sh REV... [-- PATH...]
#   benches-registry/scripts/callgrind-build.sh c984e2a . -- build build-drop
#
# Compiling the 1,000 generated tools takes a few minutes per commit. The
# building and counting are tool-core/benches/callgrind-revs.sh's, shared
# with tool-core/benches/callgrind-compare.sh. Needs valgrind.
set -eu
cd "$(dirname "$0")/../.."
. tool-core/benches/callgrind-revs.sh

driver_name=build_instructions

build_driver() {
    (cd "$1" && cargo clean --release -p tool-core -p tool-derive -p tool-rules -p benches-registry 2>/dev/null || true)
    (cd "$1" && cargo bench -p benches-registry --features large-benches --bench build_instructions \
        --no-run --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*build_instructions[^"]*\)".*/\1/p' | tail -n 1
}

prepare_tree() {
    cp benches-registry/benches/build_instructions.rs "$1/benches-registry/benches/"
    cp benches-registry/src/lib.rs "$1/benches-registry/src/"
    grep -q 'name = "build_instructions"' "$1/benches-registry/Cargo.toml" ||
        printf '\n[[bench]]\nname = "build_instructions"\nharness = false\nrequired-features = ["large-benches"]\n' \
            >>"$1/benches-registry/Cargo.toml"
}

repeats() { echo "${BUILDS:-5}"; }

compare_revs "build build-drop" "$@"
