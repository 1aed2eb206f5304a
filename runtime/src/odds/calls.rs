//! Calls under exact odds (`memo_call`): a callee enumerated once per distinct inputs, its
//! outcomes classed by what the caller reads of them and kept in the enumeration's `Memo`; a
//! replayed call takes its branch's class.

use super::enumerator::{Enumerator, Step};
use super::leaves::merge_classes;
use super::prob::Prob;
use super::weight::Weight;
use super::{walk, PLAIN_CALLS};
use crate::dice::Dice;
use crate::error::Error;
use num_rational::BigRational;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

/// The outcomes of calls worked out once per callee and inputs (`memo_call`), kept for a whole
/// enumeration and lent to the enumerations of the callees themselves.
#[derive(Default)]
pub(crate) struct Memo {
    /// Per call site: a `SiteMap<I>` from the callee's inputs to its index in `dists`, or `None`
    /// when its own enumeration failed (the call then runs inline, so the failure is met where
    /// plain enumeration would meet it).
    sites: Vec<(usize, Box<dyn std::any::Any>)>,
    pub(crate) dists: Vec<CallDist>,
    /// The probabilities of every call's classes, each call's a range (`CallDist::probs`): one
    /// list for all, not one each.
    probs: Vec<Prob>,
}

/// A call site's inputs met so far, each with its call's index in `Memo::dists` (or `None`). Most
/// sites are called with one set of inputs in an enumeration: it is kept inline, and the map
/// (which allocates) holds the others.
struct SiteMap<I> {
    first: (I, Option<u32>),
    more: BTreeMap<I, Option<u32>>,
}

impl<I: Ord> SiteMap<I> {
    fn get(&self, inputs: &I) -> Option<Option<u32>> {
        if self.first.0 == *inputs {
            return Some(self.first.1);
        }
        self.more.get(inputs).copied()
    }
}

impl Memo {
    /// The probabilities of `d`'s classes.
    pub(crate) fn probs(&self, d: &CallDist) -> &[Prob] {
        self.probs.get(d.probs.0 as usize..d.probs.1 as usize).unwrap_or_default()
    }
}

impl fmt::Debug for Memo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Memo {{ sites: {}, dists: {} }}", self.sites.len(), self.dists.len())
    }
}

/// One call's distribution: a representative outcome (a `Vec<O>`, as `Any`) and the probability
/// of each class of outcomes the caller cannot tell apart (exact, but not always reduced:
/// `Weight::into_factor`).
pub(crate) struct CallDist {
    site: usize,
    /// Where its probabilities lie in `Memo::probs`: start and end.
    probs: (u32, u32),
    pub(crate) outcomes: Box<dyn std::any::Any>,
}

impl CallDist {
    /// How many classes it has.
    pub(crate) fn len(&self) -> usize {
        self.probs.1.saturating_sub(self.probs.0) as usize
    }
}

