//! Expressions into `ast::Expr`s, refusing any tree deeper than `MAX_EXPR_DEPTH` (E0002); the
//! one-child grammar layers around each bracket are walked in a loop, not by recursion.

use super::literals::parse_decimal;
use super::{not_kw, unquote, Lower, Rule, MAX_EXPR_DEPTH};
use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;

impl Lower {
    fn field_inits(&mut self, p: Pair<Rule>) -> Vec<(Ident, Expr)> {
        let mut out = Vec::new();
        for fi in p.into_inner().filter(not_kw) {
            let mut it = fi.into_inner().filter(not_kw);
            if let (Some(n), Some(v)) = (it.next(), it.next()) {
                let id = self.ident(n);
                out.push((id, self.expr_at(v, 1)));
            }
        }
        out
    }

    /// Lowers `p` as a node `extra` levels below the current one, restoring the depth after.
    pub(super) fn expr_at(&mut self, p: Pair<Rule>, extra: usize) -> Expr {
        let base = self.depth;
        self.depth = base + extra;
        let e = self.expr(p);
        self.depth = base;
        e
    }

    /// E0002 for an expression whose tree would nest deeper than `MAX_EXPR_DEPTH`; its stand-in.
    pub(super) fn too_deep_expr(&mut self, span: Span, ops: usize) -> Expr {
        let message = if ops > 1 {
            format!(
                "expression nests too deeply: {ops} operators in a row (the limit is {MAX_EXPR_DEPTH} levels, blocks around it included)"
            )
        } else {
            format!("expression nests more than {MAX_EXPR_DEPTH} levels deep, blocks around it included")
        };
        self.diags.push(
            Diagnostic::error("E0002", span, message)
                .label("too deep")
                .help("split it with `let`: name a part of it and use the name"),
        );
        Expr {
            kind: ExprKind::Int(0),
            span,
        }
    }

