#!/usr/bin/env bash
# Cold `cargo build --release` cost of declaring tools with tool-core, against
# serde + schemars by hand (the baseline) and against rmcp: what an extension
# author pays (a library crate that only declares tools, tool-core without
# default features) and what a host pays with each feature combination it
# would pick (`host` alone, with `validate`, `skills`, `agent` or `egress`,
# `default` and `all`, which adds `validate`).
#
# Usage: benches-registry/scripts/cold-build.sh [RUNS]   (default RUNS=2)
#        benches-registry/scripts/cold-build.sh --check  (build and run each
#        throwaway crate once, in debug, to check the generated sources)
#
# Creates throwaway crates in a temp dir, each with its own target dir and a
# copy of the workspace's Cargo.lock (so every variant builds the same
# dependency versions), fetches first (no network in the timings), then per
# variant times RUNS cold release builds (`cargo clean` + `cargo build
# --release`, the last one with `--timings`). Beside wall time it reports the
# build's user+sys CPU seconds (cargo and every rustc and build script it
# waited for), which moves much less than wall time when other builds share
# the machine, and names the crates that took the most CPU (each rustc run
# under `/usr/bin/time` through RUSTC_WRAPPER). Then it measures what a tool
# costs to compile: the rebuild of the leaf crate alone with 1 and with 50
# tools, and after adding a 51st.
#
# Environment:
#   TOOL_CORE_SOURCE=head      (default) measure tool-core as committed at HEAD
#                                (`git archive`), immune to uncommitted edits
#   TOOL_CORE_SOURCE=worktree  measure the working tree
#   KEEP=1                     keep the temp dir (it is printed either way)
#   SKIP_RMCP=1                skip the rmcp variant
#   SKIP_PER_TOOL=1            skip the per-tool (leaf rebuild) part
#
# Only cargo, git, python3, coreutils and GNU time (/usr/bin/time) are
# needed; figures go to stdout and to $WORK/results.md.
set -euo pipefail
# Every build here uses its own target dir: an inherited one would be
# cleaned by the `cargo clean` of each run.
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR

CHECK=0
if [[ "${1:-}" == --check ]]; then
    CHECK=1
    shift
fi
RUNS=${1:-2}
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/coldbuild.XXXXXX")
RESULTS="$WORK/results.md"
if [[ "${KEEP:-0}" != 1 ]]; then
    trap 'echo "(removing $WORK; KEEP=1 keeps it)"; rm -rf "$WORK"' EXIT
fi

case "${TOOL_CORE_SOURCE:-head}" in
    head)
        mkdir "$WORK/repo"
        git -C "$REPO" archive HEAD | tar -x -C "$WORK/repo"
        SOURCE="HEAD $(git -C "$REPO" rev-parse --short HEAD)"
        ;;
    worktree)
        mkdir "$WORK/repo"
        (cd "$REPO" && tar --exclude=./target --exclude=./.git -cf - .) | tar -x -C "$WORK/repo"
        SOURCE="working tree at $(git -C "$REPO" rev-parse --short HEAD)"
        ;;
    *)
        echo "TOOL_CORE_SOURCE must be head or worktree" >&2
        exit 2
        ;;
esac
TOOL_CORE="$WORK/repo/tool-core"

say() { echo "$*" | tee -a "$RESULTS"; }

# RUSTC_WRAPPER: runs rustc under GNU time, appending "crate user sys" to
# $CPU_LOG (cargo's own `rustc -vV` probes log as "-").
WRAPPER="$WORK/rustc-cpu.sh"
cat >"$WRAPPER" <<'EOF'
#!/usr/bin/env bash
name=-
prev=
for arg in "$@"; do
    [[ $prev == --crate-name ]] && name=$arg
    prev=$arg
done
exec /usr/bin/time -a -o "$CPU_LOG" -f "$name %U %S" "$@"
EOF
chmod +x "$WRAPPER"

now() { date +%s.%N; }

# The dependency lines each variant adds to serde, serde_json and schemars,
# the same versions and features as the workspace's [workspace.dependencies].
COMMON_DEPS='serde = { version = "1.0.228", features = ["derive", "rc"] }
serde_json = "1.0.145"
schemars = { version = "1.2", default-features = false, features = ["derive", "std"] }'