impl Enumerator {
    /// The call at the current depth of the path (already there: a replay) takes its branch's
    /// outcome.
    fn take_call<O: Clone + 'static>(&mut self, site: usize) -> Result<O, Error> {
        let depth = self.depth;
        let step = *self.path.get(depth).ok_or_else(|| Error::internal("enumerator path depth"))?;
        let dist = self
            .memo
            .dists
            .get(step.cache as usize)
            .filter(|d| d.site == site)
            .ok_or_else(|| Error::internal("resolver made different calls when replayed; it must be deterministic"))?;
        let outcome = dist
            .outcomes
            .downcast_ref::<Vec<O>>()
            .and_then(|v| v.get(step.branch as usize))
            .ok_or_else(|| Error::internal("enumerator call outcome"))?
            .clone();
        let factor = match self.memo.probs(dist).get(step.branch as usize) {
            Some(Prob::Small(r)) => Some((*r.numer(), *r.denom())),
            _ => None,
        };
        self.depth += 1;
        self.weigh(depth, factor);
        Ok(outcome)
    }

    /// The index in `Memo::dists` of the outcomes of `run(inputs)` told apart by `project`,
    /// enumerating them the first time; `None` when that enumeration failed.
    pub(crate) fn call_dist<I: Ord + 'static, O: Clone + 'static, K: Ord>(
        &mut self,
        site: usize,
        inputs: I,
        project: impl Fn(&O) -> K,
        mut run: impl FnMut(&mut Enumerator, &I) -> Result<O, Error>,
    ) -> Option<u32> {
        self.call_dist_by(site, inputs, project, |sub, limit, inputs, sink| {
            walk(
                sub,
                limit,
                |d| run(d, inputs),
                |o, w| {
                    let (n, d, big) = w.into_parts();
                    sink(o, n, d, big)
                },
            )
        })
    }

    /// `call_dist` with the callee's leaves given by `leaves` (a replay, `walk`, or a forward pass,
    /// `forward::forward_walk`), which takes the callee's enumerator, the leaf limit, the inputs
    /// and where each leaf goes.
    pub(crate) fn call_dist_by<I: Ord + 'static, O: Clone + 'static, K: Ord>(
        &mut self,
        site: usize,
        inputs: I,
        project: impl Fn(&O) -> K,
        leaves: impl FnOnce(&mut Enumerator, u64, &I, &mut HandOn<'_, O>) -> Result<(), Error>,
    ) -> Option<u32> {
        let known = self.memo.sites.iter().position(|(s, _)| *s == site);
        if let Some(i) = known {
            // A site is one call statement, so one input type; any other is not ours.
            let map = self.memo.sites.get(i)?.1.downcast_ref::<SiteMap<I>>()?;
            if let Some(hit) = map.get(&inputs) {
                return hit;
            }
        }
        let mut sub = Enumerator {
            memo: std::mem::take(&mut self.memo),
            // The dice distributions too: the callee's are often the caller's (entries are only
            // ever added, so the caller's path keeps its indices).
            cache: std::mem::take(&mut self.cache),
            nested: true,
            ..Enumerator::bare()
        };
        // Per class (what the caller reads), the first outcome met in it and the class's weight.
        // A callee has few classes and may have thousands of leaves: a leaf is added to its
        // class among the last few in the list, or else starts one; sorted by class (stable: the
        // first met stays first) and merged at the end, and whenever the list has doubled.
        let mut classes: Vec<(K, O, Weight)> = Vec::with_capacity(16);
        let mut merged_len = 0usize;
        let walked = leaves(&mut sub, self.limit, &inputs, &mut |o, n, d, big| {
            let k = project(&o);
            // Leaves usually come with their classes in ascending order: a class after the last
            // one is new, and needs no search.
            let after_last = match classes.last_mut() {
                Some((last, _, slot)) => match (*last).cmp(&k) {
                    Ordering::Equal => {
                        slot.add_parts(n, d, big);
                        return;
                    }
                    Ordering::Less => true,
                    Ordering::Greater => false,
                },
                None => true,
            };
            if !after_last {
                if let Some((_, _, slot)) = classes.iter_mut().rev().take(16).find(|c| c.0 == k) {
                    slot.add_parts(n, d, big);
                    return;
                }
            }
            classes.push((k, o, Weight::from_parts(n, d, big)));
            if classes.len() >= 2 * merged_len + 32 {
                merge_classes(&mut classes);
                merged_len = classes.len();
            }
        });
        self.memo = std::mem::take(&mut sub.memo);
        self.cache = std::mem::take(&mut sub.cache);
        let index = match walked {
            Ok(()) => {
                merge_classes(&mut classes);
                let start = u32::try_from(self.memo.probs.len()).ok()?;
                let mut outcomes = Vec::with_capacity(classes.len());
                self.memo.probs.reserve(classes.len().max(8));
                for (_, o, w) in classes {
                    outcomes.push(o);
                    self.memo.probs.push(w.into_factor());
                }
                let end = u32::try_from(self.memo.probs.len()).ok()?;
                let index = u32::try_from(self.memo.dists.len()).ok()?;
                self.memo.dists.push(CallDist {
                    site,
                    probs: (start, end),
                    outcomes: Box::new(outcomes),
                });
                Some(index)
            }
            Err(_) => None,
        };
        match known {
            Some(i) => {
                let map = self.memo.sites.get_mut(i)?.1.downcast_mut::<SiteMap<I>>()?;
                map.more.insert(inputs, index);
            }
            None => self.memo.sites.push((
                site,
                Box::new(SiteMap {
                    first: (inputs, index),
                    more: BTreeMap::new(),
                }),
            )),
        }
        index
    }
}

