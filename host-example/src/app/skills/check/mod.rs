//! `host-example skills check DIR…`: validates every skill folder (a folder
//! holding a `SKILL.md`) below each DIR, its `allowed-tools` against the
//! tools this host registers, and the call examples under its `metadata`
//! against its `allowed-tools` (docs/skills-examples.md).
//!
//! With `--approvals`, each skill is also checked against the approvals in
//! the host's database ([`check_approvals`], docs/skills-approval.md).
//!
//! Everything here takes paths and returns findings, so it is tested without
//! spawning the binary; the command line parses arguments (clap) and prints.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub mod render;
mod trust;

pub use trust::check_approvals;

use tool_core::skills::{Code, KnownTool, Position, Severity, check_skill_tools, read_skill};

/// The file every skill folder holds.
pub const SKILL_FILE: &str = "SKILL.md";

/// What a finding is about: a rule of the skills reader, the file itself,
/// or the skill's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckCode {
    /// A diagnostic of [`read_skill`] or [`check_skill_tools`] (`S…`).
    Skill(Code),
    /// The `SKILL.md`, or a folder below a DIR, could not be read (`F001`).
    Unreadable,
    /// The `SKILL.md` is not UTF-8 text (`F002`).
    NotUtf8,
    /// A file of an approved skill changed, was added or was removed since
    /// the approval (`A001`).
    SkillChanged,
    /// The skill was never approved, and runs refuse such skills (`A002`).
    NotApproved,
    /// The skill was never approved; runs use it, as the setting
    /// `unapproved_skills` allows (`A003`).
    UnapprovedAllowed,
    /// The skill's folder cannot be hashed, so no approval covers it
    /// (`A004`).
    Unhashable,
}

impl CheckCode {
    /// The stable identifier, such as `S040` or `F002`.
    pub fn id(self) -> &'static str {
        match self {
            CheckCode::Skill(code) => code.id(),
            CheckCode::Unreadable => "F001",
            CheckCode::NotUtf8 => "F002",
            CheckCode::SkillChanged => "A001",
            CheckCode::NotApproved => "A002",
            CheckCode::UnapprovedAllowed => "A003",
            CheckCode::Unhashable => "A004",
        }
    }

    /// The severity this code always carries; a file that cannot be read is
    /// an error, since nothing in it can be checked, and so is a skill runs
    /// will not trust.
    pub fn severity(self) -> Severity {
        match self {
            CheckCode::Skill(code) => code.severity(),
            CheckCode::UnapprovedAllowed => Severity::Warning,
            CheckCode::Unreadable
            | CheckCode::NotUtf8
            | CheckCode::SkillChanged
            | CheckCode::NotApproved
            | CheckCode::Unhashable => Severity::Error,
        }
    }
}

impl fmt::Display for CheckCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The `SKILL.md` (or folder) as reached from the DIR given.
    pub file: PathBuf,
    /// 1-based line and column in the file.
    pub position: Position,
    /// The code.
    pub code: CheckCode,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Finding {
    fn new(file: &Path, position: Position, code: CheckCode, message: impl Into<String>) -> Self {
        Finding {
            file: file.to_path_buf(),
            position,
            code,
            message: message.into(),
        }
    }

    /// Always `code.severity()`.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Whether this finding makes the check fail.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// `file:line:col: severity[code]: message`, the form editors and CI logs
/// turn into links.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: {}",
            self.file.display(),
            self.position.line,
            self.position.column,
            severity_word(self.severity()),
            self.code,
            self.message
        )
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Why a check could not start: a DIR given is unusable. The command exits
/// with 2 for these, as for any other usage error.
#[derive(Debug)]
pub enum CheckError {
    /// A DIR that does not exist or cannot be listed.
    UnreadableDir {
        /// The DIR as given.
        dir: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A DIR that is a file.
    NotADir {
        /// The DIR as given.
        dir: PathBuf,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::UnreadableDir { dir, source } => {
                write!(f, "cannot read the folder `{}`: {source}", dir.display())
            }
            CheckError::NotADir { dir } => write!(
                f,
                "`{}` is not a folder: give the folder that holds the skill folders (or the skill \
                 folder itself)",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckError::UnreadableDir { source, .. } => Some(source),
            CheckError::NotADir { .. } => None,
        }
    }
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The `SKILL.md` files found, each once, in path order.
    pub skill_files: Vec<PathBuf>,
    /// Every finding, by file path and then position.
    pub findings: Vec<Finding>,
}

impl Checked {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(Finding::is_error)
    }

