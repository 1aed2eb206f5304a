//! Exact odds by a forward pass: generated code (`rt_fwd_<resolver>`) runs a resolver's body once,
//! and at each roll or call goes through the distinct values (or the callee's classes) in a loop
//! with the rest of the body inside it, handing each leaf's outcome and weight to a sink. What
//! comes before a roll runs once per node of the tree, not once per leaf as in the replay
//! (`odds::enumerate`), and no path is kept.
//!
//! It is an optimisation of the replay and must give exactly what the replay gives: the same
//! leaves in the same order (rolls go through their values in ascending order, calls through
//! their classes as `memo_call` orders them), merged the same way. Where the forward pass meets
//! any error (a failed `require`, a limit, a callee whose own enumeration fails, a cancelled
//! watch), `enumerate_forward` runs the replay instead, so errors are the replay's, word for word.

use crate::dice::{Dice, DiceSpec};
use crate::error::Error;
use crate::odds::{leaf_limit, memo_call_by, plain_calls, Distribution, Enumerator, HandOn, Leaves, Prob, Weight};

/// The weight of a path of a forward pass, how wide the tree is along it (the product of the
/// branch counts, which the replay checks on its first path against the leaf limit), and where
/// it lies in the tree, for progress reports: the share of the tree before it and its own share,
/// in millionths, by branch counts as the replay's `done_ppm` (0 once deeper than a millionth).
#[derive(Clone, Debug)]
pub struct Fw {
    weight: Weight,
    /// Saturates at u64::MAX, which is wider than any leaf limit.
    width: u64,
    done: u32,
    span: u32,
}

impl Fw {
    /// The root: weight 1, the whole tree.
    pub fn one() -> Fw {
        Fw {
            weight: Weight::Small(1, 1),
            width: 1,
            done: 0,
            span: 1_000_000,
        }
    }

    /// The share of the tree (millionths) of each of `branches` branches under this path: worked
    /// out once per roll or call, not once per branch.
    #[inline]
    pub fn split(&self, branches: usize) -> u32 {
        self.span / u32::try_from(branches.max(1)).unwrap_or(u32::MAX)
    }

    /// The path through branch `index` of a roll with `branches` values, a value thrown `count`
    /// times in `total`; `share` is `split(branches)`.
    #[inline(always)]
    pub fn roll(&self, count: u64, total: u64, branches: usize, index: usize, share: u32) -> Fw {
        self.branch(self.weight.times(u128::from(count), u128::from(total)), branches, index, share)
    }

    #[inline(always)]
    fn call(&self, p: &Prob, branches: usize, index: usize, share: u32) -> Fw {
        self.branch(self.weight.times_prob(p), branches, index, share)
    }

    /// The path through branch `index` of `branches`, of `share` of the tree each, with `weight`.
    #[inline(always)]
    fn branch(&self, weight: Weight, branches: usize, index: usize, share: u32) -> Fw {
        let before = u32::try_from(index).unwrap_or(u32::MAX).saturating_mul(share);
        Fw {
            weight,
            width: self.width.saturating_mul(u64::try_from(branches.max(1)).unwrap_or(u64::MAX)),
            done: self.done.saturating_add(before).min(1_000_000),
            span: share,
        }
    }
}

/// The distinct values of some dice (ascending) with their counts, and the count of them all.
pub type Values = (std::rc::Rc<[(i64, u64)]>, u64);

/// Where a forward pass hands each leaf: its outcome and its path. Generated code calls
/// [`Sink::leaf`] once per leaf, inlined, so that the outcome goes straight from the pass into
/// the list of leaves (a call through a closure per leaf passed it through memory, and read it
/// back at once, slowly).
///
/// The sink counts the leaves against the limit as the replay (`odds::walk`) does: past the
/// limit, or a first path wider than it, is `Error::TooManyBranches`; every 1024th leaf it
/// reports its progress to the watch, if any, and a cancelled watch stops it. The leaves are
/// kept as the replay keeps them (`odds::Leaves`, merged whenever the list has doubled), but
/// without comparing each with the one before: most differ, and the comparison of two outcomes
/// just written cost more than the merge saves. A callee's pass hands each leaf on to its
/// classes instead.
pub struct Sink<'f, O> {
    to: To<'f, O>,
    count: u64,
    limit: u64,
    watch: Option<std::sync::Arc<crate::watch::Watch>>,
    nested: bool,
}

/// Where a `Sink` puts its leaves.
enum To<'f, O> {
    /// The distribution's own pass: the leaves, kept.
    Keep(Leaves<O>),
    /// A callee's pass: each leaf on to its classes.
    HandOn(&'f mut HandOn<'f, O>),
}

