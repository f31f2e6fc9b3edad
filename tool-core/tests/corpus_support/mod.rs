//! Where the shared corpus of real skill files is, which lies outside the
//! repository (the project's own synthetic cases are in `fixtures/skills`).

use std::path::PathBuf;

/// The shared corpus of real skill files (one folder per repository, one
/// per skill below it): `$SKILLS_CORPUS`, or `shared/corpus/skills` beside
/// the checkout. `None`, with a note, when it is absent, so a fresh clone
/// still passes; absent under `CI`, it fails the test, since CI has it.
pub fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("SKILLS_CORPUS").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/corpus/skills"
            ))
        },
        PathBuf::from,
    );
    if root.is_dir() {
        return Some(root);
    }
    let note = format!(
        "the skills corpus is not at {}: set SKILLS_CORPUS to run the corpus tests",
        root.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{note}");
    eprintln!("skipped: {note}");
    None
}
