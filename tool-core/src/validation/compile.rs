//! From a schema to a [`CompiledSchema`], or `None` when the schema uses
//! anything outside the subset (then `jsonschema` checks it alone).
//!
//! The subset is what schemars writes for derived tools: draft 2020-12;
//! `type`, `enum`/`const` of strings, booleans and null, numeric bounds,
//! lengths and counts, `required`, `properties`, `additionalProperties`,
//! `items`, `prefixItems`, `allOf`/`anyOf`/`oneOf`/`not`, and `$ref` into the
//! root's `$defs` (or `definitions`). The other self-contained keywords
//! (`pattern`, `format`, `multipleOf`, `uniqueItems`, an `enum` of numbers…)
//! are handed, per node, to a `jsonschema` validator of just those keywords.
//! Anything that depends on more than its own node (`$id`, `$anchor`,
//! `$dynamicRef`, `unevaluated*`, `if`, `patternProperties`, …) or that
//! jsonschema does not know makes the whole schema fall back.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::compiled::{
    Additional, ArrayRule, Bound, CompiledSchema, Node, NodeId, ObjectRule, Rest, types,
};
use super::number::Exact;

/// The dialect the subset is written for; a root without `$schema` is read
/// as this one by `jsonschema` too.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// `format`s schemars writes for Rust's numbers, which `jsonschema` does not
/// know and so ignores: skipping them here is the same answer, without a
/// delegate per number. Any other format goes to `jsonschema`.
const IGNORED_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// Keywords that never change the answer.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$defs",
    "definitions",
];

/// Keywords handed to a per-node `jsonschema` validator: each one's
/// answer depends on its own value and the instance only.
const DELEGATED: &[&str] = &[
    "pattern",
    "format",
    "multipleOf",
    "uniqueItems",
    "dependentRequired",
    "contentEncoding",
    "contentMediaType",
];

/// The schema is outside the subset.
struct Unsupported;

/// Compiles `schema`; `None` when it is outside the subset. `delegate`
/// builds the validator for a node's delegated keywords with the options
/// the caller uses for the whole schema.
pub(super) fn compile(
    schema: &Value,
    delegate: &dyn Fn(&Value) -> Option<jsonschema::Validator>,
) -> Option<CompiledSchema> {
    let root = schema.as_object();
    if let Some(root) = root {
        match root.get("$schema") {
            None => {}
            Some(Value::String(uri)) if uri.trim_end_matches('#') == DRAFT_2020_12 => {}
            Some(_) => return None,
        }
    }
    let mut compiler = Compiler {
        root,
        nodes: Vec::new(),
        references: HashMap::new(),
        delegate,
    };
    compiler.node(schema, true).ok()?;
    let compiled = CompiledSchema {
        nodes: compiler.nodes,
    };
    (!loops_in_place(&compiled)).then_some(compiled)
}

struct Compiler<'s, 'd> {
    root: Option<&'s Map<String, Value>>,
    nodes: Vec<Node>,
    /// Each `$ref` compiled so far, so a recursive type is a cycle of
    /// indices rather than an endless compilation.
    references: HashMap<&'s str, NodeId>,
    delegate: &'d dyn Fn(&Value) -> Option<jsonschema::Validator>,
}

