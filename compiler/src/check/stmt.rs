//! Statements: lowering a resolver body scope by scope (`let` with modifiers and clamps, `var`,
//! assignment, `roll`, `check`, `set`, `if`, `match`, `call`, `require`, `note`, loops), with the
//! modifiers and `{value}` messages inside them.
//!
//! Diagnostics owned here: E0202 (call arguments), E0203 (assigning a `let`, `break` outside a
//! loop, loop bounds, a statement after `break` or `return`), W0003 (modifier that can never apply), plus E0101 for unknown variables,
//! outputs and resolvers and E0201 for statements given values of the wrong kind.

use super::bounds::{add_iv, dice_iv, elem_iv};
use super::ctx::{Checker, Ctx};
use super::types::{numeric_join, to_dec};
use crate::ast::{self, CmpOp, Span};
use crate::diag::did_you_mean;
use crate::ir::*;
use std::collections::BTreeMap;

impl<'a> Checker<'a> {
    /// Pass 5d: every resolver body, in a fresh scope of its own.
    pub(super) fn lower_bodies(&mut self, res_ast: &[&'a ast::ResolverDecl]) {
        for r in res_ast {
            if let Some(&rid) = self.resolver_idx.get(&r.name.name) {
                let mut ctx = Ctx::new(rid);
                self.made_decimal.clear();
                let body = self.block(&mut ctx, &r.body);
                self.resolvers[rid].body = body;
            }
        }
    }

    pub(super) fn block(&mut self, ctx: &mut Ctx, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        self.after_jump(stmts);
        ctx.scopes.push(BTreeMap::new());
        let out = stmts.iter().filter_map(|s| self.stmt(ctx, s)).collect();
        ctx.scopes.pop();
        out
    }

    /// One statement, lowered by the method for its kind; `None` when it cannot be lowered.
    pub(super) fn stmt(&mut self, ctx: &mut Ctx, s: &ast::Stmt) -> Option<Stmt> {
        use ast::StmtKind as K;
        let mut out = match &s.kind {
            K::Let {
                name,
                value,
                cite,
                mods,
                clamp,
            } => self.stmt_let(ctx, name, value, cite, mods, clamp),
            K::Var { name, ty, value, cite } => self.stmt_var(ctx, name, ty, value, cite),
            K::Assign { name, value, cite } => self.stmt_assign(ctx, name, value, cite)?,
            K::Roll {
                name,
                dice,
                opposed,
                label,
                cite,
            } => self.stmt_roll(ctx, name, (dice, opposed.as_deref()), label, cite)?,
            K::Check {
                name,
                left,
                op,
                right,
                cite,
            } => self.stmt_check(ctx, s.span, name, (left, op, right), cite),
            K::Set { name, value, cite } => self.stmt_set(ctx, name, value, cite)?,
            K::If { arms, otherwise } => self.stmt_if(ctx, arms, otherwise),
            K::Match { scrutinee, arms } => self.stmt_match(ctx, scrutinee, arms),
            K::Call {
                name,
                resolver,
                args,
                cite,
            } => self.stmt_call(ctx, name, resolver, args, cite)?,
            K::Require {
                cond,
                message,
                message_span,
                cite,
            } => self.stmt_require(ctx, cond, message, *message_span, cite),
            K::Note { text, text_span, cite } => Stmt::Note {
                text: self.message(ctx, text, *text_span),
                cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
                at: String::new(),
            },
            K::Return => Stmt::Return,
            K::Break => self.stmt_break(ctx, s.span),
            K::Repeat { times, body } => self.stmt_repeat(ctx, s.span, *times, body),
            K::For { var, list, body } => self.stmt_for(ctx, s.span, var, list, body),
        };
        // A loop's place is its head's, given by its own method; every other statement's is here.
        if out.at().is_empty() {
            out.set_at(self.place_of(s.span));
        }
        Some(out)
    }

    /// `let name = value` with modifiers and a clamp.
    fn stmt_let(
        &mut self,
        ctx: &mut Ctx,
        name: &ast::Ident,
        value: &ast::Expr,
        cite: &Option<ast::Cite>,
        mods: &[ast::ModItem],
        clamp: &Option<(Option<i64>, Option<i64>, Span)>,
    ) -> Stmt {
        let v = self.expr(ctx, value, None);
        let mut ty = v.ty.clone();
        let mut iv = v.iv;
        let (ms, first_decimal) = self.let_mods(ctx, mods, &mut ty, &mut iv);
        if !mods.is_empty() && !matches!(ty, Ty::Int | Ty::Dec | Ty::Error) {
            let n = self.ty_shown(&ty);
            self.err(
                "E0201",
                value.span,
                format!("modifiers add to a number, but this value is {n}"),
                "not a number",
                None,
            );
        }
        let base_int = v.ty == Ty::Int;
        let mut value_e = v;
        if ty == Ty::Dec && value_e.ty == Ty::Int {
            value_e = to_dec(value_e);
        }
        let clamp = clamp.as_ref().map(|(lo, hi, cspan)| {
            if !matches!(ty, Ty::Int | Ty::Dec) {
                self.err("E0201", *cspan, "only numbers can be clamped", "not a number", None);
            }
            if let Some(l) = lo {
                iv.lo = if iv.known { iv.lo.max(*l as i128) } else { *l as i128 };
            }
            if let Some(h) = hi {
                iv.hi = if iv.known { iv.hi.min(*h as i128) } else { *h as i128 };
            }
            // Clamped on both sides, the value is bounded whatever it was before.
            if lo.is_some() && hi.is_some() {
                iv.known = true;
            }
            (*lo, *hi)
        });
        self.check_iv(iv, value.span);
        let var = ctx.bind(&name.name, ty.clone(), iv, false);
        if let (true, Ty::Dec, Some(m)) = (base_int, &ty, first_decimal) {
            self.made_decimal.insert(var.clone(), m);
        }
        Stmt::Let {
            var,
            name: name.name.clone(),
            ty,
            value: value_e,
            cite: cite.as_ref().map(|c| self.cite(c)),
            mods: ms,
            clamp,
            at: String::new(),
        }
    }

    /// The modifiers of a `let`, adding their types and intervals to the value's (`ty`, `iv`);
    /// with the first decimal one (its value's span and its name).
    fn let_mods(&mut self, ctx: &mut Ctx, mods: &[ast::ModItem], ty: &mut Ty, iv: &mut Iv) -> (Vec<Mod>, Option<(Span, String)>) {
        let mut ms = Vec::new();
        let mut first_decimal = None;
        let mut note = |one: &ast::Modifier, mty: &Ty| {
            if *mty == Ty::Dec && first_decimal.is_none() {
                first_decimal = Some((one.value.span, one.name.clone()));
            }
        };
        for m in mods {
            match m {
                ast::ModItem::One(one) => {
                    if let Some((mm, mty, miv)) = self.modifier(ctx, one) {
                        note(one, &mty);
                        *ty = join_mod(ty, &mty);
                        *iv = add_iv(*iv, miv);
                        ms.push(mm);
                    }
                }
                ast::ModItem::Highest { name, mods, span } => {
                    let mut group = Vec::new();
                    let mut giv: Option<Iv> = None;
                    for one in mods {
                        if let Some((mm, mty, miv)) = self.modifier(ctx, one) {
                            note(one, &mty);
                            *ty = join_mod(ty, &mty);
                            giv = Some(giv.map_or(miv, |g| g.join(miv)));
                            group.push(mm);
                        }
                    }
                    let _ = span;
                    if let Some(g) = giv {
                        *iv = add_iv(*iv, g.join(Iv::exact(0)));
                    }
                    ms.push(Mod::Highest {
                        name: name.clone(),
                        mods: group,
                    });
                }
            }
        }
        (ms, first_decimal)
    }

    /// `var name: type = value`.
    fn stmt_var(
        &mut self,
        ctx: &mut Ctx,
        name: &ast::Ident,
        declared: &Option<ast::TypeExpr>,
        value: &ast::Expr,
        cite: &Option<ast::Cite>,
    ) -> Stmt {
        let want = declared.as_ref().map(|t| self.type_expr(t).0);
        let v = self.expr(ctx, value, want.as_ref());
        let v = match &want {
            Some(w) => self.coerce(v, w),
            None => v,
        };
        let mut ty = v.ty.clone();
        if matches!(ty, Ty::NoneLit | Ty::EmptyList) {
            let example = if ty == Ty::EmptyList {
                format!("`var {}: list int = []`", name.name)
            } else {
                format!("`var {}: int? = none`", name.name)
            };
            self.err(
                "E0201",
                value.span,
                "a `var` needs a value of known type to start",
                "type unknown",
                Some(format!("give its type, e.g. {example}")),
            );
            // Already reported: its uses are not checked against an unknown type.
            ty = Ty::Error;
        }
        let var = ctx.bind(&name.name, ty.clone(), Iv::UNKNOWN, true);
        let cite = cite.as_ref().map(|c| self.cite(c));
        Stmt::Var {
            var,
            name: name.name.clone(),
            ty,
            value: v,
            cite,
            at: String::new(),
        }
    }

    /// `name = value`, to a `var` in scope.
    fn stmt_assign(&mut self, ctx: &mut Ctx, name: &ast::Ident, value: &ast::Expr, cite: &Option<ast::Cite>) -> Option<Stmt> {
        let Some(local) = ctx.lookup(&name.name).cloned() else {
            let cands: Vec<String> = ctx
                .scopes
                .iter()
                .flat_map(|s| s.iter().filter(|(_, l)| l.mutable).map(|(k, _)| k.clone()))
                .collect();
            let help = did_you_mean(&name.name, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "var");
            self.err(
                "E0101",
                name.span,
                format!("no `var {}` to assign to", name.name),
                "unknown variable",
                Some(help),
            );
            return None;
        };
        if !local.mutable {
            self.err(
                "E0203",
                name.span,
                format!("`{}` is a `let` and cannot change", name.name),
                "not a var",
                Some(format!(
                    "declare it with `var {} = ...` to change it later, or use `set` for outputs",
                    name.name
                )),
            );
        }
        let v = self.expr(ctx, value, Some(&local.ty));
        let v = self.coerce(v, &local.ty);
        let cite = cite.as_ref().map(|c| self.cite(c));
        Some(Stmt::Assign {
            var: local.rust,
            name: name.name.clone(),
            ty: local.ty.clone(),
            value: v,
            cite,
            at: String::new(),
        })
    }

    /// `roll name = dice`.
    fn stmt_roll(
        &mut self,
        ctx: &mut Ctx,
        name: &ast::Ident,
        (dice, opposed): (&ast::DiceExpr, Option<&ast::Opposed>),
        label: &Option<String>,
        cite: &Option<ast::Cite>,
    ) -> Option<Stmt> {
        let d = match opposed {
            Some(o) => self.opposed(ctx, dice, o)?,
            None => self.dice(ctx, dice)?,
        };
        let iv = dice_iv(&d);
        let var = ctx.bind(&name.name, Ty::Int, iv, false);
        Some(Stmt::Roll {
            var,
            label: label.clone().unwrap_or_else(|| name.name.clone()),
            dice: d,
            cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
            at: String::new(),
        })
    }

    /// `check name = left op right`, quoting both sides for the trace.
    fn stmt_check(
        &mut self,
        ctx: &mut Ctx,
        span: Span,
        name: &ast::Ident,
        (left, op, right): (&ast::Expr, &CmpOp, &ast::Expr),
        cite: &Option<ast::Cite>,
    ) -> Stmt {
        let (l, r) = self.pair(ctx, left, right);
        self.comparable(&l, &r, *op, span);
        // A whole number against a decimal: both compared as exact decimals, as in a comparison
        // inside an expression.
        let (l, r) = match (&l.ty, &r.ty) {
            (Ty::Int, Ty::Dec) => (super::types::to_dec(l), r),
            (Ty::Dec, Ty::Int) => (l, super::types::to_dec(r)),
            _ => (l, r),
        };
        let left_text = self.text_of(left.span);
        let right_text = self.text_of(right.span);
        let var = ctx.bind(&name.name, Ty::Bool, Iv::UNKNOWN, false);
        Stmt::Check {
            var,
            left: l,
            op: *op,
            right: r,
            left_text,
            right_text,
            cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
            at: String::new(),
        }
    }

    /// `set output = value`.
    fn stmt_set(&mut self, ctx: &mut Ctx, name: &ast::Ident, value: &ast::Expr, cite: &Option<ast::Cite>) -> Option<Stmt> {
        let outs = self.resolvers[ctx.rid].outputs.clone();
        let Some(o) = outs.iter().find(|o| o.name == name.name) else {
            let help = did_you_mean(&name.name, outs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), "output");
            self.err(
                "E0101",
                name.span,
                format!("`{}` is not an output of `{}`", name.name, self.resolvers[ctx.rid].name),
                "unknown output",
                Some(help),
            );
            return None;
        };
        let v = self.expr(ctx, value, Some(&o.ty));
        let v = self.coerce(v, &o.ty);
        ctx.set.insert(name.name.clone());
        Some(Stmt::Set {
            field: name.name.clone(),
            value: v,
            cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
            at: String::new(),
        })
    }

