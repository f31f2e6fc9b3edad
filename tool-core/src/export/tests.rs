//! The read-only checks run at registry build must refuse exactly what the
//! builders, run on first use, would refuse, with the same first reason.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{gemini, gemini_problem, schema_defs, strict, strict_problem};

fn agree(schema: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        strict_problem(schema, &String::new),
        strict(schema).err(),
        "strict mode, {}",
        schema
    );
    prop_assert_eq!(
        gemini_problem(schema, schema_defs(schema), 0).err(),
        gemini(schema).err(),
        "gemini, {}",
        schema
    );
    Ok(())
}

#[test]
fn every_refusal_is_found_by_both() {
    let schemas = [
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": true}}}),
        json!({"type": "object", "properties": 3}),
        json!({"type": "object", "properties": {"a": {"type": ["string", "integer"]}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a"}}}),
        json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
               "type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}}),
        json!({"type": "object", "properties": {"l": {"type": "array",
               "items": {"type": "object", "additionalProperties": {"type": "integer"}}}}}),
        json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "null"},
               {"type": ["integer", "string", "null"]}]}}}),
    ];
    for schema in &schemas {
        agree(schema).unwrap();
    }
}

/// Schema-shaped trees over the keywords either walk looks at.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "null"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["string", "integer"]})),
        Just(json!({"$ref": "#/$defs/a"})),
        Just(json!({"$ref": "#/$defs/zz"})),
        Just(json!({"$ref": "#/elsewhere"})),
        Just(json!(true)),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let keyword = prop_oneof![
            Just("properties"),
            Just("items"),
            Just("not"),
            Just("anyOf"),
            Just("oneOf"),
            Just("allOf"),
            Just("prefixItems"),
            Just("additionalProperties"),
            Just("$defs"),
            Just("type"),
        ];
        proptest::collection::vec((keyword, proptest::collection::vec(inner, 0..3)), 0..4).prop_map(
            |entries| {
                let mut object = Map::new();
                for (keyword, children) in entries {
                    let value = match keyword {
                        "properties" | "$defs" => Value::Object(
                            ["a", "b", "c"]
                                .iter()
                                .zip(children)
                                .map(|(k, v)| ((*k).to_owned(), v))
                                .collect(),
                        ),
                        "anyOf" | "oneOf" | "allOf" | "prefixItems" => Value::Array(children),
                        "type" => json!("object"),
                        _ => children.into_iter().next().unwrap_or(json!(false)),
                    };
                    object.insert(keyword.to_owned(), value);
                }
                Value::Object(object)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn checks_agree_with_the_builders(schema in schema()) {
        agree(&schema)?;
    }
}