impl<'s> Compiler<'s, '_> {
    fn node(&mut self, schema: &'s Value, root: bool) -> Result<NodeId, Unsupported> {
        let id = self.reserve();
        self.fill(id, schema, root)?;
        Ok(id)
    }

    /// A place for a node, filled once compiled (a `$ref` cycle points to
    /// it before then).
    fn reserve(&mut self) -> NodeId {
        self.nodes.push(Node {
            types: types::ANY,
            bounds: None,
            length: None,
            object: None,
            array: None,
            rest: None,
        });
        self.nodes.len() - 1
    }

    fn fill(&mut self, id: NodeId, schema: &'s Value, root: bool) -> Result<(), Unsupported> {
        let map = match schema {
            Value::Bool(admits) => {
                self.nodes[id].types = if *admits { types::ANY } else { 0 };
                return Ok(());
            }
            Value::Object(map) => map,
            _ => return Err(Unsupported),
        };
        let mut types = types::ANY;
        let mut rest = Rest::default();
        let mut delegated = Map::new();
        let mut delegate = |keyword: &str, value: &Value| {
            delegated.insert(keyword.to_owned(), value.clone());
        };
        let mut object = Object::default();
        let mut prefix = None;
        let mut items = None;
        let mut bounds = Vec::new();
        let mut counts = Counts::default();
        for (keyword, value) in map {
            let keyword = keyword.as_str();
            match keyword {
                "$schema" if root => {}
                _ if ANNOTATIONS.contains(&keyword) => {}
                "format" if value.as_str().is_some_and(|f| IGNORED_FORMATS.contains(&f)) => {}
                _ if DELEGATED.contains(&keyword) => delegate(keyword, value),
                "type" => types = type_set(value)?,
                "enum" => match value {
                    Value::Array(values) if values.iter().all(is_plain) => {
                        rest.allowed = Some(values.clone().into_boxed_slice());
                    }
                    _ => delegate(keyword, value),
                },
                "const" if is_plain(value) => rest.constant = Some(value.clone()),
                "const" => delegate(keyword, value),
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    match value.as_number().and_then(Exact::of) {
                        Some(limit) => bounds.push((bound(keyword), limit)),
                        None => delegate(keyword, value),
                    }
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" => match value.as_u64() {
                    Some(limit) => counts.set(keyword, limit),
                    None => delegate(keyword, value),
                },
                "required" => match value {
                    Value::Array(names) if names.iter().all(Value::is_string) => {
                        object.required = Some(names);
                    }
                    _ => delegate(keyword, value),
                },
                "properties" => object.properties = Some(value.as_object().ok_or(Unsupported)?),
                "additionalProperties" => object.additional = Some(value),
                "items" if !value.is_array() => items = Some(value),
                "prefixItems" => prefix = Some(value.as_array().ok_or(Unsupported)?),
                "allOf" => rest.all_of = self.branches(value)?,
                "anyOf" => rest.any_of = self.branches(value)?,
                "oneOf" => rest.one_of = self.branches(value)?,
                "not" => rest.not = Some(self.node(value, false)?),
                "$ref" => rest.reference = Some(self.reference(value)?),
                _ => return Err(Unsupported),
            }
        }
        if !delegated.is_empty() {
            rest.delegate = Some((self.delegate)(&Value::Object(delegated)).ok_or(Unsupported)?);
        }
        let object = if object.is_some() || counts.properties != UNBOUNDED {
            Some(Box::new(self.object_rule(object, counts.properties)?))
        } else {
            None
        };
        let array = if prefix.is_some() || items.is_some() || counts.items != UNBOUNDED {
            let prefix = match prefix {
                Some(schemas) => self.nodes_of(schemas)?,
                None => Box::new([]),
            };
            let rest = items.map(|schema| self.node(schema, false)).transpose()?;
            Some(Box::new(ArrayRule {
                prefix,
                rest,
                count: counts.items,
            }))
        } else {
            None
        };
        let has_rest = rest.allowed.is_some()
            || rest.constant.is_some()
            || rest.delegate.is_some()
            || rest.reference.is_some()
            || !rest.all_of.is_empty()
            || !rest.any_of.is_empty()
            || !rest.one_of.is_empty()
            || rest.not.is_some();
        self.nodes[id] = Node {
            types,
            bounds: (!bounds.is_empty()).then(|| bounds.into_boxed_slice()),
            length: (counts.length != UNBOUNDED).then_some(counts.length),
            object,
            array,
            rest: has_rest.then(|| Box::new(rest)),
        };
        Ok(())
    }

    fn object_rule(
        &mut self,
        object: Object<'s>,
        count: (u64, u64),
    ) -> Result<ObjectRule, Unsupported> {
        let required: Vec<&str> = object
            .required
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut declared = Vec::new();
        for (name, schema) in object.properties.into_iter().flatten() {
            let is_required = required.contains(&name.as_str());
            declared.push((
                Box::from(name.as_str()),
                self.node(schema, false)?,
                is_required,
            ));
        }
        let mut required_other: Vec<Box<str>> = Vec::new();
        for name in required {
            let is_declared = object.properties.is_some_and(|map| map.contains_key(name));
            if !is_declared && !required_other.iter().any(|other| other.as_ref() == name) {
                required_other.push(Box::from(name));
            }
        }
        let additional = match object.additional {
            None | Some(Value::Bool(true)) => Additional::Any,
            Some(Value::Bool(false)) => Additional::Never,
            Some(schema) => Additional::Schema(self.node(schema, false)?),
        };
        Ok(ObjectRule {
            required_declared: declared.iter().filter(|(_, _, required)| *required).count(),
            properties: declared.into_boxed_slice(),
            required_other: required_other.into_boxed_slice(),
            additional,
            count,
        })
    }

    fn branches(&mut self, value: &'s Value) -> Result<Box<[NodeId]>, Unsupported> {
        match value {
            Value::Array(schemas) if !schemas.is_empty() => self.nodes_of(schemas),
            _ => Err(Unsupported),
        }
    }

    fn nodes_of(&mut self, schemas: &'s [Value]) -> Result<Box<[NodeId]>, Unsupported> {
        schemas
            .iter()
            .map(|schema| self.node(schema, false))
            .collect()
    }

    /// `#` or `#/$defs/NAME` (`#/definitions/NAME`) of the root; a name that
    /// needs unescaping, or any other reference, is outside the subset.
    fn reference(&mut self, value: &'s Value) -> Result<NodeId, Unsupported> {
        let pointer = value.as_str().ok_or(Unsupported)?;
        if let Some(&id) = self.references.get(pointer) {
            return Ok(id);
        }
        if pointer == "#" {
            return Ok(0);
        }
        let (container, name) = pointer
            .strip_prefix("#/$defs/")
            .map(|name| ("$defs", name))
            .or_else(|| {
                pointer
                    .strip_prefix("#/definitions/")
                    .map(|name| ("definitions", name))
            })
            .ok_or(Unsupported)?;
        if name.is_empty() || name.contains(['/', '~', '%']) {
            return Err(Unsupported);
        }
        let target = self
            .root
            .and_then(|root| root.get(container))
            .and_then(|defs| defs.get(name))
            .ok_or(Unsupported)?;
        let id = self.reserve();
        self.references.insert(pointer, id);
        self.fill(id, target, false)?;
        Ok(id)
    }
}

