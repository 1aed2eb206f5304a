//! Exact odds of a procedure written as one step of it, as a Markov chain over
//! its states. The step's inputs are the state; its outcome carries the next state in the fields
//! named like its inputs (an input with no such field, such as a policy, keeps its value), and a
//! yes/no field (`until`) says the procedure is over. Every distinct state's step is enumerated
//! once, and paths that reach the same state merge, their probabilities added: the work grows
//! with the number of distinct states a step can lead to, not with the dice paths through all
//! the steps, which the replaying enumerator would walk one by one.

use crate::error::Error;
pub use crate::odds::Chain;
use crate::odds::{Distribution, Prob};
use crate::registry::{Exec, ResolverInfo};
use crate::value::{Inputs, Value};
use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash, Hasher};

/// Most distinct states a chain may hold at once before it gives up (`Error::TooManyStates`
/// names the limit): past it the procedure is for `sim`.
pub const MAX_STATES: usize = 200_000;

/// Runs `step` from `start` step by step until every path has ended (`until` yes) or
/// `max_steps` steps have been computed. Each step's odds come from `odds` (the resolver's own
/// exact odds, or a caller's wrapper with a budget); a state met again reuses its step.
pub fn chain(
    step: &ResolverInfo,
    start: &Inputs,
    until: &str,
    max_steps: u32,
    odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
) -> Result<Chain, Error> {
    check_until(step, until)?;
    // The inputs a step can change: those named like an output. The others keep the start's
    // values in every state, so states are told apart by these alone.
    let varying: Vec<String> = start
        .keys()
        .filter(|k| step.outputs.iter().any(|o| o.name == k.as_str()))
        .cloned()
        .collect();
    let rules = Dynamic {
        step,
        until,
        varying: &varying,
    };
    let walked = walk(start.clone(), max_steps, odds, &rules)?;
    Ok(walked.into_chain(Value::clone))
}

/// `until` must be an output of `step`: the one that says the procedure is over.
pub(crate) fn check_until(step: &ResolverInfo, until: &str) -> Result<(), Error> {
    if !step.outputs.iter().any(|o| o.name == until) {
        let names: Vec<&str> = step.outputs.iter().map(|o| o.name).collect();
        return Err(Error::Domain {
            what: format!(
                "`{}` has no output `{until}` to end the procedure; its outputs are {}",
                step.name,
                names.join(", ")
            ),
        });
    }
    Ok(())
}

/// Whether a step's `outcome` ends the procedure: its yes/no output `until`.
pub(crate) fn ended(step: &ResolverInfo, until: &str, outcome: &Value) -> Result<bool, Error> {
    match outcome.field(until) {
        Some(Value::Bool(b)) => Ok(*b),
        other => Err(Error::Domain {
            what: format!(
                "`{}`'s output `{until}` must be yes/no to end the procedure, found {}",
                step.name,
                other.map_or_else(|| "nothing".to_string(), |v| v.to_string())
            ),
        }),
    }
}

/// How [`walk`] reads a step's outcome and tells states apart. States are compared by the
/// inputs a step can change only (the others are the start's in every state), and the next
/// state is hashed and compared before it is built: most paths reach a state already met, and
/// building it only to find so would copy it for nothing.
trait Rules<S, O> {
    /// Whether `outcome` ends the procedure.
    fn ended(&self, outcome: &O) -> Result<bool, Error>;
    /// The state after `state` given `outcome`.
    fn next(&self, state: &S, outcome: &O) -> S;
    /// The hash of `state`'s changing inputs; `next_hash(s, o)` is `hash(&next(s, o))`.
    fn hash(&self, state: &S) -> u64;
    fn next_hash(&self, state: &S, outcome: &O) -> u64;
    /// Whether two states of the walk are equal; `next_is(s, o, t)` is `same(&next(s, o), t)`.
    fn same(&self, a: &S, b: &S) -> bool;
    fn next_is(&self, state: &S, outcome: &O, other: &S) -> bool;
}

/// The hasher of a chain's states (and of the typed chains' generated code): foldhash with a
/// fixed seed, the same on every run, a fraction of SipHash's cost on states of a few hundred
/// fields.
pub fn state_hasher() -> impl Hasher {
    foldhash::fast::FixedState::with_seed(0).build_hasher()
}

