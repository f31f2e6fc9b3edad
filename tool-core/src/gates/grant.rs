//! The grant: the tools a run may use, stored with it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::Registry;
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
/// tree's inserts, which dominated resolution for large registries. The
/// vector is shared (an `Arc` of the vector itself: turning it into an
/// `Arc<[_]>` would copy every entry): the gates keep the entries they resolved and every
/// grant resolved from them (and every clone) points at them, so resolving
/// copies no entry.
///
/// Lookups at call time go through a hash index of the names, built on the
/// first lookup of a large grant, so a call costs the same with 3 or 1,000
/// granted tools (a binary search grew with the grant: +8.5% of a call's
/// instructions from 3 to 100 tools). Resolution does not pay for the index,
/// and a small grant never builds one.
#[derive(Default)]
pub(super) struct GrantedTools {
    sorted: Arc<Vec<(Arc<str>, Allowance)>>,
    /// Name → position in `sorted`; only for grants above [`INDEXED_FROM`].
    index: OnceLock<FxHashMap<Arc<str>, u32>>,
    /// For the registry the gates call into (its id): a tool's registry
    /// position → 1 + its position in `sorted`, 0 when not granted. The
    /// gates have the position already, so a call looks the grant up
    /// without hashing or comparing the name again.
    by_position: OnceLock<(u64, Box<[u32]>)>,
}

/// From this many tools a grant's lookups hash; below it a binary search
/// of at most four comparisons costs less than hashing the name.
const INDEXED_FROM: usize = 16;

impl GrantedTools {
    pub(super) fn new(sorted: Vec<(Arc<str>, Allowance)>) -> Self {
        GrantedTools::shared(Arc::new(sorted))
    }

    pub(super) fn shared(sorted: Arc<Vec<(Arc<str>, Allowance)>>) -> Self {
        GrantedTools {
            sorted,
            index: OnceLock::new(),
            by_position: OnceLock::new(),
        }
    }

    pub(super) fn entries(&self) -> &[(Arc<str>, Allowance)] {
        &self.sorted
    }

    pub(super) fn get(&self, name: &str) -> Option<&Allowance> {
        let position = if self.sorted.len() < INDEXED_FROM {
            self.sorted
                .binary_search_by(|(granted, _)| granted.as_ref().cmp(name))
                .ok()?
        } else {
            let index = self.index.get_or_init(|| {
                self.sorted
                    .iter()
                    .zip(0u32..)
                    .map(|((name, _), position)| (Arc::clone(name), position))
                    .collect()
            });
            usize::try_from(*index.get(name)?).ok()?
        };
        self.sorted.get(position).map(|(_, allowance)| allowance)
    }

    /// [`get`](Self::get) of the tool at `position` in `registry`, named
    /// `name`: through the table by registry position, built on the first
    /// lookup against that registry (another registry's lookups go by
    /// name).
    pub(super) fn get_at(
        &self,
        registry: &Registry,
        position: usize,
        name: &str,
    ) -> Option<&Allowance> {
        let (id, table) = self.by_position.get_or_init(|| {
            let mut table = vec![0_u32; registry.tools().len()].into_boxed_slice();
            for (at, (granted, _)) in self.sorted.iter().enumerate() {
                if let (Some(position), Ok(at)) = (registry.index_of(granted), u32::try_from(at)) {
                    table[position] = at.saturating_add(1);
                }
            }
            (registry.id(), table)
        });
        if *id != registry.id() {
            return self.get(name);
        }
        let at = table.get(position).copied()?.checked_sub(1)?;
        self.sorted
            .get(usize::try_from(at).ok()?)
            .map(|(_, allowance)| allowance)
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

// The index is derived from `sorted`: equality, cloning and debugging look
// at the names and allowances only.
impl PartialEq for GrantedTools {
    fn eq(&self, other: &Self) -> bool {
        self.sorted == other.sorted
    }
}

impl Eq for GrantedTools {}

impl Clone for GrantedTools {
    fn clone(&self) -> Self {
        GrantedTools::shared(Arc::clone(&self.sorted))
    }
}

impl fmt::Debug for GrantedTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("GrantedTools").field(&self.sorted).finish()
    }
}

impl Serialize for GrantedTools {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.sorted
                .iter()
                .map(|(name, allowance)| (name, allowance)),
        )
    }
}

impl<'de> Deserialize<'de> for GrantedTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through a map: sorted, and a name given twice cannot widen anything.
        let map = BTreeMap::<Arc<str>, Allowance>::deserialize(deserializer)?;
        Ok(GrantedTools::new(map.into_iter().collect()))
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
        self.tools.entries().iter().map(|(name, _)| name.as_ref())
    }

    /// How much of `tool` is granted, if any.
    pub fn allowance(&self, tool: &str) -> Option<&Allowance> {
        self.tools.get(tool)
    }

    /// Whether no tool is granted.
    pub fn is_empty(&self) -> bool {
        self.tools.entries().is_empty()
    }

    /// How many tools are granted.
    pub fn len(&self) -> usize {
        self.tools.entries().len()
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
            .entries()
            .iter()
            .filter_map(|(name, allowance)| {
                let current = now.tools.get(name)?;
                Some((Arc::clone(name), allowance.intersect(current)?))
            })
            .collect();
        Grant {
            format: Format::CURRENT,
            tools: GrantedTools::new(tools),
        }
    }
}
