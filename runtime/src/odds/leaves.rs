//! `Leaves`, the list an enumeration's leaves go to, and `merge_by_key`, which sorts and merges
//! it (and a callee's classes) in one pass over a nearly sorted list.

use super::distribution::Distribution;
use super::prob::Prob;
use super::weight::Weight;
use num_rational::Ratio;
use std::cmp::Ordering;

/// The leaves of an enumeration in the order met, a leaf with the same outcome as the one before
/// added to it; sorted and merged at the end, and whenever the list has doubled since (memory
/// follows the distinct outcomes, not the leaves). Cheaper than a map searched at every leaf.
pub(crate) struct Leaves<O> {
    /// Each weight unreduced (`Weight::into_unreduced`) until `finish`.
    acc: Vec<(O, Prob)>,
    merged_len: usize,
}

impl<O> Default for Leaves<O> {
    fn default() -> Self {
        Leaves {
            acc: Vec::with_capacity(64),
            merged_len: 0,
        }
    }
}

impl<O: Ord> Leaves<O> {
    /// Adds a leaf; one with the outcome of the leaf before adds its weight to it.
    pub(crate) fn add(&mut self, o: O, w: Weight) {
        if let Some((last, slot)) = self.acc.last_mut() {
            if *last == o {
                slot.add_unreduced(&w.into_unreduced());
                return;
            }
        }
        self.push(o, w);
    }

    /// Adds a leaf without looking at the one before (a forward pass's `Sink`: most of its
    /// leaves differ, and the comparison of two outcomes just written costs more than the merge).
    #[inline(always)]
    pub(crate) fn push(&mut self, o: O, w: Weight) {
        match w {
            Weight::Small(n, d) => self.push_small(o, n, d),
            big => self.push_weight(o, big),
        }
    }

    /// `push` of a leaf whose weight is `n/d`: a call of its own, with the two parts in
    /// registers, so that they are stored straight into the list. (Built in the forward pass and
    /// copied in by `Vec::push`, which LLVM does not inline there, the weight was read back from
    /// memory just after it was written there, piece by piece: a stall at every leaf.)
    #[inline(never)]
    fn push_small(&mut self, o: O, n: u128, d: u128) {
        self.acc.push((o, Prob::Small(Ratio::new_raw(n, d))));
        self.merge_if_doubled();
    }

    fn push_weight(&mut self, o: O, w: Weight) {
        self.acc.push((o, w.into_unreduced()));
        self.merge_if_doubled();
    }

    #[inline(always)]
    fn merge_if_doubled(&mut self) {
        if self.acc.len() >= 2 * self.merged_len + 4096 {
            self.merge();
        }
    }

    #[cold]
    fn merge(&mut self) {
        merge_leaves(&mut self.acc);
        self.merged_len = self.acc.len();
    }

    /// The distribution: the list itself, merged, each weight reduced in place (no copy). A list
    /// with much more room than outcomes gives the room back: a chain of rounds keeps a
    /// distribution for each state of its frontier, hundreds of thousands of them.
    pub(crate) fn finish(mut self) -> Distribution<O> {
        merge_leaves(&mut self.acc);
        for (_, p) in self.acc.iter_mut() {
            p.reduce();
        }
        if self.acc.capacity() > 2 * self.acc.len() + 8 {
            self.acc.shrink_to_fit();
        }
        Distribution { outcomes: self.acc }
    }
}

/// Sorts `leaves` by outcome and adds up the weights of equal outcomes: one entry per outcome.
/// Exact sums do not depend on the order they are added in.
fn merge_leaves<O: Ord>(leaves: &mut Vec<(O, Prob)>) {
    merge_by_key(leaves);
}

/// Sorts a callee's classes by what the caller reads (stably: the outcome met first stays the
/// class's) and adds up the weights of each.
pub(super) fn merge_classes<K: Ord, O>(classes: &mut Vec<(K, O, Weight)>) {
    merge_by_key(classes);
}

/// An entry of a list of weighted leaves or classes: what it is told apart by, and its weight.
trait Weighed {
    type Key: Ord;
    fn key(&self) -> &Self::Key;
    /// Adds the weight of `o` (an entry of the same key) to this one's.
    fn absorb(&mut self, o: &Self);
}

impl<O: Ord> Weighed for (O, Prob) {
    type Key = O;
    fn key(&self) -> &O {
        &self.0
    }
    fn absorb(&mut self, o: &Self) {
        self.1.add_unreduced(&o.1);
    }
}

impl<K: Ord, O> Weighed for (K, O, Weight) {
    type Key = K;
    fn key(&self) -> &K {
        &self.0
    }
    fn absorb(&mut self, o: &Self) {
        self.2.add(&o.2);
    }
}

/// Sorts `items` by key (stably: of equal keys, the item met first stays first) and merges each
/// run of equal keys into its first item, adding up their weights.
///
/// A forward pass meets its leaves, and a callee its classes, nearly in order: long ascending
/// runs with an item out of place here and there (a call's classes are ordered by what the caller
/// reads, which need not be the order of the caller's outcome). So the list is walked once; an
/// item smaller than the one before is moved back to its place in the sorted part (found by
/// binary search, after the items equal to it), and equal neighbours are merged at the end. Past
/// `8 n + 64` items moved, the list is far from sorted and the library's stable sort finishes.
fn merge_by_key<T: Weighed>(items: &mut Vec<T>) {
    let budget = 8 * items.len() + 64;
    let mut moved = 0usize;
    let mut equal = false;
    for i in 1..items.len() {
        let (done, rest) = items.split_at(i);
        let (Some(last), Some(item)) = (done.last(), rest.first()) else {
            break;
        };
        match last.key().cmp(item.key()) {
            Ordering::Less => {}
            Ordering::Equal => equal = true,
            Ordering::Greater => {
                let at = done.partition_point(|x| x.key() <= item.key());
                moved += i - at;
                if moved > budget {
                    items.sort_by(|a, b| a.key().cmp(b.key()));
                    equal = true;
                    break;
                }
                equal |= at > 0 && done.get(at - 1).is_some_and(|x| x.key() == item.key());
                if let Some(part) = items.get_mut(at..=i) {
                    part.rotate_right(1);
                }
            }
        }
    }
    if equal {
        items.dedup_by(|next, kept| {
            if next.key() != kept.key() {
                return false;
            }
            kept.absorb(next);
            true
        });
    }
}

