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

use crate::dice::{Dice, DiceSpec};
use crate::error::Error;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::{BigRational, Ratio};
use num_traits::{CheckedAdd, CheckedMul, One, ToPrimitive, Zero};
use serde::{Serialize, Serializer};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

/// Exact probability: `Small(Ratio<u128>)` with checked arithmetic, falling back to
/// `Big(BigRational)` on overflow. Constructors keep values `Small` whenever they fit, but
/// equality and ordering are by value either way. The big value is boxed: a `Prob` is as small
/// as an enumeration's leaf weight, so the list of leaves becomes the distribution in place.
#[derive(Clone, Debug)]
pub enum Prob {
    Small(Ratio<u128>),
    Big(Box<BigRational>),
}

impl Prob {
    pub fn zero() -> Prob {
        Prob::Small(Ratio::new_raw(0, 1))
    }

    pub fn one() -> Prob {
        Prob::Small(Ratio::new_raw(1, 1))
    }

    /// `n/d`, reduced; `Error::DivisionByZero` when d = 0.
    pub fn new(n: u128, d: u128) -> Result<Prob, Error> {
        if d == 0 {
            return Err(Error::DivisionByZero);
        }
        let g = n.gcd(&d);
        Ok(Prob::Small(Ratio::new_raw(n / g, d / g)))
    }

    pub fn to_big(&self) -> BigRational {
        match self {
            Prob::Small(r) => BigRational::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom())),
            Prob::Big(b) => (**b).clone(),
        }
    }

    /// Demotes a big value to `Small` when numerator and denominator fit (keeps the fast path).
    fn from_big(b: BigRational) -> Prob {
        match (b.numer().to_u128(), b.denom().to_u128()) {
            (Some(n), Some(d)) => Prob::Small(Ratio::new_raw(n, d)),
            _ => Prob::Big(Box::new(b)),
        }
    }

    pub fn add(&self, o: &Prob) -> Prob {
        if let (Prob::Small(a), Prob::Small(b)) = (self, o) {
            if let Some(s) = add_narrow(a, b) {
                return Prob::Small(s);
            }
            if let Some(s) = a.checked_add(b) {
                return Prob::Small(s);
            }
        }
        Prob::from_big(self.to_big() + o.to_big())
    }

    pub fn mul(&self, o: &Prob) -> Prob {
        if let (Prob::Small(a), Prob::Small(b)) = (self, o) {
            if let Some(s) = mul_narrow(a, b) {
                return Prob::Small(s);
            }
            if let Some(s) = a.checked_mul(b) {
                return Prob::Small(s);
            }
        }
        Prob::from_big(self.to_big() * o.to_big())
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Prob::Small(r) => r.is_zero(),
            Prob::Big(b) => b.is_zero(),
        }
    }

    /// Percentage with `decimals` digits after the point, exact integer arithmetic, halves
    /// rounded up: 145/432 -> "33.56".
    pub fn percent(&self, decimals: u32) -> String {
        let b = self.to_big();
        let neg = b.numer().sign() == num_bigint::Sign::Minus;
        let n: BigUint = b.numer().magnitude().clone();
        let d: BigUint = b.denom().magnitude().clone();
        if d.is_zero() {
            return "NaN".to_string();
        }
        let scaled = n * BigUint::from(100u32) * BigUint::from(10u32).pow(decimals);
        let (mut q, r) = scaled.div_rem(&d);
        if r * 2u32 >= d {
            q += 1u32;
        }
        let mut digits = q.to_string();
        let decimals = decimals as usize;
        if decimals > 0 {
            while digits.len() <= decimals {
                digits.insert(0, '0');
            }
            digits.insert(digits.len() - decimals, '.');
        }
        if neg && q_is_nonzero(&digits) {
            digits.insert(0, '-');
        }
        digits
    }

    /// round(p * k), halves up, exact integer arithmetic; saturates at u64::MAX. For bar charts:
    /// `"█".repeat(p.scale_round(40))`. Negative values (only constructible by hand) give 0.
    pub fn scale_round(&self, k: u64) -> u64 {
        let b = self.to_big();
        if b.numer().sign() == num_bigint::Sign::Minus {
            return 0;
        }
        let n = b.numer().magnitude() * BigUint::from(k);
        let d = b.denom().magnitude();
        if d.is_zero() {
            return 0;
        }
        let (mut q, r) = n.div_rem(d);
        if r * 2u32 >= *d {
            q += 1u32;
        }
        q.to_u64().unwrap_or(u64::MAX)
    }

    /// The nearest `f64`, for comparing with an estimate (never for the rules' arithmetic).
    pub fn to_f64(&self) -> f64 {
        match self {
            Prob::Small(r) => *r.numer() as f64 / *r.denom() as f64,
            Prob::Big(b) => b.to_f64().unwrap_or(f64::NAN),
        }
    }

    /// "145/432", reduced ("0/1", "1/1" for the extremes).
    pub fn numer_denom_string(&self) -> String {
        match self {
            Prob::Small(r) => format!("{}/{}", r.numer(), r.denom()),
            Prob::Big(b) => format!("{}/{}", b.numer(), b.denom()),
        }
    }
}

