//! Every registered tool's verdict for one run, kept in the form the
//! resolution hands out: the granted tools as the grant's own entries
//! (shared with every grant resolved from them), each refusal as the gate
//! that said no, its [`Denial`] written out only when asked for.

use std::sync::Arc;

use crate::skills::Allowance;
use crate::{DataClass, Egress, RegisteredTool};

use super::Denial;
use super::grant::GrantedTools;

/// The gate that refused a tool, without the details a [`Denial`] carries:
/// those come back from the tool's declaration and the run's inputs, so a
/// refusal costs one byte to record and nothing to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    GroupDisabled,
    ToolDisabled,
    AdminOnly,
    Egress,
    GroupNotConfigured,
    ReadOnlyRun,
    NotAllowedBySkills,
    NotSelected,
    TrustZone,
}

/// Where one tool's verdict is kept.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// At this position of the granted tools.
    Granted(usize),
    /// Refused, by this gate.
    Refused(Refusal),
}

/// What a [`Denial`] names besides the tool's own declaration: the network
/// reach each group is granted (gate 4) and the run's trust-zone ceiling
/// (gate 8).
pub(super) struct DenialDetails<'r> {
    /// Per tool, in registry order: the number of its group.
    pub(super) group_of: &'r [usize],
    /// Per group number: the network reach the host grants it.
    pub(super) group_egress: Vec<Egress>,
    /// The run's trust-zone ceiling.
    pub(super) ceiling: DataClass,
}

/// The verdicts of every registered tool, in registry (name) order.
pub(super) struct Verdicts<'r> {
    /// The registered tools the slots are about, in registry order.
    tools: &'r [RegisteredTool],
    /// Per registered tool, in registry order.
    slots: Vec<Slot>,
    /// The granted tools, sorted by name: a grant's entries.
    granted: Arc<Vec<(Arc<str>, Allowance)>>,
    details: DenialDetails<'r>,
}

/// Collects the verdicts tool by tool, in registry order.
pub(super) struct VerdictsBuilder {
    slots: Vec<Slot>,
    granted: Vec<(Arc<str>, Allowance)>,
}

impl VerdictsBuilder {
    /// Room for `tools` verdicts: growing vectors of a thousand entries
    /// cost more than the unused room.
    pub(super) fn with_capacity(tools: usize) -> Self {
        VerdictsBuilder {
            slots: Vec::with_capacity(tools),
            granted: Vec::with_capacity(tools),
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
    pub(super) fn refuse(&mut self, refusal: Refusal) {
        self.slots.push(Slot::Refused(refusal));
    }

    /// The verdicts of `tools`, one pushed for each.
    pub(super) fn build<'r>(
        self,
        tools: &'r [RegisteredTool],
        details: DenialDetails<'r>,
    ) -> Verdicts<'r> {
        Verdicts {
            tools,
            slots: self.slots,
            granted: Arc::new(self.granted),
            details,
        }
    }
}

impl<'r> Verdicts<'r> {
    /// The verdict of the tool at registry position `index`; a refusal as
    /// its gate only, so the call path's check stays two words in
    /// registers ([`denial`](Self::denial) writes it out).
    #[inline]
    pub(super) fn get(&self, index: usize) -> Result<&Allowance, Refusal> {
        match self.slots[index] {
            Slot::Granted(i) => Ok(&self.granted[i].1),
            Slot::Refused(refusal) => Err(refusal),
        }
    }

    /// The denial of the tool at registry position `index`, which `get`
    /// found refused by `refusal`. Out of line: a refused call is rare.
    #[cold]
    #[inline(never)]
    pub(super) fn denial_of(&self, index: usize, refusal: Refusal) -> Denial {
        self.denial(&self.tools[index], self.details.group_of[index], refusal)
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
    pub(super) fn denied(&self) -> Vec<(&'r str, Denial)> {
        let mut denied = Vec::with_capacity(self.slots.len() - self.granted.len());
        let each = self.slots.iter().zip(self.tools).zip(self.details.group_of);
        for ((slot, tool), &group) in each {
            if let Slot::Refused(refusal) = *slot {
                denied.push((tool.name(), self.denial(tool, group, refusal)));
            }
        }
        denied
    }

    /// The denial of `tool`, of the group numbered `group`, refused by
    /// `refusal`.
    fn denial(&self, tool: &RegisteredTool, group: usize, refusal: Refusal) -> Denial {
        let declaration = tool.declaration();
        match refusal {
            Refusal::GroupDisabled => Denial::GroupDisabled {
                group: declaration.group.clone(),
            },
            Refusal::ToolDisabled => Denial::ToolDisabled,
            Refusal::AdminOnly => Denial::AdminOnly,
            Refusal::Egress => Denial::Egress {
                declared: declaration.egress,
                granted: self.details.group_egress[group],
            },
            Refusal::GroupNotConfigured => Denial::GroupNotConfigured {
                group: declaration.group.clone(),
            },
            Refusal::ReadOnlyRun => Denial::ReadOnlyRun,
            Refusal::NotAllowedBySkills => Denial::NotAllowedBySkills,
            Refusal::NotSelected => Denial::NotSelected,
            Refusal::TrustZone => Denial::TrustZone {
                data: declaration.data,
                ceiling: self.details.ceiling,
            },
        }
    }
}
