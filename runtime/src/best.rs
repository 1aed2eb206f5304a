//! `rulebook best`: the best choice of a decision at each state of a procedure written as one
//! step (as `odds --until` follows it), exactly, by backward induction over a finite horizon.
//!
//! The decision is an input of the step that no output carries on (as a policy such as RISK's
//! `stop_at`): the same input, chosen afresh in each state. States are the inputs the step
//! changes, as in [`crate::chain`]; each state's step is worked out once for each choice and
//! reused wherever the state comes again. A path is valued by the objective of the outcome that
//! ends it, or, at the horizon, of its last outcome. Values are exact rationals (an expected
//! number of survivors may pass 1), never floats.

use crate::error::Error;
use crate::odds::Distribution;
use crate::registry::ResolverInfo;
use crate::value::{Inputs, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::{BTreeMap, BTreeSet};

/// Most distinct states followed before giving up (`Error::TooManyStates`).
pub const MAX_STATES: usize = 200_000;

pub use crate::objective::{Objective, Op, Term};

/// A procedure and its decision.
pub struct Problem<'a> {
    pub step: &'a ResolverInfo,
    pub start: Inputs,
    /// The yes/no output that ends the procedure.
    pub until: &'a str,
    /// The decision input, and the values it may take.
    pub decide: String,
    pub choices: Vec<Value>,
    pub objective: Objective,
    /// Most steps followed; a path still going then is valued by its last outcome.
    pub horizon: u32,
}

/// The best choices in one state, where it is first met.
#[derive(Debug, Clone)]
pub struct StateChoice {
    /// The values of the state's inputs, in the order of [`Solution::fields`].
    pub state: Vec<Value>,
    /// The step at which the state is first met (0: the start).
    pub step: u32,
    /// Every choice that reaches the best value there (indices into `Problem::choices`).
    pub best: Vec<usize>,
    /// The best value from there, and each choice's value.
    pub value: BigRational,
    pub values: Vec<BigRational>,
}

#[derive(Debug, Clone)]
pub struct Solution {
    pub optimal: BigRational,
    /// The inputs a state is made of.
    pub fields: Vec<String>,
    pub states: Vec<StateChoice>,
    /// Steps worked out (distinct state and choice).
    pub worked: usize,
}

/// Where one outcome of a step leads: the end (valued), or a state.
#[derive(Clone)]
enum Next {
    End(BigRational),
    /// The next state, and the objective of this outcome (the value if the horizon comes first).
    Go(Vec<Value>, BigRational),
}

type Key = Vec<Value>;

struct Solver<'a, 'o> {
    p: &'a Problem<'a>,
    fields: Vec<String>,
    odds: &'o mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
    steps: BTreeMap<(Key, usize), Vec<(BigRational, Next)>>,
    /// The step of the procedure being worked out, for an error that stops there.
    layer: u32,
}

impl Solver<'_, '_> {
    fn inputs(&self, key: &Key, choice: usize) -> Inputs {
        let mut inputs = self.p.start.clone();
        for (f, v) in self.fields.iter().zip(key) {
            inputs.insert(f.clone(), v.clone());
        }
        if let Some(c) = self.p.choices.get(choice) {
            inputs.insert(self.p.decide.clone(), c.clone());
        }
        inputs
    }

    /// The step from `key` with choice `choice`, worked out once.
    fn step(&mut self, key: &Key, choice: usize) -> Result<&Vec<(BigRational, Next)>, Error> {
        if !self.steps.contains_key(&(key.clone(), choice)) {
            if let Some(seconds) = crate::watch::cancelled() {
                return Err(Error::ChainStopped {
                    seconds,
                    step: self.layer,
                    states: self.steps.len(),
                });
            }
            let inputs = self.inputs(key, choice);
            let (layer, worked) = (self.layer, self.steps.len());
            let d = (self.odds)(&inputs).map_err(|e| match e {
                Error::OddsStopped { seconds, .. } => Error::ChainStopped {
                    seconds,
                    step: layer,
                    states: worked,
                },
                e => e,
            })?;
            let mut out = Vec::with_capacity(d.outcomes.len());
            for (o, p) in &d.outcomes {
                let f = self.p.objective.value(o)?;
                let next = if crate::chain::ended(self.p.step, self.p.until, o)? {
                    Next::End(f)
                } else {
                    let state = crate::chain::next_state(&inputs, o);
                    Next::Go(
                        self.fields.iter().map(|k| state.get(k).cloned().unwrap_or(Value::None)).collect(),
                        f,
                    )
                };
                out.push((p.to_big(), next));
            }
            self.steps.insert((key.clone(), choice), out);
        }
        self.steps.get(&(key.clone(), choice)).ok_or(Error::Overflow)
    }
}

