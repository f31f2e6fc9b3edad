//! An extension author's first hour, from outside the workspace: a crate
//! (tests/author_crate/) declaring a read tool and a write tool, with
//! tool-core as the README says (`default-features = false`), copied to a
//! temporary folder with path dependencies on this checkout, builds, and
//! its own tests call both tools through a registry (tool-core's `host`
//! as a dev-dependency), the write tool through an approval; and a host
//! of it that forgets the crate's `link()` is told so, naming the crate.

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn an_author_crate_outside_the_workspace_builds_and_tests_its_tools() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repository = here.parent().expect("tool-core sits in the workspace");
    let folder = tempfile_folder();
    copy(&here.join("tests/author_crate"), &folder);
    let tool_core = here.display().to_string();
    std::fs::write(
        folder.join("Cargo.toml"),
        format!(
            r#"[package]
name = "author-crate"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
tool-core = {{ path = "{tool_core}", default-features = false }}
serde = {{ version = "1.0.228", features = ["derive"] }}
serde_json = "1.0.145"
schemars = {{ version = "1.2", default-features = false, features = ["derive", "std"] }}

[dev-dependencies]
tool-core = {{ path = "{tool_core}", features = ["host"] }}
futures-executor = "0.3.31"

[workspace]
"#
        ),
    )
    .unwrap();
    // The workspace's versions, and nothing fetched.
    std::fs::copy(repository.join("Cargo.lock"), folder.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = repository.join("target").join("author-crate");
    let build = Command::new(&cargo)
        .args(["build", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&folder)
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "the library, tool-core without default features, does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let test = Command::new(&cargo)
        .args(["test", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&folder)
        .output()
        .unwrap();
    assert!(
        test.status.success(),
        "the author's tests fail:\n{}\n{}",
        String::from_utf8_lossy(&test.stdout),
        String::from_utf8_lossy(&test.stderr)
    );
    for (calls_link, tools) in [(false, 0), (true, 2)] {
        host_links(&folder, &target, calls_link, tools);
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// A host of the author's crate, beside it, that calls its `link()` or
/// forgets it: forgotten, rustc's `unused_crate_dependencies` names the
/// crate (the warning `tool_core::linkable!` documents) and the registry
/// has none of its tools; called, no warning and both tools.
fn host_links(author: &Path, target: &Path, calls_link: bool, tools: usize) {
    let folder = author.with_extension(format!("host-{calls_link}"));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("src")).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        folder.join("Cargo.toml"),
        format!(
            r#"[package]
name = "author-host"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
author-crate = {{ path = "{}" }}
tool-core = {{ path = "{}", default-features = false, features = ["host"] }}

[workspace]
"#,
            author.display(),
            here.display()
        ),
    )
    .unwrap();
    let link = if calls_link {
        "author_crate::link();"
    } else {
        ""
    };
    std::fs::write(
        folder.join("src/main.rs"),
        format!(
            "#![warn(unused_crate_dependencies)]\n\
             fn main() {{\n    {link}\n    \
             println!(\"{{}}\", tool_core::Registry::linked().unwrap().tools().len());\n}}\n"
        ),
    )
    .unwrap();
    let repository = here.parent().unwrap();
    std::fs::copy(repository.join("Cargo.lock"), folder.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let run = Command::new(&cargo)
        .args(["run", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(&folder)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the host does not run:\n{stderr}");
    let warned = stderr.contains("extern crate `author_crate` is unused");
    assert_eq!(warned, !calls_link, "calls link: {calls_link}\n{stderr}");
    let listed = String::from_utf8_lossy(&run.stdout);
    assert_eq!(listed.trim(), tools.to_string(), "calls link: {calls_link}");
    let _ = std::fs::remove_dir_all(&folder);
}

/// A fresh folder under the system's temporary directory.
fn tempfile_folder() -> PathBuf {
    let folder = std::env::temp_dir().join(format!("author-crate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
