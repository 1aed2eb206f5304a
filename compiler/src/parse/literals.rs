//! Literal values: cells (table cells, constants, parameter defaults), decimals, and the range
//! patterns of table rows and `match` arms.

use super::{not_kw, unquote, Lower, Rule};
use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;

impl Lower {
    /// A decimal `match` pattern: both ends exact; a range whose ends are both whole numbers is an
    /// ordinary range.
    pub(super) fn dec_range_pat(&mut self, p: Pair<Rule>) -> Pattern {
        let text: String = p.as_str().chars().filter(|c| !c.is_whitespace()).collect();
        let num = |this: &mut Self, s: &str, at: &Pair<Rule>| match parse_decimal(s) {
            Some(v) => Some(v),
            None => {
                this.diags.push(
                    Diagnostic::error("E0401", this.span(at), format!("number `{s}` does not fit"))
                        .label("too long")
                        .help("a decimal has at most 12 digits after the point and fits in 64 bits"),
                );
                None
            }
        };
        match text.split_once("..") {
            Some((lo, hi)) => {
                let lo = if lo.is_empty() { None } else { num(self, lo, &p) };
                let hi = if hi.is_empty() { None } else { num(self, hi, &p) };
                // Whole-number ends (or open ones) make an ordinary range: `..3`, `2..`, `1..4`.
                let whole = |e: Option<(i64, i64)>| e.is_none_or(|(_, d)| d == 1);
                if whole(lo) && whole(hi) {
                    Pattern::Range(lo.map(|(n, _)| n), hi.map(|(n, _)| n))
                } else {
                    Pattern::DecRange(lo, hi)
                }
            }
            None => {
                let v = num(self, &text, &p);
                Pattern::DecRange(v, v)
            }
        }
    }

    pub(super) fn range_pat(&mut self, p: Pair<Rule>) -> (Option<i64>, Option<i64>) {
        let text = p.as_str();
        let mut lo = None;
        let mut hi = None;
        let mut single = None;
        for c in p.clone().into_inner().filter(not_kw) {
            match c.as_rule() {
                Rule::range_lo => lo = c.into_inner().find(not_kw).map(|x| self.int(&x)),
                Rule::range_hi => hi = c.into_inner().find(not_kw).map(|x| self.int(&x)),
                Rule::signed_int => single = Some(self.int(&c)),
                _ => {}
            }
        }
        if text.contains("..") {
            (lo, hi)
        } else {
            (single, single)
        }
    }

    pub(super) fn cell(&mut self, p: Pair<Rule>) -> Cell {
        let span = self.span(&p);
        let inner = match p.into_inner().find(not_kw) {
            Some(i) => i,
            None => {
                return Cell {
                    kind: CellKind::None,
                    span,
                }
            }
        };
        let kind = match inner.as_rule() {
            Rule::list_cell => CellKind::List(inner.into_inner().filter(not_kw).map(|c| self.cell(c)).collect()),
            Rule::signed_num => {
                let text: String = inner.as_str().chars().filter(|c| !c.is_whitespace()).collect();
                if text.contains('.') {
                    match parse_decimal(&text) {
                        Some((n, d)) => CellKind::Dec(n, d),
                        None => {
                            self.diags
                                .push(Diagnostic::error("E0401", span, format!("decimal `{text}` has too many digits")).label("here"));
                            CellKind::Int(0)
                        }
                    }
                } else {
                    CellKind::Int(self.int(&inner))
                }
            }
            Rule::bool_lit => CellKind::Bool(matches!(inner.as_str(), "true" | "yes")),
            Rule::string => CellKind::Str(unquote(&inner)),
            Rule::none_cell => CellKind::None,
            Rule::ident => CellKind::Ident(inner.as_str().to_string()),
            _ => CellKind::None,
        };
        Cell { kind, span }
    }
}

/// "7.5" → (15, 2); "-0.5" → (-1, 2); reduced, denominator > 0.
pub fn parse_decimal(text: &str) -> Option<(i64, i64)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.len() > 12 {
        return None;
    }
    let den = 10i64.checked_pow(frac.len() as u32)?;
    let w: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let f: i64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    let mut num = w.checked_mul(den)?.checked_add(f)?;
    if neg {
        num = -num;
    }
    let g = num_integer::gcd(num, den).max(1);
    Some((num / g, den / g))
}
