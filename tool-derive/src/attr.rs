//! Parses `#[tool(...)]` into spanned values. Rules that relate keys to each
//! other or to the type live in `validate.rs`.

use proc_macro2::{Span, TokenTree};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, LitBool, LitStr, Meta, Path, Token, Type};

use crate::ctxt::Ctxt;

pub const TOOL: &str = "tool";
pub const NAME: &str = "name";
pub const GROUP: &str = "group";
pub const REQUIRES_ADMIN: &str = "requires_admin";
pub const EGRESS: &str = "egress";
pub const EFFECT: &str = "effect";
pub const DISABLED: &str = "disabled";
pub const SCOPE: &str = "scope";
pub const TITLE: &str = "title";
pub const CRATE: &str = "crate";
pub const DATA: &str = "data";
pub const CONTENT: &str = "content";
pub const TIMEOUT: &str = "timeout";
pub const IDEMPOTENT: &str = "idempotent";
pub const OUTPUT: &str = "output";
pub const TASK: &str = "task";

const KEYS: &[&str] = &[
    NAME,
    GROUP,
    REQUIRES_ADMIN,
    EGRESS,
    EFFECT,
    DISABLED,
    SCOPE,
    TITLE,
    CRATE,
    DATA,
    CONTENT,
    TIMEOUT,
    IDEMPOTENT,
    OUTPUT,
    TASK,
];

/// A value together with the span of what the user wrote for it.
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Read,
    Write,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Egress {
    None,
    OwnSite,
}

/// What the scope argument is, and so how a scoped grant's pattern is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Command,
    Path,
    Text,
}

impl ScopeKind {
    const CHOICES: &'static [(&'static str, ScopeKind)] = &[
        ("command", ScopeKind::Command),
        ("path", ScopeKind::Path),
        ("text", ScopeKind::Text),
    ];

    /// `` `scope(command = "field")`, `scope(path = "field")` or `scope(text = "field")` ``
    fn allowed(field: &str) -> String {
        let forms = Self::CHOICES
            .iter()
            .map(|(kind, _)| format!("`scope({kind} = \"{field}\")`"))
            .collect::<Vec<_>>();
        format!("{}, {} or {}", forms[0], forms[1], forms[2])
    }
}

/// The class of data a tool returns (gate 8), least to most sensitive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DataClass {
    Public,
    Internal,
    Confidential,
    Personal,
}

/// Whether the output can carry text written by others (gate 9).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Trusted,
    Untrusted,
}

/// Whether a call may run as a task the client polls (MCP's tasks
/// extension): never, when the client asks for tasks, or always.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

/// `scope(kind = "field")`: the argument scoped grants are matched against.
pub struct ScopeSpec {
    pub kind: ScopeKind,
    pub field: LitStr,
}

/// The closed sets of values, in one place so that parsing and the message
/// listing the allowed values cannot drift apart.
trait Choice: Sized + Copy + 'static {
    const KEY: &'static str;
    const CHOICES: &'static [(&'static str, Self)];

    /// `` `effect = "read"` or `effect = "write"` ``
    fn allowed() -> String {
        Self::CHOICES
            .iter()
            .map(|(name, _)| format!("`{} = \"{name}\"`", Self::KEY))
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

impl Choice for Effect {
    const KEY: &'static str = EFFECT;
    const CHOICES: &'static [(&'static str, Self)] =
        &[("read", Effect::Read), ("write", Effect::Write)];
}

impl Choice for DataClass {
    const KEY: &'static str = DATA;
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("public", DataClass::Public),
        ("internal", DataClass::Internal),
        ("confidential", DataClass::Confidential),
        ("personal", DataClass::Personal),
    ];
}

impl Choice for Content {
    const KEY: &'static str = CONTENT;
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("trusted", Content::Trusted),
        ("untrusted", Content::Untrusted),
    ];
}

impl Choice for TaskSupport {
    const KEY: &'static str = TASK;
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("forbidden", TaskSupport::Forbidden),
        ("optional", TaskSupport::Optional),
        ("required", TaskSupport::Required),
    ];
}

impl Choice for Egress {
    const KEY: &'static str = EGRESS;
    const CHOICES: &'static [(&'static str, Self)] =
        &[("none", Egress::None), ("own_site", Egress::OwnSite)];
}

/// One key of `#[tool(...)]`. A key written with a bad value still counts as
/// written: it is then neither reported missing nor accepted a second time,
/// so one mistake gives one error.
pub struct Key<T> {
    name: &'static str,
    written: bool,
    value: Option<T>,
}

