//! The compiled subset of JSON Schema 2020-12 that derived tools' schemas
//! use, as a flat list of nodes (`$ref` cycles are indices), and its check.
//! It answers only "valid or not"; a refusal's problems (messages and
//! paths) are `jsonschema`'s, so the model sees the same text either way.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::number::{Exact, is_integer};
use crate::registry::size::Budget;

/// Index of a node in [`CompiledSchema::nodes`]; the root is 0.
pub(super) type NodeId = usize;

/// A schema the fast path can check on its own.
pub(crate) struct CompiledSchema {
    pub(super) nodes: Vec<Node>,
}

/// The bits of `type`.
pub(super) mod types {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 1 << 1;
    pub const OBJECT: u8 = 1 << 2;
    pub const ARRAY: u8 = 1 << 3;
    pub const NUMBER: u8 = 1 << 4;
    pub const INTEGER: u8 = 1 << 5;
    pub const STRING: u8 = 1 << 6;
    pub const ANY: u8 = NULL | BOOLEAN | OBJECT | ARRAY | NUMBER | INTEGER | STRING;
}

/// Which numeric keyword a limit comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

/// One subschema. Every keyword applies only to the instances of its type,
/// as in JSON Schema; an absent keyword admits everything. What derived
/// tools' schemas use on every call (`type`, bounds, properties, items) is
/// inline; the rest waits behind one pointer, so the common node is a type
/// test and one branch.
pub(super) struct Node {
    /// `type`; 0 for the `false` schema.
    pub types: u8,
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    pub bounds: Option<Box<[(Bound, Exact)]>>,
    /// `minLength`, `maxLength`, in code points.
    pub length: Option<(u64, u64)>,
    pub object: Option<Box<ObjectRule>>,
    pub array: Option<Box<ArrayRule>>,
    pub rest: Option<Box<Rest>>,
}

/// The keywords of a node that apply to an instance of any type.
#[derive(Default)]
pub(super) struct Rest {
    /// `enum`, when every value is a string, boolean or null (compared with
    /// `==`, which for those is JSON Schema's equality).
    pub allowed: Option<Box<[Value]>>,
    /// `const`, under the same condition.
    pub constant: Option<Value>,
    /// `$ref` (siblings apply too in 2020-12).
    pub reference: Option<NodeId>,
    pub all_of: Box<[NodeId]>,
    pub any_of: Box<[NodeId]>,
    pub one_of: Box<[NodeId]>,
    pub not: Option<NodeId>,
    /// The node's self-contained keywords the fast path does not check
    /// itself (`pattern`, `format`, `multipleOf`, `uniqueItems`, …),
    /// compiled by `jsonschema` alone, so their meaning is its own.
    pub delegate: Option<jsonschema::Validator>,
}

/// `properties`, `required` and `additionalProperties`.
pub(super) struct ObjectRule {
    /// Each declared property, its schema, and whether it is required.
    pub properties: Box<[(Box<str>, NodeId, bool)]>,
    /// How many of `properties` are required.
    pub required_declared: usize,
    /// Required names that `properties` does not declare.
    pub required_other: Box<[Box<str>]>,
    pub additional: Additional,
    /// `minProperties`, `maxProperties`.
    pub count: (u64, u64),
}

/// What `additionalProperties` says of a property `properties` does not
/// declare.
pub(super) enum Additional {
    Any,
    Never,
    Schema(NodeId),
}

/// `prefixItems` and `items`.
pub(super) struct ArrayRule {
    pub prefix: Box<[NodeId]>,
    /// For the items after the prefix.
    pub rest: Option<NodeId>,
    /// `minItems`, `maxItems`.
    pub count: (u64, u64),
}

