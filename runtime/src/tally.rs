//! The exact tally of a simulation's runs: counts of each categorical field's values, exact
//! sums of the numeric ones, histograms of the top-level whole numbers. A run's outcome comes in
//! flattened ([`crate::flat`]): as a `Value`, or field by field from a generated outcome through
//! [`Prepared`], the typed entry point a compiled resolver gives a simulation.

use crate::dice::Dice;
use crate::error::Error;
use crate::flat::{Flat, Flatten, Label, Path};
use crate::value::{Inputs, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use std::collections::BTreeMap;

/// A compiled resolver's inputs read once, for the many runs of a simulation.
pub trait Prepared {
    /// One run with `dice`, its outcome added to `tally` (as `tally` would add its `to_value`).
    fn run(&self, dice: &mut dyn Dice, tally: &mut Tally) -> Result<(), Error>;
}

/// Reads a compiled resolver's dynamic inputs once, as `run_quiet` reads them each run.
pub type PrepareFn = fn(&Inputs) -> Result<Box<dyn Prepared>, Error>;

/// Exact tallies of many runs, by flattened outcome field (`result`, `rounds`, `losses.infantry`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub runs: u64,
    /// Categorical fields (enums, yes/no, text): value → count, enum values in declaration order.
    pub categories: BTreeMap<String, BTreeMap<Value, u64>>,
    /// Numeric fields: exact sum and sum of squares.
    pub numbers: BTreeMap<String, (BigRational, BigRational)>,
    /// Numeric fields: the smallest and largest value any run gave.
    pub bounds: BTreeMap<String, (BigRational, BigRational)>,
    /// Top-level whole-number fields (`rounds`): how many runs gave each value, for a chart of
    /// the distribution; `None` once a field took more than [`MAX_HISTOGRAM_VALUES`] values
    /// (whatever the threads: a part past the limit makes the whole past it).
    pub histograms: BTreeMap<String, Option<BTreeMap<i64, u64>>>,
    /// Whole-number fields while runs are being added: sum, sum of squares, smallest and largest,
    /// exact in machine integers (a fraction per run was a tenth of a battle's time). `settle`
    /// moves them into `numbers` and `bounds` (and `cats` into `categories`); every tally a
    /// function here returns is settled.
    /// In the order the runs first met them: a run meets its fields in the order the last one
    /// did, so the next field is looked for where the last one was found, before `int_at`.
    ints: Vec<(String, IntSums)>,
    /// Where each field of `ints` is, by path.
    int_at: BTreeMap<String, usize>,
    /// Categorical fields while runs are being added, as `ints` are for whole numbers: each run
    /// meets them in the order the last one did, so the next is looked for where the last was
    /// found, before `cat_at`. `settle` adds them into `categories`.
    cats: Vec<(String, Counts)>,
    /// Where each field of `cats` is, by path.
    cat_at: BTreeMap<String, usize>,
    /// The events of the last run's flattened outcome, each leaf with its place in `ints` or
    /// `cats`: a run that repeats them adds its leaves there without building their paths.
    shape: Shape,
    /// Runs of a procedure simulated step after step ([`Until`]) that had not ended after its
    /// most rounds: counted in `runs`, with no outcome.
    pub unfinished: u64,
}

/// A categorical field's counts while runs are being added. Most fields take a few values (an
/// enum, yes or no), and a run mostly gives the value the last one gave: a short list, looked at
/// first where the last value was found, costs less than a search of a map by value (which a
/// field past [`FEW_VALUES`] values becomes). Compared as the map of counts it stands for.
#[derive(Clone, Debug)]
enum Counts {
    Few { items: Vec<(Value, u64)>, last: usize },
    Many(BTreeMap<Value, u64>),
}

/// Distinct values a categorical field keeps in a list ([`Counts`]) before a map.
const FEW_VALUES: usize = 16;

impl Default for Counts {
    fn default() -> Counts {
        Counts::Few {
            items: Vec::new(),
            last: 0,
        }
    }
}

impl Counts {
    /// Counts one run giving `value`.
    fn add(&mut self, value: &Value) {
        let (items, last) = match self {
            Counts::Few { items, last } => (items, last),
            Counts::Many(m) => return count_category(m, value),
        };
        if let Some((v, n)) = items.get_mut(*last) {
            if v == value {
                *n += 1;
                return;
            }
        }
        if let Some(i) = items.iter().position(|(v, _)| v == value) {
            if let Some((_, n)) = items.get_mut(i) {
                *n += 1;
            }
            *last = i;
        } else if items.len() < FEW_VALUES {
            items.push((value.clone(), 1));
            *last = items.len() - 1;
        } else {
            let mut m: BTreeMap<Value, u64> = std::mem::take(items).into_iter().collect();
            count_category(&mut m, value);
            *self = Counts::Many(m);
        }
    }

