//! Every registered tool's verdict for one run, kept in the form the
//! resolution hands out: the granted tools as the grant's own entries
//! (shared with every grant resolved from them), the refusals as the
//! denial list.

use std::sync::Arc;

use crate::skills::Allowance;

use super::Denial;
use super::grant::GrantedTools;

/// Where one tool's verdict is kept.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// At this position of the granted tools.
    Granted(usize),
    /// At this position of the denials.
    Denied(usize),
}

/// The verdicts of every registered tool, in registry (name) order.
pub(super) struct Verdicts<'r> {
    /// Per registered tool, in registry order.
    slots: Vec<Slot>,
    /// The granted tools, sorted by name: a grant's entries.
    granted: Arc<Vec<(Arc<str>, Allowance)>>,
    /// The refused tools and why, sorted by name.
    denied: Vec<(&'r str, Denial)>,
}

/// Collects the verdicts tool by tool, in registry order.
pub(super) struct VerdictsBuilder<'r> {
    slots: Vec<Slot>,
    granted: Vec<(Arc<str>, Allowance)>,
    denied: Vec<(&'r str, Denial)>,
}

impl<'r> VerdictsBuilder<'r> {
    /// Room for `tools` verdicts: growing vectors of a thousand entries
    /// cost more than the unused room.
    pub(super) fn with_capacity(tools: usize) -> Self {
        VerdictsBuilder {
            slots: Vec::with_capacity(tools),
            granted: Vec::with_capacity(tools),
            denied: Vec::with_capacity(tools),
        }
    }

    /// The next tool is offered.
    #[inline]
    pub(super) fn grant(&mut self, name: &Arc<str>, allowance: Allowance) {
        self.slots.push(Slot::Granted(self.granted.len()));
        self.granted.push((Arc::clone(name), allowance));
    }

    /// The next tool is refused.
    #[inline]
    pub(super) fn deny(&mut self, name: &'r str, denial: Denial) {
        self.slots.push(Slot::Denied(self.denied.len()));
        self.denied.push((name, denial));
    }

    pub(super) fn build(self) -> Verdicts<'r> {
        Verdicts {
            slots: self.slots,
            granted: Arc::new(self.granted),
            denied: self.denied,
        }
    }
}

impl<'r> Verdicts<'r> {
    /// The verdict of the tool at registry position `index`.
    pub(super) fn get(&self, index: usize) -> Result<&Allowance, &Denial> {
        match self.slots[index] {
            Slot::Granted(i) => Ok(&self.granted[i].1),
            Slot::Denied(i) => Err(&self.denied[i].1),
        }
    }

    /// The granted tools, shared: no entry is copied.
    pub(super) fn granted(&self) -> GrantedTools {
        GrantedTools::shared(Arc::clone(&self.granted))
    }

    /// How many tools are granted.
    pub(super) fn offered(&self) -> usize {
        self.granted.len()
    }

    /// The refused tools and why, sorted by name.
    pub(super) fn denied(&self) -> &[(&'r str, Denial)] {
        &self.denied
    }
}