    /// Errors and warnings, counted.
    pub fn counts(&self) -> (usize, usize) {
        let errors = self.findings.iter().filter(|f| f.is_error()).count();
        (errors, self.findings.len() - errors)
    }
}

/// Checks every skill folder below each of `dirs`. Every DIR is tried before
/// anything is checked, so a mistyped one fails the run without half a report.
pub fn check_dirs(dirs: &[PathBuf], known: &[KnownTool<'_>]) -> Result<Checked, CheckError> {
    for dir in dirs {
        let metadata = fs::metadata(dir).map_err(|source| CheckError::UnreadableDir {
            dir: dir.clone(),
            source,
        })?;
        if !metadata.is_dir() {
            return Err(CheckError::NotADir { dir: dir.clone() });
        }
        fs::read_dir(dir).map_err(|source| CheckError::UnreadableDir {
            dir: dir.clone(),
            source,
        })?;
    }
    let SkillFolders {
        folders,
        mut findings,
    } = SkillFolders::find(dirs);
    let mut skill_files = Vec::with_capacity(folders.len());
    for folder in &folders {
        findings.extend(check_skill_folder(folder, known));
        skill_files.push(folder.join(SKILL_FILE));
    }
    // Stable: within one file and one position, the reader's order stays.
    findings.sort_by(|a, b| (&a.file, a.position).cmp(&(&b.file, b.position)));
    Ok(Checked {
        skill_files,
        findings,
    })
}

/// The folders holding a `SKILL.md` below some directories, and what could
/// not be listed on the way there.
#[derive(Debug, Default)]
pub struct SkillFolders {
    /// Every folder that holds a `SKILL.md` (a directory given included),
    /// sorted.
    pub folders: BTreeSet<PathBuf>,
    /// A folder that could not be listed, so no skill in it was checked:
    /// a finding, not a failure.
    pub findings: Vec<Finding>,
}

impl SkillFolders {
    /// Walks each of `dirs`. Symbolic links to folders are not followed, so
    /// a link loop cannot trap the walk; hidden folders are, since skills
    /// often live in `.claude/skills`.
    pub fn find<'a>(dirs: impl IntoIterator<Item = &'a PathBuf>) -> SkillFolders {
        let mut found = SkillFolders::default();
        for dir in dirs {
            found.walk(dir);
        }
        found
    }

    fn walk(&mut self, dir: &Path) {
        let (folders, findings) = (&mut self.folders, &mut self.findings);
        let mut pending = vec![dir.to_path_buf()];
        while let Some(folder) = pending.pop() {
            let entries = match fs::read_dir(&folder) {
                Ok(entries) => entries,
                Err(e) => {
                    findings.push(Finding::new(
                        &folder,
                        Position::START,
                        CheckCode::Unreadable,
                        format!("cannot list this folder, so no skill in it was checked: {e}"),
                    ));
                    continue;
                }
            };
            let mut children = Vec::new();
            let mut holds_skill = false;
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => {
                        findings.push(Finding::new(
                            &folder,
                            Position::START,
                            CheckCode::Unreadable,
                            format!("cannot list this folder completely: {e}"),
                        ));
                        continue;
                    }
                };
                if entry.file_name() == SKILL_FILE {
                    holds_skill = true;
                } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    children.push(entry.path());
                }
            }
            if holds_skill {
                folders.insert(folder);
            }
            // Reversed, so that the stack pops them in name order.
            children.sort_unstable_by(|a, b| b.cmp(a));
            pending.extend(children);
        }
    }
}

