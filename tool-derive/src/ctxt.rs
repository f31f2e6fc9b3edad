use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects every mistake of one derive so that all of them are reported in
/// a single compile instead of one per edit-compile cycle.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// How many errors so far, so that a parser can tell whether a step
    /// reported one.
    pub fn error_count(&self) -> usize {
        self.errors.borrow().as_ref().map_or(0, Vec::len)
    }

    /// Ends collection: `Err` holds every error, combined.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for error in iter {
                    first.combine(error);
                }
                Err(first)
            }
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // A context dropped unchecked would swallow the user's errors; that is
        // a bug in this crate, never in the user's code.
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("tool-derive: Ctxt dropped without check()");
        }
    }
}
