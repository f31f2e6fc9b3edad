//! Fresh databases for one test each.

use tempfile::TempDir;

pub struct TestDb {
    pub url: String,
    _dir: TempDir,
}

impl TestDb {
    /// A SQLite file in a fresh temporary folder.
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("host.db").display());
        TestDb { url, _dir: dir }
    }
}
