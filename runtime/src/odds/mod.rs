//! Exact odds: `Prob` (an exact probability that stays in u128 while it can), `Enumerator` (a
//! `Dice` that walks every distinct outcome of every roll, depth first) and `enumerate`, which
//! turns a resolver into its complete outcome distribution.
//!
//! Method: the resolver is re-run once per leaf of the roll tree. A `path` of (branch, branch
//! count) per roll drives the replay: rolls before the last branching point repeat their earlier
//! choice, the next roll takes its next branch, and rolls never seen before start at branch 0.
//! Each roll branches over the DISTINCT read values of its dice (4d6 has 21 branches, not 1296
//! face combinations), weighted by how many face combinations give that value. This needs the
//! resolver to be deterministic given its rolls, which generated code is.
//!
//! The parts, by what they compute: `prob` (`Prob` and its arithmetic), `distribution` (the
//! results, `Distribution` and `Chain`), `enumerator` (the `Enumerator`: its path, the weight of
//! the path, the dice's distinct values), `calls` (`memo_call`: a callee's outcomes classed once
//! per inputs), `weight` (`Weight`, a weight before reduction) and `leaves` (the list the leaves
//! go to, and its merging). This module has the entry points (`enumerate`, the per-thread
//! settings) and `walk`, the replay loop.

mod calls;
mod distribution;
mod enumerator;
mod leaves;
mod prob;
mod weight;

pub use calls::{enumerator, memo_call};
pub use distribution::{Chain, Distribution};
pub use enumerator::Enumerator;
pub use prob::Prob;

pub(crate) use calls::{memo_call_by, CallDist, HandOn};
pub(crate) use leaves::Leaves;
pub(crate) use weight::Weight;

use crate::error::Error;
use calls::Memo;

/// Most leaves (complete replays) one enumeration may visit.
pub const MAX_LEAVES: u64 = 50_000_000;

thread_local! {
    /// The leaf limit `enumerate` uses on this thread (`MAX_LEAVES` unless `with_leaf_limit` says).
    static LEAF_LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(MAX_LEAVES) };
}

/// Runs `f` with `enumerate` on this thread giving up past `limit` leaves instead of
/// `MAX_LEAVES`: for callers that want a quick answer or none (samples, previews), through entry
/// points that take no limit themselves (a registry's `odds`).
pub fn with_leaf_limit<R>(limit: u64, f: impl FnOnce() -> R) -> R {
    let old = LEAF_LIMIT.with(|l| l.replace(limit));
    let r = f();
    LEAF_LIMIT.with(|l| l.set(old));
    r
}

