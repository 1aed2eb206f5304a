//! Dice expressions into `ast::DiceExpr` (count, sides, keep/drop, flux, explode, per-die value,
//! reroll ranges) and opposed rolls (`DICE [± terms] vs DICE [± terms] [reroll ties]`).

use super::{not_kw, Lower, Rule, MAX_EXPR_DEPTH};
use crate::ast::*;
use pest::iterators::Pair;

impl Lower {
    /// `DICE [± terms] vs DICE [± terms] [reroll ties]`: the first side's dice, and the rest.
    pub(super) fn opposed(&mut self, p: Pair<Rule>) -> Option<(DiceExpr, Opposed)> {
        let span = self.span(&p);
        let mut sides = Vec::new();
        let mut ties_reroll = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::opp_side => {
                    let mut parts = c.into_inner().filter(not_kw);
                    let dice = self.dice(parts.next()?);
                    let terms: Vec<Pair<Rule>> = parts.collect();
                    sides.push((dice, self.side_modifier(terms)));
                }
                Rule::ties_reroll => ties_reroll = true,
                _ => {}
            }
        }
        let (second, second_mod) = sides.pop()?;
        let (first, first_mod) = sides.pop()?;
        Some((
            first,
            Opposed {
                first_mod,
                second,
                second_mod,
                ties_reroll,
                span,
            },
        ))
    }

    /// The `± term ± term ...` after one side's dice, as one sum; `None` when there is none.
    fn side_modifier(&mut self, terms: Vec<Pair<Rule>>) -> Option<Expr> {
        let ops = terms.len() / 2;
        let first_span = terms.first().map(|t| self.span(t))?;
        if self.depth + ops > MAX_EXPR_DEPTH {
            return Some(self.too_deep_expr(first_span, ops));
        }
        let mut acc: Option<Expr> = None;
        let mut negative = false;
        for t in terms {
            if t.as_rule() == Rule::add_op {
                negative = t.as_str() == "-";
                continue;
            }
            let term = self.expr_at(t, ops);
            acc = Some(match acc {
                None if negative => Expr {
                    span: term.span,
                    kind: ExprKind::Neg(Box::new(term)),
                },
                None => term,
                Some(a) => {
                    let span = Span {
                        file: self.file,
                        start: a.span.start,
                        end: term.span.end,
                    };
                    let op = if negative { BinOp::Sub } else { BinOp::Add };
                    Expr {
                        kind: ExprKind::Bin(op, Box::new(a), Box::new(term)),
                        span,
                    }
                }
            });
        }
        acc
    }

    pub(super) fn dice(&mut self, p: Pair<Rule>) -> DiceExpr {
        let span = self.span(&p);
        let mut count = DiceCount::Lit(1);
        let mut sides = 6;
        let mut mods = Vec::new();
        let mut seen_count = false;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::dice_count => {
                    seen_count = true;
                    if let Some(inner) = c.into_inner().find(not_kw) {
                        count = match inner.as_rule() {
                            Rule::nat => DiceCount::Lit(self.int(&inner)),
                            _ => match inner.into_inner().find(not_kw) {
                                Some(e) => DiceCount::Expr(Box::new(self.expr(e))),
                                None => DiceCount::Lit(1),
                            },
                        };
                    }
                }
                Rule::nat => sides = self.int(&c),
                Rule::dice_mod => {
                    let Some(m) = c.into_inner().find(not_kw) else {
                        continue;
                    };
                    let text = m.as_str().to_string();
                    let inner: Vec<Pair<Rule>> = m.clone().into_inner().filter(not_kw).collect();
                    let dm = match m.as_rule() {
                        Rule::keep_mod | Rule::drop_mod => {
                            let highest = text.contains("highest");
                            let n = inner.iter().find(|x| x.as_rule() == Rule::nat).map(|x| self.int(x)).unwrap_or(1);
                            if m.as_rule() == Rule::keep_mod {
                                DiceMod::Keep { highest, n }
                            } else {
                                DiceMod::Drop { highest, n }
                            }
                        }
                        Rule::flux_mod => DiceMod::Flux,
                        Rule::bad_flux_mod => DiceMod::BadFlux,
                        Rule::zero_mod => DiceMod::ZeroBased,
                        Rule::explode_mod => DiceMod::Explode(inner.iter().find(|x| x.as_rule() == Rule::nat).map(|x| self.int(x))),
                        Rule::each_mod => {
                            let value_pair = inner.iter().find(|x| x.as_rule() == Rule::each_value).cloned();
                            let floor = inner
                                .iter()
                                .find(|x| x.as_rule() == Rule::signed_int)
                                .map(|x| self.int(x))
                                .unwrap_or(0);
                            let value = match value_pair.and_then(|v| v.into_inner().find(not_kw)) {
                                Some(v) if v.as_rule() == Rule::signed_int => {
                                    let vspan = self.span(&v);
                                    Expr {
                                        kind: ExprKind::Int(self.int(&v)),
                                        span: vspan,
                                    }
                                }
                                Some(v) => match v.into_inner().find(not_kw) {
                                    Some(e) => self.expr(e),
                                    None => Expr {
                                        kind: ExprKind::Int(0),
                                        span,
                                    },
                                },
                                None => Expr {
                                    kind: ExprKind::Int(0),
                                    span,
                                },
                            };
                            DiceMod::Each {
                                value: Box::new(value),
                                floor,
                            }
                        }
                        Rule::reroll_mod => match inner.into_iter().find(|x| x.as_rule() == Rule::reroll_range) {
                            Some(r) => {
                                let (lo, hi) = self.reroll_range(r);
                                DiceMod::Reroll(lo, hi)
                            }
                            None => continue,
                        },
                        _ => continue,
                    };
                    mods.push(dm);
                }
                _ => {}
            }
        }
        let _ = seen_count;
        DiceExpr { count, sides, mods, span }
    }

    /// `lo..hi`, `..hi`, `lo..` or one value; each end a number or `(expression)`.
    fn reroll_range(&mut self, p: Pair<Rule>) -> (Option<Box<Expr>>, Option<Box<Expr>>) {
        let mut lo = None;
        let mut hi = None;
        let mut single = None;
        for c in p.into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::reroll_lo => lo = c.into_inner().find(not_kw).map(|e| self.reroll_end(e)),
                Rule::reroll_hi => hi = c.into_inner().find(not_kw).map(|e| self.reroll_end(e)),
                Rule::reroll_end => single = Some(self.reroll_end(c)),
                _ => {}
            }
        }
        match single {
            Some(v) => (Some(v.clone()), Some(v)),
            None => (lo, hi),
        }
    }

    fn reroll_end(&mut self, p: Pair<Rule>) -> Box<Expr> {
        let span = self.span(&p);
        let kind = match p.into_inner().find(not_kw) {
            Some(v) if v.as_rule() == Rule::signed_int => ExprKind::Int(self.int(&v)),
            Some(v) => match v.into_inner().find(not_kw) {
                Some(e) => return Box::new(self.expr(e)),
                None => ExprKind::Int(0),
            },
            None => ExprKind::Int(0),
        };
        Box::new(Expr { kind, span })
    }
}
