#!/bin/sh
# Instructions of building (and dropping) a registry of 1,000 derived tools,
# for several commits side by side: the current driver
# (benches/build_instructions.rs and the `bench_tool!` macro of src/lib.rs)
# is built against each commit's tool-core, then each path is counted by
# callgrind as (count for N builds - count for 0 builds) / N, both after one
# warm-up build. "." stands for the working tree.
#
#   benches-registry/scripts/callgrind-build.sh REV... [-- PATH...]
#   benches-registry/scripts/callgrind-build.sh c984e2a . -- build build-drop
#
# Compiling the 1,000 generated tools takes a few minutes per commit. One
# target directory serves every commit; the workspace crates are cleaned
# before each build (cargo names their artifacts the same from any
# checkout), and each driver is copied out before the next build replaces
# it. Needs valgrind; deterministic, so the machine's load does not move it.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
export CARGO_TARGET_DIR=$target
work=$target/callgrind-build
mkdir -p "$work"
revs=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do revs="$revs $1"; shift; done
[ $# -gt 0 ] && shift
paths=${*:-build build-drop}
[ -n "$revs" ] || { echo "usage: $0 REV... [-- PATH...]" >&2; exit 2; }

build() { # build DIR NAME: the driver of the workspace in DIR, copied to $work/NAME
    (cd "$1" && cargo clean --release -p tool-core -p tool-derive -p tool-rules -p benches-registry 2>/dev/null || true)
    (cd "$1" && cargo bench -p benches-registry --features large-benches --bench build_instructions \
        --no-run --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*build_instructions[^"]*\)".*/\1/p' | tail -n 1 |
        { read -r exe && cp "$exe" "$work/$2"; } ||
        { echo "could not build the driver against $2" >&2; exit 1; }
}

label() { if [ "$1" = . ]; then echo worktree; else echo "$1" | tr / _; fi; }

for rev in $revs; do
    name=$(label "$rev")
    if [ "$rev" = . ]; then
        build "$root" "$name"
        continue
    fi
    tree=$work/tree-$name
    rm -rf "$tree" && mkdir -p "$tree"
    git archive "$rev" | tar -x -C "$tree"
    # The working tree's lock, so shared dependencies resolve to the same
    # versions; the driver and the tool macro as they are now.
    cp Cargo.lock "$tree/"
    cp benches-registry/benches/build_instructions.rs "$tree/benches-registry/benches/"
    cp benches-registry/src/lib.rs "$tree/benches-registry/src/"
    grep -q 'name = "build_instructions"' "$tree/benches-registry/Cargo.toml" ||
        printf '\n[[bench]]\nname = "build_instructions"\nharness = false\nrequired-features = ["large-benches"]\n' \
            >>"$tree/benches-registry/Cargo.toml"
    build "$tree" "$name"
done

count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
n=${BUILDS:-5}
printf '%-12s' path; for rev in $revs; do printf '%14s' "$rev"; done; echo
for path in $paths; do
    printf '%-12s' "$path"
    for rev in $revs; do
        driver=$work/$(label "$rev")
        base=$(count "$driver" "$path" 0)
        total=$(count "$driver" "$path" "$n")
        printf '%14s' $(( (total - base) / n ))
    done
    echo
done
