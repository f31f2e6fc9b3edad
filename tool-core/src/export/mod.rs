//! The offered tools in the form each consumer accepts (docs/decisions.md,
//! "Exports"). One schema comes from schemars (JSON Schema 2020-12); the
//! forms derived from it are checked at registry build, and each is built
//! on its first use and cached.
//!
//! | provider | form |
//! | --- | --- |
//! | [`Provider::Mcp`] | a `tools/list` entry: the schema as is, annotations always explicit |
//! | [`Provider::OpenAi`] | a Chat Completions function tool in strict mode |
//! | [`Provider::Gemini`] | a function declaration: `$ref` inlined, unsupported keywords removed, `nullable` |
//! | [`Provider::Anthropic`] | a tool with `input_schema`, no top-level `anyOf`/`oneOf`/`allOf` |
//!
//! An empty grant exports as `None`: the request carries no tools field at
//! all (several providers reject an empty list).
//!
//! # OpenAI strict mode and optional arguments
//!
//! Strict mode wants every property required; an optional argument becomes
//! required-but-nullable, so the model sends `null` where it would have left
//! the argument out. [`normalize_arguments`] removes those nulls before the
//! call is checked, so a `#[serde(default)]` field still gets its default.
//! A schema that cannot be made strict (an open map, such as a
//! `HashMap<String, String>` argument) is reported when the registry is built
//! ([`Registry::export_issues`]) and exported with `strict: false`: arguments
//! are validated against the real schema at every call anyway.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::gates::Grant;
use crate::{Declaration, Effect, Egress, RegisteredTool, Registry, TaskSupport};

#[cfg(test)]
mod tests;

/// A consumer of tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Provider {
    /// An MCP client (`tools/list`).
    Mcp,
    /// OpenAI Chat Completions, strict function calling.
    OpenAi,
    /// Google Gemini function declarations.
    Gemini,
    /// Anthropic Messages tools.
    Anthropic,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Provider; 4] = [
        Provider::Mcp,
        Provider::OpenAi,
        Provider::Gemini,
        Provider::Anthropic,
    ];
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::Mcp => "mcp",
            Provider::OpenAi => "openai",
            Provider::Gemini => "gemini",
            Provider::Anthropic => "anthropic",
        })
    }
}

/// A tool whose schema one provider cannot take as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be exported for {provider} as intended: {reason}")]
pub struct ExportIssue {
    /// The tool.
    pub tool: String,
    /// The provider.
    pub provider: Provider,
    /// Why, and what is sent instead.
    pub reason: String,
}

/// The forms of one tool, each built on its first use and then kept: a
/// host that talks to one provider builds one form per offered tool, and a
/// registry of thousands of tools starts without building any (the forms
/// were half of building 10,000 tools). Whether every form can be built is
/// still decided at registry build, by [`check`], which only reads the
/// schema.
#[derive(Debug, Default)]
pub(crate) struct Exports {
    forms: [OnceLock<Value>; Provider::ALL.len()],
}

impl Exports {
    /// `provider`'s form of the tool with this declaration and schemas,
    /// built now if it was not yet.
    pub(crate) fn get(
        &self,
        provider: Provider,
        declaration: &Declaration,
        schema: &Value,
        output: Option<&Value>,
    ) -> &Value {
        let slot = match provider {
            Provider::Mcp => 0,
            Provider::OpenAi => 1,
            Provider::Gemini => 2,
            Provider::Anthropic => 3,
        };
        self.forms[slot].get_or_init(|| form(provider, declaration, schema, output))
    }
}

/// Whether every form of a tool can be built: the reason one cannot (a
/// build problem), or the forms that fall back (export issues). Reads the
/// schema only; [`form`] builds each form when it is first asked for.
pub(crate) fn check(
    declaration: &Declaration,
    schema: &Value,
    output: Option<&Value>,
) -> Result<Vec<ExportIssue>, String> {
    let mut issues = Vec::new();
    if let Some(reason) = strict_problem(schema, &String::new) {
        issues.push(ExportIssue {
            tool: declaration.name.to_string(),
            provider: Provider::OpenAi,
            reason: format!("{reason}; sent with `strict: false`"),
        });
    }
    gemini_problem(schema, schema_defs(schema), 0)?;
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if schema.get(keyword).is_some() {
            return Err(format!(
                "the schema's root has `{keyword}`, which Anthropic refuses"
            ));
        }
    }
    // MCP's `structuredContent` is an object, so its schema's root is.
    if output.is_some_and(|output| output.get("type").and_then(Value::as_str) != Some("object")) {
        return Err(
            "the declared output's schema is not an object, as MCP's `outputSchema` must be"
                .to_owned(),
        );
    }
    Ok(issues)
}

