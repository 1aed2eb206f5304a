//! A sweep: the exact odds of one resolver at every point of a grid of inputs. The grid, its
//! numbering (the first varied input slowest), its shards (`I/N`: the points whose number is I-1
//! modulo N), the parallel work with a time budget per point, and the JSON document are defined
//! here once, for the command line (`rulebook sweep`) and the bindings (Python) alike, so that
//! shards computed anywhere merge into what one run gives.

use crate::names::normalize;
use crate::odds::Distribution;
use crate::registry::{ResolverInfo, Ty};
use crate::value::Inputs;
use crate::value::Value;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most points in one grid: far above a designer's table, far below what would not end.
pub const MAX_CELLS: usize = 1_000_000;
/// Most values `all` and `lo..hi` give one input.
pub const MAX_VALUES: usize = 10_000;

/// The varied inputs, each with its values, in the order given (the first varies slowest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub axes: Vec<(String, Vec<String>)>,
    /// The number of points: the product of the axes' lengths.
    pub total: usize,
}

/// A point's exact odds, or why there are none.
pub type Odds = Result<Distribution<Value>, String>;

/// One computed point of the grid: its number in the whole grid, its values of the varied
/// inputs, and its odds.
#[derive(Debug, Clone)]
pub struct Cell {
    pub index: usize,
    pub values: Vec<String>,
    pub result: Odds,
    /// Runs of the simulation that estimated the odds, when exact odds were out of reach (the
    /// probabilities are then the runs' shares, seeded by the point's number); `None`: exact.
    pub simulated: Option<u64>,
}

/// Runs of the simulation that estimates a point out of reach of exact odds, unless asked otherwise.
pub const FALLBACK_RUNS: u64 = 10_000;

/// Where exact odds are out of reach, a simulation of `runs` runs estimates the distribution of
/// the one categorical output `field` (`--field F`): the fallback of `sweep`.
#[derive(Debug, Clone, Copy)]
pub struct Fallback<'a> {
    pub field: &'a str,
    pub runs: u64,
}

/// Whether exact odds failed for their size or time, not because the rules refused the inputs.
pub fn too_large(e: &crate::error::Error) -> bool {
    use crate::error::Error as E;
    matches!(
        e.cause(),
        E::TooManyBranches { .. } | E::TooManyStates { .. } | E::OddsStopped { .. } | E::ChainStopped { .. } | E::DiceTooLarge { .. }
    )
}

/// The odds of one point: exact, or else (when too large, and a fallback is given) the shares of
/// `fallback.runs` seeded runs (seed: the point's number) of its field, as exact fractions of
/// the runs.
/// `exact` works the exact odds out (under the point's time budget); the simulation runs after it,
/// outside that budget.
fn point_odds(
    r: &ResolverInfo,
    bound: &Inputs,
    index: usize,
    fallback: Option<Fallback>,
    exact: impl FnOnce() -> Result<Distribution<Value>, crate::error::Error>,
) -> (Odds, Option<u64>) {
    match exact() {
        Ok(d) => (Ok(d), None),
        Err(e) if too_large(&e) && fallback.is_some() => {
            let Some(fb) = fallback else { return (Err(e.to_string()), None) };
            let tally = match crate::sim::simulate(r, bound, fb.runs, index as u64, 1, &|_| {}) {
                Ok(t) => t,
                Err(s) => return (Err(s.to_string()), None),
            };
            let (Some(counts), Some(name)) = (
                tally.categories.get(fb.field),
                r.outputs.iter().find(|o| o.name == fb.field).map(|o| o.name),
            ) else {
                return (
                    Err(format!(
                        "{e}; the simulation that was to estimate it has no categorical output `{}`",
                        fb.field
                    )),
                    None,
                );
            };
            let runs = u128::from(tally.runs.max(1));
            let outcomes = counts
                .iter()
                .filter(|(_, &k)| k > 0)
                .filter_map(|(v, &k)| {
                    crate::odds::Prob::new(u128::from(k), runs)
                        .ok()
                        .map(|p| (Value::Record(vec![(name, v.clone())]), p))
                })
                .collect();
            (Ok(Distribution { outcomes }), Some(fb.runs))
        }
        Err(e) => (Err(e.to_string()), None),
    }
}