/// A step run by the interpreter, or by the compiled step's dynamic entry: states are input maps.
struct Dynamic<'a> {
    step: &'a ResolverInfo,
    until: &'a str,
    varying: &'a [String],
}

impl Dynamic<'_> {
    /// The value of input `k` after `outcome`: the outcome's field of that name, if it has one.
    fn after<'v>(state: &'v Inputs, outcome: &'v Value, k: &str) -> Option<&'v Value> {
        outcome.field(k).or_else(|| state.get(k))
    }
}

impl Rules<Inputs, Value> for Dynamic<'_> {
    fn ended(&self, outcome: &Value) -> Result<bool, Error> {
        ended(self.step, self.until, outcome)
    }

    fn next(&self, state: &Inputs, outcome: &Value) -> Inputs {
        next_state(state, outcome)
    }

    fn hash(&self, state: &Inputs) -> u64 {
        let mut h = state_hasher();
        for k in self.varying {
            state.get(k).hash(&mut h);
        }
        h.finish()
    }

    fn next_hash(&self, state: &Inputs, outcome: &Value) -> u64 {
        let mut h = state_hasher();
        for k in self.varying {
            Self::after(state, outcome, k).hash(&mut h);
        }
        h.finish()
    }

    fn same(&self, a: &Inputs, b: &Inputs) -> bool {
        self.varying.iter().all(|k| a.get(k) == b.get(k))
    }

    fn next_is(&self, state: &Inputs, outcome: &Value, other: &Inputs) -> bool {
        self.varying.iter().all(|k| Self::after(state, outcome, k) == other.get(k))
    }
}

/// What a compiled step's typed chain needs besides the step (generated next to it, as
/// `chain_…`): whether an outcome ends the procedure (the `until` output), the next state (each
/// input from the output of its name, if any, else kept), and the hash and equality of the inputs
/// that have an output of their name: of a state, and of the state `next` would build.
pub struct ChainStep<S, O> {
    pub ended: fn(&O) -> bool,
    pub next: fn(&S, &O) -> S,
    pub hash: fn(&S) -> u64,
    pub next_hash: fn(&S, &O) -> u64,
    pub same: fn(&S, &S) -> bool,
    pub next_is: fn(&S, &O, &S) -> bool,
}

impl<S, O> Rules<S, O> for ChainStep<S, O> {
    fn ended(&self, outcome: &O) -> Result<bool, Error> {
        Ok((self.ended)(outcome))
    }
    fn next(&self, state: &S, outcome: &O) -> S {
        (self.next)(state, outcome)
    }
    fn hash(&self, state: &S) -> u64 {
        (self.hash)(state)
    }
    fn next_hash(&self, state: &S, outcome: &O) -> u64 {
        (self.next_hash)(state, outcome)
    }
    fn same(&self, a: &S, b: &S) -> bool {
        (self.same)(a, b)
    }
    fn next_is(&self, state: &S, outcome: &O, other: &S) -> bool {
        (self.next_is)(state, outcome, other)
    }
}

/// The chain of a compiled step over its typed inputs and outcomes (the generated `chain_…`
/// functions call it): the same walk as [`chain`], with states compared as typed values rather
/// than as dynamic maps; `to_value` gives the end outcomes their dynamic form.
pub fn chain_typed<S, O: Hash + Eq + Clone>(
    start: S,
    max_steps: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    step: &ChainStep<S, O>,
    to_value: fn(&O) -> Value,
) -> Result<Chain, Error> {
    let walked = walk(start, max_steps, odds, step)?;
    Ok(walked.into_chain(to_value))
}

/// What [`walk`] found, before the end outcomes take their dynamic form.
struct Walked<O> {
    /// The outcomes that ended the procedure, one entry per distinct outcome.
    end: Vec<(Hashed<O>, Prob)>,
    finished_by_step: Vec<Prob>,
    unfinished: Prob,
    enumerated: usize,
}