    /// `if cond { ... } else if ... else { ... }`.
    fn stmt_if(&mut self, ctx: &mut Ctx, arms: &[(ast::Expr, Vec<ast::Stmt>)], otherwise: &Option<Vec<ast::Stmt>>) -> Stmt {
        // An output set in one branch is not set in the others (W0005); after them, it may be.
        let before = ctx.set.clone();
        let mut after = before.clone();
        let mut out = Vec::new();
        for (c, body) in arms {
            ctx.set.clone_from(&before);
            let ce = self.expr(ctx, c, Some(&Ty::Bool));
            let ce = self.coerce(ce, &Ty::Bool);
            out.push((ce, self.block(ctx, body)));
            if !returns(body) {
                after.extend(ctx.set.iter().cloned());
            }
        }
        ctx.set.clone_from(&before);
        let otherwise = otherwise.as_ref().map(|b| self.block(ctx, b)).unwrap_or_default();
        if otherwise.last().is_some_and(|s| matches!(s, Stmt::Return)) {
            ctx.set.clone_from(&before);
        }
        ctx.set.extend(after);
        Stmt::If {
            arms: out,
            otherwise,
            at: String::new(),
        }
    }

    /// `match value { patterns => { ... } }`.
    fn stmt_match(&mut self, ctx: &mut Ctx, scrutinee: &ast::Expr, arms: &[ast::MatchArm]) -> Stmt {
        let se = self.expr(ctx, scrutinee, None);
        // An output set in one arm is not set in the others (W0005); after them, it may be.
        let before = ctx.set.clone();
        let mut after = before.clone();
        let mut out = Vec::new();
        for (pats, body) in arms {
            let mut ps = Vec::new();
            for (p, pspan) in pats {
                ps.push(self.pattern(p, *pspan, &se.ty));
            }
            ctx.set.clone_from(&before);
            out.push((ps, self.block(ctx, body)));
            if !returns(body) {
                after.extend(ctx.set.iter().cloned());
            }
        }
        ctx.set = after;
        Stmt::Match {
            scrutinee: se,
            arms: out,
            at: String::new(),
        }
    }

