//! Dice: lowering dice expressions (`2d6`, `(n)d6`, keep/drop, flux, zero-based, per-die
//! modifiers, rerolls with fixed or computed ends, `d100` as percentile dice, exploding dice with
//! their depth), the fixed dice that index a range table, and the runtime's `DiceSpec` for them,
//! whose distribution gives ranges and gap probabilities.
//!
//! Diagnostics owned here: E0403 (dice that cannot be rolled: bad count, sides, keep/drop, flux,
//! per-die modifier, a reroll that leaves no result, or a computed one on a table's `by` dice;
//! `explode` without a depth in 1..100, given twice, or with a modifier it does not combine with).

use super::bounds::{dice_iv, range_label};
use super::ctx::{Checker, Ctx};
use crate::ast;
use crate::ir::*;

/// A table's `by` dice: their distribution (when computable) and the range of values.
pub(super) type DiceDomain = (Option<Vec<(i64, u64)>>, i64, i64);

/// The values that are rolled again, both ends included (open ends are `i64::MIN`/`MAX`).
type Reroll = Option<(Expr, Expr)>;

impl Checker<'_> {
    pub(super) fn dice(&mut self, ctx: &mut Ctx, d: &ast::DiceExpr) -> Option<Dice> {
        let count = self.dice_count(ctx, d);
        if !self.sides_ok(d) {
            return None;
        }
        let lit_count = if let ExprKind::Const(Const::Int(n)) = count.kind {
            Some(n)
        } else {
            None
        };
        let (read, zero, reroll) = self.dice_mods(ctx, d, lit_count)?;
        if matches!(read, Read::Explode(_)) && d.sides == 100 && lit_count == Some(1) {
            self.err(
                "E0403",
                d.span,
                "a d100 is two ten-sided dice read as tens and units; it does not explode",
                "percentile dice",
                Some("for an open-ended decimal die write `1d10 explode 10`".into()),
            );
            return None;
        }
        if d.sides == 100 && lit_count == Some(1) && matches!(read, Read::Sum) {
            // d100 is read as two decimal dice, tens and units, "00" = 100.
            return Some(Dice {
                count: Box::new(Expr {
                    kind: ExprKind::Const(Const::Int(2)),
                    ty: Ty::Int,
                    iv: Iv::exact(2),
                    span: d.span,
                }),
                sides: 10,
                zero_based: true,
                read: Read::Percentile,
                reroll,
                // The trace shows its two faces, tens and units, each 0-9.
                notation: rulebook_runtime::dice::PERCENTILE_NOTATION.into(),
            });
        }
        let notation = self.text_of(d.span);
        let dice = Dice {
            count: Box::new(count),
            sides: d.sides,
            zero_based: zero,
            read,
            reroll,
            notation,
        };
        // Reported, and still bound: later uses of the roll are not errors too.
        self.reroll_leaves_a_result(d, &dice, lit_count);
        Some(dice)
    }

    /// An opposed roll, `first ± terms vs second ± terms [reroll ties]`: plain dice of the same
    /// kind on both sides (no modifiers on the dice themselves), whole-number side modifiers
    /// within -10000..10000, read as the first side's total minus the second's; `reroll ties`
    /// throws both again while that is 0. E0403 for anything else.
    pub(super) fn opposed(&mut self, ctx: &mut Ctx, first: &ast::DiceExpr, o: &ast::Opposed) -> Option<Dice> {
        for d in [first, &o.second] {
            if !d.mods.is_empty() {
                self.err(
                    "E0403",
                    d.span,
                    "the dice of an opposed roll take no modifiers",
                    "modifier on a side's dice",
                    Some("each side throws plain dice and adds whole numbers: `1d6 + skill vs 1d6 + skill`".into()),
                );
                return None;
            }
            if !self.sides_ok(d) {
                return None;
            }
        }
        if first.sides != o.second.sides {
            self.err(
                "E0403",
                o.span,
                format!(
                    "an opposed roll throws the same dice on both sides, not d{} against d{}",
                    first.sides, o.second.sides
                ),
                "different dice",
                Some("roll each side separately and compare the totals with `check`".into()),
            );
            return None;
        }
        let count = self.dice_count(ctx, first);
        let second = self.dice_count(ctx, &o.second);
        let mut side_mod = |c: &mut Self, m: &Option<ast::Expr>| -> Expr {
            let Some(m) = m else {
                return Expr {
                    kind: ExprKind::Const(Const::Int(0)),
                    ty: Ty::Int,
                    iv: Iv::exact(0),
                    span: o.span,
                };
            };
            let x = c.expr(ctx, m, Some(&Ty::Int));
            let x = c.coerce(x, &Ty::Int);
            if x.ty == Ty::Int && (!x.iv.known || x.iv.lo < -10_000 || x.iv.hi > 10_000) {
                c.err(
                    "E0403",
                    m.span,
                    "a side's modifier in an opposed roll must stay within -10000..10000",
                    "unbounded",
                    Some("clamp it, e.g. `clamp(skill + dm, -20, 20)`".into()),
                );
            }
            x
        };
        let first_mod = side_mod(self, &o.first_mod);
        let second_mod = side_mod(self, &o.second_mod);
        let zero = |span| Expr {
            kind: ExprKind::Const(Const::Int(0)),
            ty: Ty::Int,
            iv: Iv::exact(0),
            span,
        };
        let dice = Dice {
            count: Box::new(count),
            sides: first.sides,
            zero_based: false,
            read: Read::Opposed {
                second: Box::new(second),
                first_mod: Box::new(first_mod),
                second_mod: Box::new(second_mod),
            },
            reroll: o.ties_reroll.then(|| (zero(o.span), zero(o.span))),
            notation: self.text_of(ast::Span {
                file: first.span.file,
                start: first.span.start,
                end: o.span.end,
            }),
        };
        let shown = dice_iv(&dice);
        if o.ties_reroll && shown.known && shown.lo == 0 && shown.hi == 0 {
            self.err(
                "E0403",
                o.span,
                "both sides always tie, so `reroll ties` would throw forever",
                "always a tie",
                Some("give at least one side a die".into()),
            );
            return None;
        }
        Some(dice)
    }

    /// E0403 unless the dice have 2 to 1000 sides.
    fn sides_ok(&mut self, d: &ast::DiceExpr) -> bool {
        let ok = (2..=1000).contains(&d.sides);
        if !ok {
            self.err(
                "E0403",
                d.span,
                format!("dice with {} sides", d.sides),
                "bad die",
                Some("dice have 2 to 1000 sides".into()),
            );
        }
        ok
    }

    /// The number of dice, E0403 when it can leave 0..1000.
    fn dice_count(&mut self, ctx: &mut Ctx, d: &ast::DiceExpr) -> Expr {
        let count = match &d.count {
            ast::DiceCount::Lit(n) => Expr {
                kind: ExprKind::Const(Const::Int(*n)),
                ty: Ty::Int,
                iv: Iv::exact(*n),
                span: d.span,
            },
            ast::DiceCount::Expr(e) => {
                let x = self.expr(ctx, e, Some(&Ty::Int));
                self.coerce(x, &Ty::Int)
            }
        };
        if count.iv.known && (count.iv.lo < 0 || count.iv.hi > 1000) {
            self.err(
                "E0403",
                d.span,
                format!("dice count can be {}..{}; it must stay within 0..1000", count.iv.lo, count.iv.hi),
                "bad dice count",
                Some("clamp the count, e.g. `(clamp(n, 0, 10))d6`".into()),
            );
        }
        count
    }

    /// How the dice are read (keep/drop, flux, per-die modifier), whether they count from zero,
    /// and the reroll range; `None` after an E0403.
    fn dice_mods(&mut self, ctx: &mut Ctx, d: &ast::DiceExpr, lit_count: Option<i64>) -> Option<(Read, bool, Reroll)> {
        let mut read = Read::Sum;
        let mut zero = false;
        let mut reroll = None;
        let mut explode: Option<i64> = None;
        // The other modifiers written, in order: `explode` combines with none of them.
        let mut others: Vec<&'static str> = Vec::new();
        for m in &d.mods {
            others.push(match m {
                ast::DiceMod::Keep { .. } => "keep",
                ast::DiceMod::Drop { .. } => "drop",
                ast::DiceMod::Flux => "flux",
                ast::DiceMod::BadFlux => "bad_flux",
                ast::DiceMod::ZeroBased => "zero_based",
                ast::DiceMod::Each { .. } => "each",
                ast::DiceMod::Reroll(..) => "reroll",
                ast::DiceMod::Explode(_) => "explode",
            });
            match m {
                ast::DiceMod::Explode(depth) => {
                    let Some(depth) = *depth else {
                        self.err(
                            "E0403",
                            d.span,
                            "`explode` needs its depth: the most extra throws per die",
                            "no depth",
                            Some("write the depth after it, e.g. `1d10 explode 10`".into()),
                        );
                        return None;
                    };
                    if explode.is_some() {
                        self.err(
                            "E0403",
                            d.span,
                            "`explode` is written twice",
                            "explode twice",
                            Some("keep one `explode` with its depth".into()),
                        );
                        return None;
                    }
                    if !(1..=100).contains(&depth) {
                        self.err(
                            "E0403",
                            d.span,
                            format!("an explode depth of {depth} is outside 1..100"),
                            "bad depth",
                            Some("the depth is the most extra throws per die: `1d10 explode 10` throws a die at most 11 times".into()),
                        );
                        return None;
                    }
                    explode = Some(depth);
                }
                ast::DiceMod::Keep { highest, n } | ast::DiceMod::Drop { highest, n } => {
                    let Some(c) = lit_count else {
                        self.err("E0403", d.span, "keep/drop needs a fixed number of dice", "count not fixed", None);
                        return None;
                    };
                    let drop = matches!(m, ast::DiceMod::Drop { .. });
                    let keep = if drop { c - n } else { *n };
                    if keep < 1 || keep > c {
                        self.err("E0403", d.span, format!("cannot keep {keep} of {c} dice"), "bad keep/drop", None);
                        return None;
                    }
                    if keep > i64::from(u8::MAX) {
                        self.err(
                            "E0403",
                            d.span,
                            format!("keeping {keep} of {c} dice: at most {} dice can be kept", u8::MAX),
                            "too many kept",
                            Some(format!("keep or drop so that at most {} dice are kept", u8::MAX)),
                        );
                        return None;
                    }
                    // "drop highest 1" keeps the lowest.
                    let keep_high = if drop { !highest } else { *highest };
                    read = if keep_high {
                        Read::KeepHighest(keep)
                    } else {
                        Read::KeepLowest(keep)
                    };
                }
                ast::DiceMod::Flux | ast::DiceMod::BadFlux => {
                    if lit_count != Some(2) {
                        self.err(
                            "E0403",
                            d.span,
                            "flux is the difference of exactly two dice",
                            "needs 2 dice",
                            Some("write `2d6 flux`".into()),
                        );
                        return None;
                    }
                    read = if matches!(m, ast::DiceMod::Flux) {
                        Read::Flux
                    } else {
                        Read::BadFlux
                    };
                }
                ast::DiceMod::ZeroBased => zero = true,
                ast::DiceMod::Each { value, floor } => {
                    if !(-100..=100).contains(floor) {
                        self.err(
                            "E0403",
                            d.span,
                            format!("a per-die floor of {floor} is outside -100..100"),
                            "bad floor",
                            Some("the floor is the least a die counts after its modifier: `3d6 each -2 floor 1`".into()),
                        );
                        return None;
                    }
                    let v = self.expr(ctx, value, Some(&Ty::Int));
                    let v = self.coerce(v, &Ty::Int);
                    if !v.iv.known || v.iv.lo < -100 || v.iv.hi > 100 {
                        self.err(
                            "E0403",
                            value.span,
                            "a per-die modifier must stay within -100..100",
                            "unbounded",
                            Some("clamp it".into()),
                        );
                    }
                    read = Read::SumFloor {
                        per_die: Box::new(v),
                        floor: *floor,
                    };
                }
                ast::DiceMod::Reroll(a, b) => {
                    let end = |c: &mut Self, ctx: &mut Ctx, e: &Option<Box<ast::Expr>>, open: i64| match e {
                        Some(e) => {
                            let x = c.expr(ctx, e, Some(&Ty::Int));
                            c.coerce(x, &Ty::Int)
                        }
                        None => Expr {
                            kind: ExprKind::Const(Const::Int(open)),
                            ty: Ty::Int,
                            iv: Iv::exact(open),
                            span: d.span,
                        },
                    };
                    let lo = end(self, ctx, a, i64::MIN);
                    let hi = end(self, ctx, b, i64::MAX);
                    reroll = Some((lo, hi));
                }
            }
        }
        if let Some(depth) = explode {
            if let Some(other) = others.iter().find(|&&o| o != "explode") {
                let help = match *other {
                    "keep" | "drop" => {
                        "an exploding die adds every face it throws; roll the dice to keep or drop and the exploding dice separately"
                    }
                    "flux" | "bad_flux" => "flux is the difference of two plain dice; roll the exploding dice separately",
                    "zero_based" => {
                        "an exploding die counts its faces from 1 and explodes on its highest (a d10 on 10); leave out `zero_based`"
                    }
                    "each" => "a per-die change of exploding dice is not defined; change the result of the roll instead",
                    _ => "a reroll of exploding dice is not defined; decide on the result after the roll instead (`if`, a table)",
                };
                self.err(
                    "E0403",
                    d.span,
                    format!("`explode` cannot be combined with `{other}`"),
                    "not with explode",
                    Some(help.into()),
                );
                return None;
            }
            read = Read::Explode(depth);
        }
        Some((read, zero, reroll))
    }

    /// E0403 when a reroll range covers every value the dice can show. A computed range is
    /// reported when its bounds prove it always covers them all; otherwise a throw that can only be
    /// rerolled stops the resolution at run time (`RerollLimit`).
    fn reroll_leaves_a_result(&mut self, d: &ast::DiceExpr, dice: &Dice, lit_count: Option<i64>) -> bool {
        match (lit_count, dice.const_reroll()) {
            (Some(c), Some(Some((a, b)))) => {
                if let Some(spec) = runtime_spec(dice, c) {
                    let dist = spec.distribution().unwrap_or_default();
                    if dist.is_empty() {
                        self.err(
                            "E0403",
                            d.span,
                            format!("rerolling {} leaves no result", range_label(a, b)),
                            "always rerolled",
                            None,
                        );
                        return false;
                    }
                }
            }
            (_, Some(None)) => {}
            _ => {
                let Some((lo, hi)) = &dice.reroll else { return true };
                let shown = dice_iv(dice);
                if shown.known && lo.iv.known && hi.iv.known && lo.iv.hi <= shown.lo && hi.iv.lo >= shown.hi {
                    self.err(
                        "E0403",
                        d.span,
                        format!(
                            "this reroll range always covers {}, every value the dice can show",
                            range_label(shown.lo as i64, shown.hi as i64)
                        ),
                        "always rerolled",
                        Some(format!(
                            "its low end can be {} and its high end {}; leave at least one value unrerolled",
                            range_label(lo.iv.lo as i64, lo.iv.hi as i64),
                            range_label(hi.iv.lo as i64, hi.iv.hi as i64)
                        )),
                    );
                    return false;
                }
            }
        }
        true
    }

    /// Dice with literal parameters: their distribution (for gap probabilities) and range.
    pub(super) fn static_dice(&mut self, d: &ast::DiceExpr) -> Option<DiceDomain> {
        let mut ctx = Ctx::new(usize::MAX);
        let dice = self.dice(&mut ctx, d)?;
        let ExprKind::Const(Const::Int(count)) = dice.count.kind else {
            self.err(
                "E0403",
                d.span,
                "a table's `by` dice must have a fixed count",
                "count not fixed",
                None,
            );
            return None;
        };
        if dice.const_reroll().is_none() {
            self.err(
                "E0403",
                d.span,
                "a table's `by` dice must have a fixed reroll range",
                "computed reroll range",
                Some("write the range with numbers, e.g. `reroll 10..12`".into()),
            );
            return None;
        }
        let spec = runtime_spec(&dice, count)?;
        let dist = spec.distribution().ok();
        let (lo, hi) = match &dist {
            Some(v) if !v.is_empty() => (v[0].0, v[v.len() - 1].0),
            _ => (spec.min(), spec.max()),
        };
        Some((dist, lo, hi))
    }
}