/// Whether some node reaches itself without descending into the instance
/// (through `$ref`, `allOf`, `anyOf`, `oneOf`, `not` only): checking it
/// would never end.
fn loops_in_place(schema: &CompiledSchema) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn in_place(node: &Node) -> impl Iterator<Item = NodeId> + '_ {
        node.rest.iter().flat_map(|rest| {
            rest.reference
                .iter()
                .chain(rest.not.iter())
                .chain(rest.all_of.iter())
                .chain(rest.any_of.iter())
                .chain(rest.one_of.iter())
                .copied()
        })
    }
    fn visit(schema: &CompiledSchema, id: NodeId, marks: &mut [Mark]) -> bool {
        match marks[id] {
            Mark::Open => return true,
            Mark::Done => return false,
            Mark::New => {}
        }
        marks[id] = Mark::Open;
        let looped = in_place(&schema.nodes[id]).any(|next| visit(schema, next, marks));
        marks[id] = Mark::Done;
        looped
    }
    let mut marks = vec![Mark::New; schema.nodes.len()];
    (0..schema.nodes.len()).any(|id| visit(schema, id, &mut marks))
}

fn type_set(value: &Value) -> Result<u8, Unsupported> {
    let one = |name: &Value| match name.as_str() {
        Some("null") => Ok(types::NULL),
        Some("boolean") => Ok(types::BOOLEAN),
        Some("object") => Ok(types::OBJECT),
        Some("array") => Ok(types::ARRAY),
        Some("number") => Ok(types::NUMBER),
        Some("integer") => Ok(types::INTEGER),
        Some("string") => Ok(types::STRING),
        _ => Err(Unsupported),
    };
    match value {
        Value::Array(names) if !names.is_empty() => names
            .iter()
            .try_fold(0, |set, name| one(name).map(|bit| set | bit)),
        Value::Array(_) => Err(Unsupported),
        name => one(name),
    }
}

