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
use std::collections::BTreeMap;

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
    /// The value of each fixed choice asked for, held in every state.
    pub fixed: Vec<BigRational>,
}

/// Where one outcome of a step leads: the end (valued), or a state.
enum Next {
    End(BigRational),
    /// The next state (its number), and the objective of this outcome (the value if the horizon
    /// comes first).
    Go(u32, BigRational),
}

type Key = Vec<Value>;

/// Every state the procedure reaches within the horizon, under any choice, each numbered once,
/// and each state's step for each choice: worked out once, then valued for the best choice and
/// for each fixed one.
struct Graph {
    fields: Vec<String>,
    /// The states by number, and the step at which each is first met.
    keys: Vec<Key>,
    first: Vec<u32>,
    /// The states of each step of the procedure (a state may come again at a later step).
    layers: Vec<Vec<u32>>,
    /// By state, then by choice: the step's outcomes with their probabilities.
    steps: Vec<Vec<Vec<(BigRational, Next)>>>,
}

struct Explorer<'a, 'o> {
    p: &'a Problem<'a>,
    odds: &'o mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>,
    g: Graph,
    ids: BTreeMap<Key, u32>,
    /// The step of the procedure being worked out, for an error that stops there.
    layer: u32,
    worked: usize,
}

impl Explorer<'_, '_> {
    /// The state's number, a new one (first met at `layer`) if it is new.
    fn intern(&mut self, key: Key, layer: u32) -> u32 {
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.g.keys.len() as u32;
        self.ids.insert(key.clone(), id);
        self.g.keys.push(key);
        self.g.first.push(layer);
        self.g.steps.push(Vec::new());
        id
    }

    /// Each choice's step from state `id`, worked out once.
    fn work(&mut self, id: u32) -> Result<(), Error> {
        if !self.g.steps[id as usize].is_empty() {
            return Ok(());
        }
        let mut all = Vec::with_capacity(self.p.choices.len());
        for choice in 0..self.p.choices.len() {
            all.push(self.step(id, choice)?);
        }
        self.g.steps[id as usize] = all;
        Ok(())
    }

    fn step(&mut self, id: u32, choice: usize) -> Result<Vec<(BigRational, Next)>, Error> {
        if let Some(seconds) = crate::watch::cancelled() {
            return Err(Error::ChainStopped {
                seconds,
                step: self.layer,
                states: self.worked,
            });
        }
        let inputs = inputs(self.p, &self.g.fields, &self.g.keys[id as usize], choice);
        let (layer, worked) = (self.layer, self.worked);
        let d = (self.odds)(&inputs).map_err(|e| match e {
            Error::OddsStopped { seconds, .. } => Error::ChainStopped {
                seconds,
                step: layer,
                states: worked,
            },
            e => e,
        })?;
        self.worked += 1;
        let mut out = Vec::with_capacity(d.outcomes.len());
        for (o, p) in &d.outcomes {
            let f = self.p.objective.value(o)?;
            let next = if crate::chain::ended(self.p.step, self.p.until, o)? {
                Next::End(f)
            } else {
                let state = crate::chain::next_state(&inputs, o);
                let key = self.g.fields.iter().map(|k| state.get(k).cloned().unwrap_or(Value::None)).collect();
                Next::Go(self.intern(key, self.layer + 1), f)
            };
            out.push((p.to_big(), next));
        }
        Ok(out)
    }
}

/// The step's inputs in the state `key` with choice `choice` (none when out of range).
fn inputs(p: &Problem, fields: &[String], key: &Key, choice: usize) -> Inputs {
    let mut inputs = p.start.clone();
    for (f, v) in fields.iter().zip(key) {
        inputs.insert(f.clone(), v.clone());
    }
    if let Some(c) = p.choices.get(choice) {
        inputs.insert(p.decide.clone(), c.clone());
    }
    inputs
}