/// Reads and checks `folder/SKILL.md`. The folder's name is the name the
/// skill's `name` must equal.
pub fn check_skill_folder(folder: &Path, known: &[KnownTool<'_>]) -> Vec<Finding> {
    let file = folder.join(SKILL_FILE);
    match fs::read(&file) {
        Ok(bytes) => check_skill_bytes(&file, &bytes, &folder_name(folder), known),
        Err(e) => vec![Finding::new(
            &file,
            Position::START,
            CheckCode::Unreadable,
            format!("cannot read this file: {e}"),
        )],
    }
}

/// Checks the bytes of one `SKILL.md`, reporting against `file`.
pub fn check_skill_bytes(
    file: &Path,
    bytes: &[u8],
    folder_name: &str,
    known: &[KnownTool<'_>],
) -> Vec<Finding> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            // The prefix is valid by definition of `valid_up_to`.
            let valid = std::str::from_utf8(valid).unwrap_or_default();
            return vec![Finding::new(
                file,
                end_of(valid),
                CheckCode::NotUtf8,
                format!(
                    "this file is not UTF-8 text (invalid byte at offset {}): save it as UTF-8",
                    e.valid_up_to()
                ),
            )];
        }
    };
    let report = read_skill(text, folder_name);
    let mut diagnostics = report.diagnostics;
    if let Some(manifest) = &report.manifest {
        diagnostics.extend(check_skill_tools(manifest, known));
    }
    diagnostics
        .into_iter()
        .map(|d| Finding::new(file, d.position, CheckCode::Skill(d.code), d.message))
        .collect()
}

/// The name a skill in `folder` must have: the folder's own name, or, for a
/// path such as `.`, the name of the folder it leads to.
pub fn folder_name(folder: &Path) -> String {
    let named = folder
        .file_name()
        .map(Cow::Borrowed)
        .or_else(|| {
            fs::canonicalize(folder)
                .ok()
                .and_then(|p| p.file_name().map(|n| Cow::Owned(n.to_owned())))
        })
        .unwrap_or_default();
    named.to_string_lossy().into_owned()
}

