//! What the argument checks are generated from: the type as serde and
//! schemars read it (names, renames, defaults, tagging, validation
//! attributes). Anything that would change the schema in a way the
//! generated checks do not follow is a spanned error, never skipped.

use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Lit, Type};

use super::rename::RenameRule;
use crate::ctxt::Ctxt;

pub struct Model<'a> {
    pub ident: &'a syn::Ident,
    pub shape: Shape<'a>,
    /// serde reads the container as its schema says: no field skipped (a
    /// name serde and the schema may read apart), no `rename_all` or
    /// `deny_unknown_fields` written for schemars alone.
    pub serde_agrees: bool,
}

pub enum Shape<'a> {
    /// Named fields.
    Struct { fields: Vec<Field<'a>>, deny: bool },
    /// One unnamed field: the schema is the field's.
    Newtype(Box<Field<'a>>),
    /// Unit variants only, none documented: `type: string`, `enum`.
    Names(Vec<String>),
    /// Externally tagged (`oneOf`): unit variants by name, the others as
    /// an object of one member.
    External {
        units: Vec<String>,
        variants: Vec<(String, Content<'a>)>,
    },
    /// `#[serde(tag = "...")]` (`oneOf`): objects told apart by the tag.
    Internal {
        tag: String,
        variants: Vec<(String, Vec<Field<'a>>)>,
        deny: bool,
    },
}

pub enum Content<'a> {
    Newtype(&'a Type),
    Tuple(Vec<&'a Type>),
    Struct { fields: Vec<Field<'a>>, deny: bool },
}

pub struct Field<'a> {
    pub name: String,
    pub ty: Type,
    /// Not in `required` whatever its type (`#[serde(default)]`).
    pub defaulted: bool,
    /// In `required` whatever its type (`#[schemars(required)]`).
    pub forced: bool,
    pub keywords: Keywords,
    /// An attribute makes serde read the field otherwise than its schema
    /// says (`alias`, `schemars(with)`, `skip`).
    pub serde_differs: bool,
    pub span: &'a syn::Field,
}

impl Field<'_> {
    /// Whether the field's schema is its type's and no more: no keyword,
    /// not forced into `required`, read by serde as its schema says. Then
    /// serde decides for it exactly as for its type.
    pub fn plain(&self) -> bool {
        !self.forced && !self.serde_differs && self.keywords.is_empty()
    }
}

#[derive(Default)]
pub struct Keywords {
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    /// `email` or `url`.
    pub format: Option<&'static str>,
}

impl Keywords {
    /// Whether no attribute added a keyword.
    pub fn is_empty(&self) -> bool {
        let Keywords {
            minimum,
            maximum,
            min_length,
            max_length,
            pattern,
            format,
        } = self;
        minimum.is_none()
            && maximum.is_none()
            && min_length.is_none()
            && max_length.is_none()
            && pattern.is_none()
            && format.is_none()
    }
}

/// A bound as written: an integer or a float literal.
pub enum Number {
    Integer(i128),
    Float(f64),
}

/// The container attributes that matter.
#[derive(Default)]
struct Container {
    rename_all: Option<RenameRule>,
    rename_all_fields: Option<RenameRule>,
    deny: bool,
    default: bool,
    tag: Option<String>,
    /// A renaming or `deny_unknown_fields` written for schemars alone.
    serde_differs: bool,
}

const UNSUPPORTED: &str = "is not supported by the argument checks `#[derive(Tool)]` and `#[derive(Arguments)]` generate (docs/validation.md lists what is)";

pub fn read<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<Model<'a>> {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, format!("a generic type {UNSUPPORTED}"));
        return None;
    }
    let container = container(cx, &input.attrs);
    let mut serde_agrees = !container.serde_differs;
    let shape = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => {
                let fields = fields(
                    cx,
                    named.named.iter(),
                    container.rename_all,
                    container.default,
                );
                serde_agrees &= fields.len() == named.named.len();
                Shape::Struct {
                    fields,
                    deny: container.deny,
                }
            }
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                let field = &unnamed.unnamed[0];
                Shape::Newtype(Box::new(self::field(cx, field, String::new(), false)))
            }
            other => {
                cx.error_spanned_by(other, format!("a tuple or unit struct {UNSUPPORTED}"));
                return None;
            }
        },
        Data::Enum(data) => enumeration(cx, data, &container)?,
        Data::Union(data) => {
            cx.error_spanned_by(data.union_token, format!("a union {UNSUPPORTED}"));
            return None;
        }
    };
    Some(Model {
        ident: &input.ident,
        shape,
        serde_agrees,
    })
}

