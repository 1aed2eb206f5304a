//! Expressions: inferring the type and the integer interval of every expression and lowering it
//! to IR: literals, names, lists, options, fields, function calls and table lookups, aggregates
//! over lists, records, and the operators.
//!
//! Diagnostics owned here: E0201 for operands of the wrong type (plus E0101 and E0202 for unknown
//! names, fields and arguments); overflow and division by zero are checked through `bounds`.

use super::bounds::*;
use super::ctx::{Checker, Ctx};
use super::types::{join_ty, numeric_join, strip_opt, to_dec};
use crate::ast::{self, Agg, BinOp, CmpOp, Span};
use crate::diag::did_you_mean;
use crate::ir::*;
use std::collections::BTreeMap;

impl Checker<'_> {
    /// One expression, inferred and lowered by the method for its kind. `hint` is the type the
    /// context expects, which resolves bare variant names, keys written as strings and empty lists.
    pub(super) fn expr(&mut self, ctx: &mut Ctx, e: &ast::Expr, hint: Option<&Ty>) -> Expr {
        use ast::ExprKind as K;
        let span = e.span;
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        match &e.kind {
            K::Int(v) => mk(ExprKind::Const(Const::Int(*v)), Ty::Int, Iv::exact(*v)),
            K::Dec(n, d) => mk(
                ExprKind::Const(Const::Dec(*n, *d)),
                Ty::Dec,
                Iv {
                    lo: div_floor_i128(*n as i128, *d as i128),
                    hi: div_ceil_i128(*n as i128, *d as i128),
                    known: true,
                },
            ),
            K::Bool(b) => mk(ExprKind::Const(Const::Bool(*b)), Ty::Bool, Iv::UNKNOWN),
            K::Str(s) => self.expr_str(s, span, hint),
            K::Name(n) => self.name(ctx, n, span, hint),
            K::List(items) => self.expr_list(ctx, items, span, hint),
            K::Option(id) => self.expr_option(id, span),
            K::InputRef(id) => self.io_ref(ctx, id, false, span),
            K::OutputRef(id) => self.io_ref(ctx, id, true, span),
            K::Field(base, field) => {
                if let Some(v) = self.qualified_variant(ctx, base, field, span) {
                    return v;
                }
                let b = self.expr(ctx, base, None);
                self.field(b, field, span)
            }
            K::Call(f, args) => self.call(ctx, f, args, span),
            K::Agg { kind, var, list, body } => self.expr_agg(ctx, *kind, var, list, body, span),
            K::Update { var, list, cond, body } => self.expr_update(ctx, var, list, cond, body, span),
            K::Construct(name, inits) => self.expr_construct(ctx, name, inits, span),
            K::With(base, inits) => self.expr_with(ctx, base, inits, span),
            K::Neg(x) => self.expr_neg(ctx, x, span),
            K::Not(x) => self.expr_not(ctx, x, span),
            K::Bin(op, l, r) => self.bin(ctx, *op, l, r, span, hint),
            K::Cmp(op, l, r) => self.expr_cmp(ctx, *op, l, r, span),
            K::In(x, list) => self.expr_in(ctx, x, list, span),
            K::Is(x, name) => self.expr_is(ctx, x, name, span),
            K::If(arms, otherwise) => self.expr_if(ctx, arms, otherwise, span, hint),
        }
    }

    /// A string: a key where the context expects one, text otherwise.
    fn expr_str(&mut self, s: &str, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        match hint.map(strip_opt).as_ref() {
            Some(Ty::Key(ts)) => {
                let c = self.key_const(&ts.clone(), s, span);
                if c == Const::None {
                    return Self::err_expr(span);
                }
                mk(ExprKind::Const(c), Ty::Key(ts.clone()), Iv::UNKNOWN)
            }
            _ => mk(ExprKind::Const(Const::Text(s.to_string())), Ty::Text, Iv::UNKNOWN),
        }
    }

    /// `[a, b, ...]`, every item of the first one's type (or of the list type expected).
    fn expr_list(&mut self, ctx: &mut Ctx, items: &[ast::Expr], span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if items.is_empty() {
            return mk(ExprKind::List(Vec::new()), Ty::EmptyList, Iv::UNKNOWN);
        }
        let elem_hint = match hint {
            Some(Ty::List(t)) => Some((**t).clone()),
            _ => None,
        };
        let first = self.expr(ctx, &items[0], elem_hint.as_ref());
        let ety = elem_hint.unwrap_or_else(|| first.ty.clone());
        let mut out = vec![self.coerce(first, &ety)];
        for it in &items[1..] {
            let x = self.expr(ctx, it, Some(&ety));
            out.push(self.coerce(x, &ety));
        }
        mk(ExprKind::List(out), Ty::List(Box::new(ety)), Iv::UNKNOWN)
    }

    /// `option name`: the setting of an optional rule.
    fn expr_option(&mut self, id: &ast::Ident, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if !self.option_idx.contains_key(&id.name) {
            if self.declared_in_unparsed(&id.name) {
                return Self::err_expr(span);
            }
            let help = did_you_mean(&id.name, self.options.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), "option");
            self.err(
                "E0101",
                id.span,
                format!("unknown optional rule `{}`", id.name),
                "not an option",
                Some(help),
            );
            return Self::err_expr(span);
        }
        mk(ExprKind::Input(id.name.clone()), Ty::Bool, Iv::UNKNOWN)
    }

    /// `kind(x in list: body)`: sum, count, any, all, max, min, map, filter, first, sort.
    fn expr_agg(&mut self, ctx: &mut Ctx, kind: Agg, var: &ast::Ident, list: &ast::Expr, body: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let le = self.expr(ctx, list, None);
        let elem = match &le.ty {
            Ty::List(t) => (**t).clone(),
            Ty::EmptyList => Ty::Error,
            Ty::Error => Ty::Error,
            other => {
                let tn = self.ty_shown(other);
                self.err(
                    "E0201",
                    list.span,
                    format!("`{}` needs a list, found {tn}", agg_name(kind)),
                    "not a list",
                    None,
                );
                Ty::Error
            }
        };
        ctx.scopes.push(BTreeMap::new());
        let eiv = elem_iv(&le);
        let elem_ty = elem.clone();
        let rust = ctx.bind(&var.name, elem, eiv, false);
        let want_bool = matches!(kind, Agg::Count | Agg::Any | Agg::All | Agg::Filter | Agg::First);
        let be = self.expr(ctx, body, if want_bool { Some(&Ty::Bool) } else { None });
        ctx.scopes.pop();
        let be = if want_bool { self.coerce(be, &Ty::Bool) } else { be };
        let (ty, iv) = self.agg_result(kind, &be, &elem_ty, body.span);
        mk(
            ExprKind::Agg {
                kind,
                var: rust,
                list: Box::new(le),
                body: Box::new(be),
            },
            ty,
            iv,
        )
    }

    /// The item type of a list (`Error` for `[]` or an error); anything else is E0201, "WHAT,
    /// found TYPE", pointed at `span`, with `help`.
    fn list_item_ty(&mut self, le: &Expr, span: Span, what: &str, help: &str) -> Ty {
        match &le.ty {
            Ty::List(t) => (**t).clone(),
            Ty::EmptyList | Ty::Error => Ty::Error,
            other => {
                let tn = self.ty_shown(other);
                self.err("E0201", span, format!("{what}, found {tn}"), "not a list", Some(help.to_string()));
                Ty::Error
            }
        }
    }

    /// `update(x in list where cond: new)`, lowered to the `map(x in list: if cond then new else x)`
    /// it stands for, so both backends run it as they run that map (trace and errors included).
    /// `cond` must be yes/no and `new` of the item's type (E0201).
    fn expr_update(&mut self, ctx: &mut Ctx, var: &ast::Ident, list: &ast::Expr, cond: &ast::Expr, body: &ast::Expr, span: Span) -> Expr {
        let le = self.expr(ctx, list, None);
        let elem = self.list_item_ty(
            &le,
            list.span,
            "`update` needs a list",
            "`update(x in LIST where CONDITION: NEW_ITEM)` changes some items of a list",
        );
        ctx.scopes.push(BTreeMap::new());
        let eiv = elem_iv(&le);
        let rust = ctx.bind(&var.name, elem.clone(), eiv, false);
        let ce = self.expr(ctx, cond, Some(&Ty::Bool));
        let ce = if matches!(ce.ty, Ty::Bool | Ty::Error) {
            ce
        } else {
            let tn = self.ty_shown(&ce.ty);
            self.err(
                "E0201",
                cond.span,
                format!("the condition of `update` must be yes/no, found {tn}"),
                "not yes/no",
                Some(format!(
                    "write a comparison, e.g. `where {}.name == name`: the items that make it yes are replaced",
                    var.name
                )),
            );
            Expr { ty: Ty::Error, ..ce }
        };
        let be = self.expr(ctx, body, Some(&elem));
        ctx.scopes.pop();
        let be = if self.assignable(&be.ty, &elem) {
            self.coerce(be, &elem)
        } else {
            let (en, tn) = (self.ty_shown(&elem), self.ty_shown(&be.ty));
            self.err(
                "E0201",
                body.span,
                format!("`update` replaces an item of type {en} by its new value, found {tn}"),
                format!("this is {tn}"),
                Some(format!(
                    "give the whole new item, such as `{} with (field: value)`; to build a list of other values, use `map`",
                    var.name
                )),
            );
            Expr { ty: Ty::Error, ..be }
        };
        let iv = be.iv.join(eiv);
        let keep = Expr {
            kind: ExprKind::Local(rust.clone()),
            ty: elem.clone(),
            iv: eiv,
            span: var.span,
        };
        let body = Expr {
            kind: ExprKind::If(vec![(ce, be)], Box::new(keep)),
            ty: elem.clone(),
            iv,
            span,
        };
        Expr {
            kind: ExprKind::Agg {
                kind: Agg::Map,
                var: rust,
                list: Box::new(le),
                body: Box::new(body),
            },
            ty: Ty::List(Box::new(elem)),
            iv: Iv::UNKNOWN,
            span,
        }
    }

    /// `first(list)`: the first item, or none for an empty list; the short form of
    /// `first(x in list: yes)`, lowered to it.
    pub(super) fn expr_first_of(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let le = self.expr(ctx, &args[0], None);
        let elem = self.list_item_ty(
            &le,
            args[0].span,
            "`first` takes a list",
            "`first(list)` is the first item of a list; `first(x in list: condition)` the first that makes the condition yes",
        );
        ctx.scopes.push(BTreeMap::new());
        let rust = ctx.bind("item", elem.clone(), Iv::UNKNOWN, false);
        ctx.scopes.pop();
        let yes = Expr {
            kind: ExprKind::Const(Const::Bool(true)),
            ty: Ty::Bool,
            iv: Iv::UNKNOWN,
            span,
        };
        Expr {
            kind: ExprKind::Agg {
                kind: Agg::First,
                var: rust,
                list: Box::new(le),
                body: Box::new(yes),
            },
            ty: Ty::Opt(Box::new(elem)),
            iv: Iv::UNKNOWN,
            span,
        }
    }

    /// The type and interval of an aggregate, given its body `be` and the list's element type.
    fn agg_result(&mut self, kind: Agg, be: &Expr, elem_ty: &Ty, body_span: Span) -> (Ty, Iv) {
        match kind {
            Agg::Count => (Ty::Int, Iv::range(0, u32::MAX as i64)),
            Agg::Any | Agg::All => (Ty::Bool, Iv::UNKNOWN),
            Agg::Sum => {
                if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let tn = self.ty_shown(&be.ty);
                    self.err("E0201", body_span, format!("`sum` adds numbers, found {tn}"), "not a number", None);
                }
                let iv = if be.iv.known {
                    mul_iv(be.iv.join(Iv::exact(0)), Iv::range(0, u32::MAX as i64))
                } else {
                    Iv::UNKNOWN
                };
                let iv = if iv.fits_i64() { iv } else { Iv::UNKNOWN };
                (be.ty.clone(), iv)
            }
            Agg::Product => {
                if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let tn = self.ty_shown(&be.ty);
                    self.err(
                        "E0201",
                        body_span,
                        format!("`product` multiplies numbers, found {tn}"),
                        "not a number",
                        None,
                    );
                }
                // No useful bound on a product of many factors: it is computed with overflow checks.
                (be.ty.clone(), Iv::UNKNOWN)
            }
            Agg::Max | Agg::Min => {
                if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Error) {
                    let tn = self.ty_shown(&be.ty);
                    self.err(
                        "E0201",
                        body_span,
                        format!("`{}` compares numbers, found {tn}", agg_name(kind)),
                        "not a number",
                        None,
                    );
                }
                (be.ty.clone(), be.iv.join(Iv::exact(0)))
            }
            Agg::Map => (Ty::List(Box::new(be.ty.clone())), Iv::UNKNOWN),
            Agg::Filter => (Ty::List(Box::new(elem_ty.clone())), Iv::UNKNOWN),
            Agg::First => (Ty::Opt(Box::new(elem_ty.clone())), Iv::UNKNOWN),
            Agg::Sort | Agg::SortDesc => {
                if !matches!(be.ty, Ty::Int | Ty::Dec | Ty::Bool | Ty::Text | Ty::Enum(_) | Ty::Error) {
                    let tn = self.ty_shown(&be.ty);
                    self.err(
                        "E0201",
                        body_span,
                        format!("`{}` orders by a number, yes/no, text or enum, found {tn}", agg_name(kind)),
                        "cannot order by this",
                        None,
                    );
                }
                (Ty::List(Box::new(elem_ty.clone())), Iv::UNKNOWN)
            }
        }
    }

    /// `record(field: value, ...)`, every field given exactly once.
    fn expr_construct(&mut self, ctx: &mut Ctx, name: &ast::Ident, inits: &[(ast::Ident, ast::Expr)], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let Some(&ri) = self.record_idx.get(&name.name) else {
            if self.declared_in_unparsed(&name.name) {
                return Self::err_expr(span);
            }
            let help = did_you_mean(
                &name.name,
                self.records.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
                "record",
            );
            self.err(
                "E0101",
                name.span,
                format!("unknown record type `{}`", name.name),
                "not a record",
                Some(help),
            );
            return Self::err_expr(span);
        };
        let fields = self.records[ri].fields.clone();
        let mut given: BTreeMap<String, Expr> = BTreeMap::new();
        for (f, x) in inits {
            match fields.iter().find(|(n, _, _)| *n == f.name) {
                Some((_, fty, _)) => {
                    let e = self.expr(ctx, x, Some(fty));
                    let e = self.coerce(e, fty);
                    if given.insert(f.name.clone(), e).is_some() {
                        self.err("E0202", f.span, format!("field `{}` is given twice", f.name), "repeated", None);
                    }
                }
                None => {
                    let help = did_you_mean(&f.name, fields.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(), "field");
                    self.err(
                        "E0202",
                        f.span,
                        format!("record `{}` has no field `{}`", name.name, f.name),
                        "unknown field",
                        Some(help),
                    );
                }
            }
        }
        let mut out = Vec::new();
        for (n, fty, _) in &fields {
            match given.remove(n) {
                Some(e) => out.push((n.clone(), e)),
                None => {
                    let tn = self.ty_shown(fty);
                    self.err(
                        "E0202",
                        name.span,
                        format!("record `{}` is missing field `{n}` ({tn})", name.name),
                        "missing field",
                        Some(format!("add `{n}: ...`")),
                    );
                }
            }
        }
        mk(ExprKind::Construct { rec: ri, fields: out }, Ty::Rec(ri), Iv::UNKNOWN)
    }

    /// `base with (field: value, ...)`: a copy of a record with some fields changed.
    fn expr_with(&mut self, ctx: &mut Ctx, base: &ast::Expr, inits: &[(ast::Ident, ast::Expr)], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let b = self.expr(ctx, base, None);
        let Ty::Rec(ri) = b.ty else {
            if b.ty != Ty::Error {
                let tn = self.ty_shown(&b.ty);
                self.err(
                    "E0201",
                    base.span,
                    format!("`with` copies a record, but this is {tn}"),
                    "not a record",
                    None,
                );
            }
            return Self::err_expr(span);
        };
        let fields = self.records[ri].fields.clone();
        let mut updates = Vec::new();
        for (f, x) in inits {
            match fields.iter().find(|(n, _, _)| *n == f.name) {
                Some((_, fty, _)) => {
                    let e = self.expr(ctx, x, Some(fty));
                    updates.push((f.name.clone(), self.coerce(e, fty)));
                }
                None => {
                    let rn = self.records[ri].name.clone();
                    let help = did_you_mean(&f.name, fields.iter().map(|(n, _, _)| n.as_str()).collect::<Vec<_>>(), "field");
                    self.err(
                        "E0202",
                        f.span,
                        format!("record `{rn}` has no field `{}`", f.name),
                        "unknown field",
                        Some(help),
                    );
                }
            }
        }
        mk(
            ExprKind::With {
                base: Box::new(b),
                rec: ri,
                updates,
            },
            Ty::Rec(ri),
            Iv::UNKNOWN,
        )
    }

    /// `-x`.
    fn expr_neg(&mut self, ctx: &mut Ctx, x: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let v = self.expr(ctx, x, None);
        if !matches!(v.ty, Ty::Int | Ty::Dec | Ty::Error) {
            let tn = self.ty_shown(&v.ty);
            self.err("E0201", span, format!("cannot negate {tn}"), "not a number", None);
        }
        let iv = Iv {
            lo: -v.iv.hi,
            hi: -v.iv.lo,
            known: v.iv.known,
        };
        let ty = v.ty.clone();
        self.check_iv(iv, span);
        mk(ExprKind::Neg(Box::new(v)), ty, iv)
    }

    /// `not x`.
    fn expr_not(&mut self, ctx: &mut Ctx, x: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let v = self.expr(ctx, x, Some(&Ty::Bool));
        let v = self.coerce(v, &Ty::Bool);
        mk(ExprKind::Not(Box::new(v)), Ty::Bool, Iv::UNKNOWN)
    }

    /// `l op r` for comparisons, widening one side to the other's type.
    fn expr_cmp(&mut self, ctx: &mut Ctx, op: CmpOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let (le, re) = self.pair(ctx, l, r);
        self.comparable(&le, &re, op, span);
        // `x == none` on an optional: compare against the typed none.
        let (le, re) = match (&le.ty, &re.ty) {
            (Ty::Opt(_), Ty::NoneLit) => {
                let t = le.ty.clone();
                let re = self.coerce(re, &t);
                (le, re)
            }
            (Ty::NoneLit, Ty::Opt(_)) => {
                let t = re.ty.clone();
                let le = self.coerce(le, &t);
                (le, re)
            }
            (Ty::Int, Ty::Dec) => (to_dec(le), re),
            (Ty::Dec, Ty::Int) => (le, to_dec(re)),
            (a, b) if a != b && self.assignable(b, a) && !matches!(a, Ty::Key(_)) => {
                let t = a.clone();
                let re = self.coerce(re, &t);
                (le, re)
            }
            (a, b) if a != b && self.assignable(a, b) && !matches!(b, Ty::Key(_)) => {
                let t = b.clone();
                let le = self.coerce(le, &t);
                (le, re)
            }
            _ => (le, re),
        };
        mk(ExprKind::Cmp(op, Box::new(le), Box::new(re)), Ty::Bool, Iv::UNKNOWN)
    }

    /// `x in list`.
    fn expr_in(&mut self, ctx: &mut Ctx, x: &ast::Expr, list: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let le = self.expr(ctx, list, None);
        let elem = match &le.ty {
            Ty::List(t) => Some((**t).clone()),
            Ty::Error => None,
            other => {
                let tn = self.ty_shown(other);
                self.err(
                    "E0201",
                    list.span,
                    format!("`in` needs a list on its right, found {tn}"),
                    "not a list",
                    Some("to test which table a key comes from, use `is`: `weapon is pistol`".into()),
                );
                None
            }
        };
        let xe = self.expr(ctx, x, elem.as_ref());
        if let Some(el) = &elem {
            let ok =
                self.assignable(&xe.ty, el) || self.assignable(&strip_opt(&xe.ty), el) || matches!((&xe.ty, el), (Ty::Key(_), Ty::Key(_)));
            if !ok {
                let (a, b) = (self.ty_shown(&xe.ty), self.ty_shown(el));
                self.err("E0201", x.span, format!("cannot look for {a} in a list of {b}"), "wrong type", None);
            }
        }
        mk(ExprKind::In(Box::new(xe), Box::new(le)), Ty::Bool, Iv::UNKNOWN)
    }

    /// `x is table` (or a union of tables).
    fn expr_is(&mut self, ctx: &mut Ctx, x: &ast::Expr, name: &ast::Ident, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let xe = self.expr(ctx, x, None);
        let (t, _) = self.type_atom(&ast::TypeAtom {
            name: name.clone(),
            bounds: None,
        });
        let set = match t {
            Ty::Key(ts) => ts,
            Ty::Error => return Self::err_expr(span),
            other => {
                let tn = self.ty_name(&other);
                self.err(
                    "E0201",
                    name.span,
                    format!("`is` tests membership of keyed tables, and `{tn}` is not one"),
                    "not a table or union of tables",
                    None,
                );
                return Self::err_expr(span);
            }
        };
        if !matches!(strip_opt(&xe.ty), Ty::Key(_) | Ty::Error) {
            let tn = self.ty_shown(&xe.ty);
            self.err(
                "E0201",
                x.span,
                format!("`is` needs a table key on its left, found {tn}"),
                "not a key",
                None,
            );
        }
        mk(ExprKind::Is(Box::new(xe), set), Ty::Bool, Iv::UNKNOWN)
    }

    /// `if c then a else if ... else b`, its branches joined to one type.
    fn expr_if(&mut self, ctx: &mut Ctx, arms: &[(ast::Expr, ast::Expr)], otherwise: &ast::Expr, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let mut out = Vec::new();
        let mut ty: Option<Ty> = hint.cloned().filter(|h| !matches!(h, Ty::Bool));
        let mut iv: Option<Iv> = None;
        let mut vals = Vec::new();
        for (c, v) in arms {
            let ce = self.expr(ctx, c, Some(&Ty::Bool));
            let ce = self.coerce(ce, &Ty::Bool);
            let ve = self.expr(ctx, v, ty.as_ref().or(hint));
            ty = Some(match ty {
                None => ve.ty.clone(),
                Some(t) => join_ty(&t, &ve.ty),
            });
            iv = Some(iv.map_or(ve.iv, |i| i.join(ve.iv)));
            out.push(ce);
            vals.push(ve);
        }
        let oe = self.expr(ctx, otherwise, ty.as_ref().or(hint));
        let t = match ty {
            None => oe.ty.clone(),
            Some(t) => join_ty(&t, &oe.ty),
        };
        let iv = iv.map_or(oe.iv, |i| i.join(oe.iv));
        let oe = self.coerce(oe, &t);
        let arms: Vec<(Expr, Expr)> = out.into_iter().zip(vals).map(|(c, v)| (c, self.coerce(v, &t))).collect();
        mk(ExprKind::If(arms, Box::new(oe)), t, iv)
    }

    /// A binary operator, lowered by the method for its kind.
    pub(super) fn bin(&mut self, ctx: &mut Ctx, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span, hint: Option<&Ty>) -> Expr {
        match op {
            BinOp::And | BinOp::Or => self.bin_logic(ctx, op, l, r, span),
            BinOp::Coalesce => self.bin_coalesce(ctx, op, l, r, span, hint),
            _ => self.bin_arith(ctx, op, l, r, span),
        }
    }

    /// `a and b`, `a or b`.
    fn bin_logic(&mut self, ctx: &mut Ctx, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let a = self.expr(ctx, l, Some(&Ty::Bool));
        let a = self.coerce(a, &Ty::Bool);
        let b = self.expr(ctx, r, Some(&Ty::Bool));
        let b = self.coerce(b, &Ty::Bool);
        mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), Ty::Bool, Iv::UNKNOWN)
    }

    /// `a ?? b`: the fallback `b` when `a` is none.
    fn bin_coalesce(&mut self, ctx: &mut Ctx, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let a = self.expr(ctx, l, hint.map(|h| Ty::Opt(Box::new(h.clone()))).as_ref());
        let inner = match &a.ty {
            Ty::Opt(t) => (**t).clone(),
            Ty::Error => Ty::Error,
            other => {
                let tn = self.ty_shown(other);
                self.err(
                    "E0201",
                    l.span,
                    format!("`??` gives a fallback for an optional value, but this is {tn}"),
                    "never none",
                    Some("remove the `?? ...`".into()),
                );
                other.clone()
            }
        };
        let b = self.expr(ctx, r, Some(&inner));
        // `a ?? b` with `b` optional too is still optional: the first of them that is set.
        if let Ty::Opt(_) = b.ty {
            let t = a.ty.clone();
            let b = self.coerce(b, &t);
            return mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), t, Iv::UNKNOWN);
        }
        let ty = if inner == Ty::Int && b.ty == Ty::Dec {
            Ty::Dec
        } else {
            inner.clone()
        };
        let b = self.coerce(b, &ty);
        let iv = a.iv.join(b.iv);
        // `int? ?? decimal` stays `int?` on the left: the backends read a set whole number as a
        // decimal.
        mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), ty, iv)
    }

    /// `+ - * / %` on numbers (and `+` on lists), with the interval of the result.
    fn bin_arith(&mut self, ctx: &mut Ctx, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let a = self.expr(ctx, l, None);
        let b = self.expr(ctx, r, if matches!(a.ty, Ty::List(_)) { Some(&a.ty) } else { None });
        // Lists join with `+`: `noted + [hit]`.
        if op == BinOp::Add && matches!((&a.ty, &b.ty), (Ty::List(_) | Ty::EmptyList, Ty::List(_) | Ty::EmptyList)) {
            let t = if matches!(a.ty, Ty::List(_)) { a.ty.clone() } else { b.ty.clone() };
            let a = self.coerce(a, &t);
            let b = self.coerce(b, &t);
            return mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), t, Iv::UNKNOWN);
        }
        // A side already reported (an untyped `var`, an unknown name) says nothing more here.
        if a.ty == Ty::Error || b.ty == Ty::Error {
            return Self::err_expr(span);
        }
        for x in [&a, &b] {
            if matches!(x.ty, Ty::Opt(_)) {
                let tn = self.ty_shown(&x.ty);
                self.err(
                    "E0201",
                    x.span,
                    format!("this value is {tn}, which may be none"),
                    "may be none",
                    Some("give a fallback: `(x ?? 0)`".into()),
                );
                return Self::err_expr(span);
            }
        }
        // Each operand that is not a number is reported where it is, naming its type.
        let what = match op {
            BinOp::Add => "`+` adds numbers",
            BinOp::Sub => "`-` subtracts numbers",
            BinOp::Mul => "`*` multiplies numbers",
            BinOp::Div => "`/` divides numbers",
            _ => "`%` takes whole numbers",
        };
        let (a_ok, b_ok) = (self.expect_number(&a, what), self.expect_number(&b, what));
        if !(a_ok && b_ok) {
            return Self::err_expr(span);
        }
        let mut ty = numeric_join(&a.ty, &b.ty);
        if op == BinOp::Div && ty == Ty::Int {
            ty = Ty::Dec;
        }
        if op == BinOp::Rem && ty != Ty::Int && ty != Ty::Error {
            self.err("E0201", span, "`%` takes whole numbers", "not whole numbers", None);
        }
        if self.check_div_zero(op, &b) {
            // The quotient does not exist: no follow-on type mismatch for the decimal `/` gives.
            return Self::err_expr(span);
        }
        let iv = match op {
            BinOp::Add => add_iv(a.iv, b.iv),
            BinOp::Sub => add_iv(
                a.iv,
                Iv {
                    lo: -b.iv.hi,
                    hi: -b.iv.lo,
                    known: b.iv.known,
                },
            ),
            BinOp::Mul => mul_iv(a.iv, b.iv),
            BinOp::Div => div_iv(a.iv, b.iv),
            _ => Iv {
                lo: -(b.iv.lo.abs().max(b.iv.hi.abs())),
                hi: b.iv.lo.abs().max(b.iv.hi.abs()),
                known: b.iv.known,
            },
        };
        self.check_iv(iv, span);
        let (a, b) = if ty == Ty::Dec { (to_dec(a), to_dec(b)) } else { (a, b) };
        mk(ExprKind::Bin(op, Box::new(a), Box::new(b)), ty, iv)
    }
}

