//! [`Arguments`] for the standard types, each mirroring the schema
//! schemars 1 writes for it (its `json_schema_impls`): the same `type`,
//! bounds, lengths and formats.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::Value;

use super::walk::Types;
use super::{Arguments, Format, Keywords, Limit, Walk};

/// Strings, with the format schemars writes for the type, if any.
///
/// serde decides for those without a format: it reads any string as a
/// `String` or a path, and the schema admits any string. A format's own
/// grammar is not serde's parser's, so a formatted type is checked.
macro_rules! string {
    ($($type:ty => $format:expr),* $(,)?) => {$(
        impl Arguments for $type {
            const INLINE: bool = true;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                walk.string(value, keywords, (None, None), $format)
            }
            fn serde_decides(_: u8) -> bool {
                Option::<Format>::is_none(&$format)
            }
        }
    )*};
}

string! {
    String => None,
    PathBuf => None,
    Ipv4Addr => Some(Format::Ipv4),
    Ipv6Addr => Some(Format::Ipv6),
    // schemars writes `"format": "ip"`, which `jsonschema` does not know
    // and so does not check.
    IpAddr => None,
    SocketAddr => None,
    SocketAddrV4 => None,
    SocketAddrV6 => None,
}

/// Types serde reads only from values of the schema's type, whatever
/// they hold.
macro_rules! decided {
    () => {
        fn serde_decides(_: u8) -> bool {
            true
        }
    };
}

impl Arguments for str {
    const INLINE: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        walk.string(value, keywords, (None, None), None)
    }
    decided!();
}

impl Arguments for char {
    const INLINE: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        walk.string(value, keywords, (Some(1), Some(1)), None)
    }
    decided!();
}

impl Arguments for bool {
    const INLINE: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        walk.boolean(value, keywords)
    }
    decided!();
}

impl Arguments for () {
    const INLINE: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        walk.null(value, keywords)
    }
    decided!();
}

impl Arguments for Value {
    const INLINE: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, _: &Keywords) -> bool {
        walk.anything(value)
    }
    decided!();
}

/// Numbers: their JSON type, and the bounds schemars writes (the full
/// range of 8- and 16-bit integers, `minimum: 0` of the wider unsigned).
macro_rules! number {
    ($($type:ty => $types:expr, $least:expr, $most:expr);* $(;)?) => {$(
        impl Arguments for $type {
            const INLINE: bool = true;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                walk.number(value, keywords, $types, ($least, $most))
            }
            // serde reads a number type only from a JSON number, an
            // integer type only from an integer in its range: all its
            // schema asks.
            decided!();
        }
    )*};
}

const fn integer(limit: i128) -> Option<Limit> {
    Some(Limit::Integer(limit))
}

number! {
    u8 => Types::INTEGER, integer(0), integer(u8::MAX as i128);
    i8 => Types::INTEGER, integer(i8::MIN as i128), integer(i8::MAX as i128);
    u16 => Types::INTEGER, integer(0), integer(u16::MAX as i128);
    i16 => Types::INTEGER, integer(i16::MIN as i128), integer(i16::MAX as i128);
    u32 => Types::INTEGER, integer(0), None;
    u64 => Types::INTEGER, integer(0), None;
    u128 => Types::INTEGER, integer(0), None;
    usize => Types::INTEGER, integer(0), None;
    i32 => Types::INTEGER, None, None;
    i64 => Types::INTEGER, None, None;
    i128 => Types::INTEGER, None, None;
    isize => Types::INTEGER, None, None;
    f32 => Types::NUMBER, None, None;
    f64 => Types::NUMBER, None, None;
}

/// `Option<T>`: `"null"` added to an inline type, or `anyOf` of a
/// referenced one and `null` (but `T` alone for a field schemars marks
/// required). The field's keywords reach the inline type
/// only, as schemars applies them.
impl<T: Arguments> Arguments for Option<T> {
    const INLINE: bool = T::INLINE;
    const OPTION: bool = true;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        if keywords.required {
            let inner = Keywords {
                required: false,
                ..*keywords
            };
            return T::check(value, walk, &inner);
        }
        if T::INLINE {
            T::check(value, walk, &keywords.nullable())
        } else {
            walk.any_of_or_null(value, |walk| T::check(value, walk, &Keywords::NONE))
        }
    }
    fn serde_decides(depth: u8) -> bool {
        T::serde_decides(depth)
    }
}

/// The pointers schemars describes as what they point to.
macro_rules! forward {
    ($($pointer:ident),*) => {$(
        impl<T: Arguments + ?Sized> Arguments for $pointer<T> {
            const INLINE: bool = T::INLINE;
            const OPTION: bool = T::OPTION;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                T::check(value, walk, keywords)
            }
            fn serde_decides(depth: u8) -> bool {
                T::serde_decides(depth)
            }
        }
    )*};
}

forward!(Box, Arc, Rc);

impl<T: Arguments + ToOwned + ?Sized> Arguments for Cow<'_, T> {
    const INLINE: bool = T::INLINE;
    const OPTION: bool = T::OPTION;
    fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
        T::check(value, walk, keywords)
    }
    fn serde_decides(depth: u8) -> bool {
        T::serde_decides(depth)
    }
}

/// Sequences (`type: array`, `items`) and sets (with `uniqueItems`).
macro_rules! sequence {
    ($($type:ident $(<$hasher:ident>)? => $unique:expr),* $(,)?) => {$(
        impl<T: Arguments $(, $hasher: BuildHasher)?> Arguments for $type<T $(, $hasher)?> {
            const INLINE: bool = true;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                walk.array(value, keywords, (None, None), $unique, |walk, _, item| {
                    T::check(item, walk, &Keywords::NONE)
                })
            }
            // A set's schema refuses repeated items, which serde merges.
            fn serde_decides(depth: u8) -> bool {
                !$unique && T::serde_decides(depth)
            }
        }
    )*};
}

sequence! {
    Vec => false,
    VecDeque => false,
    BTreeSet => true,
    HashSet<S> => true,
}

/// Maps with string keys: `type: object`, `additionalProperties`.
macro_rules! map {
    ($($type:ident $(<$hasher:ident>)?),*) => {$(
        impl<V: Arguments $(, $hasher: BuildHasher)?> Arguments for $type<String, V $(, $hasher)?> {
            const INLINE: bool = true;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                walk.map(value, keywords, |walk, item| V::check(item, walk, &Keywords::NONE))
            }
            fn serde_decides(depth: u8) -> bool {
                V::serde_decides(depth)
            }
        }
    )*};
}

map!(BTreeMap, HashMap<S>);

/// Tuples: `prefixItems`, and exactly as many items.
macro_rules! tuple {
    ($($length:literal => ($($name:ident $index:tt),+)),* $(,)?) => {$(
        impl<$($name: Arguments),+> Arguments for ($($name,)+) {
            const INLINE: bool = true;
            fn check<'v>(value: &'v Value, walk: &mut Walk<'v>, keywords: &Keywords) -> bool {
                let counts = (Some($length), Some($length));
                walk.array(value, keywords, counts, false, |walk, index, item| match index {
                    $($index => $name::check(item, walk, &Keywords::NONE),)+
                    _ => walk.anything(item),
                })
            }
        }
    )*};
}

tuple! {
    1 => (A 0),
    2 => (A 0, B 1),
    3 => (A 0, B 1, C 2),
    4 => (A 0, B 1, C 2, D 3),
}