# args_struct I DERIVES ATTRS: the arguments struct of tool I.
args_struct() {
    cat <<EOF
/// List the files of a directory.
#[derive($2)]
$3
pub struct ListFiles$1 {
    /// The directory to list.
    pub path: String,
    /// At most this many entries.
    pub limit: u32,
    /// Whether to include sizes.
    pub verbose: bool,
}

EOF
}

# main_rs KIND COUNT: the source of a crate declaring COUNT tools. Every
# tool is reachable (listed, registered or routed), so each variant compiles
# each tool's schema and call path, as a real host would.
main_rs() {
    local kind=$1 count=$2 i
    cat <<'EOF'
pub fn list_files(path: String, limit: u32, verbose: bool) -> String {
    let mut listing = path;
    if !verbose {
        listing.truncate((limit as usize).min(listing.len()));
    }
    listing
}

EOF
    case $kind in
        hand)
            # By hand: serde + schemars derives, a schema and a call
            # function per tool, and a table of them.
            cat <<'EOF'
use schemars::JsonSchema;
use serde::Deserialize;

pub struct HandTool {
    pub name: &'static str,
    pub schema: fn() -> serde_json::Value,
    pub call: fn(serde_json::Value) -> Result<String, serde_json::Error>,
}

pub fn schema_of<T: JsonSchema>() -> serde_json::Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

EOF
            for ((i = 0; i < count; i++)); do
                args_struct "$i" "Deserialize, JsonSchema" ""
                cat <<EOF
fn call$i(arguments: serde_json::Value) -> Result<String, serde_json::Error> {
    let this: ListFiles$i = serde_json::from_value(arguments)?;
    Ok(list_files(this.path, this.limit, this.verbose))
}

EOF
            done
            echo 'pub static TOOLS: &[HandTool] = &['
            for ((i = 0; i < count; i++)); do
                echo "    HandTool { name: \"list_files$i\", schema: schema_of::<ListFiles$i>, call: call$i },"
            done
            cat <<'EOF'
];

fn main() {
    let schemas: Vec<_> = TOOLS.iter().map(|tool| (tool.name, (tool.schema)())).collect();
    let arguments = serde_json::json!({ "path": "src", "limit": 3, "verbose": false });
    let output = (TOOLS[0].call)(arguments).expect("valid arguments");
    println!("{} tools; {output}; {}", schemas.len(), schemas[0].1);
}
EOF
            ;;
        derive)
            cat <<'EOF'
use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Outcome, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

EOF
            for ((i = 0; i < count; i++)); do
                args_struct "$i" "Tool, Deserialize, JsonSchema" '#[tool(group = "files", effect = "read")]'
                cat <<EOF
impl Execute for ListFiles$i {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(list_files(self.path, self.limit, self.verbose)))
    }
}

EOF
            done
            cat <<'EOF'
fn main() {
    let registry = Registry::linked().expect("valid tools");
    let cx = ToolContext::new(RunId("cold-build".into()));
    let arguments = serde_json::json!({ "path": "src", "limit": 3, "verbose": false });
    let mut call = std::pin::pin!(registry.call_ungated("list_files0", arguments, &cx));
    // The tool never waits, so one poll with a no-op waker finishes it.
    let mut poll_cx = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(Ok(Outcome::Done(output))) = call.as_mut().poll(&mut poll_cx) else {
        panic!("the call failed");
    };
    println!("{} tools; {:?}", registry.len(), output.as_text());
}
EOF
            ;;
        declare)
            # An extension author's crate: a library that only declares
            # tools (and the `link()` a host calls to keep it linked).
            cat <<'EOF'
use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

EOF
            for ((i = 0; i < count; i++)); do
                args_struct "$i" "Tool, Deserialize, JsonSchema" '#[tool(group = "files", effect = "read")]'
                cat <<EOF
impl Execute for ListFiles$i {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(list_files(self.path, self.limit, self.verbose)))
    }
}

EOF
            done
            cat <<'EOF'
/// Call once from the host so the linker keeps this crate's registrations.
pub fn link() {}
EOF
            ;;
        rmcp)
            cat <<'EOF'
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

EOF
            for ((i = 0; i < count; i++)); do
                args_struct "$i" "Deserialize, JsonSchema" ""
            done
            cat <<'EOF'
#[derive(Clone)]
pub struct Server;

#[tool_router(server_handler)]
impl Server {
EOF
            for ((i = 0; i < count; i++)); do
                cat <<EOF
    /// List the files of a directory.
    #[tool]
    fn list_files$i(&self, Parameters(arguments): Parameters<ListFiles$i>) -> String {
        list_files(arguments.path, arguments.limit, arguments.verbose)
    }

EOF
            done
            cat <<'EOF'
}

