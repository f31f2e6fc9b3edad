//! Rules across keys and against the type: the shape the derive supports,
//! the name and group grammar, the doc comment, the `scope` field.

use proc_macro2::Span;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Expr, Fields, Ident, Lit, LitBool, LitStr, Meta, Path, Type};

use crate::attr::{Content, DataClass, Effect, Egress, ScopeKind, Spanned, TaskSupport, ToolAttrs};
use crate::ctxt::Ctxt;

// The rules themselves are tool-rules', which tool-core checks run-time
// tools with; this file only words the errors.
use tool_rules::{
    DESCRIPTION_MAX, GROUP_NAME_MAX as GROUP_MAX, TIMEOUT_MAX_MILLIS, TOOL_NAME_MAX as NAME_MAX,
    is_tool_name_char, is_valid_group_name as is_valid_group,
};

/// Everything `expand.rs` needs, checked.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub name: String,
    pub group: String,
    pub description: String,
    pub title: Option<String>,
    pub requires_admin: bool,
    pub egress: Egress,
    pub effect: Effect,
    pub effect_span: Span,
    pub disabled: bool,
    pub scope: Option<ScopeField<'a>>,
    /// Absent: the strictest class, so an unclassified tool is never
    /// offered to a zone that may not see personal data.
    pub data: DataClass,
    /// Absent: untrusted, the strictest, so a tool that forgets to say
    /// raises a run's exposure as far as a result can (gate 9).
    pub content: Content,
    pub task: TaskSupport,
    /// In milliseconds, more than zero and at most an hour.
    pub timeout: Option<u64>,
    /// As written, else reads are and writes are not.
    pub idempotent: bool,
    /// The type of the structured result, when declared.
    pub output: Option<Type>,
    pub krate: Path,
}

pub struct ScopeField<'a> {
    /// The JSON property the scope is read from (the field name, or its
    /// `#[serde(rename = "...")]`).
    pub property: String,
    pub kind: ScopeKind,
    pub ty: &'a Type,
}

pub fn model<'a>(cx: &Ctxt, input: &'a DeriveInput, attrs: ToolAttrs) -> Option<Model<'a>> {
    let shape_ok = check_shape(cx, input);
    let description = doc_comment(cx, input);

    let name = match attrs.name.value() {
        Some(lit) => {
            check_name(cx, &lit.value(), lit, NameSource::Written);
            lit.value()
        }
        None => {
            let name = snake_case(&input.ident.to_string());
            // A name written with a bad value was reported already.
            if !attrs.name.written() {
                check_name(cx, &name, &input.ident, NameSource::Derived);
            }
            name
        }
    };

    if let Some(lit) = attrs.group.value() {
        check_group(cx, lit);
    }
    // A key that looks missing may sit in an attribute that could not be
    // read; that attribute's error is the one to fix first.
    if !attrs.unreadable {
        let missing_key_at: &dyn ToTokens = match &attrs.first_attr {
            Some(attr) => attr,
            None => &input.ident,
        };
        if !attrs.group.written() {
            cx.error_spanned_by(
                missing_key_at,
                "`group` is required: add `group = \"...\"` to `#[tool(...)]`, usually the providing crate's name",
            );
        }
        if !attrs.effect.written() {
            cx.error_spanned_by(
                missing_key_at,
                "`effect` is required: add `effect = \"read\"` or `effect = \"write\"` to `#[tool(...)]`",
            );
        }
    }
    if let Some(timeout) = attrs.timeout.value() {
        check_timeout(cx, timeout);
    }
    let scope = attrs
        .scope
        .value()
        .and_then(|spec| scope_field(cx, input, &spec.field, spec.kind));

    let (Some(group), Some((effect, effect_span)), Some(description), true) = (
        attrs.group.value().map(LitStr::value),
        attrs
            .effect
            .value()
            .map(|effect| (effect.value, effect.span)),
        description,
        shape_ok,
    ) else {
        return None;
    };
    if attrs.scope.written() && scope.is_none() {
        return None;
    }
    Some(Model {
        ident: &input.ident,
        name,
        group,
        description,
        title: attrs.title.value().map(LitStr::value),
        requires_admin: attrs.requires_admin.value().is_some(),
        egress: attrs.egress.value().map_or(Egress::None, |e| e.value),
        effect,
        effect_span,
        disabled: attrs.disabled.value().is_some(),
        scope,
        data: attrs.data.value().map_or(DataClass::Personal, |d| d.value),
        content: attrs
            .content
            .value()
            .map_or(Content::Untrusted, |c| c.value),
        task: attrs
            .task
            .value()
            .map_or(TaskSupport::Forbidden, |t| t.value),
        timeout: attrs.timeout.value().map(|t| t.value),
        idempotent: attrs
            .idempotent
            .value()
            .map_or(effect == Effect::Read, LitBool::value),
        output: attrs.output.value().cloned(),
        krate: attrs
            .krate
            .into_value()
            .unwrap_or_else(|| syn::parse_quote!(::tool_core)),
    })
}