/// A call from generated code under exact odds: branches over the callee's outcomes, told apart
/// only by what the caller reads of them (`project`), instead of replaying the callee's dice at
/// every leaf of the caller. The callee is enumerated once per distinct inputs (`run`, which
/// must be the callee with tracing off) and the classes are kept for the whole enumeration.
///
/// `site` names the call statement (unique among the calls one enumeration can meet: a number
/// per call of a system in generated code, the statement's address in the interpreter), and
/// classes are ordered by `project`'s value, so both backends walk the same tree.
///
/// `None` means "call it as usual": the dice are not enumerating, calls are made plain
/// (`with_plain_calls`), or the callee's own enumeration failed (an error on some branch), in
/// which case the call runs inline so the error is met exactly where plain enumeration meets it.
/// The caller passes `inputs` as a closure: it is built only when the call is new to the path,
/// not on every replay.
pub fn memo_call<D: Dice + ?Sized, I: Ord + 'static, O: Clone + 'static, K: Ord>(
    dice: &mut D,
    site: usize,
    inputs: impl FnOnce() -> I,
    project: impl Fn(&O) -> K,
    run: impl FnMut(&mut Enumerator, &I) -> Result<O, Error>,
) -> Option<Result<O, Error>> {
    memo_call_by(dice, site, |e| e.call_dist(site, inputs(), project, run))
}

/// `memo_call` with the callee's classes worked out by `dist` (the index in `Memo::dists`, `None`
/// when the callee's enumeration failed), when the call is new to the path.
pub(crate) fn memo_call_by<D: Dice + ?Sized, O: Clone + 'static>(
    dice: &mut D,
    site: usize,
    dist: impl FnOnce(&mut Enumerator) -> Option<u32>,
) -> Option<Result<O, Error>> {
    if PLAIN_CALLS.with(|p| p.get()) {
        return None;
    }
    let e = enumerator(dice)?;
    if let Some(step) = e.path.get(e.depth) {
        // A replay: the path says whether this call branched (then its branch is there) or ran
        // inline (then the callee's first roll or call is, of another site: calls do not recurse).
        if !step.call {
            return None;
        }
        return match e.memo.dists.get(step.cache as usize) {
            Some(d) if d.site == site => Some(e.take_call(site)),
            _ => None,
        };
    }
    let index = dist(e)?;
    let count = e.memo.dists.get(index as usize).map_or(0, CallDist::len);
    e.path.push(Step {
        branch: 0,
        count: u32::try_from(count).ok()?,
        cache: index,
        weight: None,
        call: true,
    });
    Some(e.take_call(site))
}

/// The enumerating dice behind `dice`, if that is what they are (generated code's calls ask
/// before `memo_call`).
pub fn enumerator<D: Dice + ?Sized>(dice: &mut D) -> Option<&mut Enumerator> {
    dice.enumerator_any()?.downcast_mut::<Enumerator>()
}

/// Where a callee's pass (`forward::forward_walk`) or replay hands each leaf: its outcome and its
/// weight, `n/d` or, when the last is given, that big value. The weight's parts go in registers;
/// a `Weight` would go through memory, and be read back at once, slowly.
pub(crate) type HandOn<'f, O> = dyn FnMut(O, u128, u128, Option<Box<BigRational>>) + 'f;
