//! `Prob`, an exact probability that stays in u128 while it can and falls back to big
//! rationals, with its arithmetic: sums and products of 64-bit parts reduced by a binary gcd.

use crate::error::Error;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::{BigRational, Ratio};
use num_traits::{CheckedAdd, CheckedMul, ToPrimitive, Zero};
use serde::{Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;

/// Exact probability: `Small(Ratio<u128>)` with checked arithmetic, falling back to
/// `Big(BigRational)` on overflow. Constructors keep values `Small` whenever they fit, but
/// equality and ordering are by value either way. The big value is boxed: a `Prob` is as small
/// as an enumeration's leaf weight, so the list of leaves becomes the distribution in place.
#[derive(Clone, Debug)]
pub enum Prob {
    Small(Ratio<u128>),
    Big(Box<BigRational>),
}

impl Prob {
    pub fn zero() -> Prob {
        Prob::Small(Ratio::new_raw(0, 1))
    }

    pub fn one() -> Prob {
        Prob::Small(Ratio::new_raw(1, 1))
    }

    /// `n/d`, reduced; `Error::DivisionByZero` when d = 0.
    pub fn new(n: u128, d: u128) -> Result<Prob, Error> {
        if d == 0 {
            return Err(Error::DivisionByZero);
        }
        let g = n.gcd(&d);
        Ok(Prob::Small(Ratio::new_raw(n / g, d / g)))
    }

    pub fn to_big(&self) -> BigRational {
        match self {
            Prob::Small(r) => BigRational::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom())),
            Prob::Big(b) => (**b).clone(),
        }
    }

    /// Demotes a big value to `Small` when numerator and denominator fit (keeps the fast path).
    pub(super) fn from_big(b: BigRational) -> Prob {
        match (b.numer().to_u128(), b.denom().to_u128()) {
            (Some(n), Some(d)) => Prob::Small(Ratio::new_raw(n, d)),
            _ => Prob::Big(Box::new(b)),
        }
    }

    pub fn add(&self, o: &Prob) -> Prob {
        if let (Prob::Small(a), Prob::Small(b)) = (self, o) {
            if let Some(s) = add_narrow(a, b) {
                return Prob::Small(s);
            }
            if let Some(s) = a.checked_add(b) {
                return Prob::Small(s);
            }
        }
        Prob::from_big(self.to_big() + o.to_big())
    }

    pub fn mul(&self, o: &Prob) -> Prob {
        if let (Prob::Small(a), Prob::Small(b)) = (self, o) {
            if let Some(s) = mul_narrow(a, b) {
                return Prob::Small(s);
            }
            if let Some(s) = a.checked_mul(b) {
                return Prob::Small(s);
            }
        }
        Prob::from_big(self.to_big() * o.to_big())
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Prob::Small(r) => r.is_zero(),
            Prob::Big(b) => b.is_zero(),
        }
    }

    /// Percentage with `decimals` digits after the point, exact integer arithmetic, halves
    /// rounded up: 145/432 -> "33.56".
    pub fn percent(&self, decimals: u32) -> String {
        let b = self.to_big();
        let neg = b.numer().sign() == num_bigint::Sign::Minus;
        let n: BigUint = b.numer().magnitude().clone();
        let d: BigUint = b.denom().magnitude().clone();
        if d.is_zero() {
            return "NaN".to_string();
        }
        let scaled = n * BigUint::from(100u32) * BigUint::from(10u32).pow(decimals);
        let (mut q, r) = scaled.div_rem(&d);
        if r * 2u32 >= d {
            q += 1u32;
        }
        let mut digits = q.to_string();
        let decimals = decimals as usize;
        if decimals > 0 {
            while digits.len() <= decimals {
                digits.insert(0, '0');
            }
            digits.insert(digits.len() - decimals, '.');
        }
        if neg && q_is_nonzero(&digits) {
            digits.insert(0, '-');
        }
        digits
    }

    /// round(p * k), halves up, exact integer arithmetic; saturates at u64::MAX. For bar charts:
    /// `"█".repeat(p.scale_round(40))`. Negative values (only constructible by hand) give 0.
    pub fn scale_round(&self, k: u64) -> u64 {
        let b = self.to_big();
        if b.numer().sign() == num_bigint::Sign::Minus {
            return 0;
        }
        let n = b.numer().magnitude() * BigUint::from(k);
        let d = b.denom().magnitude();
        if d.is_zero() {
            return 0;
        }
        let (mut q, r) = n.div_rem(d);
        if r * 2u32 >= *d {
            q += 1u32;
        }
        q.to_u64().unwrap_or(u64::MAX)
    }

    /// The nearest `f64`, for comparing with an estimate (never for the rules' arithmetic).
    pub fn to_f64(&self) -> f64 {
        match self {
            Prob::Small(r) => *r.numer() as f64 / *r.denom() as f64,
            Prob::Big(b) => b.to_f64().unwrap_or(f64::NAN),
        }
    }

    /// "145/432", reduced ("0/1", "1/1" for the extremes).
    pub fn numer_denom_string(&self) -> String {
        match self {
            Prob::Small(r) => format!("{}/{}", r.numer(), r.denom()),
            Prob::Big(b) => format!("{}/{}", b.numer(), b.denom()),
        }
    }
}

