//! `#[derive(Tool)]` and `#[derive(Arguments)]`. Documented, with examples, in tool-core, which
//! re-exports it; depend on tool-core, not on this crate.

#![forbid(unsafe_code)]

mod attr;
mod checks;
mod ctxt;
mod expand;
mod fallback;
mod validate;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// The argument checks of a type a tool's arguments are made of (a struct
/// or enum inside them); `#[derive(Tool)]` generates them for the tool's
/// own type.
#[proc_macro_derive(Arguments)]
pub fn derive_arguments(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let cx = ctxt::Ctxt::new();
    let tokens = checks::expand(&cx, &input, &syn::parse_quote!(::tool_core));
    match cx.check() {
        Ok(()) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

#[proc_macro_derive(Tool, attributes(tool))]
pub fn derive_tool(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