/// Backward induction: the best value from the start, and the best choices in every state.
/// `fixed`, when given, replaces the choice in every state (the value of that policy).
pub fn solve(
    p: &Problem,
    odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
    fixed: Option<&dyn Fn(&Inputs) -> usize>,
) -> Result<Solution, Error> {
    crate::chain::check_until(p.step, p.until)?;
    let fields: Vec<String> = p
        .start
        .keys()
        .filter(|k| k.as_str() != p.decide.as_str() && p.step.outputs.iter().any(|o| o.name == k.as_str()))
        .cloned()
        .collect();
    let start: Key = fields.iter().map(|k| p.start.get(k).cloned().unwrap_or(Value::None)).collect();
    let mut s = Solver {
        p,
        fields: fields.clone(),
        odds,
        steps: BTreeMap::new(),
        layer: 0,
    };
    // Forward: the states of each step (any choice), until the horizon or no state is left.
    let mut layers: Vec<Vec<Key>> = vec![vec![start.clone()]];
    let mut first: BTreeMap<Key, u32> = BTreeMap::from([(start, 0)]);
    let choices: Vec<usize> = (0..p.choices.len()).collect();
    for t in 0..p.horizon.saturating_sub(1) {
        s.layer = t;
        let mut next: Vec<Key> = Vec::new();
        let mut seen: BTreeSet<Key> = BTreeSet::new();
        for key in layers[t as usize].clone() {
            for &c in &allowed(&s, &key, &choices, fixed) {
                for (_, n) in s.step(&key, c)?.clone() {
                    if let Next::Go(k, _) = n {
                        if seen.insert(k.clone()) {
                            first.entry(k.clone()).or_insert(t + 1);
                            next.push(k);
                        }
                    }
                }
            }
        }
        if first.len() > MAX_STATES {
            return Err(Error::TooManyStates {
                limit: MAX_STATES as u64,
                step: t + 1,
            });
        }
        if next.is_empty() {
            break;
        }
        layers.push(next);
    }
    // Backward: each layer's values from the next one's.
    let mut later: BTreeMap<Key, BigRational> = BTreeMap::new();
    let mut report: BTreeMap<Key, StateChoice> = BTreeMap::new();
    let last = layers.len();
    for (t, layer) in layers.iter().enumerate().rev() {
        let mut now = BTreeMap::new();
        for key in layer {
            let mut values = vec![None; p.choices.len()];
            for &c in &allowed(&s, key, &choices, fixed) {
                let mut q = BigRational::zero();
                for (pr, n) in s.step(key, c)? {
                    let v = match n {
                        Next::End(f) => f,
                        Next::Go(k, f) => later.get(k).filter(|_| t + 1 < last).unwrap_or(f),
                    };
                    q += pr * v;
                }
                values[c] = Some(q);
            }
            let best_value = values.iter().flatten().max().cloned().unwrap_or_else(BigRational::zero);
            let best: Vec<usize> = (0..values.len()).filter(|&c| values[c].as_ref() == Some(&best_value)).collect();
            if first.get(key) == Some(&(t as u32)) {
                let all = values.iter().map(|v| v.clone().unwrap_or_else(BigRational::zero)).collect();
                report.insert(
                    key.clone(),
                    StateChoice {
                        state: key.clone(),
                        step: t as u32,
                        best,
                        value: best_value.clone(),
                        values: all,
                    },
                );
            }
            now.insert(key.clone(), best_value);
        }
        later = now;
    }
    let optimal = layers
        .first()
        .and_then(|l| l.first())
        .and_then(|k| later.get(k))
        .cloned()
        .unwrap_or_else(BigRational::zero);
    let mut states: Vec<StateChoice> = report.into_values().collect();
    states.sort_by(|a, b| a.step.cmp(&b.step).then_with(|| a.state.cmp(&b.state)));
    Ok(Solution {
        optimal,
        fields,
        states,
        worked: s.steps.len(),
    })
}

/// The choices considered in a state: all of them, or the one a fixed policy makes.
fn allowed(s: &Solver, key: &Key, all: &[usize], fixed: Option<&dyn Fn(&Inputs) -> usize>) -> Vec<usize> {
    match fixed {
        Some(f) => vec![f(&s.inputs(key, usize::MAX))],
        None => all.to_vec(),
    }
}

/// A rational as `n/d`.
pub fn fraction(v: &BigRational) -> String {
    format!("{}/{}", v.numer(), v.denom())
}

/// A rational with `decimals` places, rounded half up (for reading; the fraction is exact).
pub fn decimal(v: &BigRational, decimals: u32) -> String {
    let scale = BigInt::from(10u32).pow(decimals);
    let scaled = (v * BigRational::from_integer(scale.clone()) + BigRational::new(BigInt::from(1), BigInt::from(2)))
        .floor()
        .to_integer();
    let (neg, abs) = if scaled < BigInt::zero() {
        (true, -scaled)
    } else {
        (false, scaled)
    };
    let int = &abs / &scale;
    let frac = &abs % &scale;
    let sign = if neg { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{:0>width$}", frac.to_string(), width = decimals as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_half_up_and_keep_their_zeros() {
        let r = |n: i64, d: i64| BigRational::new(BigInt::from(n), BigInt::from(d));
        assert_eq!(decimal(&r(1, 3), 4), "0.3333");
        assert_eq!(decimal(&r(2, 3), 2), "0.67");
        assert_eq!(decimal(&r(1, 200), 2), "0.01");
        assert_eq!(decimal(&r(5, 1), 2), "5.00");
        assert_eq!(fraction(&r(2, 4)), "1/2");
    }
}