    /// One pattern of a `match` arm, for a scrutinee of type `ty`.
    fn pattern(&mut self, p: &ast::Pattern, pspan: Span, ty: &Ty) -> Pattern {
        match (p, ty) {
            (ast::Pattern::Wild, _) => Pattern::Wild,
            (ast::Pattern::Range(a, b), Ty::Int) => Pattern::Range(*a, *b),
            // On a decimal every range reads as exact decimals.
            (ast::Pattern::Range(a, b), Ty::Dec) => Pattern::DecRange(a.map(|v| (v, 1)), b.map(|v| (v, 1))),
            (ast::Pattern::DecRange(a, b), Ty::Dec) => Pattern::DecRange(*a, *b),
            (ast::Pattern::DecRange(..), Ty::Int) => {
                self.err(
                    "E0201",
                    pspan,
                    "a range with a decimal end cannot match a whole number",
                    "decimal range",
                    Some("match a whole number with whole-number ranges like `3..4`, or match a decimal value".into()),
                );
                Pattern::Wild
            }
            (ast::Pattern::Name(n), Ty::Enum(e)) => match self.variant_const(*e, &n.name, n.span) {
                Const::Enum(e, v) => Pattern::Variant(e, v),
                _ => Pattern::Wild,
            },
            (_, Ty::Error) => Pattern::Wild,
            _ => {
                let tn = self.ty_shown(ty);
                self.err(
                    "E0201",
                    pspan,
                    format!("this pattern cannot match a value of type {tn}"),
                    "wrong kind of pattern",
                    Some("match numbers with ranges like `3..4` and enums with variant names".into()),
                );
                Pattern::Wild
            }
        }
    }