fn agg_name(a: Agg) -> &'static str {
    match a {
        Agg::Sum => "sum",
        Agg::Product => "product",
        Agg::Count => "count",
        Agg::Any => "any",
        Agg::All => "all",
        Agg::Max => "max",
        Agg::Min => "min",
        Agg::Map => "map",
        Agg::Filter => "filter",
        Agg::First => "first",
        Agg::Sort => "sort",
        Agg::SortDesc => "sort_desc",
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    fn set(ty: &str, e: &str) -> String {
        format!("resolver r \"R\" [1] {{\n  in n: int 0..9\n  in xs: list int = []\n  out x: {ty}\n  set x = {e}\n}}\n")
    }

    #[test]
    fn operators_and_aggregates() {
        check_codes(
            &set("int", "sum(v in xs: v) + count(v in xs: v > n) + (if n > 3 then 1 else 2)"),
            &[],
        );
        check_codes(&set("bool", "n in xs and not (n == 2)"), &[]);
        check_codes(&set("list int", "xs + [n]"), &[]);
        assert_eq!(only(&set("decimal", "n % 2.5"), "E0201").0, "`%` takes whole numbers");
        assert_eq!(only(&set("int", "sum(v in n: v)"), "E0201").0, "`sum` needs a list, found `int`");
    }

    #[test]
    fn update_keeps_the_item_type() {
        check_codes(&set("list int", "update(v in xs where v > n: v + n)"), &[]);
        // A whole number fits a list of decimals and of optionals, as in `map`'s `if`.
        check_codes(
            "resolver r \"R\" [1] {\n  in xs: list decimal = []\n  out x: list decimal\n  set x = update(v in xs where v > 1: 2)\n}\n",
            &[],
        );
        assert_eq!(
            only(&set("list int", "update(v in xs where v > n: v > 2)"), "E0201").0,
            "`update` replaces an item of type `int` by its new value, found `bool`"
        );
        assert_eq!(
            only(&set("list int", "update(v in xs where v: v)"), "E0201").0,
            "the condition of `update` must be yes/no, found `int`"
        );
        assert_eq!(
            only(&set("list int", "update(v in n where v > 1: v)"), "E0201").0,
            "`update` needs a list, found `int`"
        );
        // `v` is the item only inside the form.
        assert_eq!(
            only(&set("list int", "update(v in xs where v > 1: v) + [v]"), "E0101").0,
            "unknown name `v`"
        );
    }

    #[test]
    fn first_of_a_list() {
        check_codes(&set("int", "first(xs) ?? n"), &[]);
        assert_eq!(only(&set("int", "first(xs)"), "E0201").0, "expected `int`, found `int?`");
        assert_eq!(only(&set("int", "first(n) ?? 0"), "E0201").0, "`first` takes a list, found `int`");
        assert_eq!(
            only(&set("int", "first(xs, xs) ?? 0"), "E0202").0,
            "`first` takes 1 argument, found 2"
        );
        // A table called `first` is still looked up.
        check_codes(
            "table first \"F\" [1] by int 1..2 -> int {\n  1..2 => 5\n}\nresolver r \"R\" [1] {\n  out x: int\n  set x = first(1)\n}\n",
            &[],
        );
    }

    #[test]
    fn coalesce_needs_an_optional() {
        assert_eq!(
            only(&set("int", "n ?? 0"), "E0201").0,
            "`??` gives a fallback for an optional value, but this is `int`"
        );
    }
}
