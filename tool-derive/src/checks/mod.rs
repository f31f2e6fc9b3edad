//! The `Arguments` impl: a type's argument checks, generated beside the
//! schema schemars derives from the same declaration (tool-core's
//! `checks` module runs them).

mod model;
mod rename;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{DeriveInput, Path};

use crate::ctxt::Ctxt;
use model::{Content, Field, Keywords, Number, Shape};

/// The impl for `input`, or the errors that stop it (collected in `cx`).
pub fn expand(cx: &Ctxt, input: &DeriveInput, krate: &Path) -> TokenStream {
    let Some(model) = model::read(cx, input) else {
        return TokenStream::new();
    };
    let c = quote!(#krate::__private::checks);
    let mut statics = Statics::default();
    let body = match &model.shape {
        Shape::Struct { fields, deny } => object(&c, fields, *deny, None, &mut statics),
        Shape::Newtype(field) => {
            let ty = &field.ty;
            let keywords = keywords(&c, field, &mut statics);
            quote_spanned!(field.span()=> <#ty as #c::Arguments>::check(value, walk, #keywords))
        }
        Shape::Names(names) => quote!(walk.names(value, &[#(#names),*])),
        Shape::External { units, variants } => {
            let arms = variants.iter().map(|(name, content)| {
                let check = match content {
                    Content::Newtype(ty) => {
                        quote!(<#ty as #c::Arguments>::check(content, walk, &#c::Keywords::NONE))
                    }
                    Content::Tuple(types) => quote!(
                        <(#(#types,)*) as #c::Arguments>::check(content, walk, &#c::Keywords::NONE)
                    ),
                    Content::Struct { fields, deny } => {
                        let object = object(&c, fields, *deny, None, &mut statics);
                        quote!({ let value = content; #object })
                    }
                };
                quote!(#name => ::core::option::Option::Some(#check),)
            });
            quote! {
                walk.one_of(value, |walk| match value {
                    #c::Value::String(_) => walk.unit_variant(value, &[#(#units),*]),
                    _ => walk.tagged(value, |walk, name, content| match name {
                        #(#arms)*
                        _ => ::core::option::Option::None,
                    }),
                })
            }
        }
        Shape::Internal {
            tag,
            variants,
            deny,
        } => {
            let arms = variants.iter().map(|(name, fields)| {
                let object = object(&c, fields, *deny, Some(tag), &mut statics);
                quote!(#name => ::core::option::Option::Some(#object),)
            });
            quote! {
                walk.one_of(value, |walk| walk.internally_tagged(value, #tag, |walk, name| match name {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }))
            }
        }
    };
    let decides = serde_decides(&c, &model);
    let ident = model.ident;
    let statics_tokens = statics.tokens;
    quote! {
        const _: () = {
            #statics_tokens
            #[automatically_derived]
            impl #krate::Arguments for #ident {
                const INLINE: bool = false;
                #[allow(unused_variables)]
                fn check<'v>(
                    value: &'v #c::Value,
                    walk: &mut #c::Walk<'v>,
                    keywords: &#c::Keywords,
                ) -> bool {
                    #body
                }
                #decides
            }
        };
    }
}

/// `serde_decides` for a struct or a newtype whose fields are all plain
/// (no keyword, read by serde as their schema says, none skipped): serde
/// decides for it when it decides for every field's type. Enums keep the
/// trait's `false`: their tagging and names are for the checks to follow.
fn serde_decides(c: &TokenStream, model: &model::Model) -> TokenStream {
    let fields: Vec<&Field> = match &model.shape {
        Shape::Struct { fields, .. } => fields.iter().collect(),
        Shape::Newtype(field) => vec![field],
        _ => return TokenStream::new(),
    };
    if !model.serde_agrees || !fields.iter().all(|field| field.plain()) {
        return TokenStream::new();
    }
    let types = fields.iter().map(|field| &field.ty);
    quote! {
        fn serde_decides(depth: u8) -> bool {
            depth > 0 #(&& <#types as #c::Arguments>::serde_decides(depth - 1))*
        }
    }
}

/// A struct's (or a struct variant's) object: `required`, the declared
/// members, and with `deny` no others; `tag`, for an internally tagged
/// variant, is a required member the variant was chosen by.
fn object(
    c: &TokenStream,
    fields: &[Field],
    deny: bool,
    tag: Option<&String>,
    statics: &mut Statics,
) -> TokenStream {
    let required: Vec<TokenStream> = fields
        .iter()
        .map(|field| {
            let ty = &field.ty;
            if field.forced {
                quote!(true)
            } else if field.defaulted {
                quote!(false)
            } else {
                quote_spanned!(field.span()=> !<#ty as #c::Arguments>::OPTION)
            }
        })
        .collect();
    let names: Vec<&String> = fields.iter().map(|field| &field.name).collect();
    let mut entries: Vec<TokenStream> = Vec::new();
    let mut arms: Vec<TokenStream> = Vec::new();
    if let Some(tag) = tag {
        entries.push(quote!((#tag, true)));
        arms.push(quote!(#tag => #c::Member::checked(walk.tag(member), true),));
    }
    for ((field, name), required) in fields.iter().zip(&names).zip(&required) {
        let ty = &field.ty;
        let keywords = keywords(c, field, statics);
        entries.push(quote!((#name, #required)));
        arms.push(quote_spanned! {field.span()=>
            #name => #c::Member::checked(
                <#ty as #c::Arguments>::check(member, walk, #keywords),
                #required,
            ),
        });
    }
    quote! {{
        const FIELDS: &[(&str, bool)] = &[#(#entries),*];
        const REQUIRED: usize = {
            let mut count = 0;
            let mut at = 0;
            while at < FIELDS.len() {
                count += FIELDS[at].1 as usize;
                at += 1;
            }
            count
        };
        walk.object(value, FIELDS, REQUIRED, #deny, |walk, key, member| match key {
            #(#arms)*
            _ => #c::Member::Unknown,
        })
    }}
}

/// The statics of the fields' keywords, each numbered.
#[derive(Default)]
struct Statics {
    tokens: TokenStream,
    next: usize,
}

/// The field's keywords: `&Keywords::NONE`, or a reference to a static
/// (a pattern compiles once, on first use).
fn keywords(c: &TokenStream, field: &Field, statics: &mut Statics) -> TokenStream {
    let required = field.forced;
    if !required && field.keywords.is_empty() {
        return quote!(&#c::Keywords::NONE);
    }
    let Keywords {
        minimum,
        maximum,
        min_length,
        max_length,
        pattern,
        format,
    } = &field.keywords;
    let limit = |number: &Option<Number>| match number {
        Some(Number::Integer(value)) => {
            quote!(::core::option::Option::Some(#c::Limit::Integer(#value)))
        }
        Some(Number::Float(value)) => {
            quote!(::core::option::Option::Some(#c::Limit::Float(#value)))
        }
        None => quote!(::core::option::Option::None),
    };
    let count = |count: &Option<u64>| match count {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let index = statics.next;
    statics.next += 1;
    let name = format_ident!("KEYWORDS_{}", index);
    let pattern = match pattern {
        Some(source) => {
            let pattern_name = format_ident!("PATTERN_{}", index);
            statics
                .tokens
                .extend(quote!(static #pattern_name: #c::Pattern = #c::Pattern::new(#source);));
            quote!(::core::option::Option::Some(&#pattern_name))
        }
        None => quote!(::core::option::Option::None),
    };
    let format = match *format {
        Some("email") => quote!(::core::option::Option::Some(#c::Format::Email)),
        Some(_) => quote!(::core::option::Option::Some(#c::Format::Uri)),
        None => quote!(::core::option::Option::None),
    };
    let (minimum, maximum) = (limit(minimum), limit(maximum));
    let (min_length, max_length) = (count(min_length), count(max_length));
    statics.tokens.extend(quote! {
        static #name: #c::Keywords = #c::Keywords {
            null: false,
            required: #required,
            minimum: #minimum,
            maximum: #maximum,
            min_length: #min_length,
            max_length: #max_length,
            pattern: #pattern,
            format: #format,
        };
    });
    quote!(&#name)
}
