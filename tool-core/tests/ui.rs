//! Compile-fail cases of `#[derive(Tool)]`, in `tests/ui/<topic>/<mistake>.rs`
//! with the `.stderr` checked in: one mistake per file, plus `*-many.rs`
//! files that prove every mistake is reported in one compile. Regenerate with
//! `TRYBUILD=overwrite cargo test -p tool-core --test ui` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    for topic in [
        "keys",
        "name",
        "doc",
        "scope",
        "shape",
        "impl",
        "bounds",
        "timeout",
        "output",
        "checks",
        "provenance",
    ] {
        t.compile_fail(format!("tests/ui/{topic}/*.rs"));
    }
}