/// The four parts of two fractions, when each fits in 64 bits.
fn narrow(a: &Ratio<u128>, b: &Ratio<u128>) -> Option<(u64, u64, u64, u64)> {
    Some((
        u64::try_from(*a.numer()).ok()?,
        u64::try_from(*a.denom()).ok()?,
        u64::try_from(*b.numer()).ok()?,
        u64::try_from(*b.denom()).ok()?,
    ))
}

/// `a * b`, reduced, by greatest common divisors of 64-bit parts (far cheaper than u128's, which
/// `Ratio`'s own product takes); `None` when a part is wider. Both must be reduced: then so is the
/// product of `a/g1 * c/g2` over `b/g2 * d/g1` (Knuth, TAOCP 4.5.1), and it fits in u128.
fn mul_narrow(x: &Ratio<u128>, y: &Ratio<u128>) -> Option<Ratio<u128>> {
    let (a, b, c, d) = narrow(x, y)?;
    if b == 0 || d == 0 {
        return None;
    }
    if a == 0 || c == 0 {
        return Some(Ratio::new_raw(0, 1));
    }
    let g1 = gcd_u64(a, d);
    let g2 = gcd_u64(c, b);
    let n = u128::from(a / g1) * u128::from(c / g2);
    let m = u128::from(b / g2) * u128::from(d / g1);
    Some(Ratio::new_raw(n, m))
}

/// `a + b`, reduced, with 64-bit divisors (Knuth, TAOCP 4.5.1: with g = gcd(b, d), the sum is
/// t = a(d/g) + c(b/g) over (b/g)d, and only gcd(t, g) divides both); `None` when a part is
/// wider or the sum overflows. Both must be reduced.
fn add_narrow(x: &Ratio<u128>, y: &Ratio<u128>) -> Option<Ratio<u128>> {
    let (a, b, c, d) = narrow(x, y)?;
    if b == 0 || d == 0 {
        return None;
    }
    let g = gcd_u64(b, d);
    let t = (u128::from(a) * u128::from(d / g)).checked_add(u128::from(c) * u128::from(b / g))?;
    if t == 0 {
        return Some(Ratio::new_raw(0, 1));
    }
    // t mod g fits in 64 bits: g does.
    let g2 = gcd_u64(u64::try_from(t % u128::from(g)).ok()?, g);
    let n = t / u128::from(g2);
    let m = u128::from(b / g) * u128::from(d / g2);
    Some(Ratio::new_raw(n, m))
}

/// The greatest common divisor of two u64 (0 with 0 is 0), by Stein's binary algorithm in its
/// branch-free form: each step takes the smaller from the larger (a conditional swap, not a
/// branch the processor must guess) and drops the difference's factors of two. The gcds of exact
/// odds are of unrelated numbers, whose comparisons a branch predictor guesses no better than
/// chance; `num_integer`'s branching loop spent most of its time there.
pub(crate) fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

