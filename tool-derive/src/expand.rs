use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{DeriveInput, spanned::Spanned};

use crate::attr::{Content, DataClass, Effect, Egress, ScopeKind, TaskSupport, ToolAttrs};
use crate::checks;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::validate::{self, Model};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let attrs = ToolAttrs::parse(&cx, &input.attrs);
    let krate = attrs.krate.value().cloned();
    let model = validate::model(&cx, input, attrs);
    let checks_krate = krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::tool_core));
    // The declaration's own mistakes (a generic type, a union…) first: the
    // checks would only repeat them.
    let checks = if cx.error_count() == 0 {
        checks::expand(&cx, input, &checks_krate)
    } else {
        TokenStream::new()
    };
    match (cx.check(), model) {
        (Ok(()), Some(model)) => {
            let mut tokens = expand(&model);
            tokens.extend(checks);
            tokens
        }
        (Err(error), _) => {
            let mut tokens = error.to_compile_error();
            tokens.extend(fallback::stub(input, krate));
            tokens
        }
        (Ok(()), None) => {
            // validate::model only declines after reporting; keep the user's
            // build failing rather than silently registering nothing.
            let mut tokens = syn::Error::new_spanned(
                &input.ident,
                "`#[derive(Tool)]` could not read this declaration",
            )
            .to_compile_error();
            tokens.extend(fallback::stub(input, krate));
            tokens
        }
    }
}

fn expand(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let ident = model.ident;
    let span = ident.span();
    let name = &model.name;
    let group = &model.group;
    let description = &model.description;
    let title = match &model.title {
        Some(title) => {
            quote!(::core::option::Option::Some(#krate::__private::Cow::Borrowed(#title)))
        }
        None => quote!(::core::option::Option::None),
    };
    let requires_admin = model.requires_admin;
    let egress = match model.egress {
        Egress::None => quote!(#krate::Egress::None),
        Egress::OwnSite => quote!(#krate::Egress::OwnSite),
    };
    // At the user's `"read"`/`"write"`, where a reader of an error in the
    // generated declaration would look.
    let effect = match model.effect {
        Effect::Read => quote_spanned!(model.effect_span=> #krate::Effect::Read),
        Effect::Write => quote_spanned!(model.effect_span=> #krate::Effect::Write),
    };
    // A write tool always ships disabled: an administrator opts in.
    let shipped = if model.disabled || model.effect == Effect::Write {
        quote!(#krate::Shipped::Disabled)
    } else {
        quote!(#krate::Shipped::Enabled)
    };
    let (scope, scope_check) = match &model.scope {
        Some(field) => {
            let property = &field.property;
            let ty = field.ty;
            let kind = match field.kind {
                ScopeKind::Command => quote!(#krate::ScopeKind::Command),
                ScopeKind::Path => quote!(#krate::ScopeKind::Path),
                ScopeKind::Text => quote!(#krate::ScopeKind::Text),
            };
            (
                quote!(::core::option::Option::Some(#krate::Scope {
                    property: #krate::__private::Cow::Borrowed(#property),
                    kind: #kind,
                })),
                quote_spanned! {ty.span()=>
                    const _: () = #krate::__private::assert_scope_argument::<#ty>();
                },
            )
        }
        None => (quote!(::core::option::Option::None), TokenStream::new()),
    };
    let data = match model.data {
        DataClass::Public => quote!(#krate::DataClass::Public),
        DataClass::Internal => quote!(#krate::DataClass::Internal),
        DataClass::Confidential => quote!(#krate::DataClass::Confidential),
        DataClass::Personal => quote!(#krate::DataClass::Personal),
    };
    let content = match model.content {
        Content::Trusted => quote!(#krate::Content::Trusted),
        Content::Untrusted => quote!(#krate::Content::Untrusted),
    };
    let task = match model.task {
        TaskSupport::Forbidden => quote!(#krate::TaskSupport::Forbidden),
        TaskSupport::Optional => quote!(#krate::TaskSupport::Optional),
        TaskSupport::Required => quote!(#krate::TaskSupport::Required),
    };
    let timeout = match model.timeout {
        Some(millis) => {
            quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#millis)))
        }
        None => quote!(::core::option::Option::None),
    };
    let idempotent = model.idempotent;
    // At the user's type, so an output type that cannot be a result is
    // underlined where they named it.
    let (output, output_check) = match &model.output {
        Some(ty) => (
            quote!(.output::<#ty>()),
            quote_spanned! {ty.span()=>
                const _: () = #krate::__private::assert_output::<#ty>();
            },
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    // Spanned at the user's type so an unmet bound (`Deserialize`,
    // `JsonSchema`, `Execute`, `Write`) underlines their code.
    let tool_impl = quote_spanned! {span=>
        #[automatically_derived]
        impl #krate::Tool for #ident
    };
    // At the user's type too: a missing `Execute` or `Write` impl is a
    // mistake about the type, whichever of the two was meant.
    let constructor = match model.effect {
        Effect::Read => quote_spanned!(span=> #krate::__private::Registration::read::<#ident>),
        Effect::Write => quote_spanned!(span=> #krate::__private::Registration::write::<#ident>),
    };
    quote! {
        const _: () = {
            #tool_impl {
                const DECLARATION: #krate::Declaration = #krate::Declaration {
                    name: #krate::__private::Cow::Borrowed(#name),
                    group: #krate::__private::Cow::Borrowed(#group),
                    description: #krate::__private::Cow::Borrowed(#description),
                    title: #title,
                    requires_admin: #requires_admin,
                    egress: #egress,
                    effect: #effect,
                    shipped: #shipped,
                    scope: #scope,
                    data: #data,
                    content: #content,
                    task: #task,
                    timeout: #timeout,
                    idempotent: #idempotent,
                };
            }
            #scope_check
            #output_check
            #krate::__private::inventory::submit! {
                #constructor(#krate::DefinitionSite {
                    crate_name: ::core::env!("CARGO_PKG_NAME"),
                    module_path: ::core::module_path!(),
                    file: ::core::file!(),
                    line: ::core::line!(),
                })#output
            }
        };
    }
}
