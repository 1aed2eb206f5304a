//! Exact odds of a multi-round procedure written as one round (a "step"), as a Markov chain over
//! its states. The step's inputs are the state; its outcome carries the next state in the fields
//! named like its inputs (an input with no such field, such as a policy, keeps its value), and a
//! yes/no field (`until`) says the procedure is over. Every distinct state's round is enumerated
//! once, and paths that reach the same state merge, their probabilities added: the work grows
//! with the number of distinct states a round can lead to, not with the dice paths through all
//! the rounds, which the replaying enumerator would walk one by one.

use crate::error::Error;
pub use crate::odds::Chain;
use crate::odds::{Distribution, Prob};
use crate::registry::{Exec, ResolverInfo};
use crate::value::{Inputs, Value};
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Most distinct states a chain may hold at once before it gives up (`Error::TooManyStates`
/// names the limit): past it the procedure is for `sim`.
pub const MAX_STATES: usize = 200_000;

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
    let walked = walk(start.clone(), max_rounds, odds, |state, outcome: &Value| {
        match outcome.field(until) {
            Some(Value::Bool(true)) => Ok(None),
            Some(Value::Bool(false)) => Ok(Some(next_state(state, outcome))),
            other => Err(Error::Domain {
                what: format!(
                    "`{}`'s output `{until}` must be yes/no to end the rounds, found {}",
                    step.name,
                    other.map_or_else(|| "nothing".to_string(), |v| v.to_string())
                ),
            }),
        }
    })?;
    Ok(walked.into_chain(Value::clone))
}

/// The chain of a compiled step over its typed inputs and outcomes (the generated `chain_…`
/// functions call it): the same walk as [`chain`], with states compared as typed values rather
/// than as dynamic maps. `ended` reads the `until` output, `next` builds the next round's inputs
/// from the outputs named like them, and `to_value` gives the end outcomes their dynamic form.
pub fn chain_typed<S: Ord + Hash + Clone, O: Ord + Clone>(
    start: S,
    max_rounds: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    ended: fn(&O) -> bool,
    next: fn(&S, &O) -> S,
    to_value: fn(&O) -> Value,
) -> Result<Chain, Error> {
    let walked = walk(start, max_rounds, odds, |state, outcome| {
        Ok((!ended(outcome)).then(|| next(state, outcome)))
    })?;
    Ok(walked.into_chain(to_value))
}

/// What [`walk`] found, before the end outcomes take their dynamic form.
struct Walked<O> {
    end: BTreeMap<O, Prob>,
    finished_by_round: Vec<Prob>,
    unfinished: Prob,
    enumerated: usize,
}

impl<O> Walked<O> {
    fn into_chain(self, to_value: impl Fn(&O) -> Value) -> Chain {
        let mut end: BTreeMap<Value, Prob> = BTreeMap::new();
        for (o, p) in &self.end {
            add(&mut end, to_value(o), p);
        }
        Chain {
            end: Distribution {
                outcomes: end.into_iter().collect(),
            },
            finished_by_round: self.finished_by_round,
            unfinished: self.unfinished,
            states: self.enumerated,
        }
    }
}

/// The walk itself, round after round: `then` says, for a state and one outcome of its round,
/// the next state, or `None` when that outcome ends the procedure.
fn walk<S: Ord + Hash + Clone, O: Ord + Clone>(
    start: S,
    max_rounds: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    then: impl FnMut(&S, &O) -> Result<Option<S>, Error>,
) -> Result<Walked<O>, Error> {
    // The states' rounds share what their calls give (`odds::memo_call`): a callee met again
    // with the same inputs in another state is not enumerated again.
    crate::odds::with_shared_calls(|| walk_rounds(start, max_rounds, odds, then))
}

/// A state behind its hash: the walk's maps of states order by the hash first and compare two
/// whole states only when their hashes are equal. States of a battle share long equal parts (the
/// battle file, the units' names), which a comparison of whole states walks every time: over half
/// of a chain's time went to it. The order of the states changes nothing the walk gives (the
/// probabilities are exact sums); only which of several failing states is reported first.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Hashed<S> {
    hash: u64,
    state: S,
}

impl<S: Hash> Hashed<S> {
    fn new(state: S) -> Self {
        let mut h = DefaultHasher::new();
        state.hash(&mut h);
        Hashed { hash: h.finish(), state }
    }
}

fn walk_rounds<S: Ord + Hash + Clone, O: Ord + Clone>(
    start: S,
    max_rounds: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    mut then: impl FnMut(&S, &O) -> Result<Option<S>, Error>,
) -> Result<Walked<O>, Error> {
    // The rounds of the states met in the last round computed: a state that recurs at once (a
    // procedure that can stand still) reuses its round; older ones are let go, so that memory
    // follows the frontier, not every state a long procedure has passed through.
    let mut rounds: BTreeMap<Hashed<S>, Distribution<O>> = BTreeMap::new();
    let mut enumerated = 0usize;
    let mut frontier: BTreeMap<Hashed<S>, Prob> = BTreeMap::new();
    frontier.insert(Hashed::new(start), Prob::one());
    let mut end: BTreeMap<O, Prob> = BTreeMap::new();
    let mut finished = Prob::zero();
    let mut finished_by_round = Vec::new();
    for round in 1..=max_rounds {
        if frontier.is_empty() {
            break;
        }
        let mut next: BTreeMap<Hashed<S>, Prob> = BTreeMap::new();
        rounds.retain(|state, _| frontier.contains_key(state));
        for (state, p) in &frontier {
            crate::odds::report_chain(round, enumerated);
            if let Some(seconds) = crate::odds::cancelled() {
                return Err(Error::ChainStopped {
                    seconds,
                    round,
                    states: enumerated,
                });
            }
            if !rounds.contains_key(state) {
                let d = odds(&state.state).map_err(|e| match e {
                    Error::OddsStopped { seconds, .. } => Error::ChainStopped {
                        seconds,
                        round,
                        states: enumerated,
                    },
                    e => e,
                })?;
                enumerated += 1;
                rounds.insert(state.clone(), d);
            }
            let Some(d) = rounds.get(state) else { continue };
            for (outcome, q) in &d.outcomes {
                let w = p.mul(q);
                match then(&state.state, outcome)? {
                    None => {
                        finished = finished.add(&w);
                        add(&mut end, outcome.clone(), &w);
                    }
                    Some(n) => add(&mut next, Hashed::new(n), &w),
                }
            }
        }
        if next.len() > MAX_STATES {
            return Err(Error::TooManyStates {
                limit: MAX_STATES as u64,
                round,
            });
        }
        finished_by_round.push(finished.clone());
        frontier = next;
    }
    let unfinished = frontier.values().fold(Prob::zero(), |a, p| a.add(p));
    Ok(Walked {
        end,
        finished_by_round,
        unfinished,
        enumerated,
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

impl ResolverInfo {
    /// Exact odds of the resolver as one round of a procedure, round after round until its yes/no
    /// output `until` is yes ([`chain`]); compiled steps walk their typed states.
    pub fn chain(&self, start: &Inputs, until: &str, max_rounds: u32) -> Result<Chain, Error> {
        if let Exec::Compiled { chain: Some(typed), .. } = &self.exec {
            if let Some(done) = typed(start, until, max_rounds) {
                return done;
            }
        }
        chain(self, start, until, max_rounds, &mut |s| self.odds(s))
    }
}
