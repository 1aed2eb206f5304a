//! Exact numbers for rules arithmetic: the `Dec` rational used for the DSL's `decimal` type and
//! overflow-checked integer helpers. No floating point anywhere, so results are identical on every
//! platform and every probability stays exact.

use crate::error::Error;
use num_rational::Ratio;
use num_traits::{CheckedAdd, CheckedMul, CheckedSub};
use serde::{Serialize, Serializer};
use std::fmt;

/// Exact rational number used for the DSL's `decimal` type (e.g. AP 7.5, -0.5).
///
/// Invariant: the ratio is reduced and its denominator is positive, so derived equality, hashing
/// and ordering are by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dec(pub Ratio<i64>);

impl Dec {
    pub const ZERO: Dec = Dec(Ratio::new_raw(0, 1));
    /// One, the product of no factors.
    pub const ONE: Dec = Dec(Ratio::new_raw(1, 1));

    /// const constructor; caller guarantees reduced form and `den > 0` (generated code does).
    pub const fn raw(num: i64, den: i64) -> Dec {
        Dec(Ratio::new_raw(num, den))
    }

    pub fn from_int(i: i64) -> Dec {
        Dec(Ratio::new_raw(i, 1))
    }

    /// Builds a reduced `Dec` from any numerator/denominator, checking the overflow corners that
    /// `Ratio::new` would panic on (negating `i64::MIN`).
    pub fn new(num: i64, den: i64) -> Result<Dec, Error> {
        if den == 0 {
            return Err(Error::DivisionByZero);
        }
        let (mut n, mut d) = (num, den);
        if d < 0 {
            n = n.checked_neg().ok_or(Error::Overflow)?;
            d = d.checked_neg().ok_or(Error::Overflow)?;
        }
        let g = gcd_u64(n.unsigned_abs(), d.unsigned_abs());
        // g divides both and d > 0, so g >= 1 and fits i64 unless both are i64::MIN-sized, which
        // cannot happen with d > 0.
        let g = i64::try_from(g).map_err(|_| Error::Overflow)?;
        Ok(Dec(Ratio::new_raw(n / g, d / g)))
    }

    pub fn numer(self) -> i64 {
        *self.0.numer()
    }

    pub fn denom(self) -> i64 {
        *self.0.denom()
    }

    pub fn is_integer(self) -> bool {
        self.denom() == 1
    }

    pub fn checked_add(self, o: Dec) -> Result<Dec, Error> {
        self.0.checked_add(&o.0).map(Dec).ok_or(Error::Overflow)
    }

    pub fn checked_sub(self, o: Dec) -> Result<Dec, Error> {
        self.0.checked_sub(&o.0).map(Dec).ok_or(Error::Overflow)
    }

    pub fn checked_mul(self, o: Dec) -> Result<Dec, Error> {
        self.0.checked_mul(&o.0).map(Dec).ok_or(Error::Overflow)
    }

    /// Division as multiplication by the reciprocal, so every intermediate keeps a positive
    /// denominator (num-rational's own division may negate `i64::MIN` and panic).
    pub fn checked_div(self, o: Dec) -> Result<Dec, Error> {
        if o.numer() == 0 {
            return Err(Error::DivisionByZero);
        }
        let recip = Dec::new(o.denom(), o.numer())?;
        self.checked_mul(recip)
    }

    pub fn checked_neg(self) -> Result<Dec, Error> {
        let n = self.numer().checked_neg().ok_or(Error::Overflow)?;
        Ok(Dec(Ratio::new_raw(n, self.denom())))
    }

    /// Largest integer <= self. Uses Euclidean division, which cannot overflow for a positive
    /// denominator (num-rational's `floor` adds before dividing and can).
    pub fn floor(self) -> i64 {
        self.numer().div_euclid(self.denom())
    }