/// One provider's form of a tool that passed [`check`].
fn form(
    provider: Provider,
    declaration: &Declaration,
    schema: &Value,
    output: Option<&Value>,
) -> Value {
    let name = declaration.name.as_ref();
    let description = declaration.description.as_ref();
    // Values are moved into place, never passed to `json!`, which would
    // re-serialize each schema.
    match provider {
        Provider::Mcp => {
            let mut mcp = Map::new();
            mcp.insert("name".into(), json!(name));
            if let Some(title) = &declaration.title {
                mcp.insert("title".into(), json!(title));
            }
            mcp.insert("description".into(), json!(description));
            mcp.insert("inputSchema".into(), schema.clone());
            if let Some(output) = output {
                mcp.insert("outputSchema".into(), output.clone());
            }
            mcp.insert("annotations".into(), mcp_annotations(declaration));
            // Absent is MCP's "forbidden", the default.
            let task = match declaration.task {
                TaskSupport::Forbidden => None,
                TaskSupport::Optional => Some("optional"),
                TaskSupport::Required => Some("required"),
            };
            if let Some(task) = task {
                mcp.insert("execution".into(), json!({ "taskSupport": task }));
            }
            Value::Object(mcp)
        }
        Provider::OpenAi => {
            let bare = without_schema_keyword(schema);
            // `check` reported the fallback as an export issue.
            let (parameters, strict) = match strict(&bare) {
                Ok(parameters) => (parameters, true),
                Err(_) => (bare, false),
            };
            object([
                ("type", json!("function")),
                (
                    "function",
                    object([
                        ("name", json!(name)),
                        ("description", json!(description)),
                        ("parameters", parameters),
                        ("strict", json!(strict)),
                    ]),
                ),
            ])
        }
        Provider::Gemini => {
            let mut declared = json!({"name": name, "description": description});
            // `check` refused every schema `gemini` cannot convert, so the
            // error arm is never taken; were it, the declaration would go
            // without parameters, and the arguments are still validated
            // against the real schema at every call.
            let parameters = gemini(&without_schema_keyword(schema)).unwrap_or(Value::Null);
            let has_properties = parameters
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            // Gemini refuses an object schema without properties; a tool
            // without arguments is declared without `parameters`.
            if has_properties {
                declared["parameters"] = parameters;
            }
            declared
        }
        Provider::Anthropic => object([
            ("name", json!(name)),
            ("description", json!(description)),
            ("input_schema", without_schema_keyword(schema)),
        ]),
    }
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// MCP's defaults assume the worst (not read-only, destructive, open
/// world); every hint is set from the declaration instead.
fn mcp_annotations(declaration: &Declaration) -> Value {
    let read = declaration.effect == Effect::Read;
    let mut annotations = Map::new();
    if let Some(title) = &declaration.title {
        annotations.insert("title".into(), json!(title));
    }
    annotations.insert("readOnlyHint".into(), json!(read));
    annotations.insert("destructiveHint".into(), json!(!read));
    // Reads are idempotent, writes not, unless the tool declares otherwise.
    annotations.insert("idempotentHint".into(), json!(declaration.idempotent));
    annotations.insert(
        "openWorldHint".into(),
        json!(declaration.egress != Egress::None),
    );
    Value::Object(annotations)
}

/// The offered tools of `grant`, in name order, in `provider`'s form; `None`
/// when the grant is empty, so the request carries no tools field.
pub fn offered_tools(registry: &Registry, grant: &Grant, provider: Provider) -> Option<Vec<Value>> {
    let tools: Vec<Value> = grant
        .tool_names()
        .filter_map(|name| registry.get(name))
        .map(|tool| tool.export(provider).clone())
        .collect();
    (!tools.is_empty()).then_some(tools)
}

/// Undoes the strict-mode rewrite on arguments a provider sent: drops
/// `null` for properties that are optional in the tool's real schema (at
/// the top level, where strict mode added them). Other providers' arguments
/// pass unchanged.
pub fn normalize_arguments(tool: &RegisteredTool, provider: Provider, arguments: Value) -> Value {
    if provider != Provider::OpenAi {
        return arguments;
    }
    let Value::Object(mut map) = arguments else {
        return arguments;
    };
    let required: Vec<&str> = tool
        .schema()
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    map.retain(|key, value| !value.is_null() || required.contains(&key.as_str()));
    Value::Object(map)
}

fn without_schema_keyword(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        root.remove("$schema");
    }
    schema
}