    pub(super) fn expr(&mut self, p: Pair<Rule>) -> Expr {
        let p = one_child_layers(p);
        let span = self.span(&p);
        if self.depth > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, 0);
        }
        let rule = p.as_rule();
        let text = p.as_str().to_string();
        let string_value = if rule == Rule::string { unquote(&p) } else { String::new() };
        let mut inner: Vec<Pair<Rule>> = p.into_inner().filter(not_kw).collect();
        let kind = match rule {
            Rule::expr | Rule::paren | Rule::dice_count_expr => match inner.pop() {
                Some(x) => return self.expr(x),
                None => ExprKind::Int(0),
            },
            Rule::cond_expr => {
                let mut exprs: Vec<Expr> = inner.into_iter().map(|x| self.expr_at(x, 1)).collect();
                let otherwise = exprs.pop().unwrap_or(Expr {
                    kind: ExprKind::Int(0),
                    span,
                });
                let mut arms = Vec::new();
                let mut it = exprs.into_iter();
                while let (Some(c), Some(v)) = (it.next(), it.next()) {
                    arms.push((c, v));
                }
                ExprKind::If(arms, Box::new(otherwise))
            }
            Rule::or_expr | Rule::and_expr | Rule::sum | Rule::product | Rule::coalesce => return self.binary(rule, inner, span),
            Rule::not_expr => return self.not_expr(inner, span),
            Rule::unary => return self.unary(inner, span),
            Rule::cmp_expr => return self.cmp_expr(inner, span),
            Rule::postfix => return self.postfix(inner, span),
            Rule::aggregate => return self.aggregate(inner, span),
            Rule::update => return self.update(inner, span),
            Rule::call => return self.call(inner, span),
            Rule::option_ref => match inner.pop() {
                Some(i) => ExprKind::Option(self.ident(i)),
                None => ExprKind::Bool(false),
            },
            Rule::io_ref => {
                // The keyword's pair is left out of `inner`: the text says which it was.
                let output = text.starts_with("out");
                match inner.pop().filter(|p| p.as_rule() == Rule::ident) {
                    Some(i) if output => ExprKind::OutputRef(self.ident(i)),
                    Some(i) => ExprKind::InputRef(self.ident(i)),
                    None => ExprKind::Bool(false),
                }
            }
            Rule::list_lit => ExprKind::List(inner.into_iter().map(|x| self.expr_at(x, 1)).collect()),
            Rule::decimal => match parse_decimal(&text) {
                Some((n, d)) => ExprKind::Dec(n, d),
                None => {
                    self.diags
                        .push(Diagnostic::error("E0401", span, format!("decimal `{text}` has too many digits")).label("here"));
                    ExprKind::Int(0)
                }
            },
            Rule::int => match text.parse::<i64>() {
                Ok(v) => ExprKind::Int(v),
                Err(_) => {
                    self.diags
                        .push(Diagnostic::error("E0401", span, format!("number `{text}` does not fit in 64 bits")).label("too large"));
                    ExprKind::Int(0)
                }
            },
            Rule::bool_lit => ExprKind::Bool(matches!(text.as_str(), "true" | "yes")),
            Rule::string => ExprKind::Str(string_value),
            Rule::ident => ExprKind::Name(text),
            _ => ExprKind::Int(0),
        };
        Expr { kind, span }
    }

    /// `or`, `and`, `??`, sums and products: a left-leaning tree of `Bin` nodes, refused past
    /// `MAX_EXPR_DEPTH`.
    fn binary(&mut self, rule: Rule, mut inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        if inner.len() == 1 {
            return self.expr(inner.remove(0));
        }
        // A left-leaning tree of `ops` nodes: the first operand sits `ops` levels down,
        // operand i (from 1) `ops + 1 - i`.
        let is_op = |r: Rule| matches!(r, Rule::or_op | Rule::and_op | Rule::add_op | Rule::mul_op);
        let ops = inner.iter().filter(|x| !is_op(x.as_rule())).count().saturating_sub(1);
        if self.depth + ops > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, ops);
        }
        let mut operand = 0usize;
        let mut it = inner.into_iter();
        let mut acc = match it.next() {
            Some(first) => self.expr_at(first, ops),
            None => {
                return Expr {
                    kind: ExprKind::Int(0),
                    span,
                }
            }
        };
        let default_op = match rule {
            Rule::coalesce => Some(BinOp::Coalesce),
            _ => None,
        };
        let mut pending: Option<BinOp> = None;
        for x in it {
            match x.as_rule() {
                Rule::or_op => pending = Some(BinOp::Or),
                Rule::and_op => pending = Some(BinOp::And),
                Rule::add_op => pending = Some(if x.as_str() == "+" { BinOp::Add } else { BinOp::Sub }),
                Rule::mul_op => {
                    pending = Some(match x.as_str() {
                        "*" => BinOp::Mul,
                        "/" => BinOp::Div,
                        _ => BinOp::Rem,
                    })
                }
                _ => {
                    operand += 1;
                    let rhs = self.expr_at(x, ops + 1 - operand.min(ops));
                    let op = pending.take().or(default_op).unwrap_or(BinOp::Add);
                    let s = Span {
                        file: self.file,
                        start: acc.span.start,
                        end: rhs.span.end,
                    };
                    acc = Expr {
                        kind: ExprKind::Bin(op, Box::new(acc), Box::new(rhs)),
                        span: s,
                    };
                }
            }
        }
        acc
    }

    /// A run of `not` before a comparison, each one level.
    fn not_expr(&mut self, mut inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let ops = inner.len().saturating_sub(1);
        if self.depth + ops > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, ops);
        }
        let last = match inner.pop() {
            Some(l) => self.expr_at(l, ops),
            None => {
                return Expr {
                    kind: ExprKind::Int(0),
                    span,
                }
            }
        };
        let mut e = last;
        for _ in inner {
            e = Expr {
                kind: ExprKind::Not(Box::new(e)),
                span,
            };
        }
        e
    }

    /// A run of `-` and `+` before a postfix expression; a minus in front of a number literal
    /// becomes part of the number.
    fn unary(&mut self, mut inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let ops = inner.len().saturating_sub(1);
        if self.depth + ops > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, ops);
        }
        // `-9223372036854775808`: the smallest 64-bit integer, whose digits alone do not
        // fit in 64 bits.
        let min_literal = inner.len() >= 2
            && inner[inner.len() - 2].as_str() == "-"
            && inner.last().is_some_and(|l| {
                l.clone().into_inner().map(|x| (x.as_rule(), x.as_str())).collect::<Vec<_>>() == [(Rule::int, "9223372036854775808")]
            });
        let mut e = if min_literal {
            inner.pop();
            let minus = inner.pop().map(|m| m.as_span().start()).unwrap_or(span.start);
            Expr {
                kind: ExprKind::Int(i64::MIN),
                span: Span {
                    file: self.file,
                    start: minus,
                    end: span.end,
                },
            }
        } else {
            match inner.pop() {
                Some(l) => self.expr_at(l, ops),
                None => {
                    return Expr {
                        kind: ExprKind::Int(0),
                        span,
                    }
                }
            }
        };
        for op in inner.into_iter().rev() {
            if op.as_str() == "-" {
                e = match e.kind {
                    ExprKind::Int(v) if v != i64::MIN => Expr {
                        kind: ExprKind::Int(-v),
                        span,
                    },
                    ExprKind::Dec(n, d) if n != i64::MIN => Expr {
                        kind: ExprKind::Dec(-n, d),
                        span,
                    },
                    k => Expr {
                        kind: ExprKind::Neg(Box::new(Expr { kind: k, span: e.span })),
                        span,
                    },
                };
            } else {
                e.span = span;
            }
        }
        e
    }

    /// A comparison (`==`, `<`, ...), `in` or `is`.
    fn cmp_expr(&mut self, mut inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        if inner.len() == 1 {
            return self.expr(inner.remove(0));
        }
        let mut it = inner.into_iter();
        let (Some(l), Some(op), Some(r)) = (it.next(), it.next(), it.next()) else {
            return Expr {
                kind: ExprKind::Int(0),
                span,
            };
        };
        let lhs = self.expr_at(l, 1);
        let kind = match op.as_rule() {
            Rule::in_op => ExprKind::In(Box::new(lhs), Box::new(self.expr_at(r, 1))),
            Rule::is_op => ExprKind::Is(Box::new(lhs), self.ident(r)),
            _ => ExprKind::Cmp(cmp_op(op.as_str()), Box::new(lhs), Box::new(self.expr_at(r, 1))),
        };
        Expr { kind, span }
    }

    /// A value followed by field accesses (`.name`) and `with (name: value, ...)` clauses.
    fn postfix(&mut self, inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let ops = inner.len().saturating_sub(1);
        if self.depth + ops > MAX_EXPR_DEPTH {
            return self.too_deep_expr(span, ops);
        }
        // Field accesses and `with` clauses nest like operators; the values of a `with`
        // are counted as deep as the first operand, which over-estimates by little.
        let mut it = inner.into_iter();
        let mut e = match it.next() {
            Some(first) => self.expr_at(first, ops),
            None => {
                return Expr {
                    kind: ExprKind::Int(0),
                    span,
                }
            }
        };
        for f in it {
            let fspan = self.span(&f);
            let s = Span {
                file: self.file,
                start: e.span.start,
                end: fspan.end,
            };
            if f.as_rule() == Rule::with_clause {
                let base = self.depth;
                self.depth = base + ops;
                let inits = self.field_inits(f);
                self.depth = base;
                e = Expr {
                    kind: ExprKind::With(Box::new(e), inits),
                    span: s,
                };
            } else if let Some(idp) = f.into_inner().find(not_kw) {
                let id = self.ident(idp);
                e = Expr {
                    kind: ExprKind::Field(Box::new(e), id),
                    span: s,
                };
            }
        }
        e
    }

    /// `sum(x in list: body)` and the other aggregates (`count`, `any`, `map`, `sort`, ...).
    fn aggregate(&mut self, inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let mut it = inner.into_iter();
        let (Some(k), Some(v), Some(l), Some(b)) = (it.next(), it.next(), it.next(), it.next()) else {
            return Expr {
                kind: ExprKind::Int(0),
                span,
            };
        };
        let kind = match k.as_str() {
            "sum" => Agg::Sum,
            "product" => Agg::Product,
            "count" => Agg::Count,
            "any" => Agg::Any,
            "all" => Agg::All,
            "max" => Agg::Max,
            "map" => Agg::Map,
            "filter" => Agg::Filter,
            "first" => Agg::First,
            "sort" => Agg::Sort,
            "sort_desc" => Agg::SortDesc,
            _ => Agg::Min,
        };
        let var = self.ident(v);
        Expr {
            kind: ExprKind::Agg {
                kind,
                var,
                list: Box::new(self.expr_at(l, 1)),
                body: Box::new(self.expr_at(b, 1)),
            },
            span,
        }
    }

    /// `update(x in list where cond: value)`.
    fn update(&mut self, inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let mut it = inner.into_iter();
        let (Some(v), Some(l), Some(c), Some(b)) = (it.next(), it.next(), it.next(), it.next()) else {
            return Expr {
                kind: ExprKind::Int(0),
                span,
            };
        };
        let var = self.ident(v);
        // The condition and the new value sit two levels down, as in the `map(x in l: if
        // c then v else x)` the checker lowers this to.
        Expr {
            kind: ExprKind::Update {
                var,
                list: Box::new(self.expr_at(l, 1)),
                cond: Box::new(self.expr_at(c, 2)),
                body: Box::new(self.expr_at(b, 2)),
            },
            span,
        }
    }

    /// `f(a, b)`, a function call, or `f(name: value, ...)`, a record built by name.
    fn call(&mut self, inner: Vec<Pair<Rule>>, span: Span) -> Expr {
        let mut it = inner.into_iter();
        let Some(f) = it.next() else {
            return Expr {
                kind: ExprKind::Int(0),
                span,
            };
        };
        let name = self.ident(f);
        let rest: Vec<Pair<Rule>> = it.collect();
        let kind = if rest.len() == 1 && rest[0].as_rule() == Rule::named_args {
            let inits = self.field_inits(rest[0].clone());
            ExprKind::Construct(name, inits)
        } else {
            ExprKind::Call(name, rest.into_iter().map(|a| self.expr_at(a, 1)).collect())
        };
        Expr { kind, span }
    }
}

pub(super) fn cmp_op(s: &str) -> CmpOp {
    match s {
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        _ => CmpOp::Ge,
    }
}

/// The first pair below `p` that is not a grammar layer with a single child: `(a)` is an `expr`
/// around an `or_expr` around ... around a `paren` around an `expr` again, a dozen layers per
/// bracket that lower to nothing. Walking them in a loop rather than by recursion keeps the
/// lowering's stack to the nodes the expression really has (a large frame each in a debug build),
/// so the deepest brackets `MAX_NESTING` allows lower on a 2 MiB stack.
fn one_child_layers(mut p: Pair<Rule>) -> Pair<Rule> {
    loop {
        match p.as_rule() {
            Rule::expr
            | Rule::paren
            | Rule::dice_count_expr
            | Rule::or_expr
            | Rule::and_expr
            | Rule::sum
            | Rule::product
            | Rule::coalesce
            | Rule::cmp_expr
            | Rule::not_expr
            | Rule::unary
            | Rule::postfix => {
                let mut inner = p.clone().into_inner().filter(not_kw);
                match (inner.next(), inner.next()) {
                    (Some(only), None) => p = only,
                    _ => return p,
                }
            }
            _ => return p,
        }
    }
}