    /// Smallest integer >= self.
    pub fn ceil(self) -> i64 {
        let (n, d) = (self.numer(), self.denom());
        let q = n.div_euclid(d);
        // q + 1 cannot overflow: a non-zero remainder implies d >= 2, so |q| <= i64::MAX / 2.
        if n.rem_euclid(d) != 0 {
            q + 1
        } else {
            q
        }
    }

    /// Rounds to the nearest integer, halves towards +infinity: 2.5 -> 3, -2.5 -> -2.
    pub fn round_half_up(self) -> i64 {
        let (n, d) = (self.numer(), self.denom());
        let q = n.div_euclid(d);
        let r = n.rem_euclid(d);
        // r >= d - r is 2r >= d without the overflow.
        if r != 0 && r >= d - r {
            q + 1
        } else {
            q
        }
    }

    /// Parses "7.5", "-0.5", "-.5", "+3", "6" and fractions "1/3" (each side a decimal).
    pub fn parse(s: &str) -> Option<Dec> {
        let s = s.trim();
        if let Some((a, b)) = s.split_once('/') {
            let a = parse_decimal(a.trim())?;
            let b = parse_decimal(b.trim())?;
            return a.checked_div(b).ok();
        }
        parse_decimal(s)
    }

    /// True when the value has a finite decimal expansion (denominator of the form 2^a 5^b).
    pub fn is_terminating(self) -> bool {
        let d = self.denom().unsigned_abs();
        let mut d = d >> d.trailing_zeros();
        while d > 1 && d % 5 == 0 {
            d /= 5;
        }
        d == 1
    }
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// Plain decimal literal: optional sign, digits, optional '.' and digits (at least one digit).
fn parse_decimal(s: &str) -> Option<Dec> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Drop trailing fractional zeros first so "7.50000000000000000000" still fits in i64.
    let frac_part = frac_part.trim_end_matches('0');
    let mut num: i64 = 0;
    let mut den: i64 = 1;
    for b in int_part.bytes().chain(frac_part.bytes()) {
        num = num.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    for _ in frac_part.bytes() {
        den = den.checked_mul(10)?;
    }
    if neg {
        num = num.checked_neg()?;
    }
    Dec::new(num, den).ok()
}

impl fmt::Display for Dec {
    /// Terminating values print as decimal text ("7.5", "-0.5", "6"), others as "n/d".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_terminating() {
            return write!(f, "{}/{}", self.numer(), self.denom());
        }
        let neg = self.numer() < 0;
        let n = u128::from(self.numer().unsigned_abs());
        let d = u128::from(self.denom().unsigned_abs());
        let mut out = String::new();
        if neg {
            out.push('-');
        }
        out.push_str(&(n / d).to_string());
        let mut r = n % d;
        if r != 0 {
            out.push('.');
            // Long division; terminates because d = 2^a 5^b (at most 63 digits), and r < 2^63 so
            // r * 10 fits in u128.
            while r != 0 {
                r *= 10;
                let digit = r / d;
                r %= d;
                out.push(char::from(b'0' + digit as u8));
            }
        }
        f.write_str(&out)
    }
}

impl Dec {
    /// JSON form: a number when terminating (exact digits thanks to serde_json's
    /// `arbitrary_precision`), otherwise the string "n/d".
    pub fn to_json(self) -> serde_json::Value {
        if self.is_terminating() {
            if self.is_integer() {
                return serde_json::Value::from(self.numer());
            }
            if let Ok(n) = self.to_string().parse::<serde_json::Number>() {
                return serde_json::Value::Number(n);
            }
        }
        serde_json::Value::String(format!("{}/{}", self.numer(), self.denom()))
    }
}

impl Serialize for Dec {
    /// Integers serialize as i64 everywhere. Other terminating values go through
    /// `serde_json::Number`, which is exact with serde_json but appears as serde_json's private
    /// number struct to other serializers; use `to_json` or serde_json for output.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.is_integer() {
            return s.serialize_i64(self.numer());
        }
        self.to_json().serialize(s)
    }
}