fn enumeration<'a>(cx: &Ctxt, data: &'a syn::DataEnum, container: &Container) -> Option<Shape<'a>> {
    let mut units = Vec::new();
    let mut documented = false;
    let mut variants = Vec::new();
    let mut internal = Vec::new();
    for variant in &data.variants {
        let mut rename = None;
        for attr in &variant.attrs {
            documented |= is_metadata(attr);
            if attr.path().is_ident("serde") || attr.path().is_ident("schemars") {
                let _ = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") {
                        rename = Some(rename_value(&meta)?);
                    } else if meta.path.is_ident("alias")
                        || meta.path.is_ident("title")
                        || meta.path.is_ident("description")
                        || meta.path.is_ident("deprecated")
                    {
                        documented |= !meta.path.is_ident("alias");
                        skip_value(&meta)?;
                    } else {
                        cx.error_spanned_by(
                            &meta.path,
                            format!("this variant attribute {UNSUPPORTED}"),
                        );
                        skip_value(&meta)?;
                    }
                    Ok(())
                });
            }
        }
        let ident = variant.ident.to_string();
        let name = rename.unwrap_or_else(|| match container.rename_all {
            Some(rule) => rule.apply_to_variant(&ident),
            None => ident,
        });
        let rule = container.rename_all_fields;
        match (&variant.fields, &container.tag) {
            (Fields::Unit, None) => units.push(name),
            (Fields::Unit, Some(_)) => internal.push((name, Vec::new())),
            (Fields::Named(named), Some(_)) => {
                internal.push((name, fields(cx, named.named.iter(), rule, false)));
            }
            (Fields::Named(named), None) => variants.push((
                name,
                Content::Struct {
                    fields: fields(cx, named.named.iter(), rule, false),
                    deny: container.deny,
                },
            )),
            (Fields::Unnamed(unnamed), None) => {
                for field in &unnamed.unnamed {
                    no_field_attributes(cx, field);
                }
                let types: Vec<&Type> = unnamed.unnamed.iter().map(|field| &field.ty).collect();
                variants.push((
                    name,
                    match types.as_slice() {
                        [one] => Content::Newtype(one),
                        _ => Content::Tuple(types),
                    },
                ));
            }
            (Fields::Unnamed(unnamed), Some(_)) => {
                cx.error_spanned_by(
                    unnamed,
                    format!("a tuple variant of an internally tagged enum {UNSUPPORTED}"),
                );
                return None;
            }
        }
    }
    Some(match &container.tag {
        Some(tag) => Shape::Internal {
            tag: tag.clone(),
            variants: internal,
            deny: container.deny,
        },
        None if variants.is_empty() && !documented => Shape::Names(units),
        None => Shape::External { units, variants },
    })
}

/// Doc comments and schemars' metadata, which turn a unit-only enum's
/// schema from `enum` into `oneOf` of constants.
fn is_metadata(attr: &Attribute) -> bool {
    attr.path().is_ident("doc") || attr.path().is_ident("deprecated")
}

fn container(cx: &Ctxt, attrs: &[Attribute]) -> Container {
    let mut container = Container::default();
    for attr in attrs {
        let serde = attr.path().is_ident("serde");
        if !serde && !attr.path().is_ident("schemars") {
            continue;
        }
        let _ = attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if !serde
                && ["rename_all", "rename_all_fields", "deny_unknown_fields"]
                    .iter()
                    .any(|name| path.is_ident(name))
            {
                container.serde_differs = true;
            }
            if path.is_ident("rename_all") {
                container.rename_all = rule(cx, &meta)?;
            } else if path.is_ident("rename_all_fields") {
                container.rename_all_fields = rule(cx, &meta)?;
            } else if path.is_ident("deny_unknown_fields") {
                container.deny = true;
            } else if path.is_ident("default") {
                container.default = true;
                skip_value(&meta)?;
            } else if path.is_ident("tag") {
                container.tag = Some(rename_value(&meta)?);
            } else if [
                "rename",
                "bound",
                "crate",
                "expecting",
                "into",
                "title",
                "description",
                "example",
                "deprecated",
            ]
            .iter()
            .any(|ignored| path.is_ident(ignored))
            {
                skip_value(&meta)?;
            } else {
                cx.error_spanned_by(path, format!("this container attribute {UNSUPPORTED}"));
                skip_value(&meta)?;
            }
            Ok(())
        });
    }
    container
}