/// Forward: the states of each step under every choice, until the horizon or no state is left.
fn explore(p: &Problem, odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>) -> Result<(Graph, usize), Error> {
    crate::chain::check_until(p.step, p.until)?;
    let fields: Vec<String> = p
        .start
        .keys()
        .filter(|k| k.as_str() != p.decide.as_str() && p.step.outputs.iter().any(|o| o.name == k.as_str()))
        .cloned()
        .collect();
    let start: Key = fields.iter().map(|k| p.start.get(k).cloned().unwrap_or(Value::None)).collect();
    let graph = Graph {
        fields,
        keys: Vec::new(),
        first: Vec::new(),
        layers: Vec::new(),
        steps: Vec::new(),
    };
    let mut x = Explorer {
        p,
        odds,
        g: graph,
        ids: BTreeMap::new(),
        layer: 0,
        worked: 0,
    };
    let start = x.intern(start, 0);
    x.g.layers.push(vec![start]);
    // The layer each state was last added to, so that a layer lists a state once.
    let mut listed: Vec<u32> = vec![0];
    for t in 0..p.horizon.saturating_sub(1) {
        x.layer = t;
        let mut next: Vec<u32> = Vec::new();
        for i in 0..x.g.layers[t as usize].len() {
            let id = x.g.layers[t as usize][i];
            x.work(id)?;
            let reached: Vec<u32> = x.g.steps[id as usize]
                .iter()
                .flatten()
                .filter_map(|(_, n)| if let Next::Go(k, _) = n { Some(*k) } else { None })
                .collect();
            for k in reached {
                listed.resize(x.g.keys.len(), u32::MAX);
                if listed[k as usize] != t + 1 {
                    listed[k as usize] = t + 1;
                    next.push(k);
                }
            }
        }
        if x.g.keys.len() > MAX_STATES {
            return Err(Error::TooManyStates {
                limit: MAX_STATES as u64,
                step: t + 1,
            });
        }
        if next.is_empty() {
            break;
        }
        x.g.layers.push(next);
    }
    // The last layer's steps too: a path still going there is valued by its last outcome.
    x.layer = x.g.layers.len() as u32 - 1;
    for id in x.g.layers.last().cloned().unwrap_or_default() {
        x.work(id)?;
    }
    Ok((x.g, x.worked))
}

impl Graph {
    /// Backward: each layer's values from the next one's, with the best choice in each state, or
    /// with `fixed` in every state; and, with `report`, each state's choices where first met.
    fn values(&self, fixed: Option<usize>, report: &mut Option<Vec<StateChoice>>) -> BigRational {
        let n = self.keys.len();
        let mut later: Vec<Option<BigRational>> = vec![None; n];
        let mut now: Vec<Option<BigRational>> = vec![None; n];
        for (t, layer) in self.layers.iter().enumerate().rev() {
            for &id in layer {
                let steps = &self.steps[id as usize];
                let value = |c: usize| -> BigRational {
                    let mut q = BigRational::zero();
                    for (pr, n) in &steps[c] {
                        let v = match n {
                            Next::End(f) => f,
                            Next::Go(k, f) => later[*k as usize].as_ref().unwrap_or(f),
                        };
                        q += pr * v;
                    }
                    q
                };
                let best_value = match fixed {
                    Some(c) => value(c),
                    None => {
                        let values: Vec<BigRational> = (0..steps.len()).map(value).collect();
                        let best_value = values.iter().max().cloned().unwrap_or_else(BigRational::zero);
                        if let Some(report) = report.as_mut().filter(|_| self.first[id as usize] == t as u32) {
                            report.push(StateChoice {
                                state: self.keys[id as usize].clone(),
                                step: t as u32,
                                best: (0..values.len()).filter(|&c| values[c] == best_value).collect(),
                                value: best_value.clone(),
                                values,
                            });
                        }
                        best_value
                    }
                };
                now[id as usize] = Some(best_value);
            }
            if let Some(next) = self.layers.get(t + 1) {
                for &id in next {
                    later[id as usize] = None;
                }
            }
            std::mem::swap(&mut later, &mut now);
        }
        later[0].clone().unwrap_or_else(BigRational::zero)
    }
}

/// Backward induction: the best value from the start, the best choices in every state, and the
/// value of each choice in `fixed` held in every state, all from one exploration of the states.
pub fn solve(p: &Problem, odds: &mut dyn FnMut(&Inputs) -> Result<Distribution<Value>, Error>, fixed: &[usize]) -> Result<Solution, Error> {
    let (g, worked) = explore(p, odds)?;
    let mut report = Some(Vec::new());
    let optimal = g.values(None, &mut report);
    let mut states = report.unwrap_or_default();
    states.sort_by(|a, b| a.step.cmp(&b.step).then_with(|| a.state.cmp(&b.state)));
    let fixed = fixed.iter().map(|&c| g.values(Some(c), &mut None)).collect();
    Ok(Solution {
        optimal,
        fixed,
        fields: g.fields,
        states,
        worked,
    })
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
