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

/// A procedure written as one step (as `odds --until` reads it): a run plays the resolver step
/// after step, each step's inputs the last one's outputs of the same names (the others kept),
/// until its yes/no output `field` is yes, for at most `max_steps` steps. The run's outcome is
/// the last step's; a run still going after `max_steps` counts in [`Tally::unfinished`].
#[derive(Clone, Copy, Debug)]
pub struct Until<'a> {
    pub field: &'a str,
    pub max_steps: u32,
}

/// [`simulate_range`], each run the resolver once or, with `until`, a procedure of its steps.
/// Every step of a run throws the run's dice in turn, as a procedure calling the step in a loop
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
    let (start, runs) = (range.start, range.end.saturating_sub(range.start));
    let shared = Shared {
        r,
        inputs,
        until,
        seed,
        start,
        runs,
        block: block_size(runs, threads),
        next: AtomicU64::new(0),
        failed_at: AtomicU64::new(u64::MAX),
        done: AtomicU64::new(0),
        progress,
    };
    // One thread runs here, spawning none (WebAssembly in a browser has no threads).
    let results: Vec<Result<Tally, Failed>> = if threads == 1 {
        vec![run_blocks(&shared)]
    } else {
        std::thread::scope(|s| {
            // Each thread as deep a stack as a resolution may need (`steps::RESOLUTION_STACK`).
            let spawn = || {
                std::thread::Builder::new()
                    .stack_size(crate::steps::RESOLUTION_STACK)
                    .spawn_scoped(s, || run_blocks(&shared))
            };
            let handles: Vec<_> = (0..threads).map(|_| spawn()).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.map_err(|_| ()).and_then(|h| h.join().map_err(|_| ())).unwrap_or_else(|()| {
                        Err(Failed {
                            run: 0,
                            error: Error::Internal {
                                message: "a simulation thread panicked".into(),
                            },
                        })
                    })
                })
                .collect()
        })
    };
    // The first run that failed, whichever thread threw it: the error one thread would report.
    let mut parts = Vec::with_capacity(results.len());
    let mut first_failure: Option<Failed> = None;
    for result in results {
        match result {
            Ok(t) => parts.push(t),
            Err(f) => {
                if first_failure.as_ref().is_none_or(|g| f.run < g.run) {
                    first_failure = Some(f);
                }
            }
        }
    }
    if let Some(f) = first_failure {
        return Err(f.error);
    }
    // Counts, sums and bounds add up whatever run each thread took: the merged tally is the same.
    let mut total = Tally::default();
    total.declare_outcomes(r.outputs);
    for part in parts {
        total.merge(part);
    }
    Ok(total)
}

/// How many runs a thread takes at a time: small enough that the threads finish together (a
/// thread slowed by the machine takes fewer blocks), large enough that taking one costs nothing.
fn block_size(runs: u64, threads: u64) -> u64 {
    (runs / (threads * 16)).clamp(1, 1024)
}

/// What the threads of one simulation share: the work, and where it stands.
struct Shared<'a> {
    r: &'a ResolverInfo,
    inputs: &'a Inputs,
    until: Option<Until<'a>>,
    seed: u64,
    start: u64,
    runs: u64,
    block: u64,
    /// The first run (counted from `start`) of the next block to take.
    next: AtomicU64,
    /// The lowest run known to have failed: blocks past it are not taken.
    failed_at: AtomicU64,
    /// Runs done, for `progress`.
    done: AtomicU64,
    progress: &'a (dyn Fn(u64) + Sync),
}

/// A run that failed (counted from the range's start), and why.
struct Failed {
    run: u64,
    error: Error,
}

/// One thread's share of a simulation: block after block of runs, taken in order from `next`
/// until none is left, into one tally. Blocks are taken in increasing order, so when a run fails,
/// every run before it is already in some thread's hands, and the lowest failure is found.
/// `progress` hears of every 64 runs a thread has done, and of the last one.
fn run_blocks(w: &Shared<'_>) -> Result<Tally, Failed> {
    let mut tally = Tally::default();
    // A compiled resolver reads its inputs once, and hands each run's outcome to the tally field
    // by field.
    let mut prepared = None;
    let mut unreported = 0u64;
    // Blocks are taken only while runs are left, so the counter never passes `runs` by more than
    // a block.
    while let Ok(from) = w.next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
        (n < w.runs).then(|| n.saturating_add(w.block))
    }) {
        if from > w.failed_at.load(Ordering::Relaxed) {
            break;
        }
        let to = from.saturating_add(w.block).min(w.runs);
        if prepared.is_none() {
            prepared = Some(match (&w.r.exec, w.until) {
                (Exec::Compiled { sim: Some(prepare), .. }, None) => Some(prepare(w.inputs).map_err(|error| Failed { run: from, error })?),
                _ => None,
            });
        }
        for i in from..to {
            let mut dice = Seeded::new(run_seed(w.seed, w.start + i));
            let ran = match (w.until, prepared.as_ref().and_then(Option::as_ref)) {
                (None, Some(p)) => p.run(&mut dice, &mut tally),
                (None, None) => w.r.run_quiet(&mut dice, &mut NoTrace, w.inputs).map(|o| tally.add_flat(&o)),
                (Some(u), _) => run_steps(w.r, w.inputs, u, &mut dice).map(|outcome| match outcome {
                    Some(outcome) => tally.add_flat(&outcome),
                    None => {
                        tally.runs += 1;
                        tally.unfinished += 1;
                    }
                }),
            };
            if let Err(error) = ran {
                w.failed_at.fetch_min(i, Ordering::Relaxed);
                return Err(Failed { run: i, error });
            }
            unreported += 1;
            if unreported == 64 {
                (w.progress)(w.done.fetch_add(unreported, Ordering::Relaxed) + unreported);
                unreported = 0;
            }
        }
    }
    if unreported > 0 {
        let n = w.done.fetch_add(unreported, Ordering::Relaxed) + unreported;
        if n == w.runs {
            (w.progress)(n);
        }
    }
    tally.settle();
    Ok(tally)
}

/// One run of a procedure of steps: the last step's outcome, or None when it had not ended
/// after `until.max_steps` steps.
fn run_steps(r: &ResolverInfo, start: &Inputs, until: Until<'_>, dice: &mut Seeded) -> Result<Option<Value>, Error> {
    let mut state = std::borrow::Cow::Borrowed(start);
    for _ in 0..until.max_steps {
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