/// `a % b` as the rules language defines it: the Euclidean remainder, never negative (`-7 % 3`
/// is 2), `Error::DivisionByZero` only when `b` is 0. Every remainder fits: `i64::MIN % -1` is 0.
#[inline]
pub fn rem(a: i64, b: i64) -> Result<i64, Error> {
    if b == 0 {
        return Err(Error::DivisionByZero);
    }
    Ok(a.wrapping_rem_euclid(b))
}

/// Floor division: rounds towards -infinity.
pub fn div_floor(a: i64, b: i64) -> Result<i64, Error> {
    let (q, _, _) = div_parts(a, b)?;
    i64::try_from(q).map_err(|_| Error::Overflow)
}

/// Ceiling division: rounds towards +infinity.
pub fn div_ceil(a: i64, b: i64) -> Result<i64, Error> {
    let (q, r, _) = div_parts(a, b)?;
    let q = if r != 0 { q + 1 } else { q };
    i64::try_from(q).map_err(|_| Error::Overflow)
}

/// Division rounded to nearest, halves towards +infinity (7/2 -> 4, -7/2 -> -3).
pub fn div_round_half_up(a: i64, b: i64) -> Result<i64, Error> {
    let (q, r, d) = div_parts(a, b)?;
    let q = if r != 0 && 2 * r >= d { q + 1 } else { q };
    i64::try_from(q).map_err(|_| Error::Overflow)
}

/// (floor quotient, remainder in 0..d, d) computed in i128 with a positive divisor, which makes
/// `i64::MIN / -1` representable and lets the caller report overflow instead of panicking.
fn div_parts(a: i64, b: i64) -> Result<(i128, i128, i128), Error> {
    if b == 0 {
        return Err(Error::DivisionByZero);
    }
    let (n, d) = if b < 0 {
        (-i128::from(a), -i128::from(b))
    } else {
        (i128::from(a), i128::from(b))
    };
    Ok((n.div_euclid(d), n.rem_euclid(d), d))
}

/// Floor of the square root; negative input is a domain error.
pub fn isqrt(a: i64) -> Result<i64, Error> {
    if a < 0 {
        return Err(Error::Domain {
            what: format!("square root of negative number {a}"),
        });
    }
    // Binary search on u64 (avoids `i64::isqrt`, newer than our minimum Rust version).
    let a = a.unsigned_abs();
    let (mut lo, mut hi) = (0u64, 3_037_000_500u64); // hi^2 > i64::MAX
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if mid.checked_mul(mid).is_some_and(|sq| sq <= a) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    i64::try_from(lo).map_err(|_| Error::Overflow)
}