fn fields<'a>(
    cx: &Ctxt,
    fields: impl Iterator<Item = &'a syn::Field>,
    rule: Option<RenameRule>,
    defaulted: bool,
) -> Vec<Field<'a>> {
    fields
        .filter_map(|field| {
            let ident = field.ident.as_ref()?.to_string();
            let ident = ident.strip_prefix("r#").unwrap_or(&ident).to_owned();
            let name = match rule {
                Some(rule) => rule.apply_to_field(&ident),
                None => ident,
            };
            let field = self::field(cx, field, name, defaulted);
            (!field.name.is_empty()).then_some(field)
        })
        .collect()
}

/// One field; an empty name when it is skipped (not in the schema).
fn field<'a>(cx: &Ctxt, field: &'a syn::Field, name: String, defaulted: bool) -> Field<'a> {
    let mut model = Field {
        name,
        ty: field.ty.clone(),
        defaulted,
        forced: false,
        keywords: Keywords::default(),
        serde_differs: false,
        span: field,
    };
    let mut skipped = false;
    for attr in &field.attrs {
        let kind = ["serde", "schemars", "validate", "garde"]
            .into_iter()
            .find(|kind| attr.path().is_ident(kind));
        let Some(kind) = kind else { continue };
        let _ = attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            let is = |name: &str| path.is_ident(name);
            match kind {
                "serde" | "schemars" if is("rename") => {
                    model.name = rename_value(&meta)?;
                    // A schema's name serde does not read the field by.
                    model.serde_differs |= kind == "schemars";
                }
                "serde" | "schemars" if is("skip") || is("skip_deserializing") => {
                    skipped = true;
                    skip_value(&meta)?;
                }
                "serde" | "schemars" if is("default") => {
                    model.defaulted = true;
                    skip_value(&meta)?;
                }
                "schemars" if is("with") => {
                    let text: syn::LitStr = meta.value()?.parse()?;
                    model.ty = text.parse()?;
                    model.serde_differs = true;
                }
                "serde" if is("alias") => {
                    model.serde_differs = true;
                    skip_value(&meta)?;
                }
                "serde"
                    if [
                        "skip_serializing",
                        "skip_serializing_if",
                        "serialize_with",
                        "borrow",
                        "bound",
                    ]
                    .iter()
                    .any(|name| is(name)) =>
                {
                    skip_value(&meta)?;
                }
                "schemars"
                    if ["title", "description", "example", "deprecated"]
                        .iter()
                        .any(|name| is(name)) =>
                {
                    skip_value(&meta)?;
                }
                "schemars" if is("extend") => annotations(cx, &meta)?,
                _ if is("required") => model.forced = true,
                _ if is("email") => model.keywords.format = Some("email"),
                _ if is("url") => model.keywords.format = Some("uri"),
                // schemars writes `"format": "ip"`, which `jsonschema` does
                // not know and so does not check.
                _ if is("ip") => {}
                _ if is("length") => length(cx, &meta, &mut model.keywords)?,
                _ if is("range") => range(cx, &meta, &mut model.keywords)?,
                _ if is("pattern") && kind != "validate" => {
                    model.keywords.pattern = Some(pattern(cx, &meta)?);
                }
                _ if is("regex") && kind != "garde" => {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("pattern") {
                            model.keywords.pattern = Some(pattern(cx, &inner)?);
                        } else {
                            cx.error_spanned_by(
                                &inner.path,
                                format!(
                                    "`regex({})` {UNSUPPORTED}; write `pattern = \"...\"`",
                                    path_text(&inner.path)
                                ),
                            );
                            skip_value(&inner)?;
                        }
                        Ok(())
                    })?;
                }
                "validate" | "garde"
                    if !["contains", "inner", "regex", "pattern"]
                        .iter()
                        .any(|name| is(name)) =>
                {
                    // Not read by schemars either (`custom`, `must_match`…).
                    skip_value(&meta)?;
                }
                _ => {
                    cx.error_spanned_by(
                        path,
                        format!("`#[{kind}({})]` {UNSUPPORTED}", path_text(path)),
                    );
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
    }
    if skipped {
        model.name.clear();
    }
    model
}

/// Refuses attributes on an unnamed variant field, which the checks do
/// not carry.
fn no_field_attributes(cx: &Ctxt, field: &syn::Field) {
    for attr in &field.attrs {
        if ["serde", "schemars", "validate", "garde"]
            .iter()
            .any(|kind| attr.path().is_ident(kind))
        {
            cx.error_spanned_by(
                attr,
                format!("an attribute on a tuple variant's field {UNSUPPORTED}"),
            );
        }
    }
}

