//! Folding repeated grants within one `allowed-tools` field.
//!
//! Most fields hold a handful of tokens, so each new pattern is compared with
//! every earlier one, through a fingerprint of its grant: comparing two
//! fingerprints is a couple of instructions, where hashing a pattern with
//! SipHash costs a few hundred. The fingerprint is not keyed, so input can be
//! written to make them all collide; that only turns each comparison into a
//! full one, and the scan stops at [`SCAN_AT_MOST`] patterns. A longer list
//! is indexed by SipHash, whose random keys are what stop a hostile field from
//! forcing every lookup through the quadratic fallback.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;

use super::{ToolPattern, ToolTarget};
use crate::skills::scope::ScopePattern;

/// How many patterns are scanned before the index takes over: at this length
/// a full scan of fingerprints still costs less than one SipHash, and with
/// every fingerprint colliding the scan is at most 2,016 full comparisons.
const SCAN_AT_MOST: usize = 64;

/// The grants kept so far, as fingerprints and, once there are many, an index.
pub(super) struct Seen {
    /// The fingerprint of each of the first [`SCAN_AT_MOST`] patterns kept.
    fingerprints: [u64; SCAN_AT_MOST],
    /// Once more are kept: the index of the first pattern with each SipHash.
    index: Option<HashMap<u64, usize>>,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            fingerprints: [0; SCAN_AT_MOST],
            index: None,
        }
    }
}

impl Seen {
    /// Whether `target` with `scope` grants what one of `kept` (every
    /// pattern kept so far, in order) does; if not, it is remembered as the
    /// next one kept.
    pub(super) fn is_duplicate(
        &mut self,
        kept: &[ToolPattern],
        target: &ToolTarget,
        scope: Option<&ScopePattern>,
    ) -> bool {
        let same = |p: &ToolPattern| p.target == *target && p.scope.as_ref() == scope;
        if let Some((scanned, [slot, ..])) = self.fingerprints.split_at_mut_checked(kept.len()) {
            let fingerprint = fingerprint(target, scope);
            let duplicate = scanned
                .iter()
                .zip(kept)
                .any(|(&seen, p)| seen == fingerprint && same(p));
            if !duplicate {
                *slot = fingerprint;
            }
            return duplicate;
        }
        let index = self.index.get_or_insert_with(|| {
            let mut index = HashMap::with_capacity(kept.len() * 2);
            for (n, p) in kept.iter().enumerate() {
                let hash = index.hasher().hash_one((&p.target, p.scope.as_ref()));
                index.entry(hash).or_insert(n);
            }
            index
        });
        let hash = index.hasher().hash_one((target, scope));
        match index.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(kept.len());
                false
            }
            // The grant first seen with this hash is almost always this
            // one; only on a hash collision is every pattern looked at.
            Entry::Occupied(slot) => {
                kept.get(*slot.get()).is_some_and(same) || kept.iter().any(same)
            }
        }
    }
}

/// FxHash's multiplier: an odd constant with well-spread bits.
const MIX: u64 = 0x517c_c1b7_2722_0a95;

/// A cheap digest of what a pattern grants: equal grants have equal
/// fingerprints.
fn fingerprint(target: &ToolTarget, scope: Option<&ScopePattern>) -> u64 {
    let (kind, name) = match target {
        ToolTarget::Tool(name) => (1, name),
        ToolTarget::McpServer(server) => (2, server),
    };
    let target = mix(kind, name.as_bytes());
    match scope {
        None => target,
        Some(scope) => mix(target ^ 3, scope.as_str().as_bytes()),
    }
}

/// Folds `bytes` into `hash`, eight at a time, and their length last, so
/// that texts differing only in trailing zero bytes still differ.
fn mix(mut hash: u64, bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = word.try_into().map_or(0, u64::from_le_bytes);
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(MIX);
    }
    let tail = words
        .remainder()
        .iter()
        .fold(bytes.len() as u64, |tail, &b| tail << 8 | u64::from(b));
    (hash.rotate_left(5) ^ tail).wrapping_mul(MIX)
}
