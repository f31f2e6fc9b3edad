//! The version a stored value carries, checked when it is read back.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value stored between processes under a versioned format.
pub(crate) trait Versioned {
    /// What the value is, for the error message ("grant", "run state").
    const WHAT: &'static str;
    /// The format this build writes and reads.
    const FORMAT: u32;
}

/// The `format` field of a stored `T`: written as `T::FORMAT`, and read
/// only when it is that number. A value of a newer format may mean
/// something this build cannot read; refusing it is safer than guessing,
/// which could widen what it grants.
pub(crate) struct Format<T>(PhantomData<fn() -> T>);

impl<T> Format<T> {
    pub(crate) const CURRENT: Self = Format(PhantomData);
}

// By hand: derives would demand the same of `T`, which needs none of them.
impl<T> Clone for Format<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Format<T> {}

impl<T> PartialEq for Format<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Format<T> {}

impl<T: Versioned> fmt::Debug for Format<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&T::FORMAT, f)
    }
}

impl<T: Versioned> Serialize for Format<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(T::FORMAT)
    }
}

impl<'de, T: Versioned> Deserialize<'de> for Format<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let found = u32::deserialize(deserializer)?;
        if found == T::FORMAT {
            Ok(Format::CURRENT)
        } else {
            Err(serde::de::Error::custom(format!(
                "{} format {found} is not supported (this build reads format {})",
                T::WHAT,
                T::FORMAT
            )))
        }
    }
}