fn check_timeout(cx: &Ctxt, timeout: &Spanned<u64>) {
    if timeout.value == 0 {
        cx.syn_error(syn::Error::new(
            timeout.span,
            "a timeout of zero would end every call before it starts: give a positive duration such as `timeout = \"30s\"`, or leave `timeout` out to take the host's default",
        ));
    } else if timeout.value > TIMEOUT_MAX_MILLIS {
        cx.syn_error(syn::Error::new(
            timeout.span,
            "a tool's timeout is at most one hour (`timeout = \"1h\"`): a longer call should report progress, which restarts its timeout",
        ));
    }
}

/// Tool arguments are one JSON object, so only a struct with named fields
/// (possibly none: `struct Status {}`) maps onto them without surprises.
fn check_shape(cx: &Ctxt, input: &DeriveInput) -> bool {
    let mut ok = true;
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(_) => {}
            Fields::Unnamed(fields) => {
                ok = false;
                cx.error_spanned_by(
                    fields,
                    "`#[derive(Tool)]` needs named fields: tool arguments are a JSON object; write `struct Name { field: Type }`",
                );
            }
            Fields::Unit => {
                ok = false;
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(Tool)]` does not support unit structs, whose arguments would be `null`: write `struct Name {}` for a tool without arguments",
                );
            }
        },
        Data::Enum(data) => {
            ok = false;
            cx.error_spanned_by(
                data.enum_token,
                "`#[derive(Tool)]` does not support enums: the arguments' schema must be one object; wrap the enum in a field of a struct",
            );
        }
        Data::Union(data) => {
            ok = false;
            cx.error_spanned_by(
                data.union_token,
                "`#[derive(Tool)]` does not support unions: use a struct with named fields",
            );
        }
    }
    let generics = &input.generics;
    if generics.lifetimes().count() == generics.params.len() && !generics.params.is_empty() {
        ok = false;
        cx.error_spanned_by(
            generics,
            "`#[derive(Tool)]` does not support lifetime parameters: arguments are deserialized into owned values; use `String` rather than `&str`",
        );
    } else if !generics.params.is_empty() {
        ok = false;
        cx.error_spanned_by(
            generics,
            "`#[derive(Tool)]` does not support generic parameters: a registered tool is one concrete type; declare a concrete struct per tool",
        );
    }
    ok
}

fn doc_comment(cx: &Ctxt, input: &DeriveInput) -> Option<String> {
    let mut lines = Vec::new();
    let mut first_doc = None;
    for attr in &input.attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(expr) = &nv.value
            && let Lit::Str(lit) = &expr.lit
        {
            first_doc.get_or_insert(attr);
            let line = lit.value();
            lines.push(
                line.strip_prefix(' ')
                    .unwrap_or(&line)
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    let description = lines.join("\n").trim().to_owned();
    if description.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "a tool needs a doc comment: it is the description the model reads; add `/// What the tool does.` above the type",
        );
        return None;
    }
    let length = description.chars().count();
    if length > DESCRIPTION_MAX {
        cx.error_spanned_by(
            first_doc,
            format!(
                "the doc comment is the tool's description and is {length} characters long: shorten it to at most {DESCRIPTION_MAX}; details of an argument belong in its field's doc comment"
            ),
        );
        return None;
    }
    Some(description)
}

/// Whether the user wrote the name or it was derived from the type's name;
/// the fix differs.
#[derive(Clone, Copy)]
enum NameSource {
    Written,
    Derived,
}

