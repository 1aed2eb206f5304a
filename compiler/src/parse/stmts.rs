//! Statements into `ast::Stmt`s, blocks (each one level of `MAX_EXPR_DEPTH`) and the modifiers
//! of a `let`.

use super::exprs::cmp_op;
use super::{not_kw, unquote, Lower, Rule};
use crate::ast::*;
use pest::iterators::Pair;

impl Lower {
    /// A block's statements; the block counts as one level of `MAX_EXPR_DEPTH` for everything
    /// in it, since the backends nest its code as deeply as an operator's.
    fn block(&mut self, p: Pair<Rule>) -> Vec<Stmt> {
        self.depth += 1;
        let stmts = p.into_inner().filter(not_kw).filter_map(|s| self.stmt(s)).collect();
        self.depth -= 1;
        stmts
    }

    pub(super) fn stmt(&mut self, p: Pair<Rule>) -> Option<Stmt> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = p.into_inner().filter(not_kw);
        let kind = match rule {
            Rule::let_stmt => self.let_stmt(it)?,
            Rule::var_stmt => self.var_stmt(it)?,
            Rule::assign_stmt => StmtKind::Assign {
                name: self.ident(it.next()?),
                value: self.expr(it.next()?),
                cite: it.next().map(|c| self.cite(c)),
            },
            Rule::update_stmt => self.update_stmt(it, span)?,
            Rule::roll_stmt => self.roll_stmt(it)?,
            Rule::check_stmt => {
                let name = self.ident(it.next()?);
                let left = self.expr(it.next()?);
                let op = cmp_op(it.next()?.as_str());
                let right = self.expr(it.next()?);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Check {
                    name,
                    left,
                    op,
                    right,
                    cite,
                }
            }
            Rule::set_stmt => {
                let name = self.ident(it.next()?);
                let value = self.expr(it.next()?);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Set { name, value, cite }
            }
            Rule::if_stmt => self.if_stmt(it)?,
            Rule::match_stmt => self.match_stmt(it)?,
            Rule::call_stmt => self.call_stmt(it)?,
            Rule::require_stmt => {
                let cond = self.expr(it.next()?);
                let m = it.next()?;
                let message_span = self.span(&m);
                let message = unquote(&m);
                let cite = self.cite(it.next()?);
                StmtKind::Require {
                    cond,
                    message,
                    message_span,
                    cite,
                }
            }
            Rule::note_stmt => {
                let m = it.next()?;
                let text_span = self.span(&m);
                let text = unquote(&m);
                let cite = it.next().map(|c| self.cite(c));
                StmtKind::Note { text, text_span, cite }
            }
            Rule::return_stmt => StmtKind::Return,
            Rule::break_stmt => StmtKind::Break,
            Rule::repeat_stmt => {
                let n = it.next()?;
                let times = self.int(&n);
                let body = self.block(it.next()?);
                StmtKind::Repeat { times, body }
            }
            Rule::for_stmt => {
                let var = self.ident(it.next()?);
                let list = self.expr(it.next()?);
                let body = self.block(it.next()?);
                StmtKind::For { var, list, body }
            }
            _ => return None,
        };
        Some(Stmt { kind, span })
    }

    /// `let name = value [cite]`, with its block of modifiers and its `clamp`.
    fn let_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let name = self.ident(it.next()?);
        let value = self.expr(it.next()?);
        let mut cite = None;
        let mut mods = Vec::new();
        let mut clamp = None;
        for c in it {
            match c.as_rule() {
                Rule::cite => cite = Some(self.cite(c)),
                Rule::mod_block => {
                    for m in c.into_inner().filter(not_kw) {
                        if m.as_rule() == Rule::highest_group {
                            let gspan = self.span(&m);
                            let mut gi = m.into_inner().filter(not_kw);
                            let gname = gi.next().map(|s| unquote(&s)).unwrap_or_default();
                            let ms = gi.filter_map(|x| self.modifier(x)).collect();
                            mods.push(ModItem::Highest {
                                name: gname,
                                mods: ms,
                                span: gspan,
                            });
                        } else if let Some(one) = self.modifier(m) {
                            mods.push(ModItem::One(one));
                        }
                    }
                }
                Rule::clamp => {
                    let cspan = self.span(&c);
                    if let Some(r) = c.into_inner().find(not_kw) {
                        let (lo, hi) = self.range_pat(r);
                        clamp = Some((lo, hi, cspan));
                    }
                }
                _ => {}
            }
        }
        Some(StmtKind::Let {
            name,
            value,
            cite,
            mods,
            clamp,
        })
    }

    /// `var name[: type] = value [cite]`.
    fn var_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let name = self.ident(it.next()?);
        let mut ty = None;
        let mut value = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::type_expr => ty = Some(self.type_expr(c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => value = Some(self.expr(c)),
            }
        }
        Some(StmtKind::Var {
            name,
            ty,
            value: value?,
            cite,
        })
    }

    /// `roll name = DICE` or an opposed roll, with its label and citation.
    fn roll_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let name = self.ident(it.next()?);
        let thrown = it.next()?;
        let (dice, opposed) = if thrown.as_rule() == Rule::opposed {
            let (dice, opposed) = self.opposed(thrown)?;
            (dice, Some(Box::new(opposed)))
        } else {
            (self.dice(thrown), None)
        };
        let mut label = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::string => label = Some(unquote(&c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(StmtKind::Roll {
            name,
            dice,
            opposed,
            label,
            cite,
        })
    }

    /// `if c { ... } else if c { ... } else { ... }`: each condition with its block, and the `else`.
    fn if_stmt<'i>(&mut self, it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let mut arms = Vec::new();
        let mut otherwise = None;
        let parts: Vec<Pair<Rule>> = it.collect();
        let mut i = 0;
        while i < parts.len() {
            if parts[i].as_rule() == Rule::expr && i + 1 < parts.len() {
                let cond = self.expr(parts[i].clone());
                let body = self.block(parts[i + 1].clone());
                arms.push((cond, body));
                i += 2;
            } else {
                otherwise = Some(self.block(parts[i].clone()));
                i += 1;
            }
        }
        Some(StmtKind::If { arms, otherwise })
    }

    /// `match value { patterns => { ... } ... }`.
    fn match_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let scrutinee = self.expr(it.next()?);
        let mut arms = Vec::new();
        for arm in it {
            let mut pats = Vec::new();
            let mut body = Vec::new();
            for c in arm.into_inner().filter(not_kw) {
                match c.as_rule() {
                    Rule::pattern => {
                        let pspan = self.span(&c);
                        let inner = c.into_inner().find(not_kw)?;
                        let pat = match inner.as_rule() {
                            Rule::wildcard => Pattern::Wild,
                            Rule::range_pat => {
                                let (lo, hi) = self.range_pat(inner);
                                Pattern::Range(lo, hi)
                            }
                            Rule::dec_range_pat => self.dec_range_pat(inner),
                            _ => Pattern::Name(self.ident(inner)),
                        };
                        pats.push((pat, pspan));
                    }
                    Rule::block => body = self.block(c),
                    _ => {}
                }
            }
            arms.push((pats, body));
        }
        Some(StmtKind::Match { scrutinee, arms })
    }

    /// `call name = resolver(input: value, ...) [cite]`.
    fn call_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Option<StmtKind> {
        let name = self.ident(it.next()?);
        let resolver = self.ident(it.next()?);
        let mut args = Vec::new();
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::arg => {
                    let mut ai = c.into_inner().filter(not_kw);
                    let an = self.ident(ai.next()?);
                    let av = self.expr(ai.next()?);
                    args.push((an, av));
                }
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(StmtKind::Call {
            name,
            resolver,
            args,
            cite,
        })
    }

    fn modifier(&mut self, p: Pair<Rule>) -> Option<Modifier> {
        let span = self.span(&p);
        let mut it = p.into_inner().filter(not_kw);
        let value = self.expr(it.next()?);
        let name = unquote(&it.next()?);
        let mut when = None;
        let mut cite = None;
        for c in it {
            match c.as_rule() {
                Rule::expr => when = Some(self.expr(c)),
                Rule::cite => cite = Some(self.cite(c)),
                _ => {}
            }
        }
        Some(Modifier {
            value,
            name,
            when,
            cite: cite?,
            span,
        })
    }

    /// `update f in fs where COND { a.b = x  c = y } [cite]`, read as the assignment
    /// `fs = update(f in fs where COND: f with (a: f.a with (b: x), c: y))` (`docs/dsl.md`,
    /// "`update`: change the items found"): fields set along one path are grouped into one `with`.
    fn update_stmt<'i>(&mut self, mut it: impl Iterator<Item = Pair<'i, Rule>>, span: Span) -> Option<StmtKind> {
        let item = self.ident(it.next()?);
        let list = self.ident(it.next()?);
        let cond = self.expr_at(it.next()?, 2);
        let mut sets: Vec<(Vec<Ident>, Expr)> = Vec::new();
        let mut cite = None;
        for p in it {
            if p.as_rule() == Rule::cite {
                cite = Some(self.cite(p));
                continue;
            }
            let parts: Vec<Pair<Rule>> = p.into_inner().collect();
            let (value, path) = parts.split_last()?;
            let path: Vec<Ident> = path.iter().map(|i| self.ident(i.clone())).collect();
            let value = self.expr_at(value.clone(), 2 + path.len());
            sets.push((path, value));
        }
        let name = |i: &Ident| Expr {
            kind: ExprKind::Name(i.name.clone()),
            span: i.span,
        };
        let body = with_paths(name(&item), &sets, span);
        let value = Expr {
            kind: ExprKind::Update {
                var: item,
                list: Box::new(name(&list)),
                cond: Box::new(cond),
                body: Box::new(body),
            },
            span,
        };
        Some(StmtKind::Assign { name: list, value, cite })
    }
}

/// `base with (...)` setting each path of `sets` to its value: the fields named first, in order of
/// their first mention, each given its value or, for a longer path, `base.field with (...)` of the
/// rest of the paths through it.
fn with_paths(base: Expr, sets: &[(Vec<Ident>, Expr)], span: Span) -> Expr {
    let mut fields: Vec<(Ident, Expr)> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (path, value) in sets {
        let Some((first, rest)) = path.split_first() else { continue };
        if rest.is_empty() {
            fields.push((first.clone(), value.clone()));
            continue;
        }
        if seen.contains(&first.name.as_str()) {
            continue;
        }
        seen.push(&first.name);
        let inner: Vec<(Vec<Ident>, Expr)> = sets
            .iter()
            .filter(|(p, _)| p.len() > 1 && p[0].name == first.name)
            .map(|(p, v)| (p[1..].to_vec(), v.clone()))
            .collect();
        let field = Expr {
            kind: ExprKind::Field(Box::new(base.clone()), first.clone()),
            span: first.span,
        };
        fields.push((first.clone(), with_paths(field, &inner, span)));
    }
    Expr {
        kind: ExprKind::With(Box::new(base), fields),
        span,
    }
}
