//! The README's host quick start is the text of the compiled example, so
//! the code a reader copies is code that builds.

#[test]
fn readme_shows_the_host_quick_start_example_verbatim() {
    let readme = include_str!("../../README.md");
    let example = include_str!("../examples/host_quick_start.rs");
    assert!(
        readme.contains(&format!("```rust\n{example}```")),
        "README.md's host quick start differs from host-example/examples/host_quick_start.rs"
    );
    assert!(example.contains("run.approve("));
}