/// The square root of `x` (whole or decimal), rounded down at `places` decimal places (0 to 12):
/// `sqrt(x, places)` in rules text. Exact: floor(sqrt(x) x 10^p) = isqrt(floor(x x 10^2p)).
pub fn dec_sqrt(x: Dec, places: u32) -> Result<Dec, Error> {
    if x < Dec::ZERO {
        return Err(Error::Domain {
            what: format!("square root of negative number {x}"),
        });
    }
    if places > 12 {
        return Err(Error::Domain {
            what: format!("square root to {places} places (at most 12)"),
        });
    }
    let scale = 10i128.pow(2 * places);
    let (n, d) = (i128::from(*x.0.numer()), i128::from(*x.0.denom()));
    let y = n.checked_mul(scale).ok_or(Error::Overflow)? / d;
    // Binary search for the largest r with r^2 <= y.
    let (mut lo, mut hi) = (0i128, 1i128 << 63);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if mid.checked_mul(mid).is_some_and(|sq| sq <= y) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let r = i64::try_from(lo).map_err(|_| Error::Overflow)?;
    Dec::new(r, 10i64.pow(places))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dec {
        Dec::parse(s).unwrap_or_else(|| panic!("parse {s}"))
    }

    #[test]
    fn parse_and_display_round_trip() {
        for (text, shown) in [
            ("7.5", "7.5"),
            ("-0.5", "-0.5"),
            ("-.5", "-0.5"),
            ("6", "6"),
            ("+3", "3"),
            ("1/3", "1/3"),
            ("-2/4", "-0.5"),
            ("7.50", "7.5"),
            ("0.125", "0.125"),
            ("1.5/3", "0.5"),
        ] {
            assert_eq!(d(text).to_string(), shown, "{text}");
        }
        for bad in ["", "-", ".", "1..2", "abc", "1/0", "1e5", "99999999999999999999"] {
            assert_eq!(Dec::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn rounding() {
        for (text, fl, ce, rh) in [
            ("2.5", 2, 3, 3),
            ("-2.5", -3, -2, -2),
            ("7", 7, 7, 7),
            ("-7", -7, -7, -7),
            ("1/3", 0, 1, 0),
            ("-1/3", -1, 0, 0),
            ("2/3", 0, 1, 1),
            ("-2/3", -1, 0, -1),
        ] {
            let x = d(text);
            assert_eq!((x.floor(), x.ceil(), x.round_half_up()), (fl, ce, rh), "{text}");
        }
        let extreme = Dec::raw(i64::MIN, 1);
        assert_eq!(extreme.floor(), i64::MIN);
        assert_eq!(extreme.ceil(), i64::MIN);
        assert_eq!(Dec::raw(i64::MAX, 2).round_half_up(), i64::MAX / 2 + 1);
    }

    #[test]
    fn checked_ops() {
        assert_eq!(d("7.5").checked_add(d("-0.5")), Ok(d("7")));
        assert_eq!(d("1/3").checked_mul(d("3")), Ok(d("1")));
        assert_eq!(d("1").checked_div(d("-2")), Ok(d("-0.5")));
        assert_eq!(d("1").checked_div(Dec::ZERO), Err(Error::DivisionByZero));
        assert_eq!(Dec::from_int(i64::MAX).checked_add(d("1")), Err(Error::Overflow));
        assert_eq!(Dec::from_int(i64::MIN).checked_neg(), Err(Error::Overflow));
        assert_eq!(Dec::from_int(i64::MIN).checked_div(d("-1")), Err(Error::Overflow));
        assert!(d("-0.5") < d("1/3"));
    }

    #[test]
    fn integer_helpers() {
        assert_eq!(div_floor(-7, 2), Ok(-4));
        assert_eq!(div_ceil(-7, 2), Ok(-3));
        assert_eq!(div_ceil(7, 2), Ok(4));
        assert_eq!(div_round_half_up(7, 2), Ok(4));
        assert_eq!(div_round_half_up(-7, 2), Ok(-3));
        assert_eq!(div_round_half_up(-8, 3), Ok(-3));
        assert_eq!(div_floor(7, -2), Ok(-4));
        assert_eq!(div_floor(1, 0), Err(Error::DivisionByZero));
        // Issue 44: `i64::MIN % -1` said "division by zero"; its remainder, 0, fits.
        assert_eq!(rem(i64::MIN, -1), Ok(0));
        assert_eq!(rem(-7, 3), Ok(2));
        assert_eq!(rem(7, -3), Ok(1));
        assert_eq!(rem(i64::MIN, i64::MAX), Ok(i64::MAX - 1));
        assert_eq!(rem(1, 0), Err(Error::DivisionByZero));
        assert_eq!(div_floor(i64::MIN, -1), Err(Error::Overflow));
        assert_eq!(isqrt(0), Ok(0));
        assert_eq!(isqrt(15), Ok(3));
        assert_eq!(isqrt(16), Ok(4));
        assert_eq!(isqrt(i64::MAX), Ok(3_037_000_499));
        assert!(matches!(isqrt(-1), Err(Error::Domain { .. })));
    }

    #[test]
    fn json_forms() {
        assert_eq!(serde_json::to_string(&d("7.5")).ok(), Some("7.5".to_string()));
        assert_eq!(serde_json::to_string(&d("6")).ok(), Some("6".to_string()));
        assert_eq!(serde_json::to_string(&d("1/3")).ok(), Some("\"1/3\"".to_string()));
    }
}
