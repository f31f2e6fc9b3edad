use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path};

/// Emitted beside the errors so that code using the type (`impl Execute`,
/// `X::DECLARATION`, the argument checks `Tool` needs) does not add a
/// second wave of errors. Nothing is
/// registered: the crate does not compile anyway.
pub fn stub(input: &DeriveInput, krate: Option<Path>) -> TokenStream {
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::tool_core));
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    // `Tool`'s supertraits as a where clause, so that the stub itself never
    // fails: a union cannot derive `Deserialize`, a generic type is not
    // `'static`, and those mistakes were reported already. The unused
    // binder keeps a bound on a concrete type from being a "trivial bound",
    // which stable Rust refuses when it does not hold (rust-lang/rust#48214).
    generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote! {
            for<'__tool> Self: #krate::__private::ToolBounds
        });
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // Without that bound: it would ask for this very impl.
    let (own_generics, own_ty_generics, own_where) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Tool for #ident #ty_generics #where_clause {
                const DECLARATION: #krate::Declaration = #krate::__private::STUB_DECLARATION;
            }
            #[automatically_derived]
            impl #own_generics #krate::Arguments for #ident #own_ty_generics #own_where {
                const INLINE: bool = false;
                fn check<'v>(
                    _: &'v #krate::__private::checks::Value,
                    _: &mut #krate::__private::checks::Walk<'v>,
                    _: &#krate::__private::checks::Keywords,
                ) -> bool {
                    false
                }
            }
        };
    }
}
