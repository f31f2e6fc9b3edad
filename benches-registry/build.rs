//! Writes `tools_{N}.rs` into OUT_DIR for the registry build benchmarks:
//! N invocations of `bench_tool!`, each a derived tool.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for count in [10, 1_000, 10_000] {
        let mut source = String::new();
        for index in 0..count {
            writeln!(
                source,
                "benches_registry::bench_tool!(GeneratedTool{index:05});"
            )
            .expect("writing to a String cannot fail");
        }
        std::fs::write(out.join(format!("tools_{count}.rs")), source).expect("OUT_DIR is writable");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
