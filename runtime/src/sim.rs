//! Seeded Monte Carlo over a whole procedure (a battle): many runs, each with its own seed derived
//! from the user's seed and the run number only, so the summary is identical whatever the number of
//! threads. Counts and sums are exact integers; only the reported means and 95% intervals are
//! approximations (they are estimates of a distribution too large to enumerate).

use crate::dice::Seeded;
use crate::error::Error;
use crate::flat::visit_flat;
use crate::odds::{Distribution, Prob};
use crate::registry::{Exec, FieldInfo, ResolverInfo, Ty};
pub use crate::tally::{Estimate, Tally, MAX_HISTOGRAM_VALUES};
use crate::trace::NoTrace;
use crate::value::{Inputs, Value};
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

/// The exact share of each value of each categorical field (enums, yes/no, text) of an exact
/// distribution, with fields flattened as a simulation's tally flattens a run (`result`,
/// `final."Alpha".status`): what `sim --exact-check` compares the estimates with.
pub fn exact_shares(d: &Distribution<Value>) -> BTreeMap<String, BTreeMap<Value, Prob>> {
    let mut out: BTreeMap<String, BTreeMap<Value, Prob>> = BTreeMap::new();
    for (o, p) in &d.outcomes {
        visit_flat(o, &mut |path, v| {
            if matches!(v, Value::Int(_) | Value::Dec(_) | Value::None) {
                return;
            }
            let e = out.entry(path.to_string()).or_default().entry(v.clone()).or_insert_with(Prob::zero);
            *e = e.add(p);
        });
    }
    out
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
    // A compiled resolver reads its inputs once, and hands each run's outcome to the tally field
    // by field.
    let prepared = match (&r.exec, until) {
        (Exec::Compiled { sim: Some(prepare), .. }, None) if !range.is_empty() => Some(prepare(inputs)?),
        _ => None,
    };
    for i in range {
        let mut dice = Seeded::new(run_seed(seed, i));
        match until {
            None => match &prepared {
                Some(p) => p.run(&mut dice, &mut tally)?,
                None => tally.add_flat(&r.run_quiet(&mut dice, &mut NoTrace, inputs)?),
            },
            Some(u) => match run_rounds(r, inputs, u, &mut dice)? {
                Some(outcome) => tally.add_flat(&outcome),
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

impl Tally {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
