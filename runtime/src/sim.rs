//! Seeded Monte Carlo over a whole procedure (a battle): many runs, each with its own seed derived
//! from the user's seed and the run number only, so the summary is identical whatever the number of
//! threads. Counts and sums are exact integers; only the reported means and 95% intervals are
//! approximations (they are estimates of a distribution too large to enumerate).

use crate::dice::Seeded;
use crate::error::Error;
use crate::odds::{Distribution, Prob};
use crate::registry::{FieldInfo, ResolverInfo, Ty};
use crate::trace::NoTrace;
use crate::value::{Inputs, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The seed of run `i` of a simulation seeded with `seed` (SplitMix64 of both: independent of threads).
pub fn run_seed(seed: u64, i: u64) -> u64 {
    splitmix(splitmix(seed) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

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
    cats: Vec<(String, BTreeMap<Value, u64>)>,
    /// Where each field of `cats` is, by path.
    cat_at: BTreeMap<String, usize>,
    /// Runs of a procedure simulated round after round ([`Until`]) that had not ended after its
    /// most rounds: counted in `runs`, with no outcome.
    pub unfinished: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct IntSums {
    sum: i128,
    squares: i128,
    min: i64,
    max: i64,
}

/// Distinct values a field's histogram keeps before it gives up (see [`Tally::histograms`]).
pub const MAX_HISTOGRAM_VALUES: usize = 1000;

impl Tally {
    fn add(&mut self, outcome: &Value) {
        self.runs += 1;
        // One path buffer for the whole outcome: a field's path is allocated only the first time
        // a tally meets it (a tenth of a battle's time went to building paths anew for each run).
        let (mut next_int, mut next_cat) = (0, 0);
        visit_flat(&mut String::new(), outcome, &mut |path, v| match v {
            Value::Int(i) => {
                if !path.contains('.') {
                    self.count_value(path, *i, 1);
                }
                next_int = self.int(next_int, path, *i) + 1;
            }
            Value::Dec(d) => self.number(path, BigRational::new(BigInt::from(d.numer()), BigInt::from(d.denom()))),
            Value::None => {}
            other => next_cat = self.category(next_cat, path, other) + 1,
        });
    }

    /// Counts `value` in categorical field `path`, looking first at position `guess` of `cats`;
    /// returns the field's position.
    fn category(&mut self, guess: usize, path: &str, value: &Value) -> usize {
        let k = match position(&self.cats, &self.cat_at, guess, path) {
            Some(k) => k,
            None => {
                self.cats.push((path.to_string(), BTreeMap::new()));
                self.cat_at.insert(path.to_string(), self.cats.len() - 1);
                self.cats.len() - 1
            }
        };
        if let Some((_, counts)) = self.cats.get_mut(k) {
            match counts.get_mut(value) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(value.clone(), 1);
                }
            }
        }
        k
    }

    /// Lists every declared value of each top-level enum or yes/no output, so that a value no run
    /// produced is reported as 0% (with its interval) rather than left out.
    pub fn declare_outcomes(&mut self, outputs: &[FieldInfo]) {
        for f in outputs {
            let ty = match f.ty {
                Ty::Opt(inner) => inner,
                ty => ty,
            };
            let values: Vec<Value> = match ty {
                Ty::Enum(e) => (0..e.variants.len())
                    .filter_map(|i| Some(Value::Enum(u16::try_from(i).ok()?, e.variants[i])))
                    .collect(),
                Ty::Bool => vec![Value::Bool(false), Value::Bool(true)],
                _ => continue,
            };
            let counts = self.categories.entry(f.name.to_string()).or_default();
            for v in values {
                counts.entry(v).or_insert(0);
            }
        }
    }

    fn count_value(&mut self, path: &str, value: i64, runs: u64) {
        let h = match self.histograms.get_mut(path) {
            Some(h) => h,
            None => self.histograms.entry(path.to_string()).or_insert_with(|| Some(BTreeMap::new())),
        };
        if let Some(counts) = h {
            *counts.entry(value).or_insert(0) += runs;
            if counts.len() > MAX_HISTOGRAM_VALUES {
                *h = None;
            }
        }
    }

    /// Adds `x` to whole-number field `path`, looking first at position `guess` of `ints`;
    /// returns the field's position.
    fn int(&mut self, guess: usize, path: &str, x: i64) -> usize {
        let square = i128::from(x) * i128::from(x);
        let at = position(&self.ints, &self.int_at, guess, path);
        if let Some((k, (_, e))) = at.and_then(|k| Some((k, self.ints.get_mut(k)?))) {
            match (e.sum.checked_add(i128::from(x)), e.squares.checked_add(square)) {
                (Some(sum), Some(squares)) => {
                    *e = IntSums {
                        sum,
                        squares,
                        min: e.min.min(x),
                        max: e.max.max(x),
                    };
                    return k;
                }
                // Past i128: what was summed so far goes to the exact fractions first.
                _ => self.settle(),
            }
        }
        let k = self.ints.len();
        self.ints.push((
            path.to_string(),
            IntSums {
                sum: i128::from(x),
                squares: square,
                min: x,
                max: x,
            },
        ));
        self.int_at.insert(path.to_string(), k);
        k
    }

    /// Moves the whole-number sums into `numbers` and `bounds`, and the categorical counts into
    /// `categories`.
    fn settle(&mut self) {
        self.cat_at.clear();
        for (path, counts) in std::mem::take(&mut self.cats) {
            add_counts(&mut self.categories, path, counts);
        }
        self.int_at.clear();
        for (path, e) in std::mem::take(&mut self.ints) {
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

/// The exact share of each value of each categorical field (enums, yes/no, text) of an exact
/// distribution, with fields flattened as a simulation's tally flattens a run (`result`,
/// `final."Alpha".status`): what `sim --exact-check` compares the estimates with.
pub fn exact_shares(d: &Distribution<Value>) -> BTreeMap<String, BTreeMap<Value, Prob>> {
    let mut out: BTreeMap<String, BTreeMap<Value, Prob>> = BTreeMap::new();
    for (o, p) in &d.outcomes {
        visit_flat(&mut String::new(), o, &mut |path, v| {
            if matches!(v, Value::Int(_) | Value::Dec(_) | Value::None) {
                return;
            }
            let e = out.entry(path.to_string()).or_default().entry(v.clone()).or_insert_with(Prob::zero);
            *e = e.add(p);
        });
    }
    out
}

/// Visits the leaves of an outcome with their dotted paths, records flattened: a list of records
/// whose first field is a label (enum or text) becomes one entry per label:
/// `losses.infantry.strength`. `path` is the prefix (empty at the top); it is restored on return.
fn visit_flat(path: &mut String, v: &Value, f: &mut dyn FnMut(&str, &Value)) {
    let len = path.len();
    // A field name or a label's text, added without the formatting machinery (every run of a
    // simulation goes through every field).
    let push = |path: &mut String, part: &str| {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(part);
    };
    match v {
        Value::Record(fields) => {
            for (k, x) in fields {
                push(path, k);
                visit_flat(path, x, f);
                path.truncate(len);
            }
        }
        Value::List(items) => {
            for item in items {
                if let Value::Record(fields) = item {
                    if let Some((_, label @ (Value::Enum(..) | Value::Text(_)))) = fields.first() {
                        if !path.is_empty() {
                            path.push('.');
                        }
                        match label {
                            Value::Enum(_, name) => path.push_str(name),
                            // As the value shows itself: quoted where a text needs it.
                            Value::Text(t) => crate::value::push_text(path, t),
                            _ => {}
                        }
                        let labelled = path.len();
                        for (k, x) in &fields[1..] {
                            push(path, k);
                            visit_flat(path, x, f);
                            path.truncate(labelled);
                        }
                        path.truncate(len);
                    }
                }
            }
        }
        other => f(path, other),
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
    Estimate {
        value: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// Runs `r` `runs` times on `threads` threads (at least 1). `progress` is told how many runs are
/// done (from any thread); it must be cheap. The result does not depend on `threads`.
pub fn simulate(
    r: &ResolverInfo,
    inputs: &Inputs,
    runs: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, Error> {
    simulate_range(r, inputs, 0..runs, seed, threads, progress)
}

/// Runs `runs.start..runs.end` of a simulation (each run seeded from `seed` and its number, as in
/// `simulate`), so a caller can time a first batch and then run the rest: the two tallies merged
/// with [`Tally::merge`] are the tally of one `simulate` over every run. `progress` counts the
/// runs done in this range.
pub fn simulate_range(
    r: &ResolverInfo,
    inputs: &Inputs,
    range: std::ops::Range<u64>,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, Error> {
    simulate_until(r, inputs, None, range, seed, threads, progress)
}

/// A procedure written as one round (as `odds --until` reads it): a run plays the resolver round
/// after round, each round's inputs the last one's outputs of the same names (the others kept),
/// until its yes/no output `field` is yes, for at most `max_rounds` rounds. The run's outcome is
/// the last round's; a run still going after `max_rounds` counts in [`Tally::unfinished`].
#[derive(Clone, Copy, Debug)]
pub struct Until<'a> {
    pub field: &'a str,
    pub max_rounds: u32,
}

/// [`simulate_range`], each run the resolver once or, with `until`, a procedure of its rounds.
/// Every round of a run throws the run's dice in turn, as a procedure calling the round in a loop
/// would: seeded alike, the two give the same runs.
pub fn simulate_until(
    r: &ResolverInfo,
    inputs: &Inputs,
    until: Option<Until<'_>>,
    range: std::ops::Range<u64>,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, Error> {
    if let Some(u) = until {
        crate::chain::check_until(r, u.field)?;
    }
    let threads = threads.clamp(1, 256) as u64;
    let done = AtomicU64::new(0);
    let (start, runs) = (range.start, range.end.saturating_sub(range.start));
    let chunk = runs.div_ceil(threads).max(1);
    // One thread runs here, spawning none (WebAssembly in a browser has no threads).
    let results: Vec<Result<Tally, Error>> = if threads == 1 {
        vec![run_part(r, inputs, until, start..start + runs, seed, &done, runs, progress)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (from, to) = (start + (t * chunk).min(runs), start + ((t + 1) * chunk).min(runs));
                    let done = &done;
                    s.spawn(move || run_part(r, inputs, until, from..to, seed, done, runs, progress))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Internal {
                            message: "a simulation thread panicked".into(),
                        })
                    })
                })
                .collect()
        })
    };
    let mut total = Tally::default();
    total.declare_outcomes(r.outputs);
    for part in results {
        total.merge(part?);
    }
    Ok(total)
}

/// Runs `range` of a simulation into one tally, counting each run in `done` (of `runs` in all)
/// and telling `progress` every 64 runs and at the end.
#[allow(clippy::too_many_arguments)]
fn run_part(
    r: &ResolverInfo,
    inputs: &Inputs,
    until: Option<Until<'_>>,
    range: std::ops::Range<u64>,
    seed: u64,
    done: &AtomicU64,
    runs: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    for i in range {
        let mut dice = Seeded::new(run_seed(seed, i));
        match until {
            None => tally.add(&r.run_quiet(&mut dice, &mut NoTrace, inputs)?),
            Some(u) => match run_rounds(r, inputs, u, &mut dice)? {
                Some(outcome) => tally.add(&outcome),
                None => {
                    tally.runs += 1;
                    tally.unfinished += 1;
                }
            },
        }
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n % 64 == 0 || n == runs {
            progress(n);
        }
    }
    tally.settle();
    Ok(tally)
}

/// Where field `path` is in `fields` (kept in the order runs meet them): at `guess`, where the
/// last run had the next field, or else by `at`.
fn position<T>(fields: &[(String, T)], at: &BTreeMap<String, usize>, guess: usize, path: &str) -> Option<usize> {
    match fields.get(guess) {
        Some((p, _)) if p == path => Some(guess),
        _ => at.get(path).copied(),
    }
}

/// Adds the counts of categorical field `path` to `categories`.
fn add_counts(categories: &mut BTreeMap<String, BTreeMap<Value, u64>>, path: String, counts: BTreeMap<Value, u64>) {
    let mine = categories.entry(path).or_default();
    for (v, c) in counts {
        *mine.entry(v).or_insert(0) += c;
    }
}

/// One run of a procedure of rounds: the last round's outcome, or None when it had not ended
/// after `until.max_rounds` rounds.
fn run_rounds(r: &ResolverInfo, start: &Inputs, until: Until<'_>, dice: &mut Seeded) -> Result<Option<Value>, Error> {
    let mut state = std::borrow::Cow::Borrowed(start);
    for _ in 0..until.max_rounds {
        let outcome = r.run_quiet(dice, &mut NoTrace, &state)?;
        if crate::chain::ended(r, until.field, &outcome)? {
            return Ok(Some(outcome));
        }
        state = std::borrow::Cow::Owned(crate::chain::next_state(&state, &outcome));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally_of(values: &[i64], threads: usize) -> Tally {
        let mut parts = vec![Tally::default(); threads];
        for (i, &v) in values.iter().enumerate() {
            parts[i % threads].add(&Value::Record(vec![("lost", Value::Int(v))]));
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
            t.add(&r);
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
            t.add(&r);
        }
        t.settle();
        t.add(&rec(&[("a", false), ("b", false)]));
        let mut other = Tally::default();
        other.add(&rec(&[("b", true), ("a", true)]));
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
    fn exact_shares_add_up_per_field_value() {
        let rec = |r: &'static str, n: i64| Value::Record(vec![("result", Value::Text(r.into())), ("rounds", Value::Int(n))]);
        let p = |n, d| Prob::new(n, d).unwrap_or_else(|e| panic!("{e}"));
        let d = Distribution {
            outcomes: vec![(rec("a", 1), p(1, 2)), (rec("a", 2), p(1, 4)), (rec("b", 2), p(1, 4))],
        };
        let shares = exact_shares(&d);
        let result = shares.get("result").cloned().unwrap_or_default();
        assert_eq!(result.get(&Value::Text("a".into())), Some(&p(3, 4)));
        assert_eq!(result.get(&Value::Text("b".into())), Some(&p(1, 4)));
        // Numbers are means, not shares.
        assert!(!shares.contains_key("rounds"));
    }

    #[test]
    fn the_widest_interval_is_the_least_certain_share() {
        // 50 of 100 has a wider interval than 1 of 100.
        let mut t = Tally::default();
        for i in 0..100 {
            let v = |on: bool| Value::Bool(on);
            t.add(&Value::Record(vec![("even", v(i % 2 == 0)), ("first", v(i == 0))]));
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
}