    /// `call name = resolver(input: value, ...)`.
    fn stmt_call(
        &mut self,
        ctx: &mut Ctx,
        name: &ast::Ident,
        resolver: &ast::Ident,
        args: &[(ast::Ident, ast::Expr)],
        cite: &Option<ast::Cite>,
    ) -> Option<Stmt> {
        let Some(&callee) = self.resolver_idx.get(&resolver.name) else {
            // Its outcome is unknown: later uses of `name` are not reported again.
            ctx.bind(&name.name, Ty::Error, Iv::UNKNOWN, false);
            if self.declared_in_unparsed(&resolver.name) {
                return None;
            }
            let help = did_you_mean(
                &resolver.name,
                self.resolvers.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
                "resolver",
            );
            self.err(
                "E0101",
                resolver.span,
                format!("unknown resolver `{}`", resolver.name),
                "not a resolver",
                Some(help),
            );
            return None;
        };
        let inputs = self.resolvers[callee].inputs.clone();
        let given = self.call_args(ctx, resolver, &inputs, args);
        let full = self.call_inputs(resolver, &inputs, given);
        let var = ctx.bind(&name.name, Ty::Outcome(callee), Iv::UNKNOWN, false);
        Some(Stmt::Call {
            var,
            resolver: callee,
            args: full,
            cite: cite.as_ref().map(|c| self.cite(c)).unwrap_or_default(),
            at: String::new(),
        })
    }

