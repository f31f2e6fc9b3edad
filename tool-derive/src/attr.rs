//! Parses `#[tool(...)]` into spanned values. Rules that relate keys to each
//! other or to the type live in `validate.rs`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Path};

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

/// The closed sets of values, in one place so that parsing and the message
/// listing the allowed values cannot drift apart.
trait Choice: Sized + Copy + 'static {
    const KEY: &'static str;
    const CHOICES: &'static [(&'static str, Self)];
}

impl Choice for Effect {
    const KEY: &'static str = EFFECT;
    const CHOICES: &'static [(&'static str, Self)] =
        &[("read", Effect::Read), ("write", Effect::Write)];
}

impl Choice for Egress {
    const KEY: &'static str = EGRESS;
    const CHOICES: &'static [(&'static str, Self)] =
        &[("none", Egress::None), ("own_site", Egress::OwnSite)];
}

#[derive(Default)]
pub struct ToolAttrs {
    pub name: Option<LitStr>,
    pub group: Option<LitStr>,
    pub requires_admin: Option<Spanned<()>>,
    pub egress: Option<Spanned<Egress>>,
    pub effect: Option<Spanned<Effect>>,
    pub disabled: Option<Spanned<()>>,
    pub scope: Option<LitStr>,
    pub title: Option<LitStr>,
    pub krate: Option<Path>,
    /// The first `#[tool]` attribute, where a missing key is reported.
    pub first_attr: Option<Attribute>,
}

impl ToolAttrs {
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = ToolAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident(TOOL)) {
            if out.first_attr.is_none() {
                out.first_attr = Some(attr.clone());
            }
            let result = attr.parse_nested_meta(|meta| {
                let result = out.parse_key(cx, &meta);
                // One bad key must not hide the others: report it and skip
                // its value so parsing resumes at the next comma.
                if let Err(error) = result {
                    cx.syn_error(error);
                    skip_value(&meta);
                }
                Ok(())
            });
            if let Err(error) = result {
                cx.syn_error(error);
            }
        }
        out
    }

    fn parse_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
        let path = &meta.path;
        let Some(key) = path.get_ident().map(Ident::to_string).or_else(|| {
            // `crate` is a keyword; syn gives it as a one-segment path.
            (path.segments.len() == 1 && path.leading_colon.is_none())
                .then(|| path.segments[0].ident.to_string())
        }) else {
            return Err(meta.error(unknown_key_message(&quote::quote!(#path).to_string())));
        };
        match key.as_str() {
            NAME => set(cx, path, &mut self.name, meta.value()?.parse()?),
            GROUP => set(cx, path, &mut self.group, meta.value()?.parse()?),
            SCOPE => set(cx, path, &mut self.scope, meta.value()?.parse()?),
            TITLE => set(cx, path, &mut self.title, meta.value()?.parse()?),
            CRATE => set(cx, path, &mut self.krate, meta.value()?.parse()?),
            EFFECT => {
                let value = parse_choice::<Effect>(meta)?;
                set(cx, path, &mut self.effect, value);
            }
            EGRESS => {
                let value = parse_choice::<Egress>(meta)?;
                set(cx, path, &mut self.egress, value);
            }
            REQUIRES_ADMIN => {
                let value = parse_flag(meta, REQUIRES_ADMIN)?;
                set(cx, path, &mut self.requires_admin, value);
            }
            DISABLED => {
                let value = parse_flag(meta, DISABLED)?;
                set(cx, path, &mut self.disabled, value);
            }
            other => return Err(meta.error(unknown_key_message(other))),
        }
        Ok(())
    }
}

/// The one setter every key goes through, so "given twice" is caught the
/// same way for all of them.
fn set<T>(cx: &Ctxt, key: &Path, slot: &mut Option<T>, value: T) {
    if slot.is_some() {
        let name = key
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        cx.error_spanned_by(
            key,
            format!("duplicate `{name}` in `#[tool(...)]`: give each key once"),
        );
    } else {
        *slot = Some(value);
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

fn parse_choice<T: Choice>(meta: &ParseNestedMeta) -> syn::Result<Spanned<T>> {
    let lit: LitStr = meta.value()?.parse()?;
    let text = lit.value();
    match T::CHOICES.iter().find(|(name, _)| *name == text) {
        Some((_, value)) => Ok(Spanned {
            value: *value,
            span: lit.span(),
        }),
        None => {
            let allowed = T::CHOICES
                .iter()
                .map(|(name, _)| format!("`{} = \"{name}\"`", T::KEY))
                .collect::<Vec<_>>()
                .join(" or ");
            Err(syn::Error::new(
                lit.span(),
                format!("unknown {} `{text}`: use {allowed}", T::KEY),
            ))
        }
    }
}

fn parse_flag(meta: &ParseNestedMeta, key: &str) -> syn::Result<Spanned<()>> {
    if meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!(
            "`{key}` takes no value: write `#[tool({key})]`, or leave it out"
        )));
    }
    Ok(Spanned {
        value: (),
        span: meta.path.segments[0].ident.span(),
    })
}

/// Consumes `= <expr>` after a rejected key, if present.
fn skip_value(meta: &ParseNestedMeta) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|value| value.parse::<syn::Expr>());
    }
}
