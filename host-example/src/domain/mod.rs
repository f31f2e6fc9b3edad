//! The host's values, each owned whole here (its type and what it means),
//! beneath both the app layer and the store: the store persists them and
//! decides nothing about them; the app layer asks them. Nothing here
//! reads a file, a database or the network.
//!
//! - [`skills`]: a skill folder's approved digest, how a folder differs
//!   from it, why a run did not trust a skill, the `unapproved_skills`
//!   setting.
//! - [`oauth`]: the `oauth` setting, checked whole.
//! - [`origins`]: a browser origin of the `allowed_origins` setting.
//! - [`people`]: never the last administrator.
//! - [`runs`]: a run's phase, and how a batch counts how a run ended.
//! - [`settings`]: every setting, its type, default and check, and the
//!   values of the host's own types (budgets, durability, browser session
//!   lifetimes, webhook delivery and targets, the public URL, the worker).
//!
//! A proposal's expiry is tool-core's `ProposalLifetime` (one definition
//! for every host).

pub mod oauth;
pub mod origins;
pub mod people;
pub mod runs;
pub mod settings;
pub mod skills;

/// `bytes` as lowercase hex: every digest and id the host writes.
pub fn hex(bytes: &[u8]) -> String {
    // By table, not `format!` per byte: every audit row's hash goes
    // through here on the way to its answer.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}