/// OpenAI strict: every object closed (`additionalProperties: false`) with
/// every property required; a property that was optional becomes nullable.
fn strict(schema: &Value) -> Result<Value, String> {
    let mut schema = schema.clone();
    make_strict(&mut schema, "")?;
    Ok(schema)
}

fn make_strict(schema: &mut Value, path: &str) -> Result<(), String> {
    let Some(object) = schema.as_object_mut() else {
        return Ok(());
    };
    object.remove("default");
    if is_object_type(object) {
        match object.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return Err(format!(
                    "`{}` is an open map (`additionalProperties`), which strict mode cannot express",
                    display_path(path)
                ));
            }
        }
        let original_required: Vec<String> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let properties = object
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .ok_or_else(|| {
                format!(
                    "`{}` has `properties` that is not an object",
                    display_path(path)
                )
            })?;
        let mut all = Vec::with_capacity(properties.len());
        for (key, property) in properties.iter_mut() {
            make_strict(property, &format!("{path}/{key}"))?;
            if !original_required.contains(key) {
                make_nullable(property);
            }
            all.push(json!(key));
        }
        object.insert("required".into(), Value::Array(all));
        object.insert("additionalProperties".into(), json!(false));
    }
    for keyword in ["items", "not"] {
        if let Some(inner) = object.get_mut(keyword) {
            make_strict(inner, &format!("{path}/{keyword}"))?;
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(items)) = object.get_mut(keyword) {
            for (i, item) in items.iter_mut().enumerate() {
                make_strict(item, &format!("{path}/{keyword}/{i}"))?;
            }
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = object.get_mut(keyword) {
            for (key, def) in defs.iter_mut() {
                make_strict(def, &format!("{path}/{keyword}/{key}"))?;
            }
        }
    }
    Ok(())
}

/// The reason [`make_strict`] would refuse `schema`, found without copying
/// it: the same walk, in the same order, so the same first reason. `path`
/// is built only for the reason.
fn strict_problem(schema: &Value, path: &dyn Fn() -> String) -> Option<String> {
    let object = schema.as_object()?;
    // One pass over the node's keys instead of a map lookup per keyword
    // (the lookups were 15% of building 1,000 tools); the keywords are then
    // visited in make_strict's order.
    let keywords = StrictKeywords::of(object);
    if object_typed(keywords.ty, keywords.properties.is_some()) {
        match keywords.additional_properties {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return Some(format!(
                    "`{}` is an open map (`additionalProperties`), which strict mode cannot express",
                    display_path(&path())
                ));
            }
        }
        match keywords.properties {
            None => {}
            Some(Value::Object(properties)) => {
                for (key, property) in properties {
                    let reason = strict_problem(property, &|| format!("{}/{key}", path()));
                    if reason.is_some() {
                        return reason;
                    }
                }
            }
            Some(_) => {
                return Some(format!(
                    "`{}` has `properties` that is not an object",
                    display_path(&path())
                ));
            }
        }
    }
    for (keyword, inner) in [("items", keywords.items), ("not", keywords.not)] {
        if let Some(inner) = inner {
            let reason = strict_problem(inner, &|| format!("{}/{keyword}", path()));
            if reason.is_some() {
                return reason;
            }
        }
    }
    for (keyword, items) in [
        ("anyOf", keywords.any_of),
        ("oneOf", keywords.one_of),
        ("allOf", keywords.all_of),
        ("prefixItems", keywords.prefix_items),
    ] {
        if let Some(Value::Array(items)) = items {
            for (i, item) in items.iter().enumerate() {
                let reason = strict_problem(item, &|| format!("{}/{keyword}/{i}", path()));
                if reason.is_some() {
                    return reason;
                }
            }
        }
    }
    for (keyword, defs) in [
        ("$defs", keywords.defs),
        ("definitions", keywords.definitions),
    ] {
        if let Some(Value::Object(defs)) = defs {
            for (key, def) in defs {
                let reason = strict_problem(def, &|| format!("{}/{keyword}/{key}", path()));
                if reason.is_some() {
                    return reason;
                }
            }
        }
    }
    None
}

