//! Integer bounds: the interval arithmetic every integer expression carries (sums, products,
//! quotients, dice), and the proofs built on it: no overflow, indexes inside their table, call
//! arguments inside the callee's input range, no division by a literal zero.
//!
//! Diagnostics owned here: E0401 (may overflow 64 bits), E0402 (division by zero), E0304 (a value
//! may fall outside a table or an input range).

use super::ctx::Checker;
use crate::ast::{BinOp, Span};
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn check_iv(&mut self, iv: Iv, span: Span) {
        if iv.known && !iv.fits_i64() {
            self.err(
                "E0401",
                span,
                format!("this value can reach {}..{}, beyond 64-bit integers", iv.lo, iv.hi),
                "can overflow",
                Some("tighten the input ranges (`int lo..hi`) this value depends on".into()),
            );
        }
    }

    /// E0304: an argument whose interval is known must stay within the callee input's `lo..hi`.
    pub(super) fn check_arg_range(&mut self, arg: &str, e: &Expr, span: Span, bounds: Option<(i64, i64)>) {
        if let (Some((lo, hi)), true) = (bounds, e.iv.known) {
            if e.iv.lo < lo as i128 || e.iv.hi > hi as i128 {
                self.err(
                    "E0304",
                    span,
                    format!("`{}` can be {}..{}, outside the input's range {lo}..{hi}", arg, e.iv.lo, e.iv.hi),
                    "may be out of range",
                    Some("clamp the value or widen the callee's input range".into()),
                );
            }
        }
    }

    /// E0304: the index `x` of range table `name` (rows cover `lo..hi`) must provably stay inside it.
    pub(super) fn check_index(&mut self, name: &str, x: &Expr, span: Span, lo: i64, hi: i64) {
        let covers_all = lo == i64::MIN && hi == i64::MAX;
        if x.ty == Ty::Int && !covers_all {
            if !x.iv.known {
                self.err(
                    "E0304",
                    span,
                    format!("cannot tell that this index stays within table `{name}` ({})", range_label(lo, hi)),
                    "unbounded index",
                    Some(format!("clamp it: `{name}(clamp(x, {lo}, {hi}))`")),
                );
            } else if x.iv.lo < lo as i128 || x.iv.hi > hi as i128 {
                self.err(
                    "E0304",
                    span,
                    format!(
                        "this index can be {}..{}, but table `{name}` covers {}",
                        x.iv.lo,
                        x.iv.hi,
                        range_label(lo, hi)
                    ),
                    "may fall outside the table",
                    Some("clamp the index or widen the table's rows".into()),
                );
            }
        }
    }

    /// E0402: `/` and `%` by zero: a literal `0` or `0.0`, or any divisor whose interval is
    /// exactly zero (a constant, `1 - 1`, an input bounded `0..0`). True when reported.
    pub(super) fn check_div_zero(&mut self, op: BinOp, b: &Expr) -> bool {
        if !matches!(op, BinOp::Div | BinOp::Rem) {
            return false;
        }
        let zero = match &b.kind {
            ExprKind::Const(Const::Int(0)) | ExprKind::Const(Const::Dec(0, _)) => true,
            _ => matches!(b.ty, Ty::Int | Ty::Dec) && b.iv.known && b.iv.lo == 0 && b.iv.hi == 0,
        };
        if zero {
            self.err(
                "E0402",
                b.span,
                "division by zero",
                "this is always zero",
                Some("divide by a value that cannot be zero".into()),
            );
        }
        zero
    }
}

pub(super) fn elem_iv(list: &Expr) -> Iv {
    if let ExprKind::Const(Const::List(items)) = &list.kind {
        let mut iv: Option<Iv> = None;
        for i in items {
            if let Const::Int(v) = i {
                iv = Some(iv.map_or(Iv::exact(*v), |x| x.join(Iv::exact(*v))));
            }
        }
        return iv.unwrap_or(Iv::UNKNOWN);
    }
    Iv::UNKNOWN
}

pub(super) fn add_iv(a: Iv, b: Iv) -> Iv {
    Iv {
        lo: a.lo.saturating_add(b.lo),
        hi: a.hi.saturating_add(b.hi),
        known: a.known && b.known,
    }
}

pub(super) fn mul_iv(a: Iv, b: Iv) -> Iv {
    let c = [
        a.lo.saturating_mul(b.lo),
        a.lo.saturating_mul(b.hi),
        a.hi.saturating_mul(b.lo),
        a.hi.saturating_mul(b.hi),
    ];
    Iv {
        lo: c.iter().copied().min().unwrap_or(0),
        hi: c.iter().copied().max().unwrap_or(0),
        known: a.known && b.known,
    }
}

pub(super) fn div_iv(a: Iv, b: Iv) -> Iv {
    // The quotient is exact (a decimal); this interval bounds its floor and ceiling.
    if b.lo <= 0 && b.hi >= 0 {
        let m = a.lo.abs().max(a.hi.abs());
        return Iv {
            lo: -m,
            hi: m,
            known: a.known && b.known,
        };
    }
    let qs = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)];
    let lo = qs.iter().map(|(x, y)| div_floor_i128(*x, *y)).min().unwrap_or(0);
    let hi = qs.iter().map(|(x, y)| div_ceil_i128(*x, *y)).max().unwrap_or(0);
    Iv {
        lo,
        hi,
        known: a.known && b.known,
    }
}

