//! The generated argument checks against `jsonschema` over the schema the
//! model is shown: for thousands of generated argument values, valid and
//! invalid, for every kind of shape the derive supports, both accept and
//! refuse the same values, and a refusal names the same problems (instance
//! paths and messages, in the same order). The deciding walk, which also
//! bounds a call's size, admits exactly the valid values when nothing
//! limits it, and under a limit admits nothing longer than the limit, nor
//! anything the size check's own walk bounds above it (so it leaves no part
//! uncounted).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::{Budget, Walk, check_of, problems_of, serde_decides, shorten};
use crate::registration::{CheckFn, schema_of};

/// Cases per schema.
const CASES: u32 = 1_500;

// The shapes. Fields are read only through their schemas.
#[allow(dead_code)]
mod shapes {
    use super::*;

    /// The benchmarks' three fields.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub struct Flat {
        pub path: String,
        pub limit: u32,
        pub numbered: bool,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct Inner {
        pub name: String,
        #[schemars(range(min = -5, max = 5))]
        pub level: i32,
        pub ratio: Option<f64>,
    }

    /// Nested structs, `Option` of a struct, `Vec` of structs and strings.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct Nested {
        pub inner: Inner,
        pub maybe: Option<Inner>,
        pub list: Vec<Inner>,
        #[serde(default)]
        pub tags: Vec<String>,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(rename_all = "snake_case")]
    pub enum Colour {
        Red,
        DarkBlue,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub enum Documented {
        /// The first.
        First,
        /// The second.
        Second,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    pub enum Shape {
        Circle { radius: f64 },
        Square { side: u8 },
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub enum External {
        Unit,
        Pair(u8, String),
        Named { x: i64 },
    }

    /// Enums of every kind.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct Enums {
        pub colour: Colour,
        pub documented: Option<Documented>,
        pub shape: Shape,
        pub external: Vec<External>,
    }

    /// Bounds, lengths, patterns, formats, sets, maps, tuples.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct Constrained {
        #[schemars(length(min = 1, max = 8))]
        pub name: String,
        #[schemars(pattern(r"^[a-z]+[0-9]?$"))]
        pub code: String,
        #[schemars(range(min = 1, max = 100))]
        pub count: u16,
        #[schemars(range(min = 0.5, max = 2.5))]
        pub factor: f32,
        #[schemars(email)]
        pub mail: Option<String>,
        #[schemars(url)]
        pub link: Option<String>,
        #[schemars(length(max = 3))]
        pub few: Vec<u8>,
        pub set: BTreeSet<String>,
        pub counts: BTreeMap<String, u32>,
        pub pair: (bool, i8),
        #[serde(default)]
        pub big: u64,
        pub small: i64,
        pub letter: char,
        pub anything: Value,
    }

    /// Renames, a newtype, `schemars(with)`, skipped and required fields,
    /// an internally tagged enum refusing unknown fields, optional
    /// characters and arrays, a set of numbers.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(rename_all = "camelCase")]
    pub struct Renamed {
        pub first_name: Name,
        #[serde(rename = "other")]
        pub second_name: Option<Name>,
        #[schemars(with = "String")]
        #[serde(default)]
        pub raw: Option<String>,
        #[serde(skip)]
        pub hidden: u8,
        #[schemars(required)]
        pub initial: Option<char>,
        #[schemars(length(min = 1, max = 2))]
        pub maybe_list: Option<Vec<bool>>,
        pub numbers: BTreeSet<u8>,
        pub mode: Mode,
        pub boxed: Box<Inner>,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub struct Name(#[schemars(length(min = 2))] pub String);

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Mode {
        Off,
        SlowStart { after: u32 },
    }

    /// Plain fields serde decides for: every number width, `Option`,
    /// `Vec`, maps, boxes, a nested plain struct refusing unknown fields,
    /// defaults, renames, a character, any value.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(rename_all = "camelCase")]
    pub struct Plain {
        pub title: String,
        pub small: u8,
        pub signed: i16,
        pub wide: u64,
        pub ratio: Option<f64>,
        pub tags: Vec<String>,
        pub counts: BTreeMap<String, u32>,
        #[serde(rename = "child")]
        pub nested: Option<Box<PlainInner>>,
        #[serde(default)]
        pub flag_set: bool,
        pub letter: char,
        pub anything: Value,
    }

    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct PlainInner {
        pub name: String,
        pub level: i8,
    }

    /// A set: serde merges the repeated items its schema refuses.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub struct Sets {
        pub set: BTreeSet<u8>,
    }

    /// A tuple.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    pub struct Pairs {
        pub pair: (bool, i8),
        pub list: Vec<(u8, String)>,
    }

    /// A recursive type: `$ref` cycles.
    #[derive(Deserialize, JsonSchema, tool_core::Arguments)]
    #[serde(deny_unknown_fields)]
    pub struct Tree {
        pub label: String,
        pub children: Vec<Tree>,
        pub parent: Option<Box<Tree>>,
    }
}