    /// The arguments given to a `call`, each checked against the callee's input of that name.
    fn call_args(
        &mut self,
        ctx: &mut Ctx,
        resolver: &ast::Ident,
        inputs: &[Param],
        args: &[(ast::Ident, ast::Expr)],
    ) -> BTreeMap<String, Expr> {
        let mut given: BTreeMap<String, Expr> = BTreeMap::new();
        for (an, ae) in args {
            match inputs.iter().find(|p| p.name == an.name) {
                Some(p) if p.is_option => {
                    self.err(
                        "E0202",
                        an.span,
                        format!("`{}` is an optional rule and passes through by itself", an.name),
                        "not an argument",
                        Some("remove it; the caller's own option setting is used".into()),
                    );
                }
                Some(p) => {
                    let e = self.expr(ctx, ae, Some(&p.ty));
                    let e = self.coerce(e, &p.ty);
                    self.check_arg_range(&an.name, &e, ae.span, p.bounds);
                    given.insert(an.name.clone(), e);
                }
                None => {
                    let help = did_you_mean(
                        &an.name,
                        inputs.iter().filter(|p| !p.is_option).map(|p| p.name.as_str()).collect::<Vec<_>>(),
                        "input",
                    );
                    self.err(
                        "E0202",
                        an.span,
                        format!("`{}` has no input `{}`", resolver.name, an.name),
                        "unknown argument",
                        Some(help),
                    );
                }
            }
        }
        given
    }

    /// Every input of the callee, in order: given, an option passed through, or its default.
    fn call_inputs(&mut self, resolver: &ast::Ident, inputs: &[Param], mut given: BTreeMap<String, Expr>) -> Vec<(String, Expr)> {
        let mut full = Vec::new();
        for p in inputs {
            let e = if p.is_option {
                Some(Expr {
                    kind: ExprKind::Input(p.name.clone()),
                    ty: Ty::Bool,
                    iv: Iv::UNKNOWN,
                    span: resolver.span,
                })
            } else if let Some(e) = given.remove(&p.name) {
                Some(e)
            } else if let Some(d) = &p.default {
                let iv = if let Const::Int(v) = d { Iv::exact(*v) } else { Iv::UNKNOWN };
                Some(Expr {
                    kind: ExprKind::Const(d.clone()),
                    ty: p.ty.clone(),
                    iv,
                    span: resolver.span,
                })
            } else {
                let tn = self.ty_shown(&p.ty);
                self.err(
                    "E0202",
                    resolver.span,
                    format!("call to `{}` is missing input `{}` ({tn})", resolver.name, p.name),
                    "missing argument",
                    Some(format!("add `{}: ...` to the call", p.name)),
                );
                None
            };
            if let Some(e) = e {
                full.push((p.name.clone(), e));
            }
        }
        full
    }

    /// `require cond "message {value}"`.
    fn stmt_require(&mut self, ctx: &mut Ctx, cond: &ast::Expr, message: &str, message_span: Span, cite: &ast::Cite) -> Stmt {
        let c = self.expr(ctx, cond, Some(&Ty::Bool));
        let c = self.coerce(c, &Ty::Bool);
        let parts = self.message(ctx, message, message_span);
        Stmt::Require {
            cond: c,
            message: parts,
            cite: self.cite(cite),
            at: String::new(),
        }
    }