impl CompiledSchema {
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        self.valid(0, instance, &mut Budget::new(usize::MAX))
    }

    /// Whether `instance` is valid and, counted on the way into `budget`,
    /// within it: one walk for both. `false` when it is refused, passes the
    /// budget, or both; the caller then checks each on its own. (A branch
    /// of `anyOf` or `oneOf` cut short by the budget reads as refused, so
    /// past the budget the walk's own answer is not the schema's.)
    pub(crate) fn is_valid_within(&self, instance: &Value, budget: &mut Budget) -> bool {
        self.valid(0, instance, budget) && !budget.is_over()
    }

    /// Whether `instance` is valid against node `id`; every part of an
    /// instance found valid has been counted into `budget` at least once
    /// (see [`Budget`]), and the walk stops once the budget is spent.
    ///
    /// A string, boolean or null against a node of type rules alone (what
    /// most properties are) is answered here, inline in the walk over its
    /// object or array; anything else in [`node_valid`](Self::node_valid).
    #[inline]
    fn valid(&self, id: NodeId, instance: &Value, budget: &mut Budget) -> bool {
        let node = &self.nodes[id];
        match instance {
            Value::String(text) if node.rest.is_none() => {
                node.types & types::STRING != 0
                    && budget.string(text)
                    && node
                        .length
                        .is_none_or(|length| within(length, code_points(text)))
            }
            Value::Null | Value::Bool(_) if node.rest.is_none() => {
                type_matches(node.types, instance) && budget.literal(instance)
            }
            _ => self.node_valid(node, instance, budget),
        }
    }

    #[inline(never)]
    fn node_valid(&self, node: &Node, instance: &Value, budget: &mut Budget) -> bool {
        if !type_matches(node.types, instance) {
            return false;
        }
        // A node whose applicators pass has had the instance counted by
        // them; otherwise it is counted here.
        let counted_below = node.rest.as_deref().is_some_and(Rest::counts_instance);
        let own = match instance {
            Value::Object(map) => match node.object.as_deref() {
                Some(rule) => self.object_valid(rule, map, budget),
                None => counted_below || budget.whole(instance),
            },
            Value::Array(items) => match node.array.as_deref() {
                Some(rule) => self.array_valid(rule, items, budget),
                None => counted_below || budget.whole(instance),
            },
            Value::Number(number) => {
                (counted_below || budget.number(number))
                    && node
                        .bounds
                        .as_deref()
                        .is_none_or(|bounds| within_bounds(bounds, number))
            }
            Value::String(text) => {
                (counted_below || budget.string(text))
                    && node
                        .length
                        .is_none_or(|length| within(length, code_points(text)))
            }
            Value::Null | Value::Bool(_) => counted_below || budget.literal(instance),
        };
        own && node
            .rest
            .as_deref()
            .is_none_or(|rest| self.rest_valid(rest, instance, budget))
    }

    #[inline(never)]
    fn rest_valid(&self, rest: &Rest, instance: &Value, budget: &mut Budget) -> bool {
        rest.allowed
            .as_deref()
            .is_none_or(|allowed| allowed.contains(instance))
            && rest
                .constant
                .as_ref()
                .is_none_or(|constant| constant == instance)
            && rest
                .delegate
                .as_ref()
                .is_none_or(|delegate| delegate.is_valid(instance))
            && rest
                .reference
                .is_none_or(|target| self.valid(target, instance, budget))
            && rest
                .all_of
                .iter()
                .all(|&sub| self.valid(sub, instance, budget))
            && (rest.any_of.is_empty()
                || rest
                    .any_of
                    .iter()
                    .any(|&sub| self.valid(sub, instance, budget)))
            && (rest.one_of.is_empty() || self.exactly_one(&rest.one_of, instance, budget))
            && rest.not.is_none_or(|sub| {
                // What `not` refuses is not counted: counting it here would
                // charge the budget for nothing the instance passed.
                !self.valid(sub, instance, &mut Budget::new(usize::MAX))
            })
    }

    #[inline(never)]
    fn object_valid(
        &self,
        rule: &ObjectRule,
        map: &Map<String, Value>,
        budget: &mut Budget,
    ) -> bool {
        if !within(rule.count, map.len() as u64) || !budget.object(map.len()) {
            return false;
        }
        let mut required_seen = 0;
        for (key, value) in map {
            if !budget.string(key) {
                return false;
            }
            let declared = rule
                .properties
                .iter()
                .find(|(name, _, _)| name.as_ref() == key.as_str());
            match declared {
                Some(&(_, schema, required)) => {
                    if !self.valid(schema, value, budget) {
                        return false;
                    }
                    required_seen += usize::from(required);
                }
                None => match rule.additional {
                    Additional::Any => {
                        if !budget.whole(value) {
                            return false;
                        }
                    }
                    Additional::Never => return false,
                    Additional::Schema(schema) => {
                        if !self.valid(schema, value, budget) {
                            return false;
                        }
                    }
                },
            }
        }
        required_seen == rule.required_declared
            && rule
                .required_other
                .iter()
                .all(|name| map.contains_key(name.as_ref()))
    }

    #[inline(never)]
    fn array_valid(&self, rule: &ArrayRule, items: &[Value], budget: &mut Budget) -> bool {
        if !within(rule.count, items.len() as u64) || !budget.array(items.len()) {
            return false;
        }
        let prefixed = rule.prefix.len().min(items.len());
        let rest = &items[prefixed..];
        rule.prefix
            .iter()
            .zip(items)
            .all(|(&schema, item)| self.valid(schema, item, budget))
            && match rule.rest {
                Some(schema) => rest.iter().all(|item| self.valid(schema, item, budget)),
                None => rest.iter().all(|item| budget.whole(item)),
            }
    }

    fn exactly_one(&self, branches: &[NodeId], instance: &Value, budget: &mut Budget) -> bool {
        let mut matched = branches
            .iter()
            .filter(|&&sub| self.valid(sub, instance, budget));
        matched.next().is_some() && matched.next().is_none()
    }
}

impl Rest {
    /// Whether the instance, when these keywords pass, has been counted by
    /// a subschema: `$ref` and `allOf` pass only if each of theirs does,
    /// `anyOf` and `oneOf` only if one of theirs does.
    fn counts_instance(&self) -> bool {
        self.reference.is_some()
            || !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
    }
}

fn type_matches(allowed: u8, instance: &Value) -> bool {
    let bit = match instance {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Object(_) => types::OBJECT,
        Value::Array(_) => types::ARRAY,
        Value::String(_) => types::STRING,
        Value::Number(number) => {
            return allowed & types::NUMBER != 0
                || (allowed & types::INTEGER != 0 && is_integer(number));
        }
    };
    allowed & bit != 0
}

#[inline(never)]
fn within_bounds(bounds: &[(Bound, Exact)], number: &serde_json::Number) -> bool {
    // Unreachable without serde_json's `arbitrary_precision` (every parsed
    // number is a finite f64 at worst); refuse, and `jsonschema` names why.
    let Some(value) = Exact::of(number) else {
        return false;
    };
    bounds.iter().all(|&(bound, limit)| {
        let Some(order) = value.compare(limit) else {
            return false;
        };
        match bound {
            Bound::Minimum => order != Ordering::Less,
            Bound::Maximum => order != Ordering::Greater,
            Bound::ExclusiveMinimum => order == Ordering::Greater,
            Bound::ExclusiveMaximum => order == Ordering::Less,
        }
    })
}

fn within((least, most): (u64, u64), count: u64) -> bool {
    least <= count && count <= most
}

/// `minLength`/`maxLength` count code points, not bytes.
fn code_points(text: &str) -> u64 {
    if text.is_ascii() {
        text.len() as u64
    } else {
        text.chars().count() as u64
    }
}