/// A shape under test: its schema, its generated checks, and whether
/// serde decides for it (and serde itself, to hold that to account).
struct Subject {
    name: &'static str,
    schema: Value,
    check: CheckFn,
    serde_decides: bool,
    serde_accepts: fn(&Value) -> bool,
}

fn subject<T: JsonSchema + DeserializeOwned + super::Arguments>(name: &'static str) -> Subject {
    Subject {
        name,
        schema: schema_of::<T>(),
        check: check_of::<T>,
        serde_decides: serde_decides::<T>(),
        serde_accepts: |value| T::deserialize(value).is_ok(),
    }
}

/// The schemas under test.
fn schemas() -> Vec<Subject> {
    vec![
        subject::<shapes::Flat>("flat"),
        subject::<shapes::Nested>("nested"),
        subject::<shapes::Enums>("enums"),
        subject::<shapes::Constrained>("constrained"),
        subject::<shapes::Tree>("tree"),
        subject::<shapes::Renamed>("renamed"),
        subject::<shapes::Plain>("plain"),
        subject::<shapes::Sets>("sets"),
        subject::<shapes::Pairs>("pairs"),
    ]
}

/// Where serde decides, derived from the types: plain fields of types
/// whose every serde reading the schema admits; not past a set (serde
/// merges what `uniqueItems` refuses), a tuple, a keyword, an enum or a
/// recursion deeper than it looks.
#[test]
fn serde_decides_where_the_types_say() {
    let decided: Vec<&str> = schemas()
        .iter()
        .filter(|subject| subject.serde_decides)
        .map(|subject| subject.name)
        .collect();
    assert_eq!(decided, ["flat", "plain"]);
}

/// Compares the generated checks and `jsonschema` on `value`; returns
/// whether it is valid.
fn agree(
    subject: &Subject,
    reference: &jsonschema::Validator,
    value: &Value,
) -> Result<bool, TestCaseError> {
    let (name, check) = (subject.name, subject.check);
    let expected = reference.is_valid(value);
    // Where serde decides, the call path checks nothing more of what
    // serde accepts.
    prop_assert!(
        !subject.serde_decides || expected || !(subject.serde_accepts)(value),
        "{}: serde decides, but accepted {}, which the schema refuses",
        name,
        value
    );
    let decided = check(value, &mut Walk::deciding(usize::MAX));
    prop_assert_eq!(
        decided,
        expected,
        "{}: {} accepted by one side only",
        name,
        value
    );
    let problems: Vec<(String, String)> = reference
        .iter_errors(value)
        .map(|error| {
            (
                error.instance_path().to_string(),
                shorten(error.to_string()),
            )
        })
        .collect();
    let checked: Vec<(String, String)> = problems_of(check, value)
        .into_iter()
        .map(|problem| (problem.path, problem.message))
        .collect();
    prop_assert_eq!(checked, problems, "{}: {}", name, value);
    // The size walk's own bound, which the checks' walk must reach: one
    // byte under it, a walk that left a part out would admit.
    let mut whole = Budget::new(usize::MAX);
    prop_assert!(whole.whole(value));
    let bound = whole.counted(usize::MAX);
    let length = serde_json::to_string(value).unwrap().len();
    for limit in [
        0,
        length / 2,
        length.saturating_sub(1),
        length,
        bound.saturating_sub(1),
        bound,
        length * 6 + 2,
    ] {
        let mut walk = Walk::deciding(limit);
        let admitted = check(value, &mut walk);
        prop_assert!(
            !admitted || expected,
            "{}: {} refused but admitted at limit {}",
            name,
            value,
            limit
        );
        prop_assert!(
            !admitted || walk.budget().needs_exact() || (length <= limit && bound <= limit),
            "{}: {} ({} bytes) admitted at limit {}",
            name,
            value,
            length,
            limit
        );
    }
    Ok(expected)
}

