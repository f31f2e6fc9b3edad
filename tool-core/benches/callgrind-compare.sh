#!/bin/sh
# Instructions per call of the gate paths for several commits side by side:
# the current driver (instructions.rs and its common/ and corpus/) is built
# against each commit's tool-core, then each path is counted as in
# callgrind.sh. "." stands for the working tree.
#
#   tool-core/benches/callgrind-compare.sh REV... [-- PATH...]
#   tool-core/benches/callgrind-compare.sh acf24bf . -- bare registry gated check
#
# One target directory serves every commit (their dependencies are shared).
# Cargo names a workspace crate's artifacts the same from any checkout and
# may take another checkout's build for fresh, so the workspace crates are
# cleaned before each build, and each driver is copied out before the next
# build replaces it.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
export CARGO_TARGET_DIR=$target
work=$target/callgrind-compare
mkdir -p "$work"
revs=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do revs="$revs $1"; shift; done
[ $# -gt 0 ] && shift
paths=${*:-bare registry gated check}
[ -n "$revs" ] || { echo "usage: $0 REV... [-- PATH...]" >&2; exit 2; }

build() { # build DIR NAME: the driver of the workspace in DIR, copied to $work/NAME
    (cd "$1" && cargo clean --release -p tool-core -p tool-derive -p tool-rules 2>/dev/null || true)
    (cd "$1" && cargo bench -p tool-core --bench instructions --no-run --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*instructions[^"]*\)".*/\1/p' | tail -n 1 |
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
    # versions; the driver and its helpers as they are now.
    cp Cargo.lock "$tree/"
    rm -rf "$tree/tool-core/benches/common" "$tree/tool-core/benches/corpus"
    cp -r tool-core/benches/instructions.rs tool-core/benches/common tool-core/benches/corpus "$tree/tool-core/benches/"
    grep -q 'name = "instructions"' "$tree/tool-core/Cargo.toml" ||
        printf '\n[[bench]]\nname = "instructions"\nharness = false\n' >>"$tree/tool-core/Cargo.toml"
    # Before issue 16 a declaration had no timeout or retry fields.
    grep -q 'pub idempotent' "$tree/tool-core/src/declaration.rs" ||
        sed -i '/^            timeout: None,$/d; /^            idempotent: true,$/d' "$tree/tool-core/benches/common/mod.rs"
    build "$tree" "$name"
done

count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-14s' path; for rev in $revs; do printf '%12s' "$rev"; done; echo
for path in $paths; do
    case $path in resolve | tokenize | regex) n=200 ;; *) n=20000 ;; esac
    printf '%-14s' "$path"
    for rev in $revs; do
        driver=$work/$(label "$rev")
        base=$(count "$driver" "$path" 0)
        total=$(count "$driver" "$path" "$n")
        printf '%12s' $(( (total - base) / n ))
    done
    echo
done