/// `#[schemars(extend("x-…" = value, …))]`: keys that start with `x-` are
/// annotations (`x-mcp-header`), which no validator reads, so the checks
/// stay what the other attributes make them; any other key could be a
/// keyword that constrains the value, which the checks would not enforce.
fn annotations(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    while !content.is_empty() {
        let key: syn::LitStr = content.parse()?;
        content.parse::<syn::Token![=]>()?;
        let _value: syn::Expr = content.parse()?;
        if !key.value().starts_with("x-") {
            cx.error_spanned_by(
                &key,
                format!(
                    "`extend(\"{}\" = ...)` {UNSUPPORTED}: only annotation keys starting with `x-` may be added",
                    key.value()
                ),
            );
        }
        if !content.is_empty() {
            content.parse::<syn::Token![,]>()?;
        }
    }
    Ok(())
}

fn length(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta,
    keywords: &mut Keywords,
) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let value = match number(&inner)? {
            Some(Number::Integer(value)) if value >= 0 => value as u64,
            _ => {
                cx.error_spanned_by(
                    &inner.path,
                    format!("a `length` that is not a non-negative integer literal {UNSUPPORTED}"),
                );
                return Ok(());
            }
        };
        if inner.path.is_ident("min") {
            keywords.min_length = Some(value);
        } else if inner.path.is_ident("max") {
            keywords.max_length = Some(value);
        } else if inner.path.is_ident("equal") {
            keywords.min_length = Some(value);
            keywords.max_length = Some(value);
        } else {
            cx.error_spanned_by(&inner.path, format!("this `length` bound {UNSUPPORTED}"));
        }
        Ok(())
    })
}

fn range(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta, keywords: &mut Keywords) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let Some(value) = number(&inner)? else {
            cx.error_spanned_by(
                &inner.path,
                format!("a `range` bound that is not a number literal {UNSUPPORTED}"),
            );
            return Ok(());
        };
        if inner.path.is_ident("min") {
            keywords.minimum = Some(value);
        } else if inner.path.is_ident("max") {
            keywords.maximum = Some(value);
        } else {
            cx.error_spanned_by(&inner.path, format!("this `range` bound {UNSUPPORTED}"));
        }
        Ok(())
    })
}

/// `= 5`, `= -0.5`; `None` for anything but a number literal.
fn number(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Option<Number>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let (negative, literal) = match &expr {
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => (true, &*unary.expr),
        other => (false, other),
    };
    let syn::Expr::Lit(syn::ExprLit { lit, .. }) = literal else {
        return Ok(None);
    };
    Ok(match lit {
        Lit::Int(int) => int
            .base10_parse::<i128>()
            .ok()
            .map(|v| Number::Integer(if negative { -v } else { v })),
        Lit::Float(float) => float
            .base10_parse::<f64>()
            .ok()
            .map(|v| Number::Float(if negative { -v } else { v })),
        _ => None,
    })
}

/// `pattern("...")` or `pattern = "..."`: a string literal that compiles.
fn pattern(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta) -> syn::Result<String> {
    let literal: syn::LitStr = if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse()?
    } else {
        meta.value()?.parse()?
    };
    let source = literal.value();
    if let Err(error) = regex_lite::Regex::new(&source) {
        cx.error_spanned_by(&literal, format!("this pattern does not compile for the argument checks (regex-lite, ECMA-style ASCII classes): {error}"));
    }
    Ok(source)
}

fn rule(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta) -> syn::Result<Option<RenameRule>> {
    let text = rename_value(meta)?;
    let rule = RenameRule::from_str(&text);
    if rule.is_none() {
        cx.error_spanned_by(&meta.path, format!("unknown rename rule `{text}`"));
    }
    Ok(rule)
}

/// `= "name"`, or `(deserialize = "name")` (the name arguments are read
/// under).
fn rename_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<String> {
    if meta.input.peek(syn::Token![=]) {
        let text: syn::LitStr = meta.value()?.parse()?;
        return Ok(text.value());
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let text: syn::LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("deserialize") {
            name = Some(text.value());
        }
        Ok(())
    })?;
    name.ok_or_else(|| meta.error("expected `deserialize = \"...\"`"))
}

/// Passes over an attribute's value, whatever its form.
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

impl Field<'_> {
    pub fn span(&self) -> proc_macro2::Span {
        self.span.ty.span()
    }
}