#[test]
fn generated_checks_and_jsonschema_accept_and_refuse_the_same_arguments() {
    for subject in schemas() {
        let (name, schema) = (subject.name, &subject.schema);
        let reference = reference(schema);
        let valid = Cell::new(0_u32);
        let invalid = Cell::new(0_u32);
        let config = Config {
            cases: CASES,
            failure_persistence: None,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&arguments(schema), |value| {
            let accepted = agree(&subject, &reference, &value)?;
            let counter = if accepted { &valid } else { &invalid };
            counter.set(counter.get() + 1);
            Ok(())
        });
        if let Err(failure) = result {
            panic!("{name}: {failure}");
        }
        // Both sides of the boundary must be well exercised.
        let (valid, invalid) = (valid.get(), invalid.get());
        println!("{name}: {valid} valid and {invalid} invalid values, all agreed");
        assert!(
            valid >= CASES / 10 && invalid >= CASES / 10,
            "{name}: {valid} valid and {invalid} invalid values"
        );
    }
}

/// Numbers at the edges of every bound and type, written every way.
#[test]
fn edge_numbers_agree() {
    let numbers = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "1",
        "1.0",
        "-1",
        "0.5",
        "2.5",
        "2.5000001",
        "0.49999999",
        "5",
        "-5",
        "6",
        "-6",
        "5.0",
        "100",
        "100.0",
        "100.5",
        "101",
        "255",
        "256",
        "-128",
        "127",
        "128",
        "4294967295",
        "4294967296",
        "9007199254740993",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "-9223372036854775808",
        "1e20",
        "-1e20",
        "1e308",
        "1.5e-300",
    ];
    let samples = [
        r#"{"path": "a", "limit": %, "numbered": true}"#,
        r#"{"inner": {"name": "a", "level": %}, "list": []}"#,
        r#"{"inner": {"name": "a", "level": 0, "ratio": %}, "list": [], "maybe": null}"#,
        r#"{"colour": "red", "shape": {"kind": "square", "side": %}, "external": [{"Pair": [%, "x"]}, {"Named": {"x": %}}]}"#,
        r#"{"name": "ab", "code": "ab1", "count": %, "factor": %, "few": [%], "set": [], "counts": {"a": %}, "pair": [true, %], "big": %, "small": %, "letter": "x", "anything": %}"#,
        r#"{"level": %, "step": %, "ids": [%, 1], "mode": %}"#,
        r#"{"title": "a", "small": %, "signed": %, "wide": %, "ratio": %, "tags": [], "counts": {"a": %}, "child": {"name": "x", "level": %}, "letter": "x", "anything": %}"#,
        r#"{"set": [%, %], "pair": [true, %], "list": [[%, "x"]]}"#,
    ];
    for subject in schemas() {
        let reference = reference(&subject.schema);
        for sample in samples {
            for number in numbers {
                let value: Value = serde_json::from_str(&sample.replace('%', number)).unwrap();
                agree(&subject, &reference, &value).unwrap();
            }
        }
    }
}

/// `jsonschema` as the `validate` feature configures it, formats enforced.
fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap()
}

/// Arguments for `schema`: values built to its shape (valid more often than
/// not), each then possibly broken in one place.
fn arguments(schema: &Value) -> BoxedStrategy<Value> {
    let shaped = shaped(schema, schema, 0);
    (shaped, 0..6_u8, any::<usize>(), noise())
        .prop_map(|(mut value, mutation, at, noise)| {
            mutate(&mut value, mutation, at, noise);
            value
        })
        .boxed()
}