/// The keywords of one schema node that [`strict_problem`] reads, found in
/// one pass over its keys.
#[derive(Default)]
struct StrictKeywords<'a> {
    ty: Option<&'a Value>,
    additional_properties: Option<&'a Value>,
    properties: Option<&'a Value>,
    items: Option<&'a Value>,
    not: Option<&'a Value>,
    any_of: Option<&'a Value>,
    one_of: Option<&'a Value>,
    all_of: Option<&'a Value>,
    prefix_items: Option<&'a Value>,
    defs: Option<&'a Value>,
    definitions: Option<&'a Value>,
}

impl<'a> StrictKeywords<'a> {
    fn of(object: &'a Map<String, Value>) -> Self {
        let mut keywords = StrictKeywords::default();
        for (key, value) in object {
            let slot = match key.as_str() {
                "type" => &mut keywords.ty,
                "additionalProperties" => &mut keywords.additional_properties,
                "properties" => &mut keywords.properties,
                "items" => &mut keywords.items,
                "not" => &mut keywords.not,
                "anyOf" => &mut keywords.any_of,
                "oneOf" => &mut keywords.one_of,
                "allOf" => &mut keywords.all_of,
                "prefixItems" => &mut keywords.prefix_items,
                "$defs" => &mut keywords.defs,
                "definitions" => &mut keywords.definitions,
                _ => continue,
            };
            *slot = Some(value);
        }
        keywords
    }
}

fn make_nullable(property: &mut Value) {
    let Some(object) = property.as_object_mut() else {
        return;
    };
    match object.get_mut("type") {
        Some(Value::String(single)) if single != "null" => {
            let single = std::mem::take(single);
            object.insert("type".into(), json!([single, "null"]));
            if let Some(Value::Array(values)) = object.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(variants)) = object.get_mut("anyOf") {
                if !variants
                    .iter()
                    .any(|v| v.get("type") == Some(&json!("null")))
                {
                    variants.push(json!({"type": "null"}));
                }
            } else {
                let inner = std::mem::take(object);
                object.insert(
                    "anyOf".into(),
                    json!([Value::Object(inner), {"type": "null"}]),
                );
            }
        }
    }
}

fn is_object_type(object: &Map<String, Value>) -> bool {
    object_typed(object.get("type"), object.contains_key("properties"))
}

/// Whether a node with this `type` (and `properties` or not) describes an
/// object.
fn object_typed(ty: Option<&Value>, has_properties: bool) -> bool {
    match ty {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => has_properties,
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

/// A documented Rust enum is a `oneOf` of one-value variants; Gemini reads
/// it best as one `enum` of the values.
fn collapse_constants(variants: &[Value]) -> Option<Value> {
    if variants.len() < 2 {
        return None;
    }
    let ty = variants[0].get("type")?;
    let mut values = Vec::with_capacity(variants.len());
    for variant in variants {
        match variant
            .get("enum")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([value]) if variant.get("type") == Some(ty) => values.push(value.clone()),
            _ => return None,
        }
    }
    Some(json!({"type": ty, "enum": values}))
}

/// The keywords Gemini's schema subset (OpenAPI 3.0 style) accepts.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "title",
];

/// `$ref` chains deeper than this are treated as recursive.
const GEMINI_REF_DEPTH: usize = 32;

fn gemini(schema: &Value) -> Result<Value, String> {
    gemini_node(schema, schema_defs(schema), 0)
}

/// The definitions a schema's `$ref`s point into, `null` when it has none.
fn schema_defs(schema: &Value) -> &Value {
    static NONE: Value = Value::Null;
    schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .unwrap_or(&NONE)
}

/// Refuses a `$ref` chain deeper than Gemini's inlining goes: the schema
/// is recursive.
fn gemini_depth(depth: usize) -> Result<(), String> {
    if depth > GEMINI_REF_DEPTH {
        return Err("the schema is recursive; Gemini needs `$ref` inlined".to_owned());
    }
    Ok(())
}

