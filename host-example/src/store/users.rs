//! The host's users: who may act, with an argon2 password hash and bearer
//! tokens kept as their sha256 (a token is shown once, when made).

use crate::store::People;
use argon2::Argon2;
use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use sha2::{Digest, Sha256};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{StoreError, now};
pub(super) use crate::domain::hex;

/// A user of the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostUser {
    /// The login name.
    pub name: String,
    /// May change settings and users.
    pub admin: bool,
    /// Whether a password is set (users without one log in by token only).
    pub has_password: bool,
    /// When they were added (seconds since the Unix epoch).
    pub created_at: i64,
}

impl HostUser {
    fn from_row(row: &AnyRow) -> Result<HostUser, StoreError> {
        Ok(HostUser {
            name: row.try_get("name")?,
            admin: row.try_get::<i64, _>("admin")? != 0,
            has_password: row.try_get::<Option<String>, _>("password_hash")?.is_some(),
            created_at: row.try_get("created_at")?,
        })
    }
}

/// An argon2id hash (default parameters, random salt) of `password`, in
/// the PHC string format.
pub fn hash_password(password: &str) -> Result<String, StoreError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|error| StoreError::Password(error.to_string()))
}

/// A hash no password matches the check of which takes as long as a
/// user's: made once per process.
fn unknown_user_hash() -> Result<PasswordHash<'static>, StoreError> {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = match HASH.get() {
        Some(text) => text,
        None => {
            let made = hash_password("no user has this password")?;
            HASH.get_or_init(|| made)
        }
    };
    PasswordHash::new(text).map_err(|error| StoreError::Password(error.to_string()))
}

pub(super) fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

const USER_COLUMNS: &str = "name, admin, password_hash, created_at";

/// One of a user's bearer tokens, as a list shows it: never the token,
/// only the start of its hash, which names it for revoking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    /// The first [`TOKEN_ID_LEN`] hex digits of the token's SHA-256.
    pub id: String,
    /// Whose it is.
    pub user: String,
    /// When it was made (seconds since the Unix epoch).
    pub created_at: i64,
}

/// How many hex digits of a token's hash name it: 48 bits, no two of one
/// host's tokens alike in practice; a clash is refused, not guessed at.
pub const TOKEN_ID_LEN: usize = 12;