pub(super) fn div_floor_i128(a: i128, b: i128) -> i128 {
    if b == 0 {
        return 0;
    }
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

pub(super) fn div_ceil_i128(a: i128, b: i128) -> i128 {
    if b == 0 {
        return 0;
    }
    let q = a / b;
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

pub(super) fn isqrt_i128(v: i128) -> i128 {
    let mut x = 0i128;
    let mut step = 1i128 << 62;
    while step > 0 {
        if (x + step).saturating_mul(x + step) <= v {
            x += step;
        }
        step >>= 1;
    }
    x
}

pub(super) fn dice_iv(d: &Dice) -> Iv {
    let c = d.count.iv;
    let (fmin, fmax) = if d.zero_based {
        (0i128, d.sides as i128 - 1)
    } else {
        (1i128, d.sides as i128)
    };
    let known = c.known;
    match &d.read {
        Read::Sum => Iv {
            lo: c.lo.max(0) * fmin,
            hi: c.hi.max(0) * fmax,
            known,
        },
        // Every throw of an exploding die, its depth and the first, can show the highest face.
        Read::Explode(depth) => Iv {
            lo: c.lo.max(0) * fmin,
            hi: c.hi.max(0) * fmax * (*depth as i128 + 1),
            known,
        },
        Read::KeepHighest(k) | Read::KeepLowest(k) => Iv {
            lo: *k as i128 * fmin,
            hi: *k as i128 * fmax,
            known: true,
        },
        Read::Opposed {
            second,
            first_mod,
            second_mod,
        } => {
            let (c2, m1, m2) = (second.iv, first_mod.iv, second_mod.iv);
            Iv {
                lo: c.lo.max(0) * fmin + m1.lo - c2.hi.max(0) * fmax - m2.hi,
                hi: c.hi.max(0) * fmax + m1.hi - c2.lo.max(0) * fmin - m2.lo,
                known: known && c2.known && m1.known && m2.known,
            }
        }
        Read::Flux => Iv {
            lo: fmin - fmax,
            hi: fmax - fmin,
            known: true,
        },
        Read::BadFlux => Iv {
            lo: fmin - fmax,
            hi: 0,
            known: true,
        },
        Read::Percentile => Iv {
            lo: 1,
            hi: 100,
            known: true,
        },
        Read::SumFloor { per_die, floor } => {
            let p = per_die.iv;
            let lo_face = (fmin + p.lo).max(*floor as i128);
            let hi_face = (fmax + p.hi).max(*floor as i128);
            Iv {
                lo: (c.lo.max(0) * lo_face).min(c.hi.max(0) * lo_face),
                hi: (c.lo.max(0) * hi_face).max(c.hi.max(0) * hi_face),
                known: known && p.known,
            }
        }
    }
}

/// A range as the rules write it: `3..4`, `5`, `..2`, `7..`, or "any value".
pub fn range_label(lo: i64, hi: i64) -> String {
    match (lo, hi) {
        (i64::MIN, i64::MAX) => "any value".into(),
        (i64::MIN, h) => format!("..{h}"),
        (l, i64::MAX) => format!("{l}.."),
        (l, h) if l == h => format!("{l}"),
        (l, h) => format!("{l}..{h}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};
    use super::*;

    #[test]
    fn interval_arithmetic() {
        let iv = |lo, hi| Iv::range(lo, hi);
        let pair = |i: Iv| (i.lo, i.hi);
        assert_eq!(pair(add_iv(iv(-2, 3), iv(1, 4))), (-1, 7));
        assert_eq!(pair(mul_iv(iv(-2, 3), iv(-4, 5))), (-12, 15));
        assert_eq!(pair(div_iv(iv(1, 7), iv(2, 3))), (0, 4));
        assert_eq!(pair(div_iv(iv(1, 7), iv(-1, 1))), (-7, 7));
        assert_eq!((div_floor_i128(-7, 2), div_ceil_i128(-7, 2)), (-4, -3));
        assert_eq!((isqrt_i128(15), isqrt_i128(16)), (3, 4));
        assert!(!add_iv(iv(0, 1), Iv::UNKNOWN).known);
    }

    #[test]
    fn range_labels() {
        assert_eq!(range_label(3, 4), "3..4");
        assert_eq!(range_label(5, 5), "5");
        assert_eq!(range_label(i64::MIN, 2), "..2");
        assert_eq!(range_label(7, i64::MAX), "7..");
        assert_eq!(range_label(i64::MIN, i64::MAX), "any value");
    }

    #[test]
    fn overflow_is_proved_impossible_or_reported() {
        let product =
            |hi: &str| format!("resolver r \"R\" [1] {{\n  in a: int 0..{hi}\n  in b: int 0..{hi}\n  out x: int\n  set x = a * b\n}}\n");
        check_codes(&product("1000000"), &[]);
        check_codes(&product("4000000000000"), &["E0401"]);
    }

    #[test]
    fn division_by_a_literal_zero() {
        check_codes(
            "resolver r \"R\" [1] {\n  in a: int 0..3\n  out x: decimal\n  set x = a / 0\n}\n",
            &["E0402"],
        );
    }

    #[test]
    fn indexes_and_arguments_stay_in_range() {
        let table = "table t \"T\" [1] by 1d6 -> int {\n  1..6 => 1\n}\n";
        let index =
            |e: &str| format!("{table}resolver r \"R\" [1] {{\n  in b: int 0..3\n  out x: int\n  roll d = 1d6\n  set x = t({e})\n}}\n");
        check_codes(&index("d"), &[]);
        assert_eq!(
            only(&index("d + b"), "E0304").0,
            "this index can be 1..9, but table `t` covers 1..6"
        );
        let call = |v: &str| {
            format!("resolver a \"A\" [1] {{\n  in n: int 0..5\n  out x: int = 0\n}}\nresolver r \"R\" [1] {{\n  in m: int 0..9\n  out y: int = 0\n  call c = a(n: {v})\n}}\n")
        };
        check_codes(&call("3"), &[]);
        check_codes(&call("m"), &["E0304"]);
    }
}
