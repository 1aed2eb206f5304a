//! `Enumerator`, the `Dice` that replays a resolver once per leaf of its roll tree: the path of
//! rolls and calls that drives the replay, the weight of the path, moving on to the next leaf,
//! and the distinct values of each roll's dice (with their table rows), shared per thread.

use super::calls::Memo;
use super::weight::Weight;
use super::{MAX_LEAVES, PLAIN_CALLS};
use crate::dice::{Dice, DiceSpec};
use crate::error::Error;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::One;

/// One roll on the current path.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub(super) branch: u32,
    pub(super) count: u32,
    /// Index into `Enumerator::cache`, also used to detect a resolver that rolls differently on
    /// replay.
    pub(super) cache: u32,
    /// The weight of the path up to and including this roll, as an unreduced fraction; `None`
    /// once it overflows u128 (the leaf's weight is then rebuilt exactly from the path).
    pub(super) weight: Option<(u128, u128)>,
    /// A call's outcomes (`memo_call`), not dice: `cache` indexes `Memo::dists`.
    pub(super) call: bool,
}

/// A cached distribution: values and counts of the DISTINCT read values, and their total; for a
/// roll read through a table (`Dice::roll_classed`), of its rows instead (`rows`): per row in
/// which a value falls, the least such value and the count of them all.
#[derive(Debug, Clone)]
pub(crate) struct Cached {
    spec: DiceSpec,
    rows: Option<std::rc::Rc<[(i64, i64)]>>,
    pub(crate) dist: std::rc::Rc<[(i64, u64)]>,
    pub(crate) total: u64,
}

/// `a == b`, field by field, always inlined: every replayed roll is checked against the dice its
/// path recorded, and the derived comparison was a call of its own.
#[inline(always)]
fn same_dice(a: &DiceSpec, b: &DiceSpec) -> bool {
    // Every field named: a new one must be added here too.
    let DiceSpec {
        count,
        sides,
        zero_based,
        read,
        reroll,
    } = a;
    *count == b.count && *sides == b.sides && *zero_based == b.zero_based && *read == b.read && *reroll == b.reroll
}

/// `dist` (ascending values with counts) with the values that fall in one of `rows` merged: one
/// entry per row met, at the least value in it, in ascending order of that value. A value in no
/// row stays alone (the table's lookup fails on it, as it would have).
fn classed(dist: &[(i64, u64)], rows: &[(i64, i64)]) -> Vec<(i64, u64)> {
    let mut out: Vec<(i64, u64)> = Vec::with_capacity(rows.len().min(dist.len()));
    let mut first_of_row: Vec<Option<usize>> = vec![None; rows.len()];
    for &(v, c) in dist {
        let row = rows.iter().position(|&(lo, hi)| lo <= v && v <= hi);
        match row.and_then(|r| first_of_row.get(r).copied().flatten()) {
            Some(i) => {
                if let Some(slot) = out.get_mut(i) {
                    slot.1 += c;
                }
            }
            None => {
                if let Some(slot) = row.and_then(|r| first_of_row.get_mut(r)) {
                    *slot = Some(out.len());
                }
                out.push((v, c));
            }
        }
    }
    out
}

thread_local! {
    /// The distributions of the dice thrown on this thread so far, with their table rows when
    /// branched over by row, at most `SHARED_DISTRIBUTIONS` (`shared_cached`): every enumeration
    /// of `4d6` needs the same 21 totals and counts.
    static DISTRIBUTIONS: std::cell::RefCell<Vec<Cached>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Most dice distributions kept per thread (`shared_cached`); past it they are computed each time.
const SHARED_DISTRIBUTIONS: usize = 64;

/// The distinct values of `spec` with their counts (or, with `rows`, one per row of a table they
/// fall in) and the count of them all, computed once per thread and shared: a resolver
/// enumerated again throws the same dice again.
fn shared_cached(spec: &DiceSpec, rows: Option<&[(i64, i64)]>) -> Result<Cached, Error> {
    let known = DISTRIBUTIONS.with(|c| c.borrow().iter().find(|k| k.spec == *spec && k.rows.as_deref() == rows).cloned());
    if let Some(k) = known {
        return Ok(k);
    }
    let plain = spec.distribution()?;
    let total = plain.iter().map(|&(_, c)| c).sum();
    let dist = match rows {
        Some(rows) => classed(&plain, rows).into(),
        None => plain.into(),
    };
    let made = Cached {
        spec: *spec,
        rows: rows.map(std::rc::Rc::from),
        dist,
        total,
    };
    DISTRIBUTIONS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < SHARED_DISTRIBUTIONS {
            c.push(made.clone());
        }
    });
    Ok(made)
}

