//! What can go wrong with the store, each variant a one-line message that
//! says what to do.

use thiserror::Error;

/// Why a store operation failed. Nothing was written when one is returned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The URL's scheme is neither `sqlite` nor `postgres`.
    #[error(
        "database URL scheme `{scheme}` is not supported: use sqlite://FILE?mode=rwc or postgres://USER:PASSWORD@HOST/DATABASE"
    )]
    UnsupportedUrl {
        /// The scheme given.
        scheme: String,
    },
    /// The database could not be opened or reached.
    #[error("cannot open the database: {reason}")]
    Connect {
        /// The driver's reason.
        reason: String,
    },
    /// The database was migrated by a newer build.
    #[error(
        "the database's schema is at version {found}, newer than this build knows ({known}): use a newer host-example"
    )]
    NewerSchema {
        /// The version recorded in the database.
        found: i64,
        /// The newest version this build has.
        known: i64,
    },
    /// The database, opened read-only, was not migrated to this build's
    /// schema; nothing was changed.
    #[error(
        "the database's schema is at version {found}, older than this build's ({known}), and it is opened read-only: run `host-example db migrate` on it first"
    )]
    OlderSchema {
        /// The version recorded in the database (0: never migrated).
        found: i64,
        /// The newest version this build has.
        known: i64,
    },
    /// A migration failed; it was rolled back.
    #[error("migration {version} ({name}) failed: {reason}")]
    Migration {
        /// Its version.
        version: i64,
        /// Its name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// There is no setting by that name.
    #[error("unknown setting `{key}`; the settings are: {known}")]
    UnknownSetting {
        /// The name given.
        key: String,
        /// Every setting's name.
        known: String,
    },
    /// A value given for a setting does not fit it; nothing was stored.
    #[error("setting `{key}`: {reason}")]
    InvalidSetting {
        /// The setting.
        key: &'static str,
        /// Why it does not fit.
        reason: String,
    },
    /// A value read back does not parse: the stored JSON is damaged.
    #[error("{what} is corrupt: {reason}")]
    Corrupt {
        /// What was read, e.g. ``setting `model` ``.
        what: String,
        /// The parser's reason.
        reason: String,
    },
    /// No host user has this name.
    #[error("no user `{0}`")]
    UnknownUser(String),
    /// A user by this name exists.
    #[error("user `{0}` exists already")]
    UserExists(String),
    /// A user name that cannot be used.
    #[error("invalid user name `{0}`: use letters, digits, `.`, `_` or `-`")]
    InvalidUserName(String),
    /// The acting user may not do this.
    #[error("{0}")]
    Refused(String),
    /// Hashing a password failed.
    #[error("password hashing failed: {0}")]
    Password(String),
    /// The database failed.
    #[error("database error: {}", crate::store::one_line(&.0.to_string()))]
    Sql(#[from] sqlx::Error),
}

impl From<crate::domain::settings::UnknownSetting> for StoreError {
    fn from(unknown: crate::domain::settings::UnknownSetting) -> Self {
        StoreError::UnknownSetting {
            key: unknown.key,
            known: unknown.known,
        }
    }
}