fn check_name(cx: &Ctxt, name: &str, at: &dyn ToTokens, source: NameSource) {
    let subject = match source {
        NameSource::Written => format!("tool name `{name}`"),
        NameSource::Derived => format!("the tool name derived from the type, `{name}`,"),
    };
    let fix = match source {
        NameSource::Written => "",
        NameSource::Derived => "; set one with `name = \"...\"`",
    };
    let length = name.chars().count();
    if let Some(bad) = name.chars().find(|c| !is_tool_name_char(*c)) {
        cx.error_spanned_by(
            at,
            format!(
                "{subject} contains `{}`: use only ASCII letters, digits, `_` and `-` (`^[A-Za-z0-9_-]{{1,{NAME_MAX}}}$`){fix}",
                bad.escape_debug()
            ),
        );
    } else if length == 0 {
        cx.error_spanned_by(
            at,
            format!("tool name is empty: give 1 to {NAME_MAX} characters, or leave `name` out to use the type's name in snake_case"),
        );
    } else if length > NAME_MAX {
        cx.error_spanned_by(
            at,
            format!(
                "{subject} is {length} characters long: a name has at most {NAME_MAX}{}",
                match source {
                    NameSource::Written => "; shorten it",
                    NameSource::Derived => "; set a shorter one with `name = \"...\"`",
                }
            ),
        );
    }
}

fn check_group(cx: &Ctxt, lit: &LitStr) {
    let group = lit.value();
    if !is_valid_group(&group) {
        let suggestion: String = group
            .trim()
            .chars()
            .map(|c| match c.to_ascii_lowercase() {
                c @ ('a'..='z' | '0'..='9' | '_' | '-') => c,
                _ => '_',
            })
            .collect();
        let hint = if suggestion != group && is_valid_group(&suggestion) {
            format!(", such as `group = \"{suggestion}\"`")
        } else {
            String::new()
        };
        cx.error_spanned_by(
            lit,
            format!(
                "invalid group `{group}`: a group is 1 to {GROUP_MAX} characters of `a-z`, `0-9`, `_` and `-`, starting with a letter (`^[a-z][a-z0-9_-]{{0,63}}$`){hint}"
            ),
        );
    }
}

fn scope_field<'a>(
    cx: &Ctxt,
    input: &'a DeriveInput,
    lit: &LitStr,
    kind: ScopeKind,
) -> Option<ScopeField<'a>> {
    let Data::Struct(data) = &input.data else {
        return None;
    };
    let Fields::Named(fields) = &data.fields else {
        return None;
    };
    let wanted = lit.value();
    let found = fields
        .named
        .iter()
        .find(|f| f.ident.as_ref().is_some_and(|i| i.unraw() == wanted));
    match found {
        Some(field) => Some(ScopeField {
            property: serde_rename(field).unwrap_or(wanted),
            kind,
            ty: &field.ty,
        }),
        None => {
            let names = fields
                .named
                .iter()
                .filter_map(|f| f.ident.as_ref().map(|i| format!("`{}`", i.unraw())))
                .collect::<Vec<_>>();
            let hint = if names.is_empty() {
                "the type has no fields; remove `scope`".to_owned()
            } else {
                format!("name one of {}", names.join(", "))
            };
            cx.error_spanned_by(lit, format!("`scope` names no field `{wanted}`: {hint}"));
            None
        }
    }
}

/// The JSON name of a field under `#[serde(rename = "...")]`. A container
/// `rename_all` is not followed here; the registry refuses a scope property
/// missing from the schema, so a mismatch fails closed at build.
fn serde_rename(field: &syn::Field) -> Option<String> {
    let mut rename = None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
                let lit: LitStr = meta.value()?.parse()?;
                rename = Some(lit.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _ = meta.value()?.parse::<Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _ = inner.value()?.parse::<Expr>()?;
                    }
                    Ok(())
                });
            }
            Ok(())
        });
    }
    rename
}

fn snake_case(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_splits_humps_and_acronyms() {
        assert_eq!(snake_case("GetSystemStatus"), "get_system_status");
        assert_eq!(snake_case("GetEnvRaw"), "get_env_raw");
        assert_eq!(snake_case("HTTPFetch"), "http_fetch");
        assert_eq!(snake_case("ReadV2Log"), "read_v2_log");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }
}
