//! Exact odds of a multi-round procedure written as one round (a "step"), as a Markov chain over
//! its states. The step's inputs are the state; its outcome carries the next state in the fields
//! named like its inputs (an input with no such field, such as a policy, keeps its value), and a
//! yes/no field (`until`) says the procedure is over. Every distinct state's round is enumerated
//! once, and paths that reach the same state merge, their probabilities added: the work grows
//! with the number of distinct states a round can lead to, not with the dice paths through all
//! the rounds, which the replaying enumerator would walk one by one.

use crate::error::Error;
use crate::odds::{Distribution, Prob};
use crate::registry::ResolverInfo;
use crate::value::{Inputs, Value};
use std::collections::BTreeMap;

/// Most distinct states a chain may hold at once before it gives up (`Error::TooManyBranches`
/// names the limit): past it the procedure is for `sim`.
pub const MAX_STATES: usize = 200_000;

/// The exact distribution of a procedure run as a chain of rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// The outcomes of the rounds that ended the procedure (their `until` field yes), merged over
    /// every round: the distribution of how it ended, short of `unfinished`.
    pub end: Distribution<Value>,
    /// The probability that the procedure has ended after round 1, 2, ... (cumulative).
    pub finished_by_round: Vec<Prob>,
    /// The probability that it is still running after the last round computed (0 when every
    /// path ended within `max_rounds`).
    pub unfinished: Prob,
    /// Distinct states whose round was enumerated.
    pub states: usize,
}

/// Runs `step` from `start` round by round until every path has ended (`until` yes) or
/// `max_rounds` rounds have been computed. Each round's odds come from `odds` (the resolver's own
/// exact odds, or a caller's wrapper with a budget); a state met again reuses its round.
pub fn chain(
    step: &ResolverInfo,
    start: &Inputs,
    until: &str,
    max_rounds: u32,
    odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
) -> Result<Chain, Error> {
    if !step.outputs.iter().any(|o| o.name == until) {
        let names: Vec<&str> = step.outputs.iter().map(|o| o.name).collect();
        return Err(Error::Domain {
            what: format!(
                "`{}` has no output `{until}` to end the rounds; its outputs are {}",
                step.name,
                names.join(", ")
            ),
        });
    }
    let mut rounds: BTreeMap<Inputs, Distribution<Value>> = BTreeMap::new();
    let mut frontier: BTreeMap<Inputs, Prob> = BTreeMap::new();
    frontier.insert(start.clone(), Prob::one());
    let mut end: BTreeMap<Value, Prob> = BTreeMap::new();
    let mut finished = Prob::zero();
    let mut finished_by_round = Vec::new();
    for _ in 0..max_rounds {
        if frontier.is_empty() {
            break;
        }
        let mut next: BTreeMap<Inputs, Prob> = BTreeMap::new();
        for (state, p) in &frontier {
            if !rounds.contains_key(state) {
                let d = odds(state)?;
                rounds.insert(state.clone(), d);
            }
            let Some(d) = rounds.get(state) else { continue };
            for (outcome, q) in &d.outcomes {
                let w = p.mul(q);
                match outcome.field(until) {
                    Some(Value::Bool(true)) => {
                        finished = finished.add(&w);
                        add(&mut end, outcome.clone(), &w);
                    }
                    Some(Value::Bool(false)) => add(&mut next, next_state(state, outcome), &w),
                    other => {
                        return Err(Error::Domain {
                            what: format!(
                                "`{}`'s output `{until}` must be yes/no to end the rounds, found {}",
                                step.name,
                                other.map_or_else(|| "nothing".to_string(), |v| v.to_string())
                            ),
                        })
                    }
                }
            }
        }
        if next.len() > MAX_STATES {
            return Err(Error::TooManyBranches { limit: MAX_STATES as u64 });
        }
        finished_by_round.push(finished.clone());
        frontier = next;
    }
    let unfinished = frontier.values().fold(Prob::zero(), |a, p| a.add(p));
    Ok(Chain {
        end: Distribution {
            outcomes: end.into_iter().collect(),
        },
        finished_by_round,
        unfinished,
        states: rounds.len(),
    })
}

/// The inputs of the next round: each input takes the outcome's field of the same name when
/// there is one, and keeps its value otherwise.
fn next_state(state: &Inputs, outcome: &Value) -> Inputs {
    state
        .iter()
        .map(|(k, v)| (k.clone(), outcome.field(k).cloned().unwrap_or_else(|| v.clone())))
        .collect()
}

fn add<K: Ord>(m: &mut BTreeMap<K, Prob>, k: K, p: &Prob) {
    match m.get_mut(&k) {
        Some(q) => *q = q.add(p),
        None => {
            m.insert(k, p.clone());
        }
    }
}
