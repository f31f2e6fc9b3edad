//! `#[derive(Tool)]`. Documented, with examples, in tool-core, which
//! re-exports it; depend on tool-core, not on this crate.

#![forbid(unsafe_code)]

mod attr;
mod ctxt;
mod expand;
mod fallback;
mod validate;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

#[proc_macro_derive(Tool, attributes(tool))]
pub fn derive_tool(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