/// The position just after `text`.
fn end_of(text: &str) -> Position {
    let line = text.matches('\n').count() + 1;
    let last_line = text.rsplit('\n').next().unwrap_or_default();
    Position {
        line,
        column: last_line.chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::render::render_json;
    use super::*;

    const KNOWN: &[KnownTool<'static>] = &[
        KnownTool {
            name: "get_env",
            scope: None,
        },
        KnownTool {
            name: "read_file",
            scope: Some(tool_core::ScopeKind::Path),
        },
    ];

    fn at(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir().join(format!(
                "host-example-skills-check-{name}-{}",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }

        fn skill(&self, relative: &str, text: &[u8]) -> PathBuf {
            let folder = self.0.join(relative);
            fs::create_dir_all(&folder).unwrap();
            fs::write(folder.join(SKILL_FILE), text).unwrap();
            folder
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn positions_are_file_positions() {
        let text = b"---\nname: review\ndescription: Reports on demo work for tests. Use when testing the checker.\nallowed-tools: get_env Nope\n---\n";
        let findings = check_skill_bytes(Path::new("x/SKILL.md"), text, "review", KNOWN);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].code, CheckCode::Skill(Code::UnresolvedTool));
        assert_eq!(findings[0].position, at(4, 24));
        assert_eq!(
            findings[0].to_string(),
            format!("x/SKILL.md:4:24: warning[S040]: {}", findings[0].message)
        );
    }

    #[test]
    fn scope_on_a_tool_without_scope_is_reported() {
        let text =
            b"---\nname: a\ndescription: Reports on demo work for tests. Use when testing the checker.\nallowed-tools: get_env(x) read_file(src/**)\n---\n";
        let findings = check_skill_bytes(Path::new("SKILL.md"), text, "a", KNOWN);
        let codes: Vec<_> = findings.iter().map(|f| f.code.id()).collect();
        assert_eq!(codes, ["S041"]);
    }

    #[test]
    fn non_utf8_is_an_error_at_the_bad_byte() {
        let findings = check_skill_bytes(Path::new("SKILL.md"), b"---\nname: \xff\n", "a", KNOWN);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, CheckCode::NotUtf8);
        assert!(findings[0].is_error());
        assert_eq!(findings[0].position, at(2, 7));
    }

    #[test]
    fn unreadable_skill_file_is_an_error_finding() {
        let tmp = TempDir::new("unreadable");
        fs::create_dir_all(tmp.0.join("odd").join(SKILL_FILE)).unwrap();
        let findings = check_skill_folder(&tmp.0.join("odd"), KNOWN);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, CheckCode::Unreadable);
        assert_eq!(findings[0].file, tmp.0.join("odd").join(SKILL_FILE));
        assert!(findings[0].message.starts_with("cannot read this file: "));
    }

    #[test]
    fn walk_finds_nested_skills_and_the_dir_itself() {
        let tmp = TempDir::new("walk");
        let valid = b"---\nname: a\ndescription: Reports on demo work for tests. Use when testing the checker.\n---\nBody\n";
        tmp.skill("", b"no front matter\n");
        tmp.skill("a", valid);
        tmp.skill(".hidden/skills/b", b"---\nname: b\ndescription: Reports on demo work for tests. Use when testing the checker.\n---\n");
        tmp.skill("a/c", b"---\nname: c\ndescription: Reports on demo work for tests. Use when testing the checker.\n---\n");
        fs::create_dir_all(tmp.0.join("empty/deeper")).unwrap();
        let checked = check_dirs(std::slice::from_ref(&tmp.0), KNOWN).unwrap();
        let files: Vec<_> = checked
            .skill_files
            .iter()
            .map(|f| f.strip_prefix(&tmp.0).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            files,
            [
                PathBuf::from("SKILL.md"),
                PathBuf::from(".hidden/skills/b/SKILL.md"),
                PathBuf::from("a/SKILL.md"),
                PathBuf::from("a/c/SKILL.md"),
            ]
        );
        assert_eq!(checked.findings.len(), 1, "{:?}", checked.findings);
        assert_eq!(checked.findings[0].file, tmp.0.join(SKILL_FILE));
        assert_eq!(checked.counts(), (1, 0));
    }

    #[test]
    fn a_dir_given_twice_is_checked_once() {
        let tmp = TempDir::new("twice");
        let folder = tmp.skill("x", b"---\nname: y\ndescription: Reports on demo work for tests. Use when testing the checker.\n---\n");
        let checked = check_dirs(&[folder.clone(), folder], KNOWN).unwrap();
        assert_eq!(checked.skill_files.len(), 1);
        assert_eq!(checked.findings.len(), 1);
        assert_eq!(
            checked.findings[0].code,
            CheckCode::Skill(Code::NameFolderMismatch)
        );
    }

    #[test]
    fn dot_takes_the_name_of_the_folder_it_leads_to() {
        let tmp = TempDir::new("dot");
        let folder = tmp.skill("dotted", b"---\nname: dotted\ndescription: Reports on demo work for tests. Use when testing the checker.\n---\n");
        assert_eq!(folder_name(&folder.join(".")), "dotted");
    }

    #[test]
    fn unusable_dirs_are_check_errors() {
        let tmp = TempDir::new("unusable");
        let missing = tmp.0.join("missing");
        assert!(matches!(
            check_dirs(&[missing], KNOWN),
            Err(CheckError::UnreadableDir { .. })
        ));
        let file = tmp.0.join("file");
        fs::write(&file, "x").unwrap();
        assert!(matches!(
            check_dirs(&[file], KNOWN),
            Err(CheckError::NotADir { .. })
        ));
    }

    #[test]
    fn json_has_the_documented_fields() {
        let findings = check_skill_bytes(Path::new("d/SKILL.md"), b"nope\n", "d", KNOWN);
        let value: serde_json::Value = serde_json::from_str(&render_json(&findings)).unwrap();
        assert_eq!(
            value,
            serde_json::json!([{
                "file": "d/SKILL.md",
                "line": 1,
                "column": 1,
                "severity": "error",
                "code": "S001",
                "message": findings[0].message,
            }])
        );
    }
}