/// A value shaped by `node`, which may still break a bound or pattern.
fn shaped(node: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Some(map) = node.as_object() else {
        return noise();
    };
    if depth > 5 {
        return Just(Value::Null).boxed();
    }
    if let Some(pointer) = map.get("$ref").and_then(Value::as_str) {
        let target = match pointer.strip_prefix("#/$defs/") {
            Some(name) => &root["$defs"][name],
            None => root,
        };
        return shaped(target, root, depth + 1);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(branches) = map.get(keyword).and_then(Value::as_array) {
            // Deep in a recursive type, end the recursion where it may end.
            if depth > 3 && branches.contains(&json!({"type": "null"})) {
                return Just(Value::Null).boxed();
            }
            let choices: Vec<_> = branches
                .iter()
                .map(|b| shaped(b, root, depth + 1))
                .collect();
            return proptest::strategy::Union::new(choices).boxed();
        }
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        return proptest::sample::select(values.clone()).boxed();
    }
    if let Some(value) = map.get("const") {
        return Just(value.clone()).boxed();
    }
    let kinds: Vec<&str> = match map.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => vec!["object", "string", "integer"],
    };
    let choices: Vec<_> = kinds
        .iter()
        .map(|kind| of_type(kind, map, root, depth))
        .collect();
    proptest::strategy::Union::new(choices).boxed()
}

fn of_type(kind: &str, map: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    match kind {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" | "number" => number(map, kind == "integer"),
        "string" => string(map),
        "array" => array(map, root, depth),
        _ => object(map, root, depth),
    }
}

fn number(map: &Map<String, Value>, integer: bool) -> BoxedStrategy<Value> {
    let bound = |keyword| map.get(keyword).and_then(Value::as_f64);
    let low = bound("minimum")
        .or(bound("exclusiveMinimum"))
        .unwrap_or(-1000.0);
    let high = bound("maximum")
        .or(bound("exclusiveMaximum"))
        .unwrap_or(1000.0);
    let edges = vec![low - 1.0, low, low + 0.5, high, high - 0.5, high + 1.0, 0.0];
    let inside = if let Some(step) = map.get("multipleOf").and_then(Value::as_f64) {
        ((low / step) as i64..=(high / step) as i64)
            .prop_map(move |k| json!(k as f64 * step))
            .boxed()
    } else if integer {
        ((low.max(-1e6) as i64)..=(high.min(1e6) as i64))
            .prop_map(|n| json!(n))
            .boxed()
    } else {
        (low.max(-1e6)..=high.min(1e6))
            .prop_map(|n| json!(n))
            .boxed()
    };
    prop_oneof![
        20 => inside,
        2 => proptest::sample::select(edges).prop_map(move |n| {
            if integer && n.fract() == 0.0 { json!(n as i64) } else { json!(n) }
        }),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<f64>().prop_filter("finite", |n| n.is_finite()).prop_map(|n| json!(n)),
    ]
    .boxed()
}

fn string(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let count = |keyword| map.get(keyword).and_then(Value::as_u64);
    let (least, most) = (
        count("minLength").unwrap_or(0),
        count("maxLength").unwrap_or(12),
    );
    let of_length = |lengths: BoxedStrategy<u64>| {
        lengths
            .prop_flat_map(|length| proptest::collection::vec(any::<char>(), length as usize))
            .prop_map(|chars| Value::String(chars.into_iter().collect()))
            .boxed()
    };
    let inside = of_length((least..=most).boxed());
    let outside =
        of_length(proptest::sample::select(vec![least.saturating_sub(1), most + 1]).boxed());
    let pool = |valid: &[&'static str], invalid: &[&'static str]| {
        let pick = |texts: &[&'static str]| {
            proptest::sample::select(texts.to_vec()).prop_map(|text| Value::String(text.to_owned()))
        };
        prop_oneof![4 => pick(valid), 1 => pick(invalid)].boxed()
    };
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        let inner = pattern.trim_start_matches('^').trim_end_matches('$');
        let matching = proptest::string::string_regex(inner)
            .unwrap()
            .prop_map(Value::String);
        return prop_oneof![8 => matching, 1 => inside, 1 => outside].boxed();
    }
    match map.get("format").and_then(Value::as_str) {
        Some("email") => pool(&["user@example.com", "a.b@c.io"], &["no-at-sign", "@", ""]),
        Some("uri") => pool(
            &["https://example.com/a?b=c", "mailto:x@y.z"],
            &["not a uri", "//no-scheme", ""],
        ),
        _ => prop_oneof![8 => inside, 1 => outside].boxed(),
    }
}