thread_local! {
    static PLAIN_CALLS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// What calls gave, kept from one enumeration to the next inside `with_shared_calls`.
    static SHARED_MEMO: std::cell::RefCell<Option<Memo>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with every `enumerate` on this thread keeping what its calls gave (`memo_call`) for
/// the next: a chain of rounds, whose states call the same callees with the same inputs again
/// and again. A callee's outcomes depend on its inputs alone, so sharing changes no odds.
pub fn with_shared_calls<R>(f: impl FnOnce() -> R) -> R {
    let old = SHARED_MEMO.with(|m| m.borrow_mut().replace(Memo::default()));
    let r = f();
    SHARED_MEMO.with(|m| *m.borrow_mut() = old);
    r
}

/// Runs `f` with `memo_call` turned off on this thread: every call replays the callee's dice at
/// every leaf, and a roll read through a table branches over its values, not the table's rows
/// (`Dice::roll_classed`): the plain enumeration that the shortcuts must equal (tests, and the
/// measure of what they save).
pub fn with_plain_calls<R>(f: impl FnOnce() -> R) -> R {
    let old = PLAIN_CALLS.with(|p| p.replace(true));
    let r = f();
    PLAIN_CALLS.with(|p| p.set(old));
    r
}

/// Runs `f` once per leaf of its roll tree and merges identical outcomes with exact weights.
/// `Error::TooManyBranches` past `MAX_LEAVES` leaves; any error from `f` aborts the enumeration.
pub fn enumerate<O: Ord + Clone, F: FnMut(&mut Enumerator) -> Result<O, Error>>(f: F) -> Result<Distribution<O>, Error> {
    enumerate_with_limit(LEAF_LIMIT.with(|l| l.get()), f)
}

/// `enumerate` with a caller-chosen leaf limit (tests, or a CLI wanting a quicker give-up).
pub fn enumerate_with_limit<O: Ord + Clone, F: FnMut(&mut Enumerator) -> Result<O, Error>>(
    limit: u64,
    f: F,
) -> Result<Distribution<O>, Error> {
    let mut e = Enumerator::with_shared_memo(true);
    let mut acc = Leaves::default();
    let walked = walk(&mut e, limit, f, |o, w| acc.add(o, w));
    e.share_memo();
    walked?;
    Ok(acc.finish())
}

impl Enumerator {
    /// A new enumerator, with the calls worked out by earlier enumerations inside
    /// `with_shared_calls`.
    pub(crate) fn with_shared_memo(replay: bool) -> Enumerator {
        let mut e = if replay { Enumerator::new() } else { Enumerator::bare() };
        if let Some(memo) = SHARED_MEMO.with(|m| m.borrow_mut().as_mut().map(std::mem::take)) {
            e.memo = memo;
        }
        e
    }

    /// Hands what the calls gave on to the next enumeration, inside `with_shared_calls`.
    pub(crate) fn share_memo(&mut self) {
        SHARED_MEMO.with(|m| {
            if let Some(shared) = m.borrow_mut().as_mut() {
                *shared = std::mem::take(&mut self.memo);
            }
        });
    }
}

/// Are calls made plain on this thread (`with_plain_calls`)?
pub(crate) fn plain_calls() -> bool {
    PLAIN_CALLS.with(|p| p.get())
}

/// The leaf limit on this thread (`with_leaf_limit`).
pub(crate) fn leaf_limit() -> u64 {
    LEAF_LIMIT.with(|l| l.get())
}

/// Runs `f` once per leaf of its roll tree, giving `sink` each leaf's outcome and weight.
fn walk<O, F: FnMut(&mut Enumerator) -> Result<O, Error>>(
    e: &mut Enumerator,
    limit: u64,
    mut f: F,
    mut sink: impl FnMut(O, Weight),
) -> Result<(), Error> {
    let mut leaves: u64 = 0;
    e.limit = limit;
    // An enumeration inside a resolution (a callee's) gives the resolution its count back.
    let _outer = e.nested.then(crate::steps::Nested::new);
    let watch = crate::watch::current_watch();
    loop {
        leaves += 1;
        if leaves > limit {
            return Err(Error::TooManyBranches { limit });
        }
        if leaves % 1024 == 0 {
            if let Some(w) = &watch {
                use std::sync::atomic::Ordering::Relaxed;
                let done = e.done_ppm();
                if !e.nested {
                    w.leaves.store(leaves, Relaxed);
                    w.done_ppm.store(done, Relaxed);
                }
                if w.cancel.load(Relaxed) {
                    return Err(Error::OddsStopped {
                        seconds: w.budget_seconds.load(Relaxed),
                        percent: u32::try_from(done / 10_000).unwrap_or(100),
                        explored: leaves,
                    });
                }
            }
        }
        e.start_leaf();
        let outcome = f(e)?;
        if e.depth < e.path.len() {
            return Err(Error::internal("resolver made fewer rolls when replayed; it must be deterministic"));
        }
        // The first path shows how wide the tree is: the product of its branch counts. A whole
        // battle makes hundreds of rolls, far too many paths to visit; say so now rather than run
        // for hours (`sim` estimates such procedures).
        if leaves == 1 {
            let width = e
                .path
                .iter()
                .try_fold(1u128, |acc, step| acc.checked_mul(u128::from(step.count.max(1))));
            if width.is_none_or(|w| w > u128::from(limit)) {
                return Err(Error::TooManyBranches { limit });
            }
        }
        sink(outcome, e.leaf_weight()?);
        if !e.advance() {
            return Ok(());
        }
    }
}
