//! Where files that belong to one database go (its audit key and heads
//! file, its search index): beside a SQLite file, nowhere for an in-memory
//! one, and under a name made of the server and the database for
//! PostgreSQL, so two databases never share a file.

/// Where a database's own files go, read from its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabasePlace {
    /// An in-memory SQLite database: files would outlive it.
    Memory,
    /// A SQLite file: its path, to put files beside it.
    File(String),
    /// A database on a server: `HOST-DATABASE` with every character but
    /// ASCII letters and digits made `_`, a file name.
    Server(String),
}

impl DatabasePlace {
    /// The place of the database at `url`.
    pub fn of(url: &str) -> DatabasePlace {
        if let Some(rest) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        {
            let file = rest.split('?').next().unwrap_or_default();
            if file.is_empty() || file == ":memory:" || rest.contains("mode=memory") {
                return DatabasePlace::Memory;
            }
            return DatabasePlace::File(file.to_owned());
        }
        let database = url
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .split('?')
            .next()
            .unwrap_or_default();
        let host = url
            .split_once('@')
            .map_or(url, |(_, rest)| rest)
            .split('/')
            .nth(if url.contains('@') { 0 } else { 2 })
            .unwrap_or_default();
        DatabasePlace::Server(
            format!("{host}-{database}")
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect(),
        )
    }
}
