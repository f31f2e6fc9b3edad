use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path};

/// Emitted beside the errors so that code using the type (`impl Execute`,
/// `X::DECLARATION`) does not add a second wave of errors. Nothing is
/// registered: the crate does not compile anyway.
pub fn stub(input: &DeriveInput, krate: Option<Path>) -> TokenStream {
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::tool_core));
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Tool for #ident #ty_generics #where_clause {
                const DECLARATION: #krate::Declaration = #krate::__private::STUB_DECLARATION;
            }
        };
    }
}