    /// The counts, value → runs.
    fn into_map(self) -> BTreeMap<Value, u64> {
        match self {
            Counts::Few { items, .. } => items.into_iter().collect(),
            Counts::Many(m) => m,
        }
    }
}

impl PartialEq for Counts {
    fn eq(&self, o: &Counts) -> bool {
        self.clone().into_map() == o.clone().into_map()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct IntSums {
    sum: i128,
    squares: i128,
    min: i64,
    max: i64,
}

impl IntSums {
    fn of(x: i64) -> IntSums {
        IntSums {
            sum: i128::from(x),
            squares: i128::from(x) * i128::from(x),
            min: x,
            max: x,
        }
    }
}

/// Distinct values a field's histogram keeps before it gives up (see [`Tally::histograms`]).
pub const MAX_HISTOGRAM_VALUES: usize = 1000;

impl Tally {
    /// Adds one run's outcome: a dynamic `Value`, or a generated outcome read field by field
    /// (the same events as its `to_value`, without building it).
    pub fn add_flat<O: Flatten + ?Sized>(&mut self, outcome: &O) {
        self.runs += 1;
        let mut shape = std::mem::take(&mut self.shape);
        let mut run = Follow::start(self, &mut shape);
        outcome.flatten(&mut run);
        run.finish();
        self.shape = shape;
    }

    /// Counts `value` in categorical field `path`, looking first at position `guess` of `cats`;
    /// returns the field's position.
    fn category(&mut self, guess: usize, path: &str, value: &Value) -> usize {
        let k = match position(&self.cats, &self.cat_at, guess, path) {
            Some(k) => k,
            None => {
                self.cats.push((path.to_string(), Counts::default()));
                self.cat_at.insert(path.to_string(), self.cats.len() - 1);
                self.cats.len() - 1
            }
        };
        if let Some((_, counts)) = self.cats.get_mut(k) {
            counts.add(value);
        }
        k
    }

    fn count_value(&mut self, path: &str, value: i64, runs: u64) {
        count_in(&mut self.histograms, path, value, runs);
    }

    /// Adds `x` to whole-number field `path`, looking first at position `guess` of `ints`;
    /// returns the field's position.
    fn int(&mut self, guess: usize, path: &str, x: i64) -> usize {
        if let Some(k) = position(&self.ints, &self.int_at, guess, path) {
            self.add_int(k, x);
            return k;
        }
        let k = self.ints.len();
        self.ints.push((path.to_string(), IntSums::of(x)));
        self.int_at.insert(path.to_string(), k);
        k
    }

    /// Adds `x` to whole-number field `k` of `ints`. Past i128, what the field summed so far goes
    /// to the exact fractions first (the field keeps its place, which `Follow` relies on).
    fn add_int(&mut self, k: usize, x: i64) {
        let Some((path, e)) = self.ints.get_mut(k) else {
            return;
        };
        let square = i128::from(x) * i128::from(x);
        match (e.sum.checked_add(i128::from(x)), e.squares.checked_add(square)) {
            (Some(sum), Some(squares)) => {
                *e = IntSums {
                    sum,
                    squares,
                    min: e.min.min(x),
                    max: e.max.max(x),
                }
            }
            _ => {
                let so_far = std::mem::replace(e, IntSums::of(x));
                let path = path.clone();
                self.spill(path, so_far);
            }
        }
    }

    /// Moves the sums of whole-number field `path` into `numbers` and `bounds`.
    fn spill(&mut self, path: String, e: IntSums) {
        let (lo, hi) = (
            BigRational::from_integer(BigInt::from(e.min)),
            BigRational::from_integer(BigInt::from(e.max)),
        );
        self.bound(&path, &lo, &hi);
        let n = self
            .numbers
            .entry(path)
            .or_insert_with(|| (BigRational::zero(), BigRational::zero()));
        n.0 += BigRational::from_integer(BigInt::from(e.sum));
        n.1 += BigRational::from_integer(BigInt::from(e.squares));
    }

    /// Moves the whole-number sums into `numbers` and `bounds`, and the categorical counts into
    /// `categories`. The places of the fields change: the last run's shape is forgotten.
    pub(crate) fn settle(&mut self) {
        self.shape.clear();
        self.cat_at.clear();
        for (path, counts) in std::mem::take(&mut self.cats) {
            add_counts(&mut self.categories, path, counts.into_map());
        }
        self.int_at.clear();
        for (path, e) in std::mem::take(&mut self.ints) {
            self.spill(path, e);
        }
    }

    fn number(&mut self, path: &str, x: BigRational) {
        self.bound(path, &x, &x);
        let e = match self.numbers.get_mut(path) {
            Some(e) => e,
            None => self
                .numbers
                .entry(path.to_string())
                .or_insert_with(|| (BigRational::zero(), BigRational::zero())),
        };
        e.1 += &x * &x;
        e.0 += x;
    }

    fn bound(&mut self, path: &str, lo: &BigRational, hi: &BigRational) {
        match self.bounds.get_mut(path) {
            Some((min, max)) => {
                if lo < min {
                    *min = lo.clone();
                }
                if hi > max {
                    *max = hi.clone();
                }
            }
            None => {
                self.bounds.insert(path.to_string(), (lo.clone(), hi.clone()));
            }
        }
    }

    /// Adds another tally's runs to this one (exact: the order of merging does not matter).
    pub fn merge(&mut self, mut o: Tally) {
        self.settle();
        o.settle();
        self.runs += o.runs;
        self.unfinished += o.unfinished;
        for (k, m) in o.categories {
            add_counts(&mut self.categories, k, m);
        }
        for (k, (lo, hi)) in &o.bounds {
            self.bound(k, lo, hi);
        }
        for (k, h) in o.histograms {
            match h {
                Some(counts) => {
                    for (v, c) in counts {
                        self.count_value(&k, v, c);
                    }
                }
                None => {
                    self.histograms.insert(k, None);
                }
            }
        }
        for (k, (s, q)) in o.numbers {
            let e = self.numbers.entry(k).or_insert_with(|| (BigRational::zero(), BigRational::zero()));
            e.0 += s;
            e.1 += q;
        }
    }

    /// Share of runs with `value` in categorical field `path`, with a 95% Wilson score interval.
    pub fn proportion(&self, path: &str, value: &str) -> Estimate {
        let k = self
            .categories
            .get(path)
            .and_then(|m| m.iter().find(|(v, _)| v.to_string() == value))
            .map_or(0, |(_, &k)| k);
        wilson(k, self.runs)
    }

    /// The field whose values are "the outcome": `result` when there is one, else the first
    /// categorical field.
    pub fn main_field(&self) -> Option<String> {
        if self.categories.contains_key("result") {
            return Some("result".into());
        }
        self.categories.keys().next().cloned()
    }

    /// Each value of categorical field `path` (as text, in value order) with its share of the
    /// runs, rounded to 9 decimals so that the shares add up to exactly 1 (largest-remainder
    /// rounding of the exact counts), and its Wilson interval. Empty for an unknown field.
    pub fn shares(&self, path: &str) -> Vec<(String, f64, Estimate)> {
        let Some(counts) = self.categories.get(path) else {
            return Vec::new();
        };
        const SCALE: u128 = 1_000_000_000;
        let n = u128::from(self.runs.max(1));
        let mut parts: Vec<(String, u128, u128)> = counts
            .iter()
            .map(|(l, &k)| (l.to_string(), u128::from(k) * SCALE / n, u128::from(k) * SCALE % n))
            .collect();
        let assigned: u128 = parts.iter().map(|p| p.1).sum();
        let total = counts.values().map(|&k| u128::from(k)).sum::<u128>() * SCALE / n;
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by(|&a, &b| parts[b].2.cmp(&parts[a].2).then(a.cmp(&b)));
        for &i in order.iter().take(usize::try_from(total.saturating_sub(assigned)).unwrap_or(0)) {
            parts[i].1 += 1;
        }
        parts
            .into_iter()
            .map(|(l, units, _)| {
                let e = self.proportion(path, &l);
                (l, units as f64 / SCALE as f64, e)
            })
            .collect()
    }

    /// The widest 95% interval among the shares of the categorical fields `keep` accepts, as
    /// (field, value, half-width): what `sim --precision` runs until it is small enough.
    pub fn widest_interval(&self, keep: impl Fn(&str) -> bool) -> Option<(String, String, f64)> {
        let mut widest: Option<(String, String, f64)> = None;
        for f in self.categories.keys().filter(|f| keep(f)) {
            for (label, _, e) in self.shares(f) {
                let half = (e.high - e.low) / 2.0;
                if widest.as_ref().is_none_or(|w| half > w.2) {
                    widest = Some((f.clone(), label, half));
                }
            }
        }
        widest
    }

    /// Mean of numeric field `path` over all runs, with a 95% normal interval kept within the
    /// smallest and largest value seen (a mean of losses is never below 0).
    pub fn mean(&self, path: &str) -> Option<Estimate> {
        let (s, q) = self.numbers.get(path)?;
        let n = self.runs.max(1) as f64;
        let sum = s.to_f64().unwrap_or(0.0);
        let sq = q.to_f64().unwrap_or(0.0);
        let mean = sum / n;
        let var = if self.runs > 1 {
            ((sq - sum * sum / n) / (n - 1.0)).max(0.0)
        } else {
            0.0
        };
        let half = 1.96 * (var / n).sqrt();
        let (min, max) = match self.bounds.get(path) {
            Some((lo, hi)) => (lo.to_f64().unwrap_or(f64::MIN), hi.to_f64().unwrap_or(f64::MAX)),
            None => (f64::MIN, f64::MAX),
        };
        Some(Estimate {
            value: mean,
            low: (mean - half).max(min),
            high: (mean + half).min(max),
        })
    }
}

/// One event of a flattened outcome as a tally keeps it ([`Tally::shape`]).
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Key(&'static str),
    Enum(&'static str),
    Text(String),
    Up,
    /// A whole number added to `ints[slot]`, and to its histogram at the top level.
    Int {
        slot: usize,
        top: bool,
    },
    /// A categorical value counted in `cats[slot]`.
    Cat(usize),
    /// `none`: nothing to count.
    None,
    /// A decimal: added by its path (the way of a run that does not follow the shape).
    Dec,
}

/// The last run's events, and room for the open entries of a run that leaves them (kept between
/// runs, so a run allocates nothing). Part of how a tally counts, not of what it counted: two
/// tallies of the same runs are equal whatever their shapes.
#[derive(Clone, Debug, Default)]
struct Shape {
    toks: Vec<Tok>,
    open: Vec<usize>,
}

impl PartialEq for Shape {
    fn eq(&self, _: &Shape) -> bool {
        true
    }
}

impl Shape {
    fn clear(&mut self) {
        self.toks.clear();
    }
}

/// A run's outcome added to a tally, event by event. While the events are the last run's (the
/// same fields, labels and kinds of leaf, in the same order), each leaf goes straight to its
/// place; from the first that differs, the path is built and the fields are looked up by it, and
/// the shape is recorded anew from there.
struct Follow<'t> {
    t: &'t mut Tally,
    shape: &'t mut Vec<Tok>,
    /// The next event of the shape, while the run follows it.
    at: usize,
    following: bool,
    /// Room for the positions in the shape of the fields and labels entered and not yet left,
    /// worked out when the run leaves the shape (a run that follows it keeps no track of them).
    open: &'t mut Vec<usize>,
    path: Path,
    next_int: usize,
    next_cat: usize,
}

impl<'t> Follow<'t> {
    fn start(t: &'t mut Tally, shape: &'t mut Shape) -> Follow<'t> {
        Follow {
            t,
            shape: &mut shape.toks,
            at: 0,
            following: true,
            open: &mut shape.open,
            path: Path::default(),
            next_int: 0,
            next_cat: 0,
        }
    }

    /// Whether the next event of the shape is `tok` (then it is passed), while following.
    fn next_is(&mut self, is: impl FnOnce(&Tok) -> bool) -> bool {
        if self.following {
            if self.shape.get(self.at).is_some_and(is) {
                self.at += 1;
                return true;
            }
            self.leave();
        }
        false
    }

    /// The run stops following the shape: the path of the entries open is built, and the shape
    /// is kept only up to here. The entries open are those of the shape so far not yet left.
    fn leave(&mut self) {
        self.following = false;
        self.open.clear();
        for (i, t) in self.shape.iter().take(self.at).enumerate() {
            match t {
                Tok::Key(_) | Tok::Enum(_) | Tok::Text(_) => self.open.push(i),
                Tok::Up => {
                    self.open.pop();
                }
                _ => {}
            }
        }
        for &i in self.open.iter() {
            match self.shape.get(i) {
                Some(Tok::Key(k)) => self.path.key(k),
                Some(Tok::Enum(e)) => self.path.label(Label::Enum(e)),
                Some(Tok::Text(t)) => self.path.label(Label::Text(t)),
                _ => {}
            }
        }
        self.shape.truncate(self.at);
    }

    fn finish(self) {
        if self.following {
            self.shape.truncate(self.at);
        }
    }
}

/// The events of a run that follows the shape, handled where the outcome's `flatten` emits them
/// (inlined); anything else goes the general way (`Follow`'s `*_any` methods), which checks the
/// same token again.
impl Flat for Follow<'_> {
    #[inline]
    fn key(&mut self, key: &'static str) {
        if self.following && matches!(self.shape.get(self.at), Some(Tok::Key(k)) if std::ptr::eq(*k, key)) {
            self.at += 1;
            return;
        }
        self.key_any(key);
    }

