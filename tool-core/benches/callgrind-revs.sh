# Sourced by tool-core/benches/callgrind-compare.sh and
# benches-registry/scripts/callgrind-build.sh: counts a driver's paths
# with callgrind for several commits side by side. The caller, run from
# the workspace root, defines
#   driver_name              the bench target (also the copied driver's prefix)
#   build_driver DIR         builds the driver in the workspace at DIR and
#                            prints the executable's path
#   prepare_tree TREE        puts the current driver into a commit's tree
#   repeats PATH             how many calls (or builds) one count runs
# and calls `compare_revs DEFAULT_PATHS REV... [-- PATH...]`; "." stands
# for the working tree.
#
# One target directory serves every commit (their dependencies are
# shared). Cargo names a workspace crate's artifacts the same from any
# checkout and may take another checkout's build for fresh, so
# build_driver cleans the workspace crates first, and each driver is copied
# out before the next build replaces it. Deterministic, so the machine's
# load does not move the counts.

label() { if [ "$1" = . ]; then echo worktree; else echo "$1" | tr / _; fi; }

count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

compare_revs() {
    default_paths=$1
    shift
    root=$(pwd)
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
    work=$CARGO_TARGET_DIR/callgrind-$driver_name
    mkdir -p "$work"
    revs=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do revs="$revs $1"; shift; done
    [ $# -gt 0 ] && shift
    paths=${*:-$default_paths}
    [ -n "$revs" ] || { echo "usage: $0 REV... [-- PATH...]" >&2; exit 2; }

    for rev in $revs; do
        name=$(label "$rev")
        dir=$root
        if [ "$rev" != . ]; then
            dir=$work/tree-$name
            rm -rf "$dir" && mkdir -p "$dir"
            git archive "$rev" | tar -x -C "$dir"
            # The working tree's lock, so shared dependencies resolve to
            # the same versions; then the driver as it is now.
            cp Cargo.lock "$dir/"
            prepare_tree "$dir"
        fi
        exe=$(build_driver "$dir") && [ -n "$exe" ] && cp "$exe" "$work/$name" ||
            { echo "could not build the driver against $rev" >&2; exit 1; }
    done

    printf '%-14s' path; for rev in $revs; do printf '%14s' "$rev"; done; echo
    for path in $paths; do
        n=$(repeats "$path")
        printf '%-14s' "$path"
        for rev in $revs; do
            driver=$work/$(label "$rev")
            base=$(count "$driver" "$path" 0)
            total=$(count "$driver" "$path" "$n")
            printf '%14s' $(( (total - base) / n ))
        done
        echo
    done
}
