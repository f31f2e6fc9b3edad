#!/bin/sh
# Instructions per call of each gate benchmark path (BENCHMARKS.md, "Gates"),
# and per run of the agent-loop paths (`agent-*`: BENCHMARKS.md, "Agent loop"),
# counted by callgrind: (count for N calls - count for 0 calls) / N, both
# after one warm-up call, so set-up and first-call work cancel out.
#
#   tool-core/benches/callgrind.sh [PATH...]
#
# Needs valgrind; `tokenize` and `regex` read the skills corpus
# ($SKILLS_CORPUS). Deterministic, so the machine's load does not move it.
set -eu
cd "$(dirname "$0")/../.."
driver() { # the path of the built bench binary named $1
    found=$(cargo bench -p tool-core --bench "$1" --no-run --message-format=json 2>/dev/null |
        sed -n "s|.*\"executable\":\"\([^\"]*/$1-[0-9a-f]*\)\".*|\1|p" | tail -n 1)
    [ -n "$found" ] || { echo "could not build the $1 driver" >&2; exit 1; }
    echo "$found"
}
paths=${*:-bare registry gated gated-exposed check granted-3 granted-1000 unscoped scoped resolve tokenize regex}
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for path in $paths; do
    unit=call
    case $path in
    agent-*) binary=${agent_binary:=$(driver agent_instructions)} ;;
    *) binary=${gate_binary:=$(driver instructions)} ;;
    esac
    [ -n "$binary" ] || exit 1
    case $path in
    resolve | tokenize | regex) n=200 ;;
    redact-*) n=2000 ;;
    agent-*) n=20 unit="run (5 rounds)" ;;
    *) n=20000 ;;
    esac
    base=$(count "$path" 0)
    total=$(count "$path" "$n")
    echo "$path $(( (total - base) / n )) instructions per $unit"
done