fn main() {
    let tools = Server::tool_router().list_all();
    println!("{} tools; {}", tools.len(), serde_json::to_string(&tools[0]).expect("serializable"));
}
EOF
            ;;
    esac
}

# make_crate NAME KIND COUNT EXTRA_DEPS
make_crate() {
    local name=$1 kind=$2 count=$3 extra=$4 dir="$WORK/$1"
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$COMMON_DEPS
$extra

[workspace]
EOF
    cp "$REPO/Cargo.lock" "$dir/Cargo.lock"
    if [[ $kind == declare ]]; then
        main_rs "$kind" "$count" >"$dir/src/lib.rs"
    else
        main_rs "$kind" "$count" >"$dir/src/main.rs"
    fi
    (cd "$dir" && cargo fetch --quiet)
}

# time_cmd DIR COMMAND...: wall seconds of COMMAND run in DIR.
time_cmd() {
    local dir=$1 start end
    shift
    start=$(now)
    (cd "$dir" && "$@" >/dev/null 2>&1)
    end=$(now)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

# cold NAME: RUNS cold release builds, each timed (wall and user+sys CPU)
# with every rustc's CPU logged; the last run also writes `--timings`.
cold() {
    local name=$1 dir="$WORK/$1" walls=() cpus=() run timings load_before
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    for ((run = 1; run <= RUNS; run++)); do
        (cd "$dir" && cargo clean --quiet)
        timings=()
        if ((run == RUNS)); then
            timings=(--timings)
        fi
        rm -f "$WORK/$name.cpu" "$WORK/$name.time"
        (cd "$dir" && CPU_LOG="$WORK/$name.cpu" RUSTC_WRAPPER="$WRAPPER" \
            /usr/bin/time -o "$WORK/$name.time" -f "%e %U %S" \
            cargo build --release "${timings[@]}" >/dev/null 2>&1)
        walls+=("$(awk '{ printf "%.1f", $1 }' "$WORK/$name.time")")
        cpus+=("$(awk '{ printf "%.1f", $2 + $3 }' "$WORK/$name.time")")
    done
    local units wall cpu
    units=$(cd "$dir" && cargo tree -e normal,build --prefix none --no-dedupe | sort -u | wc -l)
    wall=$(mean "${walls[@]}")
    cpu=$(mean "${cpus[@]}")
    if [[ $name == baseline ]]; then
        BASE_WALL=$wall
        BASE_CPU=$cpu
    fi
    say "| $name | ${walls[*]} | $wall | $(over "$wall" "$BASE_WALL") | ${cpus[*]} | $cpu | $(over "$cpu" "$BASE_CPU") | $load_before–$(cut -d' ' -f1 /proc/loadavg) | $units | $(slowest "$WORK/$name.cpu") |"
}

# over VALUE BASE: VALUE - BASE signed, or "–" for the baseline itself.
over() { awk -v v="$1" -v b="$2" 'BEGIN { d = v - b; if (d == 0) print "–"; else printf "%+.1f", d }'; }

mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { printf "%.1f", s / NR }'; }

# slowest CPU_LOG: the five crates whose rustc runs took the most CPU in
# the last run (user+sys; a crate's build script and library summed).
slowest() {
    awk '$1 != "-" { cpu[$1] += $2 + $3 } END { for (c in cpu) printf "%s %.1f\n", c, cpu[c] }' "$1" |
        sort -k2,2 -rn | head -5 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'
}

# leaf NAME: the rebuild of the leaf crate alone (touch main.rs), 3 runs.
leaf() {
    local dir="$WORK/$1" times=() run
    (cd "$dir" && cargo build --release >/dev/null 2>&1)
    for run in 1 2 3; do
        touch "$dir/src/main.rs"
        times+=("$(time_cmd "$dir" cargo build --release)")
    done
    mean "${times[@]}"
}

RMCP_DEP='rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }'
# An extension author's dependency: only what declaring tools needs.
TOOL_CORE_AUTHOR="tool-core = { path = \"$TOOL_CORE\", default-features = false }"
# The feature combinations a host would pick, as NAME=FEATURES (every host
# needs `host`, the registry; `validate`, `skills` and `agent` imply it):
# `default` is tool-core's defaults, `all` adds `validate` (run-time tools).
HOSTS=(none=host validate=validate skills=skills agent=agent egress=host,egress default=host,skills,agent,egress all=host,validate,skills,agent,egress)
# host_dep NAME=FEATURES: a host's tool-core dependency line.
host_dep() {
    local list
    list=$(printf '%s' "${1#*=}" | sed 's/[^,][^,]*/"&"/g; s/,/, /g')
    echo "tool-core = { path = \"$TOOL_CORE\", default-features = false, features = [$list] }"
}

if [[ $CHECK == 1 ]]; then
    make_crate baseline hand 2 ""
    make_crate author declare 2 "$TOOL_CORE_AUTHOR"
    names=(baseline)
    for variant in "${HOSTS[@]}"; do
        make_crate "host_${variant%%=*}" derive 2 "$(host_dep "$variant")"
        names+=("host_${variant%%=*}")
    done
    make_crate rmcp rmcp 2 "$RMCP_DEP"
    names+=(rmcp)
    echo "== author"
    (cd "$WORK/author" && CARGO_TARGET_DIR="$WORK/target-check" cargo build --quiet)
    for name in "${names[@]}"; do
        echo "== $name"
        (cd "$WORK/$name" && CARGO_TARGET_DIR="$WORK/target-check" cargo run --quiet)
    done
    exit 0
fi

say "# Cold release builds ($(date -u +%Y-%m-%dT%H:%MZ))"
say
say "- machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(rustc --version)"
say "- tool-core: $SOURCE; dependency versions from the workspace Cargo.lock"
say "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
say "- $WORK"
say

make_crate baseline hand 1 ""
make_crate author declare 1 "$TOOL_CORE_AUTHOR"
for variant in "${HOSTS[@]}"; do
    make_crate "host_${variant%%=*}" derive 1 "$(host_dep "$variant")"
done
if [[ "${SKIP_RMCP:-0}" != 1 ]]; then
    make_crate rmcp rmcp 1 "$RMCP_DEP"
fi

say "## Cold \`cargo build --release\` after \`cargo clean\` (seconds)"
say
say "baseline: serde + serde_json + schemars, one tool by hand. author: a library"
say "that only declares one tool (tool-core without default features). host_*: a"
say "binary that declares, registers and calls it, tool-core with \`host\` alone"
say "(none), one feature more, or all (default). CPU: user+sys of the whole build."
say
say "| crate | wall runs | wall mean | wall over baseline | CPU runs | CPU mean | CPU over baseline | load (1 min) before–after | packages | most CPU (rustc, s) |"
say "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
cold baseline
cold author
for variant in "${HOSTS[@]}"; do
    cold "host_${variant%%=*}"
done
if [[ "${SKIP_RMCP:-0}" != 1 ]]; then
    cold rmcp
fi
say
say "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
say
if [[ "${SKIP_PER_TOOL:-0}" == 1 ]]; then
    echo "results: $RESULTS"
    exit 0
fi

say "## What a tool costs to compile (leaf crate only, release, mean of 3, seconds)"
say
say "| crate | 1 tool | 50 tools | per extra tool | 51st tool added: rebuild |"
say "| --- | --- | --- | --- | --- |"
per_tool() {
    local kind=$1 name=$2 extra=$3 one fifty added
    make_crate "${name}_1" "$kind" 1 "$extra"
    make_crate "${name}_50" "$kind" 50 "$extra"
    make_crate "${name}_51" "$kind" 51 "$extra"
    # One target dir for the three, so the dependencies build once; the
    # 51st tool is added by swapping the 51-tool source into the 50-tool
    # crate and timing the rebuild.
    export CARGO_TARGET_DIR="$WORK/target-$name"
    one=$(leaf "${name}_1")
    fifty=$(leaf "${name}_50")
    cp "$WORK/${name}_51/src/main.rs" "$WORK/${name}_50/src/main.rs"
    added=$(time_cmd "$WORK/${name}_50" cargo build --release)
    unset CARGO_TARGET_DIR
    say "| $name | $one | $fifty | $(awk -v a="$one" -v b="$fifty" 'BEGIN { printf "%.0f", (b - a) / 49 * 1000 }') ms | $added |"
}
per_tool hand baseline ""
per_tool derive toolcore_default "tool-core = { path = \"$TOOL_CORE\" }"
per_tool derive toolcore_host_only "$(host_dep none=host)"
if [[ "${SKIP_RMCP:-0}" != 1 ]]; then
    per_tool rmcp rmcp "$RMCP_DEP"
fi
say
say "- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "results: $RESULTS"