impl<T> Key<T> {
    const fn new(name: &'static str) -> Self {
        Key {
            name,
            written: false,
            value: None,
        }
    }

    /// The one setter every key goes through, so "given twice" is caught the
    /// same way for all of them.
    fn set(&mut self, cx: &Ctxt, key: &Path, value: syn::Result<T>) {
        if self.written {
            cx.error_spanned_by(
                key,
                format!(
                    "duplicate `{}` in `#[tool(...)]`: give each key once",
                    self.name
                ),
            );
        }
        match value {
            Ok(value) if !self.written => self.value = Some(value),
            Ok(_) => {}
            Err(error) => cx.syn_error(error),
        }
        self.written = true;
    }

    pub fn written(&self) -> bool {
        self.written
    }

    pub fn value(&self) -> Option<&T> {
        self.value.as_ref()
    }

    pub fn into_value(self) -> Option<T> {
        self.value
    }
}

pub struct ToolAttrs {
    pub name: Key<LitStr>,
    pub group: Key<LitStr>,
    pub requires_admin: Key<Spanned<()>>,
    pub egress: Key<Spanned<Egress>>,
    pub effect: Key<Spanned<Effect>>,
    pub disabled: Key<Spanned<()>>,
    pub scope: Key<ScopeSpec>,
    pub title: Key<LitStr>,
    pub krate: Key<Path>,
    pub data: Key<Spanned<DataClass>>,
    pub content: Key<Spanned<Content>>,
    /// In milliseconds; its range is checked in `validate.rs`.
    pub timeout: Key<Spanned<u64>>,
    pub idempotent: Key<LitBool>,
    pub output: Key<Type>,
    pub task: Key<Spanned<TaskSupport>>,
    /// The first `#[tool]` attribute, where a missing key is reported.
    pub first_attr: Option<Attribute>,
    /// Some `#[tool]` attribute could not be read to its end, so a key that
    /// looks missing may be in the unread part.
    pub unreadable: bool,
}

impl ToolAttrs {
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = ToolAttrs {
            name: Key::new(NAME),
            group: Key::new(GROUP),
            requires_admin: Key::new(REQUIRES_ADMIN),
            egress: Key::new(EGRESS),
            effect: Key::new(EFFECT),
            disabled: Key::new(DISABLED),
            scope: Key::new(SCOPE),
            title: Key::new(TITLE),
            krate: Key::new(CRATE),
            data: Key::new(DATA),
            content: Key::new(CONTENT),
            timeout: Key::new(TIMEOUT),
            idempotent: Key::new(IDEMPOTENT),
            output: Key::new(OUTPUT),
            task: Key::new(TASK),
            first_attr: None,
            unreadable: false,
        };
        for attr in attrs.iter().filter(|a| a.path().is_ident(TOOL)) {
            if out.first_attr.is_none() {
                out.first_attr = Some(attr.clone());
            }
            if !matches!(attr.meta, Meta::List(_)) {
                out.unreadable = true;
                cx.error_spanned_by(
                    attr,
                    "`#[tool]` takes its keys in parentheses: write `#[tool(group = \"...\", effect = \"read\")]`",
                );
                continue;
            }
            let result = attr.parse_nested_meta(|meta| {
                // One bad key must not hide the others: each is reported
                // where it is, and parsing resumes at the next comma.
                if !out.parse_key(cx, &meta) {
                    skip_to_comma(meta.input);
                } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    // What is skipped may hold keys: none is reported missing.
                    out.unreadable = true;
                    cx.syn_error(
                        meta.input
                            .error("expected `,`: separate the keys of `#[tool(...)]` with commas"),
                    );
                    skip_to_comma(meta.input);
                }
                Ok(())
            });
            if let Err(error) = result {
                out.unreadable = true;
                cx.syn_error(error);
            }
        }
        out
    }

    /// Returns `false` when it reported an error and the rest of the key's
    /// tokens are to be skipped.
    fn parse_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> bool {
        let path = &meta.path;
        // `crate` is a keyword, which `Path::get_ident` does not return.
        let key = match (path.leading_colon, path.segments.len()) {
            (None, 1) if path.segments[0].arguments.is_none() => path.segments[0].ident.to_string(),
            _ => String::new(),
        };
        let before = cx.error_count();
        match key.as_str() {
            NAME => self.name.set(cx, path, parse_str(meta, NAME)),
            GROUP => self.group.set(cx, path, parse_str(meta, GROUP)),
            SCOPE => self.scope.set(cx, path, parse_scope(meta)),
            TITLE => self.title.set(cx, path, parse_str(meta, TITLE)),
            CRATE => self.krate.set(cx, path, parse_crate_path(meta)),
            EFFECT => self.effect.set(cx, path, parse_choice::<Effect>(meta)),
            EGRESS => self.egress.set(cx, path, parse_choice::<Egress>(meta)),
            DATA => self.data.set(cx, path, parse_choice::<DataClass>(meta)),
            CONTENT => self.content.set(cx, path, parse_choice::<Content>(meta)),
            TASK => self.task.set(cx, path, parse_choice::<TaskSupport>(meta)),
            TIMEOUT => self.timeout.set(cx, path, parse_timeout(meta)),
            IDEMPOTENT => self.idempotent.set(cx, path, parse_bool(meta, IDEMPOTENT)),
            OUTPUT => self.output.set(cx, path, parse_output(meta)),
            REQUIRES_ADMIN => self
                .requires_admin
                .set(cx, path, parse_flag(meta, REQUIRES_ADMIN)),
            DISABLED => self.disabled.set(cx, path, parse_flag(meta, DISABLED)),
            _ => {
                let written = path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>()
                    .join("::");
                cx.error_spanned_by(path, unknown_key_message(&written));
            }
        }
        cx.error_count() == before
    }
}