fn array(map: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
        let items: Vec<_> = prefix.iter().map(|p| shaped(p, root, depth + 1)).collect();
        return (items, proptest::option::weighted(0.1, noise()))
            .prop_map(|(mut items, extra)| {
                items.extend(extra);
                Value::Array(items)
            })
            .boxed();
    }
    let item = map
        .get("items")
        .map(|items| shaped(items, root, depth + 1))
        .unwrap_or_else(noise);
    let most = map.get("maxItems").and_then(Value::as_u64).unwrap_or(3) as usize;
    let most = match depth {
        0..=2 => most,
        3 => most.min(1),
        _ => return Just(json!([])).boxed(),
    };
    let length = prop_oneof![8 => 0..=most, 1 => Just(most + 1)];
    length
        .prop_flat_map(move |length| proptest::collection::vec(item.clone(), length))
        .prop_map(Value::Array)
        .boxed()
}

fn object(map: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields = Vec::new();
    for (name, schema) in map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let present = if required.contains(&name.as_str()) {
            0.99
        } else {
            0.6
        };
        let name = name.clone();
        fields.push(
            proptest::option::weighted(present, shaped(schema, root, depth + 1))
                .prop_map(move |value| value.map(|value| (name.clone(), value)))
                .boxed(),
        );
    }
    let additional = match map.get("additionalProperties") {
        Some(schema @ Value::Object(_)) => {
            proptest::collection::vec(("[a-c]{1,2}", shaped(schema, root, depth + 1)), 0..4).boxed()
        }
        _ => Just(Vec::new()).boxed(),
    };
    (fields, additional)
        .prop_map(|(fields, additional)| {
            let mut object: Map<String, Value> = fields.into_iter().flatten().collect();
            object.extend(additional);
            Value::Object(object)
        })
        .boxed()
}

/// Any small JSON value.
fn noise() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-10.0..10.0_f64).prop_map(|n| json!(n)),
        "[a-z]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Breaks `value` in at most one place: `mutation` 0–2 leaves it whole, 3
/// replaces the `at`-th node by `noise`, 4 removes a property from the
/// `at`-th object, 5 adds an unknown property to it.
fn mutate(value: &mut Value, mutation: u8, at: usize, noise: Value) {
    let mut nodes = Vec::new();
    collect(value, &mut Vec::new(), &mut nodes);
    let objects: Vec<_> = nodes
        .iter()
        .filter(|path| matches!(lookup(value, path), Some(Value::Object(_))))
        .cloned()
        .collect();
    match mutation {
        3 => {
            let path = &nodes[at % nodes.len()];
            if let Some(node) = lookup_mut(value, path) {
                *node = noise;
            }
        }
        4 | 5 if !objects.is_empty() => {
            let path = &objects[at % objects.len()];
            if let Some(Value::Object(map)) = lookup_mut(value, path) {
                if mutation == 4 {
                    let key = map.keys().nth(at % map.len().max(1)).cloned();
                    if let Some(key) = key {
                        map.remove(&key);
                    }
                } else {
                    map.insert("unexpected".to_owned(), noise);
                }
            }
        }
        _ => {}
    }
}

/// A step into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn collect(value: &Value, path: &mut Vec<Step>, into: &mut Vec<Vec<Step>>) {
    into.push(path.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(Step::Key(key.clone()));
                collect(child, path, into);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                path.push(Step::Index(index));
                collect(child, path, into);
                path.pop();
            }
        }
        _ => {}
    }
}

fn lookup<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |node, step| match step {
        Step::Key(key) => node.get(key),
        Step::Index(index) => node.get(index),
    })
}

fn lookup_mut<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |node, step| match step {
        Step::Key(key) => node.get_mut(key),
        Step::Index(index) => node.get_mut(index),
    })
}

/// The strategies above draw what they claim; a quick look keeps the
/// generator honest when a schema changes shape.
#[test]
fn the_generator_reaches_every_property() {
    let schema = schema_of::<shapes::Constrained>();
    let mut runner = TestRunner::deterministic();
    let strategy = shaped(&schema, &schema, 0);
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        let value = strategy.new_tree(&mut runner).unwrap().current();
        seen.extend(value.as_object().unwrap().keys().cloned());
    }
    let declared: BTreeSet<String> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(seen, declared);
}