/// The runtime's view of dice with a fixed count, used for ranges and gap probabilities.
pub fn runtime_spec(d: &Dice, count: i64) -> Option<rulebook_runtime::DiceSpec> {
    use rulebook_runtime::Read as R;
    let read = match &d.read {
        Read::Sum => R::Sum,
        Read::KeepHighest(k) => R::KeepHighest(u8::try_from(*k).ok()?),
        Read::KeepLowest(k) => R::KeepLowest(u8::try_from(*k).ok()?),
        Read::Flux => R::Flux,
        Read::BadFlux => R::BadFlux,
        Read::Percentile => R::Percentile,
        Read::Explode(depth) => R::Explode(u8::try_from(*depth).ok()?),
        Read::Opposed { .. } => return None,
        Read::SumFloor { per_die, floor } => match per_die.kind {
            ExprKind::Const(Const::Int(v)) => R::SumFloor {
                per_die: i8::try_from(v).ok()?,
                floor: i8::try_from(*floor).ok()?,
            },
            _ => return None,
        },
    };
    Some(rulebook_runtime::DiceSpec {
        count: u16::try_from(count).ok()?,
        sides: u16::try_from(d.sides).ok()?,
        zero_based: d.zero_based,
        read,
        reroll: d.const_reroll()?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, program};
    use crate::ir::{Read, Stmt};

    fn roll(dice: &str) -> String {
        format!("resolver r \"R\" [1] {{\n  out x: int = 0\n  roll d = {dice}\n}}\n")
    }

    #[test]
    fn dice_that_cannot_be_rolled() {
        check_codes(&roll("2d6 keep highest 1"), &[]);
        check_codes(&roll("2d6 keep highest 3"), &["E0403"]);
        check_codes(&roll("3d6 flux"), &["E0403"]);
        check_codes(&roll("2d1"), &["E0403"]);
    }

    /// Issue 44: these passed `check`, then failed at run time with "internal error: interpreter:
    /// keep/floor count out of range" (the runtime keeps at most 255 dice, a floor in an i8).
    #[test]
    fn limits_of_the_runtime_are_checked() {
        check_codes(&roll("300d6 keep highest 255"), &[]);
        check_codes(&roll("300d6 keep highest 256"), &["E0403"]);
        check_codes(&roll("300d6 drop lowest 1"), &["E0403"]);
        check_codes(&roll("300d6 drop lowest 45"), &[]);
        check_codes(&roll("3d6 each -2 floor 100"), &[]);
        check_codes(&roll("3d6 each -2 floor 128"), &["E0403"]);
        check_codes(&roll("3d6 each -2 floor -101"), &["E0403"]);
    }

    #[test]
    fn a_reroll_range_may_be_computed() {
        let roll_n = |dice: &str| format!("resolver r \"R\" [1] {{\n  in n: int 1..6\n  out x: int = 0\n  roll d = {dice}\n}}\n");
        check_codes(&roll_n("1d6 reroll (n + 1)..6"), &[]);
        check_codes(&roll_n("1d6 reroll (n)..6"), &[]);
        check_codes(&roll_n("1d6 reroll ..(n - 1)"), &[]);
        // Provably every face, whatever `n` is.
        check_codes(&roll_n("1d6 reroll (n - 6)..(n + 5)"), &["E0403"]);
        check_codes(&roll_n("(n)d6 reroll 1.."), &["E0403"]);
        check_codes(&roll_n("1d6 reroll (n > 2)..6"), &["E0201"]);
        check_codes(
            "const c = 3 [1]\ntable t \"T\" [1] by 1d6 reroll (c + 1).. -> int {\n  1..3 => 1\n}\nresolver r \"R\" [1] {\n  out x: int = 0\n}\n",
            &["E0403", "W0001"],
        );
        // A constant end is a fixed range.
        check_codes(
            "const c = 4 [1]\ntable t \"T\" [1] by 1d6 reroll (c).. -> int {\n  1..3 => 1\n}\nresolver r \"R\" [1] {\n  out x: int\n  roll d = 1d6 reroll 4..\n  set x = t(clamp(d, 1, 3))\n}\n",
            &[],
        );
    }

    #[test]
    fn exploding_dice_need_a_depth_and_combine_with_no_other_modifier() {
        check_codes(&roll("1d10 explode 10"), &[]);
        check_codes(&roll("2d6 explode 1"), &[]);
        check_codes(&roll("d6 explode 100"), &[]);
        check_codes(&roll("2d100 explode 1"), &[]);
        for bad in [
            "1d10 explode",
            "1d10 explode 0",
            "1d10 explode 101",
            "1d10 explode 2 explode 3",
            "1d10 zero_based explode 10",
            "1d10 explode 10 zero_based",
            "3d6 explode 1 keep highest 2",
            "4d6 drop lowest 1 explode 1",
            "2d6 explode 1 flux",
            "2d6 bad_flux explode 1",
            "3d6 each -2 floor 0 explode 1",
            "2d6 explode 1 reroll 12",
            "d100 explode 1",
            "1d100 explode 10",
        ] {
            check_codes(&roll(bad), &["E0403"]);
        }
    }

    #[test]
    fn exploding_dice_have_their_range_and_depth_in_the_ir() {
        let p = program(&roll("(2)d6 explode 3"));
        let Some(Stmt::Roll { dice, .. }) = p.systems[0].resolvers[0].body.first() else {
            panic!("expected a roll");
        };
        assert!(matches!(dice.read, Read::Explode(3)));
        let iv = super::dice_iv(dice);
        assert_eq!((iv.lo, iv.hi, iv.known), (2, 2 * 6 * 4, true));
        // The range, 2..48, proves a call argument inside `int 2..48`, and not inside `int 2..47`.
        let call = |hi: i64| {
            format!(
                "resolver sub \"S\" [1] {{\n  in n: int 2..{hi}\n  out x: int\n  set x = n\n}}\n\
                 resolver r \"R\" [1] {{\n  out x: int\n  roll a = 2d6 explode 3\n  call s = sub(n: a) [1]\n  set x = s.x\n}}\n"
            )
        };
        check_codes(&call(48), &[]);
        check_codes(&call(47), &["E0304"]);
    }

    #[test]
    fn d100_is_read_as_percentile_dice() {
        let p = program(&roll("1d100"));
        let Some(Stmt::Roll { dice, .. }) = p.systems[0].resolvers[0].body.first() else {
            panic!("expected a roll");
        };
        assert!(matches!(dice.read, Read::Percentile));
        assert_eq!((dice.sides, dice.zero_based), (10, true));
    }
}