fn unknown_key_message(key: &str) -> String {
    let expected = KEYS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown key `{key}` in `#[tool(...)]`: expected one of {expected}")
}

/// The stream after `key =`, or an error saying how to write the key.
fn value<'a>(meta: &ParseNestedMeta<'a>, key: &str, example: &str) -> syn::Result<ParseStream<'a>> {
    if meta.input.peek(Token![=]) {
        meta.value()
    } else {
        Err(meta.error(format!("`{key}` takes a value: write {example}")))
    }
}

fn parse_str(meta: &ParseNestedMeta, key: &str) -> syn::Result<LitStr> {
    let example = format!("`{key} = \"...\"`");
    let input = value(meta, key, &example)?;
    if input.peek(LitStr) {
        input.parse()
    } else {
        Err(input.error(format!("`{key}` takes a string: write {example}")))
    }
}

fn parse_crate_path(meta: &ParseNestedMeta) -> syn::Result<Path> {
    let example = "`crate = ::tool_core`";
    let input = value(meta, CRATE, example)?;
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`crate` takes a path, not a string: write `crate = {}`",
                lit.value()
            ),
        ));
    }
    input.call(Path::parse_mod_style).map_err(|error| {
        syn::Error::new(
            error.span(),
            format!("`crate` takes a path: write {example}"),
        )
    })
}

fn parse_choice<T: Choice>(meta: &ParseNestedMeta) -> syn::Result<Spanned<T>> {
    let input = value(meta, T::KEY, &T::allowed())?;
    if !input.peek(LitStr) {
        return Err(input.error(format!(
            "`{}` takes a string: write {}",
            T::KEY,
            T::allowed()
        )));
    }
    let lit: LitStr = input.parse()?;
    let text = lit.value();
    match T::CHOICES.iter().find(|(name, _)| *name == text) {
        Some((_, value)) => Ok(Spanned {
            value: *value,
            span: lit.span(),
        }),
        None => Err(syn::Error::new(
            lit.span(),
            format!("unknown {} `{text}`: write {}", T::KEY, T::allowed()),
        )),
    }
}

fn parse_bool(meta: &ParseNestedMeta, key: &str) -> syn::Result<LitBool> {
    let example = format!("`{key} = true` or `{key} = false`");
    let input = value(meta, key, &example)?;
    if input.peek(LitBool) {
        input.parse()
    } else {
        Err(input.error(format!("`{key}` takes `true` or `false`: write {example}")))
    }
}

/// `output = Report`: the type of the tool's structured result.
fn parse_output(meta: &ParseNestedMeta) -> syn::Result<Type> {
    let example = "`output = ResultType`";
    let input = value(meta, OUTPUT, example)?;
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`output` takes a type, not a string: write `output = {}`",
                lit.value()
            ),
        ));
    }
    input.parse::<Type>().map_err(|error| {
        syn::Error::new(
            error.span(),
            format!("`output` takes the type of the result: write {example}"),
        )
    })
}