impl<O> Walked<O> {
    fn into_chain(self, to_value: impl Fn(&O) -> Value) -> Chain {
        let mut end: BTreeMap<Value, Prob> = BTreeMap::new();
        for (o, p) in &self.end {
            add(&mut end, to_value(&o.state), p);
        }
        Chain {
            end: Distribution {
                outcomes: end.into_iter().collect(),
            },
            finished_by_step: self.finished_by_step,
            unfinished: self.unfinished,
            states: self.enumerated,
        }
    }
}

/// The walk itself, step after step.
fn walk<S, O: Hash + Eq + Clone>(
    start: S,
    max_steps: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    rules: &impl Rules<S, O>,
) -> Result<Walked<O>, Error> {
    // The states' steps share what their calls give (`odds::memo_call`): a callee met again
    // with the same inputs in another state is not enumerated again.
    crate::odds::with_shared_calls(|| walk_steps(start, max_steps, odds, rules))
}

/// A state with its hash. The walk keeps its states in the order of their hashes and compares
/// two whole states only when their hashes are equal. The order of the states changes nothing
/// the walk gives (the probabilities are exact sums); only which of several failing states is
/// reported first.
struct Hashed<S> {
    hash: u64,
    state: S,
}

/// Distinct states (or end outcomes) with their weights, as a step meets them: a state met again
/// adds to its weight, found by its hash (`index`: the first entry of each hash, in a hash table; `chained`: the
/// next entry of the same hash, if any) and compared before the state is built.
struct Merging<S> {
    items: Vec<(Hashed<S>, Prob)>,
    /// Looked up by the hash, never walked: its order is not the walk's.
    index: hashbrown::HashTable<(u64, u32)>,
    chained: Vec<u32>,
    /// Most distinct states allowed.
    limit: usize,
}

const NO_ENTRY: u32 = u32::MAX;

impl<S> Merging<S> {
    fn new(limit: usize) -> Self {
        Merging {
            items: Vec::new(),
            index: hashbrown::HashTable::new(),
            chained: Vec::new(),
            limit,
        }
    }

    /// Adds `p` to the weight of the entry of hash `hash` that `is` says is the one, or else adds
    /// the entry `make` builds. Past `limit` distinct entries, `Err` (the caller names the step).
    fn add(&mut self, hash: u64, is: impl Fn(&S) -> bool, make: impl FnOnce() -> S, p: &Prob) -> Result<(), ()> {
        let new = u32::try_from(self.items.len()).map_err(|_| ())?;
        let mut at = match self.index.entry(hash, |&(h, _)| h == hash, |&(h, _)| h) {
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((hash, new));
                NO_ENTRY
            }
            hashbrown::hash_table::Entry::Occupied(o) => o.get().1,
        };
        while at != NO_ENTRY {
            let i = at as usize;
            if let Some((h, q)) = self.items.get_mut(i) {
                if is(&h.state) {
                    *q = q.add(p);
                    return Ok(());
                }
            }
            match self.chained.get(i) {
                Some(&next) if next != NO_ENTRY => at = next,
                // The last entry of this hash: the new one follows it.
                _ => {
                    if let Some(link) = self.chained.get_mut(i) {
                        *link = new;
                    }
                    at = NO_ENTRY;
                }
            }
        }
        if self.items.len() >= self.limit {
            return Err(());
        }
        self.items.push((Hashed { hash, state: make() }, p.clone()));
        self.chained.push(NO_ENTRY);
        Ok(())
    }

    /// The entries in the order of their hashes (entries of one hash in the order met).
    fn finish(self) -> Vec<(Hashed<S>, Prob)> {
        // Sorted as (hash, place) pairs, then moved once each: entries are large.
        let mut order: Vec<(u64, usize)> = self.items.iter().enumerate().map(|(i, (s, _))| (s.hash, i)).collect();
        order.sort_unstable();
        let mut items: Vec<Option<(Hashed<S>, Prob)>> = self.items.into_iter().map(Some).collect();
        order.iter().filter_map(|&(_, i)| items.get_mut(i).and_then(Option::take)).collect()
    }
}

/// The step already worked out for `state` among `known` (sorted by hash), taken out of it.
fn take_known<S, O>(
    known: &mut [(Hashed<S>, Option<Distribution<O>>)],
    state: &Hashed<S>,
    same: impl Fn(&S, &S) -> bool,
) -> Option<Distribution<O>> {
    let from = known.partition_point(|(s, _)| s.hash < state.hash);
    known
        .get_mut(from..)?
        .iter_mut()
        .take_while(|(s, _)| s.hash == state.hash)
        .find(|(s, _)| same(&s.state, &state.state))?
        .1
        .take()
}

