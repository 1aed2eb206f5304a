//! The results of exact odds: `Distribution`, an exact outcome distribution, and `Chain`, that of
//! a procedure run as a chain of steps.

use super::prob::Prob;
use std::collections::BTreeMap;

/// An exact outcome distribution, sorted by outcome; probabilities sum to exactly 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution<O> {
    pub outcomes: Vec<(O, Prob)>,
}

impl<O> Distribution<O> {
    /// Total probability of the outcomes satisfying `pred`.
    pub fn probability(&self, mut pred: impl FnMut(&O) -> bool) -> Prob {
        self.outcomes
            .iter()
            .filter(|(o, _)| pred(o))
            .fold(Prob::zero(), |acc, (_, p)| acc.add(p))
    }

    /// Sum of all probabilities (exactly 1 for a distribution from `enumerate`).
    pub fn total(&self) -> Prob {
        self.probability(|_| true)
    }

    /// Distribution of `f(outcome)`: e.g. the marginal distribution of one outcome field.
    pub fn marginal<K: Ord>(&self, mut f: impl FnMut(&O) -> K) -> Distribution<K> {
        let mut m: BTreeMap<K, Prob> = BTreeMap::new();
        for (o, p) in &self.outcomes {
            let slot = m.entry(f(o)).or_insert_with(Prob::zero);
            *slot = slot.add(p);
        }
        Distribution {
            outcomes: m.into_iter().collect(),
        }
    }
}

/// The exact distribution of a procedure run as a chain of steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// The outcomes of the steps that ended the procedure (their `until` field yes), merged over
    /// every step: the distribution of how it ended, short of `unfinished`.
    pub end: Distribution<crate::value::Value>,
    /// The probability that the procedure has ended after step 1, 2, ... (cumulative).
    pub finished_by_step: Vec<Prob>,
    /// The probability that it is still running after the last step computed (0 when every
    /// path ended within `max_steps`).
    pub unfinished: Prob,
    /// Steps enumerated: one per distinct state, but for a state met again after a step apart
    /// (enumerated again rather than kept).
    pub states: usize,
}