/// The definition a `$ref` names, for [`gemini_problem`] and
/// [`gemini_node`] alike.
fn gemini_target<'d>(reference: &str, defs: &'d Value) -> Result<&'d Value, String> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
        .ok_or_else(|| format!("`$ref` {reference} does not point into the schema"))?;
    defs.get(name)
        .ok_or_else(|| format!("`$ref` {reference} names no definition"))
}

/// The reason [`gemini_node`] would refuse `schema`, found without building
/// anything: the same walk, in the same order, so the same first reason.
fn gemini_problem(schema: &Value, defs: &Value, depth: usize) -> Result<(), String> {
    gemini_depth(depth)?;
    let Some(object) = schema.as_object() else {
        return Ok(());
    };
    if let Some(Value::String(reference)) = object.get("$ref") {
        return gemini_problem(gemini_target(reference, defs)?, defs, depth + 1);
    }
    for (key, value) in object {
        match key.as_str() {
            "type" => {
                if let Value::Array(types) = value
                    && types.iter().filter(|t| *t != "null").count() != 1
                {
                    return Err(format!("a union of types {value} has no Gemini form"));
                }
            }
            "properties" => {
                for property in value.as_object().into_iter().flat_map(Map::values) {
                    gemini_problem(property, defs, depth)?;
                }
            }
            "items" => gemini_problem(value, defs, depth)?,
            "anyOf" | "oneOf" => {
                for variant in value.as_array().into_iter().flatten() {
                    if variant.get("type").and_then(Value::as_str) != Some("null") {
                        gemini_problem(variant, defs, depth)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn gemini_node(schema: &Value, defs: &Value, depth: usize) -> Result<Value, String> {
    gemini_depth(depth)?;
    let Some(object) = schema.as_object() else {
        return Ok(schema.clone());
    };
    if let Some(Value::String(reference)) = object.get("$ref") {
        let mut inlined = gemini_node(gemini_target(reference, defs)?, defs, depth + 1)?;
        // Keywords beside `$ref` (a property's description) win.
        if let (Some(out), Some(_)) = (inlined.as_object_mut(), object.get("description")) {
            out.insert("description".into(), object["description"].clone());
        }
        return Ok(inlined);
    }
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "type" => match value {
                Value::Array(types) => {
                    let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    if non_null.len() != types.len() {
                        out.insert("nullable".into(), json!(true));
                    }
                    match non_null.as_slice() {
                        [one] => {
                            out.insert("type".into(), (*one).clone());
                        }
                        _ => {
                            return Err(format!("a union of types {value} has no Gemini form"));
                        }
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "properties" => {
                let mut properties = Map::new();
                if let Some(map) = value.as_object() {
                    for (name, property) in map {
                        properties.insert(name.clone(), gemini_node(property, defs, depth)?);
                    }
                }
                out.insert("properties".into(), Value::Object(properties));
            }
            "items" => {
                out.insert("items".into(), gemini_node(value, defs, depth)?);
            }
            "anyOf" | "oneOf" => {
                let mut variants = Vec::new();
                let mut nullable = false;
                for variant in value.as_array().into_iter().flatten() {
                    if variant.get("type") == Some(&json!("null")) {
                        nullable = true;
                    } else {
                        variants.push(gemini_node(variant, defs, depth)?);
                    }
                }
                if nullable {
                    out.insert("nullable".into(), json!(true));
                }
                if let Some(collapsed) = collapse_constants(&variants) {
                    variants = vec![collapsed];
                }
                if let [only] = variants.as_slice() {
                    if let Some(inner) = only.as_object() {
                        for (k, v) in inner {
                            out.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                } else {
                    out.insert("anyOf".into(), Value::Array(variants));
                }
            }
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "enum" => {
                let values: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| !v.is_null())
                    .cloned()
                    .collect();
                if values.len() != value.as_array().map_or(0, Vec::len) {
                    out.insert("nullable".into(), json!(true));
                }
                out.insert("enum".into(), Value::Array(values));
            }
            "format" => {
                // Gemini accepts only a few formats and refuses the rest.
                if matches!(
                    value.as_str(),
                    Some("enum" | "date-time" | "int32" | "int64" | "float" | "double")
                ) {
                    out.insert("format".into(), value.clone());
                }
            }
            key if GEMINI_KEYWORDS.contains(&key) => {
                out.insert(key.to_owned(), value.clone());
            }
            _ => {}
        }
    }
    Ok(Value::Object(out))
}