fn walk_steps<S, O: Hash + Eq + Clone>(
    start: S,
    max_steps: u32,
    odds: &mut dyn FnMut(&S) -> Result<Distribution<O>, Error>,
    rules: &impl Rules<S, O>,
) -> Result<Walked<O>, Error> {
    // The steps of the states of the last step computed, sorted by hash: a state that recurs at
    // once (a procedure that can stand still) reuses its step; older ones are let go, so that
    // memory follows the frontier, not every state a long procedure has passed through.
    let mut known: Vec<(Hashed<S>, Option<Distribution<O>>)> = Vec::new();
    let mut enumerated = 0usize;
    let start = Hashed {
        hash: rules.hash(&start),
        state: start,
    };
    let mut frontier: Vec<(Hashed<S>, Prob)> = vec![(start, Prob::one())];
    // Ended outcomes are few and kept whatever their number.
    let mut end = Merging::new(usize::MAX);
    let mut finished = Prob::zero();
    let mut finished_by_step = Vec::new();
    for step in 1..=max_steps {
        if frontier.is_empty() {
            break;
        }
        let mut next = Merging::new(MAX_STATES);
        let mut now_known = Vec::with_capacity(frontier.len());
        let too_many = || Error::TooManyStates {
            limit: MAX_STATES as u64,
            step,
        };
        for (state, p) in std::mem::take(&mut frontier) {
            crate::watch::report_chain(step, enumerated);
            if let Some(seconds) = crate::watch::cancelled() {
                return Err(Error::ChainStopped {
                    seconds,
                    step,
                    states: enumerated,
                });
            }
            let d = match take_known(&mut known, &state, |a, b| rules.same(a, b)) {
                Some(d) => d,
                None => {
                    let d = odds(&state.state).map_err(|e| match e {
                        Error::OddsStopped { seconds, .. } => Error::ChainStopped {
                            seconds,
                            step,
                            states: enumerated,
                        },
                        e => e,
                    })?;
                    enumerated += 1;
                    d
                }
            };
            for (outcome, q) in &d.outcomes {
                let w = p.mul(q);
                let s = &state.state;
                if rules.ended(outcome)? {
                    finished = finished.add(&w);
                    let h = state_hasher_of(outcome);
                    // Never past the limit: it is usize::MAX.
                    end.add(h, |o| o == outcome, || outcome.clone(), &w).map_err(|()| too_many())?;
                } else {
                    let h = rules.next_hash(s, outcome);
                    next.add(h, |t| rules.next_is(s, outcome, t), || rules.next(s, outcome), &w)
                        .map_err(|()| too_many())?;
                }
            }
            now_known.push((state, Some(d)));
        }
        // The frontier was sorted by hash, so these are too.
        known = now_known;
        frontier = next.finish();
        finished_by_step.push(finished.clone());
    }
    let unfinished = frontier.iter().fold(Prob::zero(), |a, (_, p)| a.add(p));
    Ok(Walked {
        end: end.finish(),
        finished_by_step,
        unfinished,
        enumerated,
    })
}

fn state_hasher_of<T: Hash>(t: &T) -> u64 {
    let mut h = state_hasher();
    t.hash(&mut h);
    h.finish()
}