#[cfg(test)]
mod tests {
    /// Merging sorts by key, keeps the first item met of each key and adds the weights, whether
    /// the list is sorted, nearly sorted (a few items out of place, the forward pass's usual
    /// case), reversed or shuffled (past the budget of moves, where the library sort finishes).
    #[test]
    fn merging_equals_a_map_of_first_items_and_sums() {
        use super::{merge_classes, Weight};
        use std::collections::BTreeMap;
        let mut x: u64 = 0x853C_49E6_748F_EA9B;
        let mut next = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        };
        for case in 0..400u64 {
            let len = (case % 97) as usize;
            let mut keys: Vec<u64> = (0..len).map(|_| next() % (1 + case % 40)).collect();
            match case % 4 {
                0 => keys.sort_unstable(),
                1 => {
                    keys.sort_unstable();
                    // A few items out of place, and a few repeated.
                    for _ in 0..(case % 5) {
                        if len > 1 {
                            let (a, b) = ((next() as usize) % len, (next() as usize) % len);
                            keys.swap(a, b);
                        }
                    }
                }
                2 => keys.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut items: Vec<(u64, usize, Weight)> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (k, i, Weight::Small(u128::from(k) + 1, 7)))
                .collect();
            let mut want: BTreeMap<u64, (usize, u128)> = BTreeMap::new();
            for &(k, i, _) in &items {
                want.entry(k).or_insert((i, 0)).1 += u128::from(k) + 1;
            }
            merge_classes(&mut items);
            let got: Vec<(u64, usize, u128)> = items
                .into_iter()
                .map(|(k, i, w)| match w {
                    Weight::Small(n, 7) => (k, i, n),
                    other => panic!("weight {other:?}"),
                })
                .collect();
            let want: Vec<(u64, usize, u128)> = want.into_iter().map(|(k, (i, n))| (k, i, n)).collect();
            assert_eq!(got, want, "case {case}: {keys:?}");
        }
    }

    /// The leaves become the distribution in place: each outcome once, in order, its weights
    /// summed (unreduced, over different denominators, past u128 into big numbers) and then
    /// reduced where they lie, small values back in `Prob::Small`.
    #[test]
    fn leaves_sum_and_reduce_in_place() {
        use super::{Leaves, Prob, Weight};
        use num_bigint::BigInt;
        use num_rational::{BigRational, Ratio};
        let small = |n: u128, d: u128| Prob::Small(Ratio::new_raw(n, d));
        let mut leaves: Leaves<u8> = Leaves::default();
        // Outcome 3: 2/8 + 3/12 = 1/2, met apart, with different denominators.
        leaves.push(3, Weight::Small(2, 8));
        leaves.push(1, Weight::Small(6, 36));
        leaves.push(3, Weight::Small(3, 12));
        // Outcome 2: the replay's `add` of equal neighbours; 1/4 + 1/12 = 1/3.
        leaves.add(2, Weight::Small(9, 36));
        leaves.add(2, Weight::Small(1, 12));
        // Outcome 0: a weight past u128, plus one that brings the sum back to a small 0/1 + ...
        let huge = BigInt::from(u128::MAX) * BigInt::from(4u8);
        leaves.push(
            0,
            Weight::Big(Box::new(BigRational::new_raw(huge.clone(), huge * BigInt::from(5u8)))),
        );
        // Outcome 4: a denominator whose product with another's overflows u128 when summed.
        leaves.push(4, Weight::Small(1, u128::MAX));
        leaves.push(4, Weight::Small(1, u128::MAX - 1));
        let d = leaves.finish();
        let keys: Vec<u8> = d.outcomes.iter().map(|(o, _)| *o).collect();
        assert_eq!(keys, vec![0, 1, 2, 3, 4]);
        let reduced: Vec<String> = d.outcomes.iter().map(|(_, p)| p.numer_denom_string()).collect();
        let m = BigInt::from(u128::MAX);
        let four = BigRational::new(BigInt::from(1), m.clone()) + BigRational::new(BigInt::from(1), m - BigInt::from(1));
        assert_eq!(reduced[..4], ["1/5", "1/6", "1/3", "1/2"]);
        assert_eq!(reduced[4], format!("{}/{}", four.numer(), four.denom()));
        // Small values are `Small` again, with their lowest terms inside.
        assert!(matches!(&d.outcomes[0].1, Prob::Small(r) if *r.numer() == 1 && *r.denom() == 5));
        assert!(matches!(&d.outcomes[3].1, Prob::Small(r) if *r.numer() == 1 && *r.denom() == 2));
        assert!(matches!(&d.outcomes[4].1, Prob::Big(_)));
        assert_eq!(d.outcomes[3].1, small(1, 2));
        // The list gave back the room it did not need (a chain keeps many distributions).
        assert!(
            d.outcomes.capacity() <= 2 * d.outcomes.len() + 8,
            "room for {}",
            d.outcomes.capacity()
        );
    }
}
