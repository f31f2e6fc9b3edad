//! The digest an administrator approves: every file of a skill folder, in
//! a form `sha256sum` reproduces.

use std::fs;
use std::path::Path;
use std::process::Command;

use host_example::app::skills::digest::{DigestError, FileChange, SkillFolder};

fn skill(root: &Path) -> std::path::PathBuf {
    let folder = root.join("review");
    fs::create_dir_all(folder.join("scripts")).unwrap();
    fs::create_dir_all(folder.join(".hidden")).unwrap();
    fs::write(folder.join("SKILL.md"), "---\nname: review\n---\nBody\n").unwrap();
    fs::write(folder.join("scripts/run.sh"), "echo run\n").unwrap();
    fs::write(folder.join("scripts.md"), "notes\n").unwrap();
    fs::write(folder.join(".hidden/x"), [0u8, 255, 10]).unwrap();
    folder
}

/// What the docs say an administrator can run instead of this host.
fn sha256sum_pipeline(folder: &Path) -> String {
    let output = Command::new("sh")
        .arg("-c")
        .arg("find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum")
        .current_dir(folder)
        .output()
        .unwrap();
    assert!(output.status.success());
    let out = String::from_utf8(output.stdout).unwrap();
    out.split_whitespace().next().unwrap().to_owned()
}

#[test]
fn the_digest_is_what_the_documented_sha256sum_pipeline_prints() {
    let root = tempfile::tempdir().unwrap();
    let folder = skill(root.path());
    let digest = SkillFolder::digest_of(&folder).unwrap();
    assert_eq!(digest.digest, sha256sum_pipeline(&folder));
    let paths: Vec<&str> = digest.files.iter().map(|f| f.path.as_str()).collect();
    // Byte order of the whole path: `scripts.md` before `scripts/run.sh`.
    assert_eq!(
        paths,
        [".hidden/x", "SKILL.md", "scripts.md", "scripts/run.sh"]
    );
}

#[test]
fn every_file_counts_and_a_nested_skill_does_not() {
    let root = tempfile::tempdir().unwrap();
    let folder = skill(root.path());
    let before = SkillFolder::digest_of(&folder).unwrap();
    let nested = folder.join("helpers/inner");
    fs::create_dir_all(&nested).unwrap();
    fs::write(nested.join("SKILL.md"), "---\nname: inner\n---\n").unwrap();
    assert_eq!(SkillFolder::digest_of(&folder).unwrap(), before);

    fs::write(folder.join(".hidden/x"), [0u8, 254, 10]).unwrap();
    fs::remove_file(folder.join("scripts.md")).unwrap();
    fs::write(folder.join("helpers/new.md"), "new\n").unwrap();
    let after = SkillFolder::digest_of(&folder).unwrap();
    assert_ne!(after.digest, before.digest);
    assert_eq!(
        after.changes_since(&before),
        [
            FileChange::Changed(".hidden/x".to_owned()),
            FileChange::Added("helpers/new.md".to_owned()),
            FileChange::Removed("scripts.md".to_owned()),
        ]
    );
    assert!(before.changes_since(&before).is_empty());
}

#[test]
fn the_skill_file_parsed_is_the_one_hashed() {
    let root = tempfile::tempdir().unwrap();
    let folder = skill(root.path());
    let read = SkillFolder::read(&folder).unwrap();
    assert_eq!(read.skill_file, fs::read(folder.join("SKILL.md")).unwrap());
}

#[test]
fn a_symbolic_link_makes_a_skill_folder_unhashable() {
    let root = tempfile::tempdir().unwrap();
    let folder = skill(root.path());
    let outside = root.path().join("outside.sh");
    fs::write(&outside, "echo outside\n").unwrap();
    std::os::unix::fs::symlink(&outside, folder.join("scripts/linked.sh")).unwrap();
    let error = SkillFolder::digest_of(&folder).unwrap_err();
    assert_eq!(
        error,
        DigestError::Link {
            path: folder.join("scripts/linked.sh")
        }
    );
    assert!(error.to_string().contains("symbolic link"), "{error}");
}

#[test]
fn a_folder_without_skill_md_is_unhashable() {
    let root = tempfile::tempdir().unwrap();
    let error = SkillFolder::digest_of(root.path()).unwrap_err();
    assert!(
        matches!(&error, DigestError::Unreadable { path, .. } if path.ends_with("SKILL.md")),
        "{error}"
    );
}