    fn label(&mut self, label: Label<'_>) {
        self.label_any(label);
    }

    #[inline]
    fn up(&mut self) {
        if self.following && matches!(self.shape.get(self.at), Some(Tok::Up)) {
            self.at += 1;
            return;
        }
        self.up_any();
    }

    #[inline]
    fn int(&mut self, x: i64) {
        if self.following {
            if let Some(Tok::Int { slot, top: false }) = self.shape.get(self.at) {
                let slot = *slot;
                self.at += 1;
                self.t.add_int(slot, x);
                return;
            }
        }
        self.int_any(x);
    }

    #[inline]
    fn leaf(&mut self, v: &Value) {
        if self.following && !matches!(v, Value::None | Value::Dec(_)) {
            if let Some(Tok::Cat(slot)) = self.shape.get(self.at) {
                let slot = *slot;
                self.at += 1;
                if let Some((_, counts)) = self.t.cats.get_mut(slot) {
                    counts.add(v);
                }
                return;
            }
        }
        self.leaf_any(v);
    }
}

impl Follow<'_> {
    #[inline(never)]
    fn key_any(&mut self, key: &'static str) {
        if !self.next_is(|t| matches!(t, Tok::Key(k) if std::ptr::eq(*k, key) || *k == key)) {
            self.path.key(key);
            self.shape.push(Tok::Key(key));
        }
    }

    #[inline(never)]
    fn label_any(&mut self, label: Label<'_>) {
        let same = |t: &Tok| match (t, label) {
            (Tok::Enum(a), Label::Enum(b)) => a == &b,
            (Tok::Text(a), Label::Text(b)) => a == b,
            _ => false,
        };
        if !self.next_is(same) {
            self.path.label(label);
            self.shape.push(match label {
                Label::Enum(e) => Tok::Enum(e),
                Label::Text(t) => Tok::Text(t.to_string()),
            });
        }
    }

    #[inline(never)]
    fn up_any(&mut self) {
        if !self.next_is(|t| matches!(t, Tok::Up)) {
            self.path.up();
            self.shape.push(Tok::Up);
        }
    }

    #[inline(never)]
    fn int_any(&mut self, x: i64) {
        let mut known = None;
        if self.next_is(|t| match t {
            Tok::Int { slot, top } => {
                known = Some((*slot, *top));
                true
            }
            _ => false,
        }) {
            if let Some((slot, top)) = known {
                if top {
                    if let Some((path, _)) = self.t.ints.get(slot) {
                        count_in(&mut self.t.histograms, path, x, 1);
                    }
                }
                self.t.add_int(slot, x);
            }
            return;
        }
        let path = &self.path.path;
        let top = !path.contains('.');
        if top {
            count_in(&mut self.t.histograms, path, x, 1);
        }
        let slot = self.t.int(self.next_int, path, x);
        self.next_int = slot + 1;
        self.shape.push(Tok::Int { slot, top });
    }

    #[inline(never)]
    fn leaf_any(&mut self, v: &Value) {
        match v {
            Value::None => {
                if !self.next_is(|t| matches!(t, Tok::None)) {
                    self.shape.push(Tok::None);
                }
            }
            Value::Dec(d) => {
                if self.following {
                    self.leave();
                }
                let x = BigRational::new(BigInt::from(d.numer()), BigInt::from(d.denom()));
                self.t.number(&self.path.path, x);
                self.shape.push(Tok::Dec);
            }
            other => {
                let mut known = None;
                if self.next_is(|t| match t {
                    Tok::Cat(slot) => {
                        known = Some(*slot);
                        true
                    }
                    _ => false,
                }) {
                    if let Some((_, counts)) = known.and_then(|k| self.t.cats.get_mut(k)) {
                        counts.add(other);
                    }
                    return;
                }
                let slot = self.t.category(self.next_cat, &self.path.path, other);
                self.next_cat = slot + 1;
                self.shape.push(Tok::Cat(slot));
            }
        }
    }
}