/// `Dice` that enumerates every distinct read value of every roll; see the module docs.
///
/// The leaf weight is kept as an unreduced u128 fraction (product of count/total along the
/// path), stored with each roll of the path: a replayed roll whose branch, and every branch
/// before it, is unchanged since the last leaf (the first `fresh` rolls) reuses it, so a leaf
/// usually multiplies once, at the roll that moved, and no allocation. If it overflows the leaf's
/// weight is rebuilt exactly as a `BigRational` from the path.
#[derive(Debug)]
pub struct Enumerator {
    pub(super) path: Vec<Step>,
    pub(super) depth: usize,
    /// The first `fresh` steps of `path` hold their weight for the current leaf.
    pub(super) fresh: usize,
    pub(crate) cache: Vec<Cached>,
    pub(crate) memo: Memo,
    /// The enumeration of a callee inside another (`memo_call`): it leaves progress reports to
    /// the outer one.
    pub(crate) nested: bool,
    /// The leaf limit of the enumeration under way, which a callee's enumeration keeps.
    pub(crate) limit: u64,
}

impl Default for Enumerator {
    fn default() -> Self {
        Enumerator::new()
    }
}

impl Enumerator {
    pub fn new() -> Self {
        Enumerator {
            // Most resolvers roll or call a few times: one allocation, not three growths.
            path: Vec::with_capacity(8),
            ..Enumerator::bare()
        }
    }

    /// An enumerator that allocates nothing until it is used: a forward pass keeps no path, and
    /// a callee's may never roll.
    pub(crate) fn bare() -> Self {
        Enumerator {
            path: Vec::new(),
            depth: 0,
            fresh: 0,
            cache: Vec::new(),
            memo: Memo::default(),
            nested: false,
            limit: MAX_LEAVES,
        }
    }

    /// Index of `spec`'s distribution in the cache, computing it on first use. A linear scan:
    /// resolvers use a handful of distinct specs, and comparing a few small fields beats hashing.
    pub(crate) fn cached(&mut self, spec: &DiceSpec, rows: Option<&[(i64, i64)]>) -> Result<usize, Error> {
        if let Some(i) = self.cache.iter().position(|c| c.spec == *spec && c.rows.as_deref() == rows) {
            return Ok(i);
        }
        let c = shared_cached(spec, rows)?;
        if u32::try_from(c.dist.len()).is_err() {
            return Err(Error::DiceTooLarge { notation: spec.notation() });
        }
        self.cache.push(c);
        Ok(self.cache.len() - 1)
    }

    pub(super) fn start_leaf(&mut self) {
        self.depth = 0;
        // Each path is a resolution of its own (`steps`).
        crate::steps::begin();
    }

    /// Stores the weight of the path through the roll or call at `depth`, whose own branch has
    /// probability `factor` (`None`: too big for u128), unless it still holds from the last leaf.
    pub(super) fn weigh(&mut self, depth: usize, factor: Option<(u128, u128)>) {
        if depth >= self.fresh {
            // This roll's branch (or one before it) moved since its weight was stored.
            let before = match depth.checked_sub(1) {
                None => Some((1, 1)),
                Some(i) => self.path.get(i).and_then(|s| s.weight),
            };
            let weight = before
                .zip(factor)
                .and_then(|((n, d), (fn_, fd))| Some((n.checked_mul(fn_)?, d.checked_mul(fd)?)));
            if let Some(step) = self.path.get_mut(depth) {
                step.weight = weight;
            }
            self.fresh = depth + 1;
        }
    }

    /// The share of the tree left of the current path, in millionths: each roll's branch index
    /// over its branch count, nested. Counts branches, not probability, which is enough to show
    /// progress.
    pub(super) fn done_ppm(&self) -> u64 {
        let (mut done, mut scale) = (0u64, 1u64);
        for step in &self.path {
            scale = scale.saturating_mul(u64::from(step.count.max(1)));
            if scale > 1_000_000 {
                break; // deeper rolls move the estimate by less than a millionth
            }
            done += u64::from(step.branch) * 1_000_000 / scale;
        }
        done.min(1_000_000)
    }