    /// E0203 at the first statement after a `break` or `return` of the same block: it could never
    /// run (and the generated Rust would be unreachable code).
    fn after_jump(&mut self, stmts: &[ast::Stmt]) {
        let jump = stmts
            .iter()
            .position(|s| matches!(s.kind, ast::StmtKind::Break | ast::StmtKind::Return));
        let (Some(i), Some(next)) = (jump, jump.and_then(|i| stmts.get(i + 1))) else {
            return;
        };
        let word = if matches!(stmts[i].kind, ast::StmtKind::Break) {
            "break"
        } else {
            "return"
        };
        self.err(
            "E0203",
            next.span,
            format!("this statement can never run: it comes after `{word}` in the same block"),
            "never runs",
            Some(format!("remove it, or put the `{word}` inside an `if`")),
        );
    }

    /// `break`, only inside a loop.
    fn stmt_break(&mut self, ctx: &mut Ctx, span: Span) -> Stmt {
        if ctx.loops == 0 {
            self.err(
                "E0203",
                span,
                "`break` outside a `repeat` or `for`",
                "not in a loop",
                Some("use `return` to end the resolver".into()),
            );
        }
        Stmt::Break
    }

    /// `repeat up to N { ... }`.
    fn stmt_repeat(&mut self, ctx: &mut Ctx, span: Span, times: i64, body: &[ast::Stmt]) -> Stmt {
        if !(1..=100_000).contains(&times) {
            self.err(
                "E0203",
                span,
                format!("`repeat up to {times}` is outside 1..100000"),
                "bad loop bound",
                Some("loops need a finite bound so every resolution ends".into()),
            );
        }
        // A set in the body comes before the reads above it in the next turn.
        sets_in(body, &mut ctx.set);
        ctx.loops += 1;
        let b = self.block(ctx, body);
        ctx.loops -= 1;
        Stmt::Repeat {
            times,
            body: b,
            at: self.place_of(span),
        }
    }

    /// `for x in list { ... }`.
    fn stmt_for(&mut self, ctx: &mut Ctx, span: Span, var: &ast::Ident, list: &ast::Expr, body: &[ast::Stmt]) -> Stmt {
        let le = self.expr(ctx, list, None);
        // A set in the body comes before the reads above it in the next turn.
        sets_in(body, &mut ctx.set);
        let elem = match &le.ty {
            Ty::List(t) => (**t).clone(),
            Ty::Error => Ty::Error,
            other => {
                let tn = self.ty_shown(other);
                self.err("E0201", list.span, format!("`for` needs a list, found {tn}"), "not a list", None);
                Ty::Error
            }
        };
        ctx.scopes.push(BTreeMap::new());
        let iv = elem_iv(&le);
        let rust = ctx.bind(&var.name, elem, iv, false);
        ctx.loops += 1;
        let b = self.block(ctx, body);
        ctx.loops -= 1;
        ctx.scopes.pop();
        Stmt::For {
            var: rust,
            list: le,
            body: b,
            at: self.place_of(span),
        }
    }

    pub(super) fn modifier(&mut self, ctx: &mut Ctx, m: &ast::Modifier) -> Option<(Mod, Ty, Iv)> {
        let v = self.expr(ctx, &m.value, None);
        if !matches!(v.ty, Ty::Int | Ty::Dec | Ty::Error) {
            let tn = self.ty_shown(&v.ty);
            self.err(
                "E0201",
                m.value.span,
                format!("a modifier's value must be a number, found {tn}"),
                "not a number",
                None,
            );
            return None;
        }
        let when = m.when.as_ref().map(|w| {
            let e = self.expr(ctx, w, Some(&Ty::Bool));
            self.coerce(e, &Ty::Bool)
        });
        if let Some(Expr {
            kind: ExprKind::Const(Const::Bool(false)),
            ..
        }) = &when
        {
            self.warn(
                "W0003",
                m.span,
                format!("modifier \"{}\" can never apply", m.name),
                "condition is always false",
                None,
            );
        }
        let iv = if when.is_some() { v.iv.join(Iv::exact(0)) } else { v.iv };
        let ty = v.ty.clone();
        Some((
            Mod::One {
                value: v,
                name: m.name.clone(),
                when,
                cite: self.cite(&m.cite),
            },
            ty,
            iv,
        ))
    }