/// The inputs of the next step: each input takes the outcome's field of the same name when
/// there is one, and keeps its value otherwise.
pub(crate) fn next_state(state: &Inputs, outcome: &Value) -> Inputs {
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
    /// Exact odds of the resolver as one step of a procedure, step after step until its yes/no
    /// output `until` is yes ([`chain`]); compiled steps walk their typed states.
    pub fn chain(&self, start: &Inputs, until: &str, max_steps: u32) -> Result<Chain, Error> {
        if let Exec::Compiled { chain: Some(typed), .. } = &self.exec {
            if let Some(done) = typed(start, until, max_steps) {
                return done;
            }
        }
        chain(self, start, until, max_steps, &mut |s| self.odds(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk on the numbers 0 to 6: a state `s` moves to `s + 1` with probability 1/2, stays with
    /// 1/3, and moves to `2s mod 7` with 1/6; reaching 6 by the first move ends it.
    fn odds(s: &i64) -> Result<Distribution<(i64, bool)>, Error> {
        let p = |n, d| Prob::new(n, d).unwrap_or_else(|e| panic!("{e}"));
        let mut outcomes = vec![((s + 1) % 7, s + 1 == 6), (*s, false), ((2 * s) % 7, false)]
            .into_iter()
            .zip([p(1, 2), p(1, 3), p(1, 6)])
            .collect::<Vec<_>>();
        outcomes.sort_by_key(|o| o.0);
        outcomes.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 = a.1.add(&b.1);
                true
            } else {
                false
            }
        });
        Ok(Distribution { outcomes })
    }

    /// The walk's rules, with the states' real hash or one that makes every state collide.
    struct Walk {
        collide: bool,
    }

    impl Rules<i64, (i64, bool)> for Walk {
        fn ended(&self, o: &(i64, bool)) -> Result<bool, Error> {
            Ok(o.1)
        }
        fn next(&self, _: &i64, o: &(i64, bool)) -> i64 {
            o.0
        }
        fn hash(&self, s: &i64) -> u64 {
            if self.collide {
                7
            } else {
                state_hasher_of(s)
            }
        }
        fn next_hash(&self, _: &i64, o: &(i64, bool)) -> u64 {
            self.hash(&o.0)
        }
        fn same(&self, a: &i64, b: &i64) -> bool {
            a == b
        }
        fn next_is(&self, _: &i64, o: &(i64, bool), t: &i64) -> bool {
            o.0 == *t
        }
    }

    type Summary = (Vec<((i64, bool), Prob)>, Vec<Prob>, Prob, usize);

    fn summary(w: Walked<(i64, bool)>) -> Summary {
        let mut end: Vec<_> = w.end.into_iter().map(|(h, p)| (h.state, p)).collect();
        end.sort_by_key(|e| e.0);
        (end, w.finished_by_step, w.unfinished, w.enumerated)
    }

    /// States whose hashes collide are still told apart, and merged only when equal: every state
    /// hashed alike gives the same exact walk as the real hash.
    #[test]
    fn colliding_hashes_merge_only_equal_states() {
        let run = |collide| {
            let w = walk_steps(0, 12, &mut odds, &Walk { collide }).unwrap_or_else(|e| panic!("{e}"));
            summary(w)
        };
        let (end, by_step, unfinished, states) = run(false);
        assert_eq!(run(true), (end.clone(), by_step.clone(), unfinished.clone(), states));
        // Exact: what ended and what is left make 1.
        let total = end.iter().fold(unfinished.clone(), |a, (_, p)| a.add(p));
        assert_eq!(total, Prob::one());
        assert_eq!(by_step.last(), Some(&end.iter().fold(Prob::zero(), |a, (_, p)| a.add(p))));
        // Only the move from 5 to 6 ends it, and 5 is four moves away at least (0, 1, 2, 4, 5):
        // nothing ends before step 5.
        assert!(by_step.iter().take(4).all(Prob::is_zero));
        assert!(by_step.get(4).is_some_and(|p| !p.is_zero()));
    }

    /// A step past the limit of distinct states is refused, naming the step.
    #[test]
    fn more_distinct_states_than_the_limit_are_refused() {
        let mut m: Merging<i64> = Merging::new(3);
        let one = Prob::one();
        for s in 0..3 {
            assert!(m.add(s as u64 % 2, |t| *t == s, || s, &one).is_ok());
        }
        // A state met again adds to its weight, even at the limit.
        assert!(m.add(0, |t| *t == 2, || 2, &one).is_ok());
        assert!(m.add(1, |t| *t == 3, || 3, &one).is_err());
        let items = m.finish();
        let got: Vec<(u64, i64, Prob)> = items.into_iter().map(|(h, p)| (h.hash, h.state, p)).collect();
        let two = one.add(&one);
        assert_eq!(got, vec![(0, 0, one.clone()), (0, 2, two), (1, 1, one)]);
    }
}