/// A point estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

fn wilson(k: u64, n: u64) -> Estimate {
    if n == 0 {
        return Estimate {
            value: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.96f64;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / denom;
    // The ends are rounded outward (one unit in the last place), so that rounding never moves a
    // bound inside the true interval; no run missing an outcome, or every run having it, is an
    // end at exactly 0 or 1 (an exact 1/1 lies inside, not above 0.9999999999999999).
    Estimate {
        value: p,
        low: if k == 0.0 { 0.0 } else { one_ulp(centre - half, false).max(0.0) },
        high: if k == n { 1.0 } else { one_ulp(centre + half, true).min(1.0) },
    }
}

/// `x` (between 0 and 1) moved by one unit in the last place, up or down (`f64::next_up` and
/// `next_down` are newer than the Rust this crate builds with).
fn one_ulp(x: f64, up: bool) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return x.max(0.0);
    }
    let bits = x.to_bits();
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

/// Where field `path` is in `fields` (kept in the order runs meet them): at `guess`, where the
/// last run had the next field, or else by `at`.
fn position<T>(fields: &[(String, T)], at: &BTreeMap<String, usize>, guess: usize, path: &str) -> Option<usize> {
    match fields.get(guess) {
        Some((p, _)) if p == path => Some(guess),
        _ => at.get(path).copied(),
    }
}

/// Counts `runs` runs giving `value` in the histogram of field `path`.
fn count_in(histograms: &mut BTreeMap<String, Option<BTreeMap<i64, u64>>>, path: &str, value: i64, runs: u64) {
    let h = match histograms.get_mut(path) {
        Some(h) => h,
        None => histograms.entry(path.to_string()).or_insert_with(|| Some(BTreeMap::new())),
    };
    if let Some(counts) = h {
        *counts.entry(value).or_insert(0) += runs;
        if counts.len() > MAX_HISTOGRAM_VALUES {
            *h = None;
        }
    }
}

/// Counts one run giving `value` in a categorical field.
fn count_category(counts: &mut BTreeMap<Value, u64>, value: &Value) {
    match counts.get_mut(value) {
        Some(n) => *n += 1,
        None => {
            counts.insert(value.clone(), 1);
        }
    }
}

/// Adds the counts of categorical field `path` to `categories`.
fn add_counts(categories: &mut BTreeMap<String, BTreeMap<Value, u64>>, path: String, counts: BTreeMap<Value, u64>) {
    let mine = categories.entry(path).or_default();
    for (v, c) in counts {
        *mine.entry(v).or_insert(0) += c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally_of(values: &[i64], threads: usize) -> Tally {
        let mut parts = vec![Tally::default(); threads];
        for (i, &v) in values.iter().enumerate() {
            parts[i % threads].add_flat(&Value::Record(vec![("lost", Value::Int(v))]));
        }
        let mut total = Tally::default();
        for p in parts {
            total.merge(p);
        }
        total
    }

    #[test]
    fn a_rare_loss_has_an_interval_that_stays_within_what_was_seen() {
        // One loss of 1 in 2000 runs: the normal interval alone would reach below 0.
        let mut values = vec![0; 1999];
        values.push(1);
        let e = tally_of(&values, 1).mean("lost").unwrap_or_else(|| panic!("no mean"));
        assert!((e.value - 0.0005).abs() < 1e-12);
        assert_eq!(e.low, 0.0);
        assert!(e.high > e.value && e.high < 0.002);
        // Merging per-thread tallies gives the same bounds and the same figures.
        let split = tally_of(&values, 3);
        assert_eq!(split.bounds, tally_of(&values, 1).bounds);
        assert_eq!(split.mean("lost"), Some(e));
    }

    /// Whole-number fields are looked for where the last run had them; runs that meet them in
    /// another order, or meet other fields, still add to the right ones.
    #[test]
    fn fields_met_in_another_order_add_to_their_own_sums() {
        let rec = |fields: &[(&'static str, i64)]| Value::Record(fields.iter().map(|&(k, v)| (k, Value::Int(v))).collect());
        let mut t = Tally::default();
        for r in [
            rec(&[("a", 1), ("b", 2)]),
            rec(&[("b", 3), ("a", 4)]),
            rec(&[("a", 5)]),
            rec(&[("c", 7), ("a", 1), ("b", 10)]),
        ] {
            t.add_flat(&r);
        }
        t.settle();
        let int = |n: i64| BigRational::from_integer(BigInt::from(n));
        assert_eq!(t.numbers.get("a"), Some(&(int(11), int(1 + 16 + 25 + 1))));
        assert_eq!(t.numbers.get("b"), Some(&(int(15), int(4 + 9 + 100))));
        assert_eq!(t.numbers.get("c"), Some(&(int(7), int(49))));
        assert_eq!(t.bounds.get("b"), Some(&(int(2), int(10))));
        assert_eq!(t.mean("a").map(|e| e.value), Some(11.0 / 4.0));
    }

    /// The same for categorical fields: counted where they belong whatever the order, added to
    /// what `declare_outcomes` or an earlier settle put there, and merged part by part.
    #[test]
    fn categories_met_in_another_order_count_in_their_own_fields() {
        let rec = |fields: &[(&'static str, bool)]| Value::Record(fields.iter().map(|&(k, v)| (k, Value::Bool(v))).collect());
        let mut t = Tally::default();
        t.categories.entry("b".into()).or_default().insert(Value::Bool(false), 0);
        for r in [
            rec(&[("a", true), ("b", true)]),
            rec(&[("b", false), ("a", true)]),
            rec(&[("a", false)]),
            rec(&[("c", true), ("a", true), ("b", true)]),
        ] {
            t.add_flat(&r);
        }
        t.settle();
        t.add_flat(&rec(&[("a", false), ("b", false)]));
        let mut other = Tally::default();
        other.add_flat(&rec(&[("b", true), ("a", true)]));
        t.merge(other);
        let counts = |f: &str| -> Vec<(Value, u64)> {
            t.categories
                .get(f)
                .map(|m| m.iter().map(|(v, &n)| (v.clone(), n)).collect())
                .unwrap_or_default()
        };
        assert_eq!(counts("a"), vec![(Value::Bool(false), 2), (Value::Bool(true), 4)]);
        assert_eq!(counts("b"), vec![(Value::Bool(false), 2), (Value::Bool(true), 3)]);
        assert_eq!(counts("c"), vec![(Value::Bool(true), 1)]);
        assert_eq!(t.runs, 6);
        assert!(t.cats.is_empty() && t.cat_at.is_empty(), "merged tallies are settled");
    }

    #[test]
    fn the_widest_interval_is_the_least_certain_share() {
        // 50 of 100 has a wider interval than 1 of 100.
        let mut t = Tally::default();
        for i in 0..100 {
            let v = |on: bool| Value::Bool(on);
            t.add_flat(&Value::Record(vec![("even", v(i % 2 == 0)), ("first", v(i == 0))]));
        }
        t.settle();
        let (field, _, half) = t.widest_interval(|_| true).unwrap_or_else(|| panic!("no categories"));
        assert_eq!(field, "even");
        assert!((half - 0.0962).abs() < 0.001, "{half}");
        let (field, _, narrow) = t.widest_interval(|f| f == "first").unwrap_or_else(|| panic!("no categories"));
        assert_eq!(field, "first");
        assert!(narrow < half);
    }

    #[test]
    fn whole_number_sums_past_i128_stay_exact() {
        // Squares of values near i64::MAX pass i128 after two runs: the sums go on in fractions.
        let values = [i64::MAX, i64::MAX, -7, i64::MIN, 3];
        let t = tally_of(&values, 1);
        let big = |x: i64| BigRational::from_integer(BigInt::from(x));
        let sum = values.iter().fold(BigRational::zero(), |a, &v| a + big(v));
        let squares = values.iter().fold(BigRational::zero(), |a, &v| a + big(v) * big(v));
        assert_eq!(t.numbers.get("lost"), Some(&(sum, squares)));
        assert_eq!(t.bounds.get("lost"), Some(&(big(i64::MIN), big(i64::MAX))));
        assert_eq!(tally_of(&values, 2).numbers, t.numbers);
    }

    #[test]
    fn histograms_count_every_value_and_merge_to_the_same_counts_whatever_the_split() {
        let values: Vec<i64> = (0..500).map(|i| i % 7).collect();
        let one = tally_of(&values, 1);
        let counts = one.histograms.get("lost").cloned().flatten().unwrap_or_default();
        assert_eq!(counts.len(), 7);
        assert_eq!(counts.get(&0), Some(&72));
        assert_eq!(counts.values().sum::<u64>(), 500);
        assert_eq!(tally_of(&values, 3).histograms, one.histograms);
        // Past the limit of distinct values the histogram is dropped, however the runs were split.
        let many: Vec<i64> = (0..=MAX_HISTOGRAM_VALUES as i64).collect();
        assert_eq!(tally_of(&many, 1).histograms.get("lost"), Some(&None));
        assert_eq!(tally_of(&many, 4).histograms.get("lost"), Some(&None));
    }

    /// Numbers below `n`, from a fixed seed: the same runs on every machine.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// A few values or many, a categorical field's counts are the counts of a map by value.
    #[test]
    fn categorical_counts_are_the_counts_by_value_however_many_values() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        // A field of three values (the list stays a list), and one of forty (it becomes a map
        // part-way), each mostly repeating the value before.
        for distinct in [3u64, 40] {
            let value = |k: u64| match k % 3 {
                0 => Value::Enum((k % 7) as u16, ["a", "b", "c", "d", "e", "f", "g"][(k % 7) as usize]),
                1 => Value::Text(format!("unit {k}")),
                _ => Value::Bool(k % 2 == 0),
            };
            let (mut counts, mut map) = (Counts::default(), BTreeMap::new());
            let mut k = 0;
            for _ in 0..5000 {
                if next(4) == 0 {
                    k = next(distinct);
                }
                counts.add(&value(k));
                count_category(&mut map, &value(k));
            }
            assert_eq!(matches!(counts, Counts::Many(_)), map.len() > FEW_VALUES, "{distinct} values");
            assert_eq!(map.values().sum::<u64>(), 5000);
            assert_eq!(counts.into_map(), map, "{distinct} values");
        }
    }

    /// Runs that repeat the last run's shape skip building paths; runs that change it anywhere
    /// (fields, labels, their order, the kind of a leaf, decimals, sums past i128) fall back to
    /// paths. Either way the tally is the one of paths alone (the shape cleared before each run).
    #[test]
    fn following_the_last_shape_tallies_as_paths_do() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let statuses = ["active", "broken", "destroyed"];
        let names = ["Alpha", "Bravo", "C Coy", "Delta"];
        let outcome = |same: bool, next: &mut dyn FnMut(u64) -> u64| {
            let mut fields = vec![(
                "result",
                Value::Enum(next(3) as u16, ["a_wins", "b_wins", "draw"][next(3) as usize]),
            )];
            fields.push(("rounds", Value::Int(next(30) as i64)));
            if !same && next(4) == 0 {
                fields.push(("extra", Value::Bool(next(2) == 0)));
            }
            fields.push((
                "opt",
                if next(3) == 0 && !same {
                    Value::None
                } else {
                    Value::Int(next(5) as i64)
                },
            ));
            if !same && next(8) == 0 {
                fields.push((
                    "dec",
                    Value::Dec(crate::num::Dec::new(next(7) as i64, 2).unwrap_or_else(|e| panic!("{e}"))),
                ));
            }
            if !same && next(16) == 0 {
                fields.push(("huge", Value::Int(i64::MAX - next(3) as i64)));
            }
            let mut units = Vec::new();
            for (i, n) in names.iter().enumerate() {
                if same || next(5) != 0 {
                    let label = if !same && i == 3 && next(2) == 0 { "Echo" } else { n };
                    units.push(Value::Record(vec![
                        ("name", Value::Text(label.to_string())),
                        ("strength", Value::Int(next(10) as i64)),
                        ("status", Value::Enum(0, statuses[next(3) as usize])),
                    ]));
                }
            }
            if !same && next(6) == 0 {
                units.reverse();
            }
            fields.push(("final", Value::List(units)));
            fields.push((
                "losses",
                Value::List(vec![Value::Record(vec![
                    ("unit_type", Value::Enum(0, "infantry")),
                    ("lost", Value::Int(next(4) as i64)),
                ])]),
            ));
            Value::Record(fields)
        };
        let (mut followed, mut by_paths) = (Tally::default(), Tally::default());
        for run in 0..3000 {
            let o = outcome(run % 7 != 0, &mut next);
            followed.add_flat(&o);
            by_paths.shape.clear();
            by_paths.add_flat(&o);
        }
        followed.settle();
        by_paths.settle();
        assert_eq!(followed.runs, 3000);
        assert_eq!(followed.categories, by_paths.categories);
        assert_eq!(followed.numbers, by_paths.numbers);
        assert_eq!(followed.bounds, by_paths.bounds);
        assert_eq!(followed.histograms, by_paths.histograms);
        assert!(followed.categories.contains_key("final.\"C Coy\".status"));
        assert!(followed.categories.contains_key("final.Echo.status"));
        assert!(followed.numbers.contains_key("huge") && followed.numbers.contains_key("dec"));
        assert!(followed.histograms.contains_key("rounds") && !followed.histograms.contains_key("final.Alpha.strength"));
    }
}