impl Grid {
    /// The grid of `r`'s inputs varied as `(NAME, VALUES)`: `LO..HI` (whole numbers), `A,B,C`, or
    /// `all` (every variant of an enum, every key of a table, no and yes, every number of a
    /// bounded int). A mistake is told as `--vary NAME=...: what is wrong`.
    pub fn new(r: &ResolverInfo, vary: &[(String, String)]) -> Result<Grid, String> {
        let axes: Vec<(String, Vec<String>)> = vary.iter().map(|(n, v)| axis(r, n, v)).collect::<Result<_, _>>()?;
        let total = axes
            .iter()
            .try_fold(1usize, |acc, (_, vs)| acc.checked_mul(vs.len()).filter(|&n| n <= MAX_CELLS));
        let total = total.ok_or_else(|| format!("the grid has more than {MAX_CELLS} points; vary fewer inputs or narrower ranges"))?;
        Ok(Grid { axes, total })
    }

    /// The values of point `index`, the first axis varying slowest.
    pub fn point(&self, mut index: usize) -> Vec<String> {
        let mut values = vec![String::new(); self.axes.len()];
        for (k, (_, vs)) in self.axes.iter().enumerate().rev() {
            values[k] = vs[index % vs.len()].clone();
            index /= vs.len();
        }
        values
    }

    /// The numbers of the points of shard `part` of `parts` (1-based): those equal to `part - 1`
    /// modulo `parts`.
    pub fn shard(&self, part: usize, parts: usize) -> impl Iterator<Item = usize> {
        let parts = parts.max(1);
        (0..self.total).filter(move |i| i % parts == part.saturating_sub(1))
    }

    /// The varied inputs' names.
    pub fn names(&self) -> Vec<&str> {
        self.axes.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// `I/N` with 1 <= I <= N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("expected I/N with 1 <= I <= N (e.g. 2/4), got `{s}`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The values of one varied input: `LO..HI`, `A,B,C` or `all` (`--vary`, and `best --decide`).
pub fn axis(r: &ResolverInfo, name: &str, spec: &str) -> Result<(String, Vec<String>), String> {
    let Some(input) = r.inputs.iter().find(|i| normalize(i.name) == normalize(name)) else {
        let known: Vec<&str> = r.inputs.iter().map(|i| i.name).collect();
        return Err(format!(
            "--vary {name}: {} has no input `{name}`; its inputs: {}",
            r.name,
            known.join(", ")
        ));
    };
    let values = if spec.trim() == "all" {
        every_value(input.ty).ok_or_else(|| {
            format!(
                "--vary {name}=all: `{}` has too many values to list (give LO..HI or A,B,C)",
                input.ty
            )
        })?
    } else if let Some((lo, hi)) = spec.split_once("..") {
        let num = |t: &str| {
            t.trim()
                .parse::<i64>()
                .map_err(|_| format!("--vary {name}={spec}: `{t}` is not a whole number"))
        };
        let (lo, hi) = (num(lo)?, num(hi)?);
        if hi < lo || (i128::from(hi) - i128::from(lo)) >= MAX_VALUES as i128 {
            return Err(format!(
                "--vary {name}={spec}: give LO..HI with LO <= HI and at most {MAX_VALUES} values"
            ));
        }
        (lo..=hi).map(|v| v.to_string()).collect()
    } else {
        spec.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect()
    };
    if values.is_empty() {
        return Err(format!("--vary {name}=: no values"));
    }
    Ok((input.name.to_string(), values))
}

/// Every value of a type that has few: yes/no, an enum's variants, a table's keys, a bounded int's
/// numbers; `none` first for an optional one.
fn every_value(ty: &Ty) -> Option<Vec<String>> {
    match ty {
        Ty::Bool => Some(vec!["no".into(), "yes".into()]),
        Ty::Enum(e) => Some(e.variants.iter().map(|v| v.to_string()).collect()),
        Ty::Key(tables) => Some(tables.iter().flat_map(|t| t.keys.iter().map(|k| k.to_string())).collect()),
        Ty::Int { min, max } if max.checked_sub(*min).is_some_and(|d| d < MAX_VALUES as i64) => {
            Some((*min..=*max).map(|v| v.to_string()).collect())
        }
        Ty::Opt(inner) => every_value(inner).map(|vs| std::iter::once("none".to_string()).chain(vs).collect()),
        _ => None,
    }
}

/// A worker's point under way: since when, and the watch that stops it.
type Working = (Instant, Arc<crate::watch::Watch>);

/// The odds of every point, on `threads` workers taking the next point as each finishes; a point
/// past `budget` seconds is stopped and reported as such, or estimated by `fallback` when given. `done` is called once per point
/// finished (a progress bar), from any worker.
pub fn compute(
    r: &'static ResolverInfo,
    points: &[(usize, Vec<String>, Inputs)],
    threads: usize,
    budget: u64,
    fallback: Option<Fallback>,
    done: &(dyn Fn() + Sync),
) -> Vec<Cell> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<(Odds, Option<u64>)>>> = Mutex::new(vec![None; points.len()]);
    let running: Vec<Mutex<Option<Working>>> = (0..threads.max(1)).map(|_| Mutex::new(None)).collect();
    let finished = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let mut workers = 0;
        for slot in &running {
            let (next, results, finished) = (&next, &results, &finished);
            let spawned = std::thread::Builder::new()
                .stack_size(crate::steps::RESOLUTION_STACK)
                .spawn_scoped(s, move || loop {
                    let i = next.fetch_add(1, Relaxed);
                    let Some((index, _, bound)) = points.get(i) else { break };
                    let watch = Arc::new(crate::watch::Watch::default());
                    watch.budget_seconds.store(budget, Relaxed);
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), watch.clone()));
                    let odds = point_odds(r, bound, *index, fallback, || crate::watch::with_watch(watch, || r.odds(bound)));
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(odds);
                    finished.fetch_add(1, Relaxed);
                    done();
                });
            workers += usize::from(spawned.is_ok());
        }
        // The watchdog: a point past its budget is cancelled (the enumeration stops at its next check).
        while workers > 0 && finished.load(Relaxed) < points.len() {
            std::thread::sleep(Duration::from_millis(20));
            for slot in &running {
                if let Some((since, w)) = &*slot.lock().unwrap_or_else(|p| p.into_inner()) {
                    if since.elapsed() >= Duration::from_secs(budget) {
                        w.cancel.store(true, Relaxed);
                    }
                }
            }
        }
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    points
        .iter()
        .zip(results)
        .map(|((index, values, _), result)| {
            let (result, simulated) = result.unwrap_or_else(|| (Err("not computed: its worker thread could not start".into()), None));
            Cell {
                index: *index,
                values: values.clone(),
                result,
                simulated,
            }
        })
        .collect()
}