fn q_is_nonzero(digits: &str) -> bool {
    digits.bytes().any(|b| b.is_ascii_digit() && b != b'0')
}

impl PartialEq for Prob {
    fn eq(&self, o: &Prob) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Prob {}

impl PartialOrd for Prob {
    fn partial_cmp(&self, o: &Prob) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Prob {
    fn cmp(&self, o: &Prob) -> Ordering {
        match (self, o) {
            // Ratio's comparison works by continued fractions and never overflows.
            (Prob::Small(a), Prob::Small(b)) => a.cmp(b),
            _ => self.to_big().cmp(&o.to_big()),
        }
    }
}

impl fmt::Display for Prob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.numer_denom_string())
    }
}

impl Serialize for Prob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.numer_denom_string())
    }
}

/// An exact outcome distribution, sorted by outcome; probabilities sum to exactly 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution<O> {
    pub outcomes: Vec<(O, Prob)>,
}

impl<O> Distribution<O> {
    /// Total probability of the outcomes satisfying `pred`.
    pub fn probability(&self, mut pred: impl FnMut(&O) -> bool) -> Prob {
        self.outcomes
            .iter()
            .filter(|(o, _)| pred(o))
            .fold(Prob::zero(), |acc, (_, p)| acc.add(p))
    }

    /// Sum of all probabilities (exactly 1 for a distribution from `enumerate`).
    pub fn total(&self) -> Prob {
        self.probability(|_| true)
    }

    /// Distribution of `f(outcome)`: e.g. the marginal distribution of one outcome field.
    pub fn marginal<K: Ord>(&self, mut f: impl FnMut(&O) -> K) -> Distribution<K> {
        let mut m: BTreeMap<K, Prob> = BTreeMap::new();
        for (o, p) in &self.outcomes {
            let slot = m.entry(f(o)).or_insert_with(Prob::zero);
            *slot = slot.add(p);
        }
        Distribution {
            outcomes: m.into_iter().collect(),
        }
    }
}

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

/// One roll on the current path.
#[derive(Clone, Copy, Debug)]
struct Step {
    branch: u32,
    count: u32,
    /// Index into `Enumerator::cache`, also used to detect a resolver that rolls differently on
    /// replay.
    cache: u32,
    /// The weight of the path up to and including this roll, as an unreduced fraction; `None`
    /// once it overflows u128 (the leaf's weight is then rebuilt exactly from the path).
    weight: Option<(u128, u128)>,
    /// A call's outcomes (`memo_call`), not dice: `cache` indexes `Memo::dists`.
    call: bool,
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
    path: Vec<Step>,
    depth: usize,
    /// The first `fresh` steps of `path` hold their weight for the current leaf.
    fresh: usize,
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

    fn start_leaf(&mut self) {
        self.depth = 0;
        // Each path is a resolution of its own (`steps`).
        crate::steps::begin();
    }