/// `timeout = "30s"`: a whole number and one of `ms`, `s`, `m`, `h`.
fn parse_timeout(meta: &ParseNestedMeta) -> syn::Result<Spanned<u64>> {
    let lit = parse_str(meta, TIMEOUT)?;
    let text = lit.value();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let per_unit: Option<u64> = match &text[digits.len()..] {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    let millis = per_unit.and_then(|per_unit| {
        let digits_only = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        digits_only
            .then(|| digits.parse::<u64>().ok())
            .flatten()
            .map(|n| n.saturating_mul(per_unit))
    });
    match millis {
        Some(value) => Ok(Spanned {
            value,
            span: lit.span(),
        }),
        None => Err(syn::Error::new(
            lit.span(),
            format!(
                "invalid timeout `{text}`: write a whole number and a unit (`ms`, `s`, `m` or `h`), such as `timeout = \"30s\"` or `timeout = \"500ms\"`"
            ),
        )),
    }
}

/// `scope(path = "file")`. The kind is required: a pattern's meaning must
/// come from what the argument is, never be guessed from the pattern's text.
fn parse_scope(meta: &ParseNestedMeta) -> syn::Result<ScopeSpec> {
    if meta.input.peek(Token![=]) {
        let input = meta.value()?;
        let field = if input.peek(LitStr) {
            input.parse::<LitStr>()?.value()
        } else {
            "field".to_owned()
        };
        return Err(syn::Error::new_spanned(
            &meta.path,
            format!(
                "`scope` needs the kind of its argument: write {}",
                ScopeKind::allowed(&field)
            ),
        ));
    }
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`scope` takes the kind and the field: write {}",
            ScopeKind::allowed("field")
        )));
    }
    let mut spec: Option<ScopeSpec> = None;
    let mut first_error: Option<syn::Error> = None;
    let outer = meta.path.clone();
    meta.parse_nested_meta(|inner| {
        let kind_text = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let field = if inner.input.peek(Token![=]) {
            let input = inner.value()?;
            if input.peek(LitStr) {
                Some(input.parse::<LitStr>()?)
            } else {
                let error = input.error(format!(
                    "`scope` takes a string field name: write {}",
                    ScopeKind::allowed("field")
                ));
                skip_to_comma(input);
                return Err(error);
            }
        } else {
            None
        };
        let shown = field.as_ref().map_or("field".to_owned(), LitStr::value);
        let error = match (
            ScopeKind::CHOICES.iter().find(|(k, _)| *k == kind_text),
            field,
        ) {
            (Some(_), _) if spec.is_some() => Some(syn::Error::new_spanned(
                &inner.path,
                "`scope` takes one kind: a tool has one scope argument",
            )),
            (Some((_, kind)), Some(field)) => {
                spec = Some(ScopeSpec { kind: *kind, field });
                None
            }
            (Some(_), None) => Some(inner.error(format!(
                "`scope({kind_text})` needs the field: write `scope({kind_text} = \"{shown}\")`"
            ))),
            (None, _) => Some(syn::Error::new_spanned(
                &inner.path,
                format!(
                    "unknown scope kind `{kind_text}`: write {}",
                    ScopeKind::allowed(&shown)
                ),
            )),
        };
        if let Some(error) = error {
            match &mut first_error {
                Some(first) => first.combine(error),
                None => first_error = Some(error),
            }
        }
        Ok(())
    })?;
    if let Some(error) = first_error {
        return Err(error);
    }
    spec.ok_or_else(|| {
        syn::Error::new_spanned(
            outer,
            format!(
                "`scope` needs a kind and a field: write {}",
                ScopeKind::allowed("field")
            ),
        )
    })
}

fn parse_flag(meta: &ParseNestedMeta, key: &str) -> syn::Result<Spanned<()>> {
    let message = format!("`{key}` takes no value: write `#[tool({key})]`, or leave it out");
    if meta.input.peek(Token![=]) {
        // Consume `= value` so that the whole of it is underlined.
        let path = &meta.path;
        let eq: Token![=] = meta.input.parse()?;
        let mut value = Vec::new();
        while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
            value.push(meta.input.parse::<TokenTree>()?);
        }
        return Err(syn::Error::new_spanned(
            quote!(#path #eq #(#value)*),
            message,
        ));
    }
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        return Err(meta.error(message));
    }
    Ok(Spanned {
        value: (),
        span: meta.path.segments[0].ident.span(),
    })
}

/// Consumes what is left of a rejected key, up to the next comma.
fn skip_to_comma(input: ParseStream) {
    while !input.is_empty() && !input.peek(Token![,]) {
        if input.parse::<TokenTree>().is_err() {
            return;
        }
    }
}