/// Each point's outcomes merged to the fields `keep` (`--field`): outcomes that agree on them
/// become one.
pub fn keep_fields(cells: &mut [Cell], keep: &[&'static str]) {
    for c in cells {
        if let Ok(d) = &c.result {
            c.result = Ok(d.marginal(|o| Value::Record(keep.iter().map(|&f| (f, o.field(f).cloned().unwrap_or(Value::None))).collect())));
        }
    }
}

/// The JSON document of a sweep (`rulebook sweep --json`): the resolver, the varied inputs, the
/// grid's size, and each point computed with its inputs and outcomes (or its error).
pub fn json_doc(resolver: &str, grid: &Grid, cells: &[Cell]) -> serde_json::Value {
    let names = grid.names();
    let points: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            let inputs: serde_json::Map<String, serde_json::Value> = names.iter().map(|n| n.to_string()).zip(c.values.iter().map(|v| v.clone().into())).collect();
            match &c.result {
                Ok(d) => {
                    let mut doc = serde_json::json!({
                        "point": c.index,
                        "inputs": inputs,
                        "outcomes": d.outcomes.iter().map(|(o, p)| serde_json::json!({"outcome": o.to_json(), "probability": p.numer_denom_string()})).collect::<Vec<_>>(),
                    });
                    if let Some(runs) = c.simulated {
                        doc["simulated"] = serde_json::json!({"runs": runs, "seed": c.index});
                    }
                    doc
                }
                Err(e) => serde_json::json!({"point": c.index, "inputs": inputs, "error": e}),
            }
        })
        .collect();
    serde_json::json!({"resolver": resolver, "vary": names, "grid_points": grid.total, "points": points})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_numbered_first_axis_slowest_and_shards_partition_them() {
        let grid = Grid {
            axes: vec![
                ("a".into(), vec!["x".into(), "y".into()]),
                ("b".into(), vec!["1".into(), "2".into(), "3".into()]),
            ],
            total: 6,
        };
        assert_eq!(grid.point(0), ["x", "1"]);
        assert_eq!(grid.point(2), ["x", "3"]);
        assert_eq!(grid.point(4), ["y", "2"]);
        let mut all: Vec<usize> = (1..=4).flat_map(|i| grid.shard(i, 4).collect::<Vec<_>>()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..6).collect::<Vec<_>>());
        assert_eq!(grid.shard(2, 4).collect::<Vec<_>>(), [1, 5]);
    }

    #[test]
    fn a_shard_is_one_to_n() {
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        for bad in ["0/4", "5/4", "2", "a/b", "2/0"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