    pub(super) fn message(&mut self, ctx: &mut Ctx, msg: &str, span: Span) -> Vec<MsgPart> {
        let mut parts = Vec::new();
        let mut rest = msg;
        let mut offset = span.start + 1;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            if open > 0 {
                parts.push(MsgPart::Text(rest[..open].to_string()));
            }
            let path = &rest[open + 1..open + close];
            let pspan = Span {
                file: span.file,
                start: offset + open + 1,
                end: offset + open + close,
            };
            let mut segs = path.split('.');
            let head = segs.next().unwrap_or("").trim();
            let mut e = ast::Expr {
                kind: ast::ExprKind::Name(head.to_string()),
                span: pspan,
            };
            for seg in segs {
                e = ast::Expr {
                    kind: ast::ExprKind::Field(
                        Box::new(e),
                        ast::Ident {
                            name: seg.trim().to_string(),
                            span: pspan,
                        },
                    ),
                    span: pspan,
                };
            }
            parts.push(MsgPart::Value(self.expr(ctx, &e, None)));
            offset += open + close + 1;
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(MsgPart::Text(rest.to_string()));
        }
        parts
    }
}

/// The type of a `let` after a modifier: a number joins the modifier's (`decimal` if either is);
/// a base that is not a number keeps its type, for the one error that says so at the value.
fn join_mod(base: &Ty, modifier: &Ty) -> Ty {
    if matches!(base, Ty::Int | Ty::Dec) {
        numeric_join(base, modifier)
    } else {
        base.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    fn body(stmts: &str) -> String {
        format!("resolver r \"R\" [1] {{\n  in n: int 0..3\n  out x: int = 0\n{stmts}}}\n")
    }

    #[test]
    fn loops_and_variables() {
        check_codes(
            &body("  var v = 0\n  repeat up to 3 {\n    v = v + 1\n    break\n  }\n  set x = v\n"),
            &[],
        );
        check_codes(&body("  break\n"), &["E0203"]);
        check_codes(&body("  let v = 1\n  v = 2\n"), &["E0203"]);
        check_codes(&body("  w = 2\n"), &["E0101"]);
    }

    #[test]
    fn call_arguments() {
        let src = |args: &str| {
            format!("resolver a \"A\" [1] {{\n  in p: int 0..5\n  in q: int 0..5\n  out x: int = 0\n}}\nresolver r \"R\" [1] {{\n  out y: int = 0\n  call c = a({args})\n}}\n")
        };
        check_codes(&src("p: 1, q: 2"), &[]);
        let (msg, help) = only(&src("p: 1"), "E0202");
        assert_eq!(
            (msg.as_str(), help.as_str()),
            ("call to `a` is missing input `q` (`int`)", "add `q: ...` to the call")
        );
        check_codes(&src("p: 1, q: 2, r: 3"), &["E0202"]);
    }

    #[test]
    fn match_patterns_fit_the_value() {
        check_codes(
            &body("  match n {\n    0..1 => {\n      set x = 1\n    }\n    _ => {\n      set x = 2\n    }\n  }\n"),
            &[],
        );
        check_codes(&body("  match n {\n    a => {\n      set x = 1\n    }\n  }\n"), &["E0201"]);
    }
}

/// Does this block end the resolution (`return` last), so that what it sets is never read after it?
fn returns(body: &[ast::Stmt]) -> bool {
    body.last().is_some_and(|s| matches!(s.kind, ast::StmtKind::Return))
}

/// The outputs `set` anywhere in these statements, blocks inside them included.
fn sets_in(stmts: &[ast::Stmt], out: &mut std::collections::BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            ast::StmtKind::Set { name, .. } => {
                out.insert(name.name.clone());
            }
            ast::StmtKind::If { arms, otherwise } => {
                for (_, b) in arms {
                    sets_in(b, out);
                }
                sets_in(otherwise.as_deref().unwrap_or(&[]), out);
            }
            ast::StmtKind::Match { arms, .. } => {
                for (_, b) in arms {
                    sets_in(b, out);
                }
            }
            ast::StmtKind::Repeat { body, .. } | ast::StmtKind::For { body, .. } => sets_in(body, out),
            _ => {}
        }
    }
}