impl<'f, O: Ord> Sink<'f, O> {
    fn new(e: &Enumerator, limit: u64, to: To<'f, O>) -> Sink<'f, O> {
        Sink {
            to,
            count: 0,
            limit,
            watch: crate::watch::current_watch(),
            nested: e.nested,
        }
    }

    /// A leaf: its outcome `o`, its path `fw`.
    #[inline(always)]
    pub fn leaf(&mut self, o: O, fw: Fw) -> Result<(), Error> {
        self.count += 1;
        // The replay refuses a first path wider than the limit (its width in u128; here a
        // saturated u64 counts as wider than any limit).
        if self.count > self.limit || (self.count == 1 && (fw.width > self.limit || fw.width == u64::MAX)) {
            return Err(Error::TooManyBranches { limit: self.limit });
        }
        if self.count % 1024 == 0 {
            self.report(fw.done)?;
        }
        match &mut self.to {
            To::Keep(leaves) => leaves.push(o, fw.weight),
            To::HandOn(to) => {
                let (n, d, big) = fw.weight.into_parts();
                to(o, n, d, big)
            }
        }
        Ok(())
    }

    /// Progress to the watch, every 1024 leaves; a cancelled watch stops the pass.
    #[cold]
    fn report(&self, done: u32) -> Result<(), Error> {
        if let Some(w) = &self.watch {
            use std::sync::atomic::Ordering::Relaxed;
            if !self.nested {
                w.leaves.store(self.count, Relaxed);
                w.done_ppm.store(u64::from(done), Relaxed);
            }
            if w.cancel.load(Relaxed) {
                // The replay that runs instead stops too (within its first thousand leaves),
                // with its own report.
                return Err(Error::internal("forward pass cancelled"));
            }
        }
        Ok(())
    }
}

/// The distribution of `fwd` (a resolver's forward pass), or, where it fails or calls are made
/// plain (`with_plain_calls`), of `replay` (the same resolver under the enumerating dice).
pub fn enumerate_forward<O: Ord + Clone>(
    fwd: impl FnOnce(&mut Enumerator, &mut Sink<'_, O>) -> Result<(), Error>,
    replay: impl FnMut(&mut Enumerator) -> Result<O, Error>,
) -> Result<Distribution<O>, Error> {
    let limit = leaf_limit();
    if plain_calls() {
        return crate::odds::enumerate_with_limit(limit, replay);
    }
    let mut e = Enumerator::with_shared_memo(false);
    e.limit = limit;
    // The pass is one resolution's steps, all its paths together: past the limit it fails, and the
    // replay below counts path by path.
    let _outer = crate::steps::Nested::new();
    crate::steps::begin();
    let mut sink = Sink::new(&e, limit, To::Keep(Leaves::default()));
    let walked = fwd(&mut e, &mut sink);
    e.share_memo();
    match (walked, sink.to) {
        (Ok(()), To::Keep(leaves)) => {
            STATS.with(|c| c.set((c.get().0 + 1, c.get().1)));
            Ok(leaves.finish())
        }
        _ => {
            STATS.with(|c| c.set((c.get().0, c.get().1 + 1)));
            crate::odds::enumerate_with_limit(limit, replay)
        }
    }
}

thread_local! {
    static STATS: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// The forward passes `enumerate_forward` completed on this thread so far, and those that failed
/// (the replay then ran instead): tests hold the forward pass to answering wherever the replay
/// does, and measure how often it serves.
pub fn forward_stats() -> (u64, u64) {
    STATS.with(|c| c.get())
}

/// Runs a callee's forward pass `f`, its leaves counted against `limit` (see [`Sink`]) and handed
/// on to `to`.
pub(crate) fn forward_walk<O: Ord>(
    e: &mut Enumerator,
    limit: u64,
    f: impl FnOnce(&mut Enumerator, &mut Sink<'_, O>) -> Result<(), Error>,
    to: &mut HandOn<'_, O>,
) -> Result<(), Error> {
    e.limit = limit;
    // A callee's pass counts its own steps; the caller's come back after it.
    let _caller = crate::steps::Nested::new();
    crate::steps::begin();
    f(e, &mut Sink::new(e, limit, To::HandOn(to)))
}

/// `memo_call` (a call under the replaying enumerator) of a callee with a forward pass: its
/// classes are worked out by that pass (`run`) instead of by replaying it.
pub fn memo_call_fwd<D: Dice + ?Sized, I: Ord + 'static, O: Ord + Clone + 'static, K: Ord>(
    dice: &mut D,
    site: usize,
    inputs: impl FnOnce() -> I,
    project: impl Fn(&O) -> K,
    run: impl FnMut(&mut Enumerator, &I, &mut Sink<'_, O>) -> Result<(), Error>,
) -> Option<Result<O, Error>> {
    memo_call_by(dice, site, |e| e.call_dist_fwd(site, inputs(), project, run))
}

impl Enumerator {
    /// The distinct values of `spec` (or, with `rows`, one per row of a table its values fall in,
    /// as `Dice::roll_classed` branches) with their counts, ascending, and the count of them all.
    pub fn fwd_dice(&mut self, spec: &DiceSpec, rows: Option<&[(i64, i64)]>) -> Result<Values, Error> {
        let i = self.cached(spec, rows)?;
        let c = self.cache.get(i).ok_or_else(|| Error::internal("enumerator cache index"))?;
        Ok((c.dist.clone(), c.total))
    }

    /// A call in a forward pass: the index of the callee's classes (what the caller reads of its
    /// outcomes, `project`), worked out by the callee's own forward pass `run` once per inputs, as
    /// `memo_call` does by replay.
    pub fn fwd_call<I: Ord + 'static, O: Ord + Clone + 'static, K: Ord>(
        &mut self,
        site: usize,
        inputs: impl FnOnce() -> I,
        project: impl Fn(&O) -> K,
        run: impl FnMut(&mut Enumerator, &I, &mut Sink<'_, O>) -> Result<(), Error>,
    ) -> Result<u32, Error> {
        self.call_dist_fwd(site, inputs(), project, run)
            .ok_or_else(|| Error::internal("a callee's enumeration failed"))
    }

    /// `odds::Enumerator::call_dist` with the callee's leaves from its forward pass `run`.
    fn call_dist_fwd<I: Ord + 'static, O: Ord + Clone + 'static, K: Ord>(
        &mut self,
        site: usize,
        inputs: I,
        project: impl Fn(&O) -> K,
        mut run: impl FnMut(&mut Enumerator, &I, &mut Sink<'_, O>) -> Result<(), Error>,
    ) -> Option<u32> {
        self.call_dist_by(site, inputs, project, |sub, limit, inputs, sink| {
            forward_walk(sub, limit, |e, s| run(e, inputs, s), sink)
        })
    }

    /// `fwd_call` for a callee without a forward pass: its classes come from its replay.
    pub fn fwd_call_replayed<I: Ord + 'static, O: Clone + 'static, K: Ord>(
        &mut self,
        site: usize,
        inputs: impl FnOnce() -> I,
        project: impl Fn(&O) -> K,
        run: impl FnMut(&mut Enumerator, &I) -> Result<O, Error>,
    ) -> Result<u32, Error> {
        self.call_dist(site, inputs(), project, run)
            .ok_or_else(|| Error::internal("a callee's enumeration failed"))
    }

    /// How many classes the call `index` (`fwd_call`) branches over.
    pub fn call_classes(&self, index: u32) -> usize {
        self.memo.dists.get(index as usize).map_or(0, crate::odds::CallDist::len)
    }

    /// Class `k` of the call `index`: its outcome, and the path `w` through it (`share` is
    /// `w.split(call_classes(index))`). Inlined into the forward pass's loop over the classes, so
    /// that the outcome and the path stay out of memory.
    #[inline(always)]
    pub fn call_class<O: Clone + 'static>(&self, index: u32, k: usize, w: &Fw, share: u32) -> Result<(O, Fw), Error> {
        let d = self
            .memo
            .dists
            .get(index as usize)
            .ok_or_else(|| Error::internal("enumerator call index"))?;
        let o = d
            .outcomes
            .downcast_ref::<Vec<O>>()
            .and_then(|v| v.get(k))
            .ok_or_else(|| Error::internal("enumerator call outcome"))?
            .clone();
        let p = self
            .memo
            .probs(d)
            .get(k)
            .ok_or_else(|| Error::internal("enumerator call outcome"))?;
        Ok((o, w.call(p, d.len(), k, share)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::Watch;
    use std::sync::atomic::Ordering::Relaxed;

    /// A d10, then, unless it shows 1, three more (9,001 leaves), the outcome the last die's
    /// parity: the sink's list passes 4096 leaves and is merged on the way, and the outcomes come
    /// out at exactly 9/20 and 11/20, as the replay gives them. Under a limit of 9,000 leaves the
    /// pass fails by its count (its first path is one die wide) and the replay fails the same
    /// way; a pass whose first path is wider than the limit fails at its first leaf.
    #[test]
    fn the_sink_merges_past_its_list_and_keeps_to_the_limit() {
        let spec = DiceSpec::new(1, 10);
        let pass = |e: &mut Enumerator, sink: &mut Sink<'_, i64>| -> Result<(), Error> {
            let (d, total) = e.fwd_dice(&spec, None)?;
            let n = d.len();
            let w = Fw::one();
            let s = w.split(n);
            for (i, &(a, c)) in d.iter().enumerate() {
                let w = w.roll(c, total, n, i, s);
                if a == 1 {
                    sink.leaf(1, w)?;
                    continue;
                }
                for j in 0..n {
                    let w = w.roll(1, total, n, j, s);
                    for k in 0..n {
                        let w = w.roll(1, total, n, k, s);
                        for (l, &(x, c)) in d.iter().enumerate() {
                            sink.leaf(x % 2, w.roll(c, total, n, l, s))?;
                        }
                    }
                }
            }
            Ok(())
        };
        let replay = |d: &mut Enumerator| -> Result<i64, Error> {
            let mut last = d.roll(&spec)?;
            if last != 1 {
                for _ in 0..3 {
                    last = d.roll(&spec)?;
                }
            }
            Ok(last % 2)
        };
        let before = forward_stats();
        let d = enumerate_forward(pass, |_| Err(Error::internal("the replay must not run"))).unwrap();
        assert_eq!(forward_stats().0, before.0 + 1, "the forward pass answered");
        let p = |n, d| Prob::Small(num_rational::Ratio::new(n, d));
        assert_eq!(d.outcomes, vec![(0, p(9, 20)), (1, p(11, 20))]);
        assert_eq!(d, crate::odds::enumerate(replay).unwrap());

        let limited = crate::odds::with_leaf_limit(9_000, || enumerate_forward(pass, replay));
        assert!(matches!(limited, Err(Error::TooManyBranches { limit: 9_000 })), "{limited:?}");
        assert_eq!(forward_stats().1, before.1 + 1, "the forward pass failed, then the replay");
        let mut e = Enumerator::bare();
        let counted = forward_walk(&mut e, 9_000, pass, &mut |_, _, _, _| {});
        assert!(matches!(counted, Err(Error::TooManyBranches { limit: 9_000 })), "{counted:?}");
        let mut e = Enumerator::bare();
        assert!(
            forward_walk(&mut e, 9_001, pass, &mut |_, _, _, _| {}).is_ok(),
            "9,001 leaves are within 9,001"
        );

        let wide =
            |_: &mut Enumerator, sink: &mut Sink<'_, i64>| -> Result<(), Error> { sink.leaf(0, Fw::one().roll(1, 10, 20_000, 0, 0)) };
        let mut e = Enumerator::bare();
        let r = forward_walk(&mut e, 10_000, wide, &mut |_, _, _, _| {});
        assert!(matches!(r, Err(Error::TooManyBranches { limit: 10_000 })), "{r:?}");
    }

    /// A forward pass written by hand as generated code writes one: three 3d6 rolls, 16 values
    /// each, 4096 leaves. Its distribution is the sum of 9d6, and the progress it reports to a
    /// watch grows with the leaves and stays within the tree.
    #[test]
    fn a_forward_pass_weighs_its_leaves_and_reports_its_progress() {
        let spec = DiceSpec::new(3, 6);
        let pass = |e: &mut Enumerator, sink: &mut Sink<'_, i64>, seen: &mut Vec<u64>, watch: &Watch| -> Result<(), Error> {
            let (d, total) = e.fwd_dice(&spec, None)?;
            let w = Fw::one();
            let s1 = w.split(d.len());
            for (i, &(a, c)) in d.iter().enumerate() {
                let w = w.roll(c, total, d.len(), i, s1);
                let s2 = w.split(d.len());
                for (j, &(b, c)) in d.iter().enumerate() {
                    let w = w.roll(c, total, d.len(), j, s2);
                    let s3 = w.split(d.len());
                    for (k, &(x, c)) in d.iter().enumerate() {
                        let w = w.roll(c, total, d.len(), k, s3);
                        sink.leaf(a + b + x, w)?;
                        seen.push(watch.done_ppm.load(Relaxed));
                    }
                }
            }
            Ok(())
        };
        let watch = std::sync::Arc::new(Watch::default());
        let mut seen = Vec::new();
        let forward = crate::watch::with_watch(watch.clone(), || {
            enumerate_forward(
                |e, s| pass(e, s, &mut seen, &watch),
                |_| Err(Error::internal("the replay must not run")),
            )
        })
        .unwrap();
        let nine = crate::odds::enumerate(|d| d.roll(&DiceSpec::new(9, 6))).unwrap();
        assert_eq!(forward, nine);
        assert_eq!(watch.leaves.load(Relaxed), 4096);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress never goes back");
        let last = *seen.last().unwrap();
        assert!(
            (990_000..=1_000_000).contains(&last),
            "the last report is near the whole tree: {last}"
        );
        assert!(seen[2047] > 400_000 && seen[2047] < 600_000, "half way: {}", seen[2047]);
    }
}
