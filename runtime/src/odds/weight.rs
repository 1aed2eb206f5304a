//! `Weight`, a leaf's weight or a sum of them before reduction (an unreduced u128 fraction, or a
//! big rational), and the unreduced sums and in-place reduction of `Prob`s.

use super::prob::{gcd_u64, Prob};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::{BigRational, Ratio};

/// A leaf weight or accumulated probability before reduction.
#[derive(Clone, Debug)]
pub(crate) enum Weight {
    Small(u128, u128),
    /// Boxed: a leaf list entry stays small (most weights are `Small`).
    Big(Box<BigRational>),
}

impl Weight {
    fn to_big(&self) -> BigRational {
        match self {
            Weight::Small(n, d) => BigRational::new(BigInt::from(*n), BigInt::from(*d)),
            Weight::Big(b) => (**b).clone(),
        }
    }

    /// This weight times `n/d` (`d` > 0), unreduced while it fits in u128. The common case (four
    /// 64-bit parts) is inlined into the forward pass's loops, its result kept in registers; the
    /// rest is a call.
    #[inline(always)]
    pub(crate) fn times(&self, n: u128, d: u128) -> Weight {
        if let Weight::Small(a, b) = self {
            if (*a | *b | n | d) >> 64 == 0 {
                // Four 64-bit parts: each product fits in u128, no check needed.
                return Weight::Small(*a * n, *b * d);
            }
        }
        self.times_wide(n, d)
    }

    /// `times` past 64-bit parts: checked u128 products, else exact big numbers.
    #[cold]
    #[inline(never)]
    fn times_wide(&self, n: u128, d: u128) -> Weight {
        if let Weight::Small(a, b) = self {
            if let (Some(x), Some(y)) = (u128::checked_mul(*a, n), u128::checked_mul(*b, d)) {
                return Weight::Small(x, y);
            }
        }
        Weight::Big(Box::new(self.to_big() * BigRational::new(BigInt::from(n), BigInt::from(d))))
    }

    /// This weight times `p`.
    #[inline]
    pub(crate) fn times_prob(&self, p: &Prob) -> Weight {
        match p {
            Prob::Small(r) => self.times(*r.numer(), *r.denom()),
            Prob::Big(b) => Weight::Big(Box::new(self.to_big() * (**b).clone())),
        }
    }

    /// Adds `o`. Leaves of the same outcome usually share a denominator (same dice on the way),
    /// which makes this one u128 addition; otherwise a common denominator, then big numbers.
    pub(super) fn add(&mut self, o: &Weight) {
        if let (Weight::Small(n1, d1), Weight::Small(n2, d2)) = (&*self, o) {
            if let Some((n, d)) = add_unreduced(*n1, *d1, *n2, *d2) {
                *self = Weight::Small(n, d);
                return;
            }
        }
        *self = Weight::Big(Box::new(self.to_big() + o.to_big()));
    }

    /// The weight as a callee's pass hands it on (`HandOn`): `n/d`, or the big value.
    #[inline(always)]
    pub(crate) fn into_parts(self) -> (u128, u128, Option<Box<BigRational>>) {
        match self {
            Weight::Small(n, d) => (n, d, None),
            Weight::Big(b) => (0, 1, Some(b)),
        }
    }

    #[inline(always)]
    pub(super) fn from_parts(n: u128, d: u128, big: Option<Box<BigRational>>) -> Weight {
        match big {
            None => Weight::Small(n, d),
            Some(b) => Weight::Big(b),
        }
    }

    /// `add` of a weight given by its parts (`into_parts`): the common case, two small weights
    /// whose sum fits, inlined.
    #[inline(always)]
    pub(super) fn add_parts(&mut self, n: u128, d: u128, big: Option<Box<BigRational>>) {
        if let (Weight::Small(n1, d1), None) = (&*self, &big) {
            if let Some((n, d)) = add_unreduced(*n1, *d1, n, d) {
                *self = Weight::Small(n, d);
                return;
            }
        }
        self.add(&Weight::from_parts(n, d, big));
    }

    /// The weight as a `Prob`, unreduced (a leaf of `Leaves`, reduced when the list becomes the
    /// distribution).
    #[inline(always)]
    pub(super) fn into_unreduced(self) -> Prob {
        match self {
            Weight::Small(n, d) => Prob::Small(Ratio::new_raw(n, d)),
            Weight::Big(b) => Prob::Big(b),
        }
    }

    /// The weight as a factor of the paths through a call's class (`CallDist::probs`), which is
    /// only ever multiplied into path weights, never shown or compared: reduced only when its
    /// denominator passes 2^32. A class's weight is a sum over the callee's leaves, a few dice
    /// totals at most below it, and its gcd costs more than the wider products it would spare.
    pub(super) fn into_factor(self) -> Prob {
        match self {
            Weight::Small(n, d) if d >> 32 == 0 => Prob::Small(Ratio::new_raw(n, d)),
            w => w.into_prob(),
        }
    }

    fn into_prob(self) -> Prob {
        self.into_unreduced().reduced()
    }
}

/// `n1/d1 + n2/d2`, unreduced, if it fits in u128. Leaves of the same outcome usually share a
/// denominator (same dice on the way), which makes this one addition.
#[inline]
fn add_unreduced(n1: u128, d1: u128, n2: u128, d2: u128) -> Option<(u128, u128)> {
    if d1 == d2 {
        return n1.checked_add(n2).map(|n| (n, d1));
    }
    let g = d1.gcd(&d2);
    (d1 / g).checked_mul(d2).and_then(|l| {
        let a = n1.checked_mul(l / d1)?;
        let b = n2.checked_mul(l / d2)?;
        a.checked_add(b).map(|n| (n, l))
    })
}

impl Prob {
    /// This probability, reduced (a leaf's weight, as `Leaves` keeps it, in lowest terms).
    fn reduced(mut self) -> Prob {
        self.reduce();
        self
    }

    /// Reduces this probability where it is (inlined into `Leaves::finish`'s loop, so the
    /// reduced parts are stored straight into the list, not returned through memory and copied).
    #[inline(always)]
    pub(super) fn reduce(&mut self) {
        if let Prob::Small(r) = self {
            let (n, d) = (*r.numer(), *r.denom());
            // u64 division is far cheaper than u128's, and most weights fit.
            if let (Ok(n), Ok(d)) = (u64::try_from(n), u64::try_from(d)) {
                let g = gcd_u64(n, d).max(1);
                *r = Ratio::new_raw(u128::from(n / g), u128::from(d / g));
            } else {
                let g = n.gcd(&d).max(1);
                *r = Ratio::new_raw(n / g, d / g);
            }
        } else {
            self.reduce_big();
        }
    }

    #[cold]
    #[inline(never)]
    fn reduce_big(&mut self) {
        if let Prob::Big(b) = self {
            // Big sums and products come reduced from num-rational; a value built raw is reduced
            // here all the same.
            let b = std::mem::take(&mut **b).reduced();
            *self = Prob::from_big(b);
        }
    }

    /// Adds `o`, unreduced while it fits in u128 (two leaves' weights of one outcome).
    pub(super) fn add_unreduced(&mut self, o: &Prob) {
        if let (Prob::Small(a), Prob::Small(b)) = (&*self, o) {
            if let Some((n, d)) = add_unreduced(*a.numer(), *a.denom(), *b.numer(), *b.denom()) {
                *self = Prob::Small(Ratio::new_raw(n, d));
                return;
            }
        }
        *self = Prob::Big(Box::new(self.to_big() + o.to_big()));
    }
}