/// The four parts of two fractions, when each fits in 64 bits.
fn narrow(a: &Ratio<u128>, b: &Ratio<u128>) -> Option<(u64, u64, u64, u64)> {
    Some((
        u64::try_from(*a.numer()).ok()?,
        u64::try_from(*a.denom()).ok()?,
        u64::try_from(*b.numer()).ok()?,
        u64::try_from(*b.denom()).ok()?,
    ))
}

/// `a * b`, reduced, by greatest common divisors of 64-bit parts (far cheaper than u128's, which
/// `Ratio`'s own product takes); `None` when a part is wider. Both must be reduced: then so is the
/// product of `a/g1 * c/g2` over `b/g2 * d/g1` (Knuth, TAOCP 4.5.1), and it fits in u128.
fn mul_narrow(x: &Ratio<u128>, y: &Ratio<u128>) -> Option<Ratio<u128>> {
    let (a, b, c, d) = narrow(x, y)?;
    if b == 0 || d == 0 {
        return None;
    }
    if a == 0 || c == 0 {
        return Some(Ratio::new_raw(0, 1));
    }
    let g1 = gcd_u64(a, d);
    let g2 = gcd_u64(c, b);
    let n = u128::from(a / g1) * u128::from(c / g2);
    let m = u128::from(b / g2) * u128::from(d / g1);
    Some(Ratio::new_raw(n, m))
}

/// `a + b`, reduced, with 64-bit divisors (Knuth, TAOCP 4.5.1: with g = gcd(b, d), the sum is
/// t = a(d/g) + c(b/g) over (b/g)d, and only gcd(t, g) divides both); `None` when a part is
/// wider or the sum overflows. Both must be reduced.
fn add_narrow(x: &Ratio<u128>, y: &Ratio<u128>) -> Option<Ratio<u128>> {
    let (a, b, c, d) = narrow(x, y)?;
    if b == 0 || d == 0 {
        return None;
    }
    let g = gcd_u64(b, d);
    let t = (u128::from(a) * u128::from(d / g)).checked_add(u128::from(c) * u128::from(b / g))?;
    if t == 0 {
        return Some(Ratio::new_raw(0, 1));
    }
    // t mod g fits in 64 bits: g does.
    let g2 = gcd_u64(u64::try_from(t % u128::from(g)).ok()?, g);
    let n = t / u128::from(g2);
    let m = u128::from(b / g) * u128::from(d / g2);
    Some(Ratio::new_raw(n, m))
}

/// The greatest common divisor of two u64 (0 with 0 is 0), by Stein's binary algorithm in its
/// branch-free form: each step takes the smaller from the larger (a conditional swap, not a
/// branch the processor must guess) and drops the difference's factors of two. The gcds of exact
/// odds are of unrelated numbers, whose comparisons a branch predictor guesses no better than
/// chance; `num_integer`'s branching loop spent most of its time there.
pub(crate) fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

fn q_is_nonzero(digits: &str) -> bool {
    digits.bytes().any(|b| b.is_ascii_digit() && b != b'0')
}

impl PartialEq for Prob {
    fn eq(&self, o: &Prob) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Prob {}

impl PartialOrd for Prob {
    fn partial_cmp(&self, o: &Prob) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Prob {
    fn cmp(&self, o: &Prob) -> Ordering {
        match (self, o) {
            // Ratio's comparison works by continued fractions and never overflows.
            (Prob::Small(a), Prob::Small(b)) => a.cmp(b),
            _ => self.to_big().cmp(&o.to_big()),
        }
    }
}

/// "145/432"; a whole number without its denominator: "0", "1" (JSON keeps the fraction's form,
/// [`Prob::numer_denom_string`], for scripts that split at the `/`).
impl fmt::Display for Prob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prob::Small(r) if *r.denom() == 1 => write!(f, "{}", r.numer()),
            Prob::Big(b) if b.is_integer() => write!(f, "{}", b.numer()),
            _ => f.write_str(&self.numer_denom_string()),
        }
    }
}

impl Serialize for Prob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.numer_denom_string())
    }
}

#[cfg(test)]
mod tests {
    use super::gcd_u64;
    use num_integer::Integer;

    #[test]
    fn binary_gcd_equals_euclid() {
        let mut values: Vec<u64> = vec![
            0,
            1,
            2,
            3,
            6,
            36,
            1296,
            1 << 63,
            u64::MAX,
            u64::MAX - 1,
            6u64.pow(24),
            2u64.pow(40) * 3u64.pow(10),
        ];
        // A fixed linear congruential sequence: numbers of every size and shape.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..300 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            values.push(x >> (x % 64));
        }
        for &a in &values {
            for &b in &values {
                assert_eq!(gcd_u64(a, b), a.gcd(&b), "gcd({a}, {b})");
            }
        }
    }
}