impl People<'_> {
    /// Adds a user; `password` `None` leaves them without one.
    pub async fn add_user(
        &self,
        name: &str,
        admin: bool,
        password: Option<&str>,
    ) -> Result<HostUser, StoreError> {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !valid {
            return Err(StoreError::InvalidUserName(name.to_owned()));
        }
        if self.user(name).await?.is_some() {
            return Err(StoreError::UserExists(name.to_owned()));
        }
        let hash = password.map(hash_password).transpose()?;
        sqlx::query(
            "INSERT INTO users (name, admin, password_hash, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(name)
        .bind(i64::from(admin))
        .bind(hash)
        .bind(now())
        .execute(&self.store.pool)
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::UserExists(name.to_owned())
            }
            _ => StoreError::Sql(error),
        })?;
        self.user(name)
            .await?
            .ok_or_else(|| StoreError::UnknownUser(name.to_owned()))
    }

    /// Every user, by name.
    pub async fn users(&self) -> Result<Vec<HostUser>, StoreError> {
        let rows = sqlx::query(&format!("SELECT {USER_COLUMNS} FROM users"))
            .fetch_all(&self.store.pool)
            .await?;
        let mut users = rows
            .iter()
            .map(HostUser::from_row)
            .collect::<Result<Vec<_>, _>>()?;
        users.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(users)
    }

    /// The user called `name`, if any.
    pub async fn user(&self, name: &str) -> Result<Option<HostUser>, StoreError> {
        sqlx::query(&format!("SELECT {USER_COLUMNS} FROM users WHERE name = $1"))
            .bind(name)
            .fetch_optional(&self.store.pool)
            .await?
            .as_ref()
            .map(HostUser::from_row)
            .transpose()
    }

    /// Whether `password` is `name`'s password; `false` for an unknown user
    /// or one without a password.
    pub async fn verify_password(&self, name: &str, password: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT password_hash FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.store.pool)
            .await?;
        let Some(hash) = row
            .map(|row| row.try_get::<Option<String>, _>("password_hash"))
            .transpose()?
            .flatten()
        else {
            // As long as a real check: how long the answer takes must not
            // tell a guesser which names exist.
            let _ = Argon2::default().verify_password(password.as_bytes(), &unknown_user_hash()?);
            return Ok(false);
        };
        let parsed = PasswordHash::new(&hash).map_err(|error| StoreError::Corrupt {
            what: format!("the password hash of `{name}`"),
            reason: error.to_string(),
        })?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    }

    /// A new bearer token for `name`: 32 random bytes in hex. Only its
    /// sha256 is stored, so this is the one time it can be seen.
    pub async fn new_token(&self, name: &str) -> Result<String, StoreError> {
        if self.user(name).await?.is_none() {
            return Err(StoreError::UnknownUser(name.to_owned()));
        }
        let mut bytes = [0u8; 32];
        OsRng.fill_bytes(&mut bytes);
        let token = hex(&bytes);
        sqlx::query("INSERT INTO tokens (hash, user_name, created_at) VALUES ($1, $2, $3)")
            .bind(token_hash(&token))
            .bind(name)
            .bind(now())
            .execute(&self.store.pool)
            .await?;
        Ok(token)
    }

    /// The user `token` belongs to, if it is one of theirs.
    pub async fn user_for_token(&self, token: &str) -> Result<Option<HostUser>, StoreError> {
        sqlx::query(
            "SELECT u.name, u.admin, u.password_hash, u.created_at
             FROM tokens t JOIN users u ON u.name = t.user_name WHERE t.hash = $1",
        )
        .bind(token_hash(token))
        .fetch_optional(&self.store.pool)
        .await?
        .as_ref()
        .map(HostUser::from_row)
        .transpose()
    }

    /// Sets `name`'s password (`None`: none, token sign-in only) and ends
    /// every browser session of theirs, in one transaction: no session
    /// begun with the old password outlives it.
    pub async fn set_password(&self, name: &str, password: Option<&str>) -> Result<(), StoreError> {
        let hash = password.map(hash_password).transpose()?;
        let mut tx = self.store.begin_write().await?;
        let done = sqlx::query("UPDATE users SET password_hash = $1 WHERE name = $2")
            .bind(hash)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UnknownUser(name.to_owned()));
        }
        sqlx::query("DELETE FROM browser_sessions WHERE user_name = $1")
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Makes `name` an administrator or not. Unmaking the last
    /// administrator is refused: the check and the write are one
    /// transaction, serialised with every other process's, so two
    /// administrators unmaking each other at once cannot leave none.
    pub async fn set_admin(&self, name: &str, admin: bool) -> Result<(), StoreError> {
        let mut tx = self.store.begin_exclusive().await?;
        let found = sqlx::query("SELECT admin FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| StoreError::UnknownUser(name.to_owned()))?;
        let was_admin = found.try_get::<i64, _>("admin")? != 0;
        if was_admin && !admin {
            let others: i64 =
                sqlx::query("SELECT COUNT(*) AS n FROM users WHERE admin <> 0 AND name <> $1")
                    .bind(name)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("n")?;
            crate::domain::people::keeps_an_administrator(name, others)
                .map_err(StoreError::Refused)?;
        }
        sqlx::query("UPDATE users SET admin = $1 WHERE name = $2")
            .bind(i64::from(admin))
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// `name`'s tokens, oldest first.
    pub async fn tokens(&self, name: &str) -> Result<Vec<TokenInfo>, StoreError> {
        let rows = sqlx::query(
            "SELECT hash, user_name, created_at FROM tokens WHERE user_name = $1
             ORDER BY created_at, hash",
        )
        .bind(name)
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let hash: String = row.try_get("hash")?;
                Ok(TokenInfo {
                    id: hash.chars().take(TOKEN_ID_LEN).collect(),
                    user: row.try_get("user_name")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// Revokes `name`'s token whose id is `id` (as [`People::tokens`](crate::store::People::tokens) gives
    /// it); whether there was one. An id of another length, or one that is
    /// not hex, names no token.
    pub async fn revoke_token(&self, name: &str, id: &str) -> Result<bool, StoreError> {
        if id.len() != TOKEN_ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(false);
        }
        let mut tx = self.store.begin_write().await?;
        let matching: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM tokens WHERE user_name = $1 AND hash LIKE $2")
                .bind(name)
                .bind(format!("{}%", id.to_ascii_lowercase()))
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        if matching > 1 {
            return Err(StoreError::Refused(format!(
                "token id `{id}` names {matching} tokens of `{name}`; nothing was revoked"
            )));
        }
        let done = sqlx::query("DELETE FROM tokens WHERE user_name = $1 AND hash LIKE $2")
            .bind(name)
            .bind(format!("{}%", id.to_ascii_lowercase()))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa5, 0xff, 0x10]), "000fa5ff10");
        assert_eq!(super::hex(&[]), "");
    }
}