/// A value whose JSON Schema equality is `==`: a string, boolean or null.
fn is_plain(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Bool(_) | Value::Null)
}

fn bound(keyword: &str) -> Bound {
    match keyword {
        "minimum" => Bound::Minimum,
        "maximum" => Bound::Maximum,
        "exclusiveMinimum" => Bound::ExclusiveMinimum,
        _ => Bound::ExclusiveMaximum,
    }
}

/// No count limit.
const UNBOUNDED: (u64, u64) = (0, u64::MAX);

/// `minLength`…`maxProperties` of one node.
struct Counts {
    length: (u64, u64),
    items: (u64, u64),
    properties: (u64, u64),
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            length: UNBOUNDED,
            items: UNBOUNDED,
            properties: UNBOUNDED,
        }
    }
}

impl Counts {
    fn set(&mut self, keyword: &str, limit: u64) {
        match keyword {
            "minLength" => self.length.0 = limit,
            "maxLength" => self.length.1 = limit,
            "minItems" => self.items.0 = limit,
            "maxItems" => self.items.1 = limit,
            "minProperties" => self.properties.0 = limit,
            _ => self.properties.1 = limit,
        }
    }
}

/// The object keywords of one node, as written.
#[derive(Default)]
struct Object<'s> {
    properties: Option<&'s Map<String, Value>>,
    required: Option<&'s Vec<Value>>,
    additional: Option<&'s Value>,
}

impl Object<'_> {
    fn is_some(&self) -> bool {
        self.properties.is_some() || self.required.is_some() || self.additional.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn compiles(schema: Value) -> bool {
        let delegate = |keywords: &Value| {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(keywords)
                .ok()
        };
        compile(&schema, &delegate).is_some()
    }

    #[test]
    fn the_subset_compiles() {
        assert!(compiles(json!({
            "$schema": DRAFT_2020_12,
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"type": "string", "pattern": "^x"}},
            "required": ["a"],
            "additionalProperties": false,
            "$defs": {"A": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}},
        })));
        assert!(compiles(json!(true)));
    }

    #[test]
    fn anything_else_falls_back_to_jsonschema() {
        for schema in [
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
            json!({"type": "object", "patternProperties": {"^x": {}}}),
            json!({"$id": "https://example.com/s", "type": "object"}),
            json!({"type": "object", "properties": {"a": {"$anchor": "a"}}}),
            json!({"type": "object", "unevaluatedProperties": false}),
            json!({"if": {"type": "string"}, "then": {"minLength": 1}}),
            json!({"type": "object", "x-vendor": 1}),
            json!({"items": [{"type": "string"}]}),
            json!({"$ref": "#/$defs/a~1b", "$defs": {"a/b": {}}}),
            json!({"$ref": "https://example.com/other"}),
            // A `$ref` loop that never descends into the instance.
            json!({"$ref": "#/$defs/A", "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}}),
        ] {
            assert!(!compiles(schema.clone()), "{schema}");
        }
    }
}
