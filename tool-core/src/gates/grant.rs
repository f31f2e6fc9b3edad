//! The grant: the tools a run may use, stored with it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::skills::Allowance;
use crate::stored_format::{Format, Versioned};

/// The version of the serialized [`Grant`] format this build writes and
/// reads.
pub const GRANT_FORMAT: u32 = 1;

/// The tools a run may use, resolved once when it starts and stored with
/// it. Same inputs, same bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[must_use = "a grant limits a run only when the run uses it"]
pub struct Grant {
    pub(super) format: Format<Grant>,
    pub(super) tools: GrantedTools,
}

/// The granted tools, sorted by name without duplicates, serialized as a
/// map. A sorted vector rather than a map: a grant is built in the
/// registry's (sorted) order and then only looked up, so this skips the
/// tree's inserts, which dominated resolution for large registries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct GrantedTools(pub(super) Vec<(Arc<str>, Allowance)>);

impl GrantedTools {
    pub(super) fn get(&self, name: &str) -> Option<&Allowance> {
        self.0
            .binary_search_by(|(granted, _)| granted.as_ref().cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

impl Serialize for GrantedTools {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, allowance)| (name, allowance)))
    }
}

impl<'de> Deserialize<'de> for GrantedTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through a map: sorted, and a name given twice cannot widen anything.
        let map = BTreeMap::<Arc<str>, Allowance>::deserialize(deserializer)?;
        Ok(GrantedTools(map.into_iter().collect()))
    }
}

impl Versioned for Grant {
    const WHAT: &'static str = "grant";
    const FORMAT: u32 = GRANT_FORMAT;
}

impl Grant {
    /// A grant of no tools: a plain completion.
    pub fn empty() -> Self {
        Grant {
            format: Format::CURRENT,
            tools: GrantedTools::default(),
        }
    }

    /// The granted tool names, sorted.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.0.iter().map(|(name, _)| name.as_ref())
    }

    /// How much of `tool` is granted, if any.
    pub fn allowance(&self, tool: &str) -> Option<&Allowance> {
        self.tools.get(tool)
    }

    /// Whether no tool is granted.
    pub fn is_empty(&self) -> bool {
        self.tools.0.is_empty()
    }

    /// How many tools are granted.
    pub fn len(&self) -> usize {
        self.tools.0.len()
    }

    /// The grant a waiting run continues with: `stored ∩ now`, or `now` for
    /// a run stored without a grant. A change while the run waited can take
    /// a tool away, never add one.
    pub fn resume(stored: Option<&Grant>, now: &Grant) -> Grant {
        let Some(stored) = stored else {
            return now.clone();
        };
        let tools = stored
            .tools
            .0
            .iter()
            .filter_map(|(name, allowance)| {
                let current = now.tools.get(name)?;
                Some((Arc::clone(name), allowance.intersect(current)?))
            })
            .collect();
        Grant {
            format: Format::CURRENT,
            tools: GrantedTools(tools),
        }
    }
}