    /// Moves the path to the next leaf; false when every leaf has been visited.
    pub(super) fn advance(&mut self) -> bool {
        while let Some(last) = self.path.last_mut() {
            if last.branch + 1 < last.count {
                last.branch += 1;
                // Every roll before this one keeps its branch, and so its weight.
                self.fresh = self.path.len() - 1;
                return true;
            }
            self.path.pop();
        }
        self.fresh = 0;
        false
    }

    /// The current leaf's weight as an unreduced fraction, or the exact big value on overflow.
    pub(super) fn leaf_weight(&self) -> Result<Weight, Error> {
        let last = match self.depth.checked_sub(1) {
            None => Some((1, 1)),
            Some(i) => self.path.get(i).ok_or_else(|| Error::internal("enumerator path depth"))?.weight,
        };
        if let Some((num, den)) = last {
            return Ok(Weight::Small(num, den));
        }
        let mut w = BigRational::one();
        for step in &self.path[..self.depth.min(self.path.len())] {
            if step.call {
                let p = self
                    .memo
                    .dists
                    .get(step.cache as usize)
                    .and_then(|d| self.memo.probs(d).get(step.branch as usize))
                    .ok_or_else(|| Error::internal("enumerator call index"))?;
                w *= p.to_big();
                continue;
            }
            let c = self
                .cache
                .get(step.cache as usize)
                .ok_or_else(|| Error::internal("enumerator cache index"))?;
            let &(_, count) = c
                .dist
                .get(step.branch as usize)
                .ok_or_else(|| Error::internal("enumerator branch index"))?;
            w *= BigRational::new(BigInt::from(count), BigInt::from(c.total));
        }
        Ok(Weight::Big(Box::new(w)))
    }
}

impl Enumerator {
    /// A roll of `spec`, branching over its distinct values, or over the rows of `rows` that its
    /// values fall in (`Dice::roll_classed`).
    fn roll_in(&mut self, spec: &DiceSpec, rows: Option<&[(i64, i64)]>) -> Result<i64, Error> {
        let depth = self.depth;
        let (ci, branch) = match self.path.get(depth) {
            Some(step) => {
                // A replayed roll: the same dice as last time, or the resolver is not deterministic.
                let ci = step.cache as usize;
                if step.call
                    || self
                        .cache
                        .get(ci)
                        .is_none_or(|c| !same_dice(&c.spec, spec) || c.rows.is_some() != rows.is_some())
                {
                    return Err(Error::internal(
                        "resolver rolled different dice when replayed; it must be deterministic",
                    ));
                }
                (ci, step.branch)
            }
            None => {
                let ci = self.cached(spec, rows)?;
                let count = self.cache.get(ci).map_or(0, |c| c.dist.len());
                // Fits: checked when the distribution was cached.
                self.path.push(Step {
                    branch: 0,
                    count: count as u32,
                    cache: ci as u32,
                    weight: None,
                    call: false,
                });
                (ci, 0)
            }
        };
        self.depth += 1;
        let c = self.cache.get(ci).ok_or_else(|| Error::internal("enumerator cache index"))?;
        let &(value, count) = c
            .dist
            .get(branch as usize)
            .ok_or_else(|| Error::internal("enumerator branch index"))?;
        let factor = Some((u128::from(count), u128::from(c.total)));
        self.weigh(depth, factor);
        Ok(value)
    }
}

impl Dice for Enumerator {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        self.roll_in(spec, None)
    }

    /// Branches over the rows, unless calls are made plain (`with_plain_calls`: the plain
    /// enumeration that the shortcuts must equal).
    fn roll_classed(&mut self, spec: &DiceSpec, _label: &str, rows: &[(i64, i64)]) -> Result<i64, Error> {
        if PLAIN_CALLS.with(|p| p.get()) {
            return self.roll_in(spec, None);
        }
        self.roll_in(spec, Some(rows))
    }

    fn enumerator_any(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn last_faces(&self) -> &[u16] {
        &[]
    }
}
