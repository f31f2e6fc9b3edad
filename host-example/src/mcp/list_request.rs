//! [`PlainList`]: a line that is a `tools/list` request of the one shape
//! stdio answers without rmcp ([`super::list_reader`]), read without
//! copying.
//!
//! The shape is narrow on purpose: `jsonrpc` "2.0", an integer or string
//! id, method `tools/list`, and params absent, `null`, `{}` or
//! `{"cursor": <string>}`, each member once and no other. Anything else
//! (`_meta`, an unknown member, an id rmcp would rewrite, an escaped
//! string) is not a plain list, and rmcp answers it as it answers every
//! request, errors included.

use std::fmt;
use std::io::Write as _;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// A `tools/list` request of the plain shape, borrowing the line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PlainList<'a> {
    /// The request's id.
    pub(crate) id: Id<'a>,
    /// The cursor, if the request names one.
    pub(crate) cursor: Option<&'a str>,
}

impl<'a> PlainList<'a> {
    /// `line` (one message, with or without its `\n`) as a plain
    /// `tools/list` request, or `None`.
    pub(crate) fn parse(line: &'a [u8]) -> Option<Self> {
        let request: Request<'a> = serde_json::from_slice(line).ok()?;
        if request.jsonrpc != "2.0" || request.method != "tools/list" {
            return None;
        }
        Some(PlainList {
            id: request.id,
            cursor: request.params.and_then(|params| params.cursor),
        })
    }
}

/// A request id as rmcp would write it back: an integer rmcp keeps as it
/// is (`1.0` or `1e2`, which rmcp rewrites, are not one), or a string that
/// had no escape, so its bytes between the quotes are the ones rmcp's
/// serializer writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Id<'a> {
    Number(i64),
    String(&'a str),
}

impl Id<'_> {
    /// Appends the id's JSON to `out`.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Id::Number(number) => {
                // Writing to a `Vec` cannot fail.
                let _ = write!(out, "{number}");
            }
            Id::String(text) => {
                out.push(b'"');
                out.extend_from_slice(text.as_bytes());
                out.push(b'"');
            }
        }
    }
}

/// The request's members, read from an object only (serde's derive would
/// also read an array), each at most once and no other.
struct Request<'a> {
    jsonrpc: &'a str,
    id: Id<'a>,
    method: &'a str,
    params: Option<Params<'a>>,
}

/// `params`: an object with at most a string `cursor`.
struct Params<'a> {
    cursor: Option<&'a str>,
}

/// Fails on a member seen before.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    match slot.replace(value) {
        Some(_) => Err(E::duplicate_field(name)),
        None => Ok(()),
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Request<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members<'a>(PhantomData<&'a str>);
        impl<'de: 'a, 'a> Visitor<'de> for Members<'a> {
            type Value = Request<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC request object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Request<'a>, M::Error> {
                let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "jsonrpc" => once(&mut jsonrpc, map.next_value()?, "jsonrpc")?,
                        "id" => once(&mut id, map.next_value()?, "id")?,
                        "method" => once(&mut method, map.next_value()?, "method")?,
                        "params" => once(&mut params, map.next_value()?, "params")?,
                        other => return Err(de::Error::unknown_field(other, &[])),
                    }
                }
                Ok(Request {
                    jsonrpc: jsonrpc.ok_or_else(|| de::Error::missing_field("jsonrpc"))?,
                    id: id.ok_or_else(|| de::Error::missing_field("id"))?,
                    method: method.ok_or_else(|| de::Error::missing_field("method"))?,
                    params: params.flatten(),
                })
            }
        }
        deserializer.deserialize_map(Members(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Params<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members<'a>(PhantomData<&'a str>);
        impl<'de: 'a, 'a> Visitor<'de> for Members<'a> {
            type Value = Params<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with at most a cursor")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Params<'a>, M::Error> {
                let mut cursor = None;
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "cursor" => once(&mut cursor, map.next_value::<&'a str>()?, "cursor")?,
                        other => return Err(de::Error::unknown_field(other, &["cursor"])),
                    }
                }
                Ok(Params { cursor })
            }
        }
        deserializer.deserialize_map(Members(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Id<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor(PhantomData))
    }
}

struct IdVisitor<'a>(PhantomData<&'a str>);

impl<'de: 'a, 'a> Visitor<'de> for IdVisitor<'a> {
    type Value = Id<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer or a string without escapes")
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<Id<'a>, E> {
        Ok(Id::Number(number))
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<Id<'a>, E> {
        i64::try_from(number)
            .map(Id::Number)
            .map_err(|_| E::custom("an id beyond i64"))
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Id<'a>, E> {
        Ok(Id::String(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<PlainList<'_>> {
        PlainList::parse(line.as_bytes())
    }

    #[test]
    fn reads_the_plain_shapes() {
        let plain = |id, cursor| Some(PlainList { id, cursor });
        for (line, expected) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
                plain(Id::Number(7), None),
            ),
            (
                r#"{"method":"tools/list","id":-3,"jsonrpc":"2.0","params":null}"#,
                plain(Id::Number(-3), None),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/list","params":{}}"#,
                plain(Id::String("a-1"), None),
            ),
            (
                "{\"jsonrpc\": \"2.0\", \"id\": 9223372036854775807, \"method\": \"tools/list\", \"params\": {\"cursor\": \"read_file\"}}\n",
                plain(Id::Number(i64::MAX), Some("read_file")),
            ),
        ] {
            assert_eq!(parse(line), expected, "{line}");
        }
    }

    #[test]
    fn leaves_everything_else_to_rmcp() {
        for line in [
            // Other methods, versions, message kinds.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/list"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
            r#"{"id":1,"method":"tools/list"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            // Params rmcp reads more of.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a","limit":3}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":7}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":["a"]}"#,
            r#"["2.0",1,"tools/list"]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","extra":true}"#,
            // Members twice.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
            // Ids rmcp rewrites or refuses, strings it would write otherwise.
            r#"{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1e2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0041","method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a\"b"}}"#,
            // Not JSON, or more than one value.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"} {}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
        ] {
            assert_eq!(parse(line), None, "{line}");
        }
    }

    #[test]
    fn writes_ids_back_as_rmcp_does() {
        for line in [
            r#"{"jsonrpc":"2.0","id":-12,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"req-é 1","method":"tools/list"}"#,
        ] {
            let plain = parse(line).unwrap();
            let mut ours = Vec::new();
            plain.id.write_json(&mut ours);
            let parsed: rmcp::model::RequestId =
                serde_json::from_str(&String::from_utf8(ours.clone()).unwrap()).unwrap();
            assert_eq!(serde_json::to_vec(&parsed).unwrap(), ours, "{line}");
        }
    }
}