    /// Stores the weight of the path through the roll or call at `depth`, whose own branch has
    /// probability `factor` (`None`: too big for u128), unless it still holds from the last leaf.
    fn weigh(&mut self, depth: usize, factor: Option<(u128, u128)>) {
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

    /// Moves the path to the next leaf; false when every leaf has been visited.
    /// The share of the tree left of the current path, in millionths: each roll's branch index
    /// over its branch count, nested. Counts branches, not probability, which is enough to show
    /// progress.
    fn done_ppm(&self) -> u64 {
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

    fn advance(&mut self) -> bool {
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
    fn leaf_weight(&self) -> Result<Weight, Error> {
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

/// Where a callee's pass (`forward::forward_walk`) or replay hands each leaf: its outcome and its
/// weight, `n/d` or, when the last is given, that big value. The weight's parts go in registers;
/// a `Weight` would go through memory, and be read back at once, slowly.
pub(crate) type HandOn<'f, O> = dyn FnMut(O, u128, u128, Option<Box<BigRational>>) + 'f;

/// A leaf weight or accumulated probability before reduction.
#[derive(Clone, Debug)]
pub(crate) enum Weight {
    Small(u128, u128),
    /// Boxed: a leaf list entry stays small (most weights are `Small`).
    Big(Box<BigRational>),
}

impl Weight {
    fn to_big(&self) -> BigRational {
        match self {
            Weight::Small(n, d) => BigRational::new(BigInt::from(*n), BigInt::from(*d)),
            Weight::Big(b) => (**b).clone(),
        }
    }

    /// This weight times `n/d` (`d` > 0), unreduced while it fits in u128. The common case (four
    /// 64-bit parts) is inlined into the forward pass's loops, its result kept in registers; the
    /// rest is a call.
    #[inline(always)]
    pub(crate) fn times(&self, n: u128, d: u128) -> Weight {
        if let Weight::Small(a, b) = self {
            if (*a | *b | n | d) >> 64 == 0 {
                // Four 64-bit parts: each product fits in u128, no check needed.
                return Weight::Small(*a * n, *b * d);
            }
        }
        self.times_wide(n, d)
    }

    /// `times` past 64-bit parts: checked u128 products, else exact big numbers.
    #[cold]
    #[inline(never)]
    fn times_wide(&self, n: u128, d: u128) -> Weight {
        if let Weight::Small(a, b) = self {
            if let (Some(x), Some(y)) = (u128::checked_mul(*a, n), u128::checked_mul(*b, d)) {
                return Weight::Small(x, y);
            }
        }
        Weight::Big(Box::new(self.to_big() * BigRational::new(BigInt::from(n), BigInt::from(d))))
    }

    /// This weight times `p`.
    #[inline]
    pub(crate) fn times_prob(&self, p: &Prob) -> Weight {
        match p {
            Prob::Small(r) => self.times(*r.numer(), *r.denom()),
            Prob::Big(b) => Weight::Big(Box::new(self.to_big() * (**b).clone())),
        }
    }

    /// Adds `o`. Leaves of the same outcome usually share a denominator (same dice on the way),
    /// which makes this one u128 addition; otherwise a common denominator, then big numbers.
    fn add(&mut self, o: &Weight) {
        if let (Weight::Small(n1, d1), Weight::Small(n2, d2)) = (&*self, o) {
            if let Some((n, d)) = add_unreduced(*n1, *d1, *n2, *d2) {
                *self = Weight::Small(n, d);
                return;
            }
        }
        *self = Weight::Big(Box::new(self.to_big() + o.to_big()));
    }

    /// The weight as a callee's pass hands it on (`HandOn`): `n/d`, or the big value.
    #[inline(always)]
    pub(crate) fn into_parts(self) -> (u128, u128, Option<Box<BigRational>>) {
        match self {
            Weight::Small(n, d) => (n, d, None),
            Weight::Big(b) => (0, 1, Some(b)),
        }
    }

    #[inline(always)]
    fn from_parts(n: u128, d: u128, big: Option<Box<BigRational>>) -> Weight {
        match big {
            None => Weight::Small(n, d),
            Some(b) => Weight::Big(b),
        }
    }

    /// `add` of a weight given by its parts (`into_parts`): the common case, two small weights
    /// whose sum fits, inlined.
    #[inline(always)]
    fn add_parts(&mut self, n: u128, d: u128, big: Option<Box<BigRational>>) {
        if let (Weight::Small(n1, d1), None) = (&*self, &big) {
            if let Some((n, d)) = add_unreduced(*n1, *d1, n, d) {
                *self = Weight::Small(n, d);
                return;
            }
        }
        self.add(&Weight::from_parts(n, d, big));
    }

    /// The weight as a `Prob`, unreduced (a leaf of `Leaves`, reduced when the list becomes the
    /// distribution).
    #[inline(always)]
    fn into_unreduced(self) -> Prob {
        match self {
            Weight::Small(n, d) => Prob::Small(Ratio::new_raw(n, d)),
            Weight::Big(b) => Prob::Big(b),
        }
    }

    /// The weight as a factor of the paths through a call's class (`CallDist::probs`), which is
    /// only ever multiplied into path weights, never shown or compared: reduced only when its
    /// denominator passes 2^32. A class's weight is a sum over the callee's leaves, a few dice
    /// totals at most below it, and its gcd costs more than the wider products it would spare.
    fn into_factor(self) -> Prob {
        match self {
            Weight::Small(n, d) if d >> 32 == 0 => Prob::Small(Ratio::new_raw(n, d)),
            w => w.into_prob(),
        }
    }

    fn into_prob(self) -> Prob {
        self.into_unreduced().reduced()
    }
}

/// `n1/d1 + n2/d2`, unreduced, if it fits in u128. Leaves of the same outcome usually share a
/// denominator (same dice on the way), which makes this one addition.
#[inline]
fn add_unreduced(n1: u128, d1: u128, n2: u128, d2: u128) -> Option<(u128, u128)> {
    if d1 == d2 {
        return n1.checked_add(n2).map(|n| (n, d1));
    }
    let g = d1.gcd(&d2);
    (d1 / g).checked_mul(d2).and_then(|l| {
        let a = n1.checked_mul(l / d1)?;
        let b = n2.checked_mul(l / d2)?;
        a.checked_add(b).map(|n| (n, l))
    })
}

impl Prob {
    /// This probability, reduced (a leaf's weight, as `Leaves` keeps it, in lowest terms).
    fn reduced(mut self) -> Prob {
        self.reduce();
        self
    }

    /// Reduces this probability where it is (inlined into `Leaves::finish`'s loop, so the
    /// reduced parts are stored straight into the list, not returned through memory and copied).
    #[inline(always)]
    fn reduce(&mut self) {
        if let Prob::Small(r) = self {
            let (n, d) = (*r.numer(), *r.denom());
            // u64 division is far cheaper than u128's, and most weights fit.
            if let (Ok(n), Ok(d)) = (u64::try_from(n), u64::try_from(d)) {
                let g = gcd_u64(n, d).max(1);
                *r = Ratio::new_raw(u128::from(n / g), u128::from(d / g));
            } else {
                let g = n.gcd(&d).max(1);
                *r = Ratio::new_raw(n / g, d / g);
            }
        } else {
            self.reduce_big();
        }
    }

    #[cold]
    #[inline(never)]
    fn reduce_big(&mut self) {
        if let Prob::Big(b) = self {
            // Big sums and products come reduced from num-rational; a value built raw is reduced
            // here all the same.
            let b = std::mem::take(&mut **b).reduced();
            *self = Prob::from_big(b);
        }
    }

    /// Adds `o`, unreduced while it fits in u128 (two leaves' weights of one outcome).
    fn add_unreduced(&mut self, o: &Prob) {
        if let (Prob::Small(a), Prob::Small(b)) = (&*self, o) {
            if let Some((n, d)) = add_unreduced(*a.numer(), *a.denom(), *b.numer(), *b.denom()) {
                *self = Prob::Small(Ratio::new_raw(n, d));
                return;
            }
        }
        *self = Prob::Big(Box::new(self.to_big() + o.to_big()));
    }
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

/// The leaves of an enumeration in the order met, a leaf with the same outcome as the one before
/// added to it; sorted and merged at the end, and whenever the list has doubled since (memory
/// follows the distinct outcomes, not the leaves). Cheaper than a map searched at every leaf.
pub(crate) struct Leaves<O> {
    /// Each weight unreduced (`Weight::into_unreduced`) until `finish`.
    acc: Vec<(O, Prob)>,
    merged_len: usize,
}

impl<O> Default for Leaves<O> {
    fn default() -> Self {
        Leaves {
            acc: Vec::with_capacity(64),
            merged_len: 0,
        }
    }
}

impl<O: Ord> Leaves<O> {
    /// Adds a leaf; one with the outcome of the leaf before adds its weight to it.
    pub(crate) fn add(&mut self, o: O, w: Weight) {
        if let Some((last, slot)) = self.acc.last_mut() {
            if *last == o {
                slot.add_unreduced(&w.into_unreduced());
                return;
            }
        }
        self.push(o, w);
    }

    /// Adds a leaf without looking at the one before (a forward pass's `Sink`: most of its
    /// leaves differ, and the comparison of two outcomes just written costs more than the merge).
    #[inline(always)]
    pub(crate) fn push(&mut self, o: O, w: Weight) {
        match w {
            Weight::Small(n, d) => self.push_small(o, n, d),
            big => self.push_weight(o, big),
        }
    }

    /// `push` of a leaf whose weight is `n/d`: a call of its own, with the two parts in
    /// registers, so that they are stored straight into the list. (Built in the forward pass and
    /// copied in by `Vec::push`, which LLVM does not inline there, the weight was read back from
    /// memory just after it was written there, piece by piece: a stall at every leaf.)
    #[inline(never)]
    fn push_small(&mut self, o: O, n: u128, d: u128) {
        self.acc.push((o, Prob::Small(Ratio::new_raw(n, d))));
        self.merge_if_doubled();
    }

    fn push_weight(&mut self, o: O, w: Weight) {
        self.acc.push((o, w.into_unreduced()));
        self.merge_if_doubled();
    }

    #[inline(always)]
    fn merge_if_doubled(&mut self) {
        if self.acc.len() >= 2 * self.merged_len + 4096 {
            self.merge();
        }
    }

    #[cold]
    fn merge(&mut self) {
        merge_leaves(&mut self.acc);
        self.merged_len = self.acc.len();
    }

    /// The distribution: the list itself, merged, each weight reduced in place (no copy). A list
    /// with much more room than outcomes gives the room back: a chain of rounds keeps a
    /// distribution for each state of its frontier, hundreds of thousands of them.
    pub(crate) fn finish(mut self) -> Distribution<O> {
        merge_leaves(&mut self.acc);
        for (_, p) in self.acc.iter_mut() {
            p.reduce();
        }
        if self.acc.capacity() > 2 * self.acc.len() + 8 {
            self.acc.shrink_to_fit();
        }
        Distribution { outcomes: self.acc }
    }
}

/// Sorts `leaves` by outcome and adds up the weights of equal outcomes: one entry per outcome.
/// Exact sums do not depend on the order they are added in.
fn merge_leaves<O: Ord>(leaves: &mut Vec<(O, Prob)>) {
    merge_by_key(leaves);
}

/// Sorts a callee's classes by what the caller reads (stably: the outcome met first stays the
/// class's) and adds up the weights of each.
fn merge_classes<K: Ord, O>(classes: &mut Vec<(K, O, Weight)>) {
    merge_by_key(classes);
}

/// An entry of a list of weighted leaves or classes: what it is told apart by, and its weight.
trait Weighed {
    type Key: Ord;
    fn key(&self) -> &Self::Key;
    /// Adds the weight of `o` (an entry of the same key) to this one's.
    fn absorb(&mut self, o: &Self);
}

impl<O: Ord> Weighed for (O, Prob) {
    type Key = O;
    fn key(&self) -> &O {
        &self.0
    }
    fn absorb(&mut self, o: &Self) {
        self.1.add_unreduced(&o.1);
    }
}

impl<K: Ord, O> Weighed for (K, O, Weight) {
    type Key = K;
    fn key(&self) -> &K {
        &self.0
    }
    fn absorb(&mut self, o: &Self) {
        self.2.add(&o.2);
    }
}

/// Sorts `items` by key (stably: of equal keys, the item met first stays first) and merges each
/// run of equal keys into its first item, adding up their weights.
///
/// A forward pass meets its leaves, and a callee its classes, nearly in order: long ascending
/// runs with an item out of place here and there (a call's classes are ordered by what the caller
/// reads, which need not be the order of the caller's outcome). So the list is walked once; an
/// item smaller than the one before is moved back to its place in the sorted part (found by
/// binary search, after the items equal to it), and equal neighbours are merged at the end. Past
/// `8 n + 64` items moved, the list is far from sorted and the library's stable sort finishes.
fn merge_by_key<T: Weighed>(items: &mut Vec<T>) {
    let budget = 8 * items.len() + 64;
    let mut moved = 0usize;
    let mut equal = false;
    for i in 1..items.len() {
        let (done, rest) = items.split_at(i);
        let (Some(last), Some(item)) = (done.last(), rest.first()) else {
            break;
        };
        match last.key().cmp(item.key()) {
            Ordering::Less => {}
            Ordering::Equal => equal = true,
            Ordering::Greater => {
                let at = done.partition_point(|x| x.key() <= item.key());
                moved += i - at;
                if moved > budget {
                    items.sort_by(|a, b| a.key().cmp(b.key()));
                    equal = true;
                    break;
                }
                equal |= at > 0 && done.get(at - 1).is_some_and(|x| x.key() == item.key());
                if let Some(part) = items.get_mut(at..=i) {
                    part.rotate_right(1);
                }
            }
        }
    }
    if equal {
        items.dedup_by(|next, kept| {
            if next.key() != kept.key() {
                return false;
            }
            kept.absorb(next);
            true
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

/// The exact distribution of a procedure run as a chain of rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// The outcomes of the rounds that ended the procedure (their `until` field yes), merged over
    /// every round: the distribution of how it ended, short of `unfinished`.
    pub end: Distribution<crate::value::Value>,
    /// The probability that the procedure has ended after round 1, 2, ... (cumulative).
    pub finished_by_round: Vec<Prob>,
    /// The probability that it is still running after the last round computed (0 when every
    /// path ended within `max_rounds`).
    pub unfinished: Prob,
    /// Rounds enumerated: one per distinct state, but for a state met again after a round apart
    /// (enumerated again rather than kept).
    pub states: usize,
}

#[cfg(test)]
mod tests {
    use super::gcd_u64;
    use num_integer::Integer;

    /// Merging sorts by key, keeps the first item met of each key and adds the weights, whether
    /// the list is sorted, nearly sorted (a few items out of place, the forward pass's usual
    /// case), reversed or shuffled (past the budget of moves, where the library sort finishes).
    #[test]
    fn merging_equals_a_map_of_first_items_and_sums() {
        use super::{merge_classes, Weight};
        use std::collections::BTreeMap;
        let mut x: u64 = 0x853C_49E6_748F_EA9B;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        };
        for case in 0..400u64 {
            let len = (case % 97) as usize;
            let mut keys: Vec<u64> = (0..len).map(|_| next() % (1 + case % 40)).collect();
            match case % 4 {
                0 => keys.sort_unstable(),
                1 => {
                    keys.sort_unstable();
                    // A few items out of place, and a few repeated.
                    for _ in 0..(case % 5) {
                        if len > 1 {
                            let (a, b) = ((next() as usize) % len, (next() as usize) % len);
                            keys.swap(a, b);
                        }
                    }
                }
                2 => keys.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut items: Vec<(u64, usize, Weight)> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (k, i, Weight::Small(u128::from(k) + 1, 7)))
                .collect();
            let mut want: BTreeMap<u64, (usize, u128)> = BTreeMap::new();
            for &(k, i, _) in &items {
                want.entry(k).or_insert((i, 0)).1 += u128::from(k) + 1;
            }
            merge_classes(&mut items);
            let got: Vec<(u64, usize, u128)> = items
                .into_iter()
                .map(|(k, i, w)| match w {
                    Weight::Small(n, 7) => (k, i, n),
                    other => panic!("weight {other:?}"),
                })
                .collect();
            let want: Vec<(u64, usize, u128)> = want.into_iter().map(|(k, (i, n))| (k, i, n)).collect();
            assert_eq!(got, want, "case {case}: {keys:?}");
        }
    }

    /// The leaves become the distribution in place: each outcome once, in order, its weights
    /// summed (unreduced, over different denominators, past u128 into big numbers) and then
    /// reduced where they lie, small values back in `Prob::Small`.
    #[test]
    fn leaves_sum_and_reduce_in_place() {
        use super::{Leaves, Prob, Weight};
        use num_bigint::BigInt;
        use num_rational::{BigRational, Ratio};
        let small = |n: u128, d: u128| Prob::Small(Ratio::new_raw(n, d));
        let mut leaves: Leaves<u8> = Leaves::default();
        // Outcome 3: 2/8 + 3/12 = 1/2, met apart, with different denominators.
        leaves.push(3, Weight::Small(2, 8));
        leaves.push(1, Weight::Small(6, 36));
        leaves.push(3, Weight::Small(3, 12));
        // Outcome 2: the replay's `add` of equal neighbours; 1/4 + 1/12 = 1/3.
        leaves.add(2, Weight::Small(9, 36));
        leaves.add(2, Weight::Small(1, 12));
        // Outcome 0: a weight past u128, plus one that brings the sum back to a small 0/1 + ...
        let huge = BigInt::from(u128::MAX) * BigInt::from(4u8);
        leaves.push(
            0,
            Weight::Big(Box::new(BigRational::new_raw(huge.clone(), huge * BigInt::from(5u8)))),
        );
        // Outcome 4: a denominator whose product with another's overflows u128 when summed.
        leaves.push(4, Weight::Small(1, u128::MAX));
        leaves.push(4, Weight::Small(1, u128::MAX - 1));
        let d = leaves.finish();
        let keys: Vec<u8> = d.outcomes.iter().map(|(o, _)| *o).collect();
        assert_eq!(keys, vec![0, 1, 2, 3, 4]);
        let reduced: Vec<String> = d.outcomes.iter().map(|(_, p)| p.numer_denom_string()).collect();
        let m = BigInt::from(u128::MAX);
        let four = BigRational::new(BigInt::from(1), m.clone()) + BigRational::new(BigInt::from(1), m - BigInt::from(1));
        assert_eq!(reduced[..4], ["1/5", "1/6", "1/3", "1/2"]);
        assert_eq!(reduced[4], format!("{}/{}", four.numer(), four.denom()));
        // Small values are `Small` again, with their lowest terms inside.
        assert!(matches!(&d.outcomes[0].1, Prob::Small(r) if *r.numer() == 1 && *r.denom() == 5));
        assert!(matches!(&d.outcomes[3].1, Prob::Small(r) if *r.numer() == 1 && *r.denom() == 2));
        assert!(matches!(&d.outcomes[4].1, Prob::Big(_)));
        assert_eq!(d.outcomes[3].1, small(1, 2));
        // The list gave back the room it did not need (a chain keeps many distributions).
        assert!(
            d.outcomes.capacity() <= 2 * d.outcomes.len() + 8,
            "room for {}",
            d.outcomes.capacity()
        );
    }

    #[test]
    fn binary_gcd_equals_euclid() {
        let mut values: Vec<u64> = vec![
            0,
            1,
            2,
            3,
            6,
            36,
            1296,
            1 << 63,
            u64::MAX,
            u64::MAX - 1,
            6u64.pow(24),
            2u64.pow(40) * 3u64.pow(10),
        ];
        // A fixed linear congruential sequence: numbers of every size and shape.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..300 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            values.push(x >> (x % 64));
        }
        for &a in &values {
            for &b in &values {
                assert_eq!(gcd_u64(a, b), a.gcd(&b), "gcd({a}, {b})");
            }
        }
    }
}
