//! Types: type expressions (`int 0..6`, `a | b`, `t?`, `list t`, aliases), their names in
//! messages, assignability, coercion (int → decimal, value → optional, list widening), joins of
//! branches, and the type mismatches between them.
//!
//! Diagnostics owned here: E0201 (type mismatch, bad bounds or union, cyclic alias, values that
//! cannot be compared) and E0101 for unknown type names.

use super::ctx::{Checker, Ctx};
use crate::ast::{self, CmpOp, Span};
use crate::diag::did_you_mean;
use crate::ir::*;
use std::collections::BTreeSet;

impl Checker<'_> {
    /// A type as the rules editor writes it (`int`, `list text`, `weapon`, `gadgets | pistols`,
    /// `int?`), for text that quotes it: `declare the result as `{name}?``.
    pub(super) fn ty_name(&self, t: &Ty) -> String {
        match t {
            Ty::Int => "int".into(),
            Ty::Dec => "decimal".into(),
            Ty::Bool => "bool".into(),
            Ty::Text => "text".into(),
            Ty::Enum(e) => self.enums.get(*e).map(|e| e.name.clone()).unwrap_or_default(),
            Ty::Key(ts) => ts
                .iter()
                .filter_map(|t| self.tables.get(*t).map(|t| t.name.clone()))
                .collect::<Vec<_>>()
                .join(" | "),
            Ty::Opt(i) => format!("{}?", self.ty_name(i)),
            Ty::List(i) => format!("list {}", self.ty_name(i)),
            Ty::Outcome(r) => format!("outcome of `{}`", self.resolvers.get(*r).map(|r| r.name.as_str()).unwrap_or("")),
            Ty::Row(t) => format!("row of `{}`", self.tables.get(*t).map(|t| t.name.as_str()).unwrap_or("")),
            Ty::Rec(r) => self.records.get(*r).map(|r| r.name.clone()).unwrap_or_default(),
            Ty::NoneLit => "none".into(),
            Ty::EmptyList => "[]".into(),
            Ty::Error => "?".into(),
        }
    }

    /// A type in the prose of a message: in backticks as the rules editor writes it (`int`,
    /// `list text`, `weapon`), or in words for what rules text cannot write as a type (the
    /// outcome of a `call`, a table row, the literals `none` and `[]`).
    pub(super) fn ty_shown(&self, t: &Ty) -> String {
        fn writable(t: &Ty) -> bool {
            match t {
                Ty::Opt(i) | Ty::List(i) => writable(i),
                Ty::Outcome(_) | Ty::Row(_) | Ty::NoneLit | Ty::EmptyList | Ty::Error => false,
                _ => true,
            }
        }
        match t {
            Ty::Outcome(r) => format!("the outcome of `{}`", self.resolvers.get(*r).map(|r| r.name.as_str()).unwrap_or("")),
            Ty::Row(t) => format!("a row of `{}`", self.tables.get(*t).map(|t| t.name.as_str()).unwrap_or("")),
            Ty::NoneLit => "`none`".into(),
            Ty::EmptyList => "an empty list `[]`".into(),
            Ty::Error => "a value of unknown type".into(),
            t if writable(t) => format!("`{}`", self.ty_name(t)),
            t => self.ty_name(t),
        }
    }

    pub(super) fn type_names(&self) -> Vec<String> {
        let mut v: Vec<String> = ["int", "decimal", "bool", "text"].iter().map(|s| s.to_string()).collect();
        v.extend(self.enums.iter().map(|e| e.name.clone()));
        v.extend(self.records.iter().map(|r| r.name.clone()));
        v.extend(
            self.tables
                .iter()
                .filter(|t| matches!(t.kind, TableKind::Keyed))
                .map(|t| t.name.clone()),
        );
        v.extend(self.aliases.keys().cloned());
        v
    }

    pub(super) fn type_atom(&mut self, a: &ast::TypeAtom) -> (Ty, Option<(i64, i64)>) {
        let name = a.name.name.as_str();
        if a.bounds.is_some() && name != "int" && name != "decimal" {
            self.err(
                "E0201",
                a.name.span,
                format!("only `int` and `decimal` take bounds, not `{name}`"),
                "bounds need a number",
                Some("bounds are whole numbers: `int 1..6`, `decimal 0..10`".into()),
            );
        }
        // The bounds of a number type, `int 1..6` or `decimal 0..10`, must not be empty.
        if let (Some((lo, hi)), "int" | "decimal") = (a.bounds, name) {
            if lo > hi {
                self.err(
                    "E0201",
                    a.name.span,
                    format!("empty range {lo}..{hi}"),
                    "lower bound above upper",
                    Some("write the bounds as low..high".into()),
                );
            }
        }
        match name {
            "int" => (Ty::Int, a.bounds),
            "decimal" => (Ty::Dec, a.bounds),
            "bool" => (Ty::Bool, None),
            "text" => (Ty::Text, None),
            _ => {
                if let Some(&e) = self.enum_idx.get(name) {
                    return (Ty::Enum(e), None);
                }
                if let Some(&r) = self.record_idx.get(name) {
                    return (Ty::Rec(r), None);
                }
                if let Some(&t) = self.table_idx.get(name) {
                    self.tables[t].used = true;
                    if let TableKind::ByEnum { key_enum } = self.tables[t].kind {
                        let en = self.enums[key_enum].name.clone();
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("table `{name}` is keyed by enum `{en}`, so it is not a type"),
                            "not a type",
                            Some(format!("use a `{en}` and look its row up: `{name}(x).column`")),
                        );
                        return (Ty::Error, None);
                    }
                    return (Ty::Key(vec![t]), None);
                }
                if let Some(te) = self.aliases.get(name).copied() {
                    if self.alias_stack.iter().any(|s| s == name) || self.alias_stack.len() > 16 {
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("type `{name}` is defined in terms of itself"),
                            "cycle",
                            None,
                        );
                        return (Ty::Error, None);
                    }
                    self.alias_stack.push(name.to_string());
                    let r = self.type_expr(te);
                    self.alias_stack.pop();
                    return r;
                }
                if !self.declared_in_unparsed(name) {
                    let help = did_you_mean(name, self.type_names().iter().map(|s| s.as_str()).collect::<Vec<_>>(), "type");
                    self.err("E0101", a.name.span, format!("unknown type `{name}`"), "not a type", Some(help));
                }
                (Ty::Error, None)
            }
        }
    }

    pub(super) fn type_expr(&mut self, te: &ast::TypeExpr) -> (Ty, Option<(i64, i64)>) {
        let mut bounds = None;
        let mut ty = if te.atoms.len() == 1 {
            let (t, b) = self.type_atom(&te.atoms[0]);
            bounds = b;
            t
        } else {
            let mut set = BTreeSet::new();
            for a in &te.atoms {
                match self.type_atom(a).0 {
                    Ty::Key(ts) => set.extend(ts),
                    Ty::Error => {}
                    other => {
                        let n = self.ty_name(&other);
                        self.err(
                            "E0201",
                            a.name.span,
                            format!("`{n}` cannot be part of a union"),
                            "not a keyed table",
                            Some("a union `a | b` joins keyed tables".into()),
                        );
                    }
                }
            }
            Ty::Key(set.into_iter().collect())
        };
        if te.optional {
            ty = Ty::Opt(Box::new(ty));
        }
        for _ in 0..te.list_depth {
            ty = Ty::List(Box::new(ty));
        }
        (ty, bounds)
    }

    /// E0201 at the value itself unless it is a number (or already reported); `what` says who
    /// needs the number: "`+` adds numbers", "`max` compares numbers".
    pub(super) fn expect_number(&mut self, e: &Expr, what: &str) -> bool {
        if matches!(e.ty, Ty::Int | Ty::Dec | Ty::Error) {
            return true;
        }
        let tn = self.ty_shown(&e.ty);
        self.err("E0201", e.span, format!("{what}, found {tn}"), format!("this is {tn}"), None);
        false
    }

    pub(super) fn assignable(&self, from: &Ty, to: &Ty) -> bool {
        match (from, to) {
            (a, b) if a == b => true,
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Int, Ty::Dec) => true,
            (Ty::NoneLit, Ty::Opt(_)) => true,
            (Ty::EmptyList, Ty::List(_)) => true,
            (Ty::Key(a), Ty::Key(b)) => a.iter().all(|t| b.contains(t)),
            (Ty::List(a), Ty::List(b)) => self.assignable(a, b),
            (Ty::Opt(a), Ty::Opt(b)) => self.assignable(a, b),
            (a, Ty::Opt(b)) => self.assignable(a, b),
            _ => false,
        }
    }

    pub(super) fn coerce(&mut self, e: Expr, want: &Ty) -> Expr {
        if e.ty == *want || e.ty == Ty::Error || *want == Ty::Error {
            return e;
        }
        match (&e.ty, want) {
            (Ty::Int, Ty::Dec) => to_dec(e),
            (Ty::NoneLit, Ty::Opt(_)) => Expr {
                kind: ExprKind::Const(Const::None),
                ty: want.clone(),
                ..e
            },
            (Ty::EmptyList, Ty::List(_)) => Expr {
                kind: ExprKind::List(Vec::new()),
                ty: want.clone(),
                ..e
            },
            (Ty::Key(_), Ty::Key(_)) | (Ty::List(_), Ty::List(_)) | (Ty::Opt(_), Ty::Opt(_)) if self.assignable(&e.ty, want) => {
                // Same Rust representation; only the static type widens. Lists of ints widening to
                // decimals are not allowed (different representation).
                if let (Ty::List(a), Ty::List(b)) = (&e.ty, want) {
                    if **a == Ty::Int && **b == Ty::Dec {
                        return self.mismatch(e, want);
                    }
                }
                Expr { ty: want.clone(), ..e }
            }
            (_, Ty::Opt(inner)) if self.assignable(&e.ty, inner) => {
                let inner_e = self.coerce(e, inner);
                let span = inner_e.span;
                Expr {
                    kind: ExprKind::Some(Box::new(inner_e)),
                    ty: want.clone(),
                    iv: Iv::UNKNOWN,
                    span,
                }
            }
            _ => self.mismatch(e, want),
        }
    }

    /// The `let` that makes `e` a decimal because of a decimal modifier: `e` itself, or a term of
    /// its sums, differences and products. Its name, and the modifier's span and name.
    fn decimal_by_modifier(&self, e: &Expr) -> Option<(String, Span, String)> {
        if e.ty != Ty::Dec {
            return None;
        }
        match &e.kind {
            ExprKind::Local(v) => self
                .made_decimal
                .get(v)
                .map(|(span, name)| (self.text_of(e.span), *span, name.clone())),
            ExprKind::Bin(_, a, b) => self.decimal_by_modifier(a).or_else(|| self.decimal_by_modifier(b)),
            ExprKind::Neg(a) => self.decimal_by_modifier(a),
            _ => None,
        }
    }

    pub(super) fn mismatch(&mut self, e: Expr, want: &Ty) -> Expr {
        let (wn, fnm) = (self.ty_shown(want), self.ty_shown(&e.ty));
        // A `let` made decimal by a decimal modifier: the cause is the modifier, not this use.
        if let (Some((local, span, name)), Ty::Int) = (self.decimal_by_modifier(&e), want) {
            {
                let shown = local;
                let help = format!(
                    "`{shown}` is used where {wn} is needed, on line {}: write the modifier as a whole number, or round the sum where it is used: `floor({shown})`, `ceil({shown})` or `round({shown})`",
                    self.line_of(e.span)
                );
                self.err(
                    "E0201",
                    span,
                    format!("modifier \"{name}\" is a decimal, so `{shown}` is a decimal"),
                    "this modifier is a decimal",
                    Some(help),
                );
                return Expr { ty: Ty::Error, ..e };
            }
        }
        let help = match (&e.ty, want) {
            (Ty::Dec, Ty::Int) => Some("round explicitly: `floor(x)`, `ceil(x)` or `round(x)`".to_string()),
            (Ty::Opt(_), _) => Some("give a fallback for none: `value ?? 0`".to_string()),
            _ => None,
        };
        self.err(
            "E0201",
            e.span,
            format!("expected {wn}, found {fnm}"),
            format!("this is {fnm}"),
            help,
        );
        Expr { ty: Ty::Error, ..e }
    }

    pub(super) fn err_expr(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Const(Const::None),
            ty: Ty::Error,
            iv: Iv::UNKNOWN,
            span,
        }
    }

    /// Infer two operands, letting a bare name or string on one side take its type from the other
    /// (so `action == counter_fire` and `"Syter" in gadgets` resolve).
    pub(super) fn pair(&mut self, ctx: &mut Ctx, l: &ast::Expr, r: &ast::Expr) -> (Expr, Expr) {
        let needs_hint =
            |e: &ast::Expr| matches!(e.kind, ast::ExprKind::Str(_)) || matches!(&e.kind, ast::ExprKind::Name(n) if ctx.lookup(n).is_none());
        if needs_hint(l) && !needs_hint(r) {
            let re = self.expr(ctx, r, None);
            let le = self.expr(ctx, l, Some(&strip_opt(&re.ty)));
            (le, re)
        } else {
            let le = self.expr(ctx, l, None);
            let hint = strip_opt(&le.ty);
            let re = self.expr(ctx, r, Some(&hint));
            (le, re)
        }
    }

    pub(super) fn comparable(&mut self, l: &Expr, r: &Expr, op: CmpOp, span: Span) {
        let ok = match (&l.ty, &r.ty) {
            (Ty::Int | Ty::Dec, Ty::Int | Ty::Dec) => true,
            (Ty::Error, _) | (_, Ty::Error) => true,
            // Values of one enum are ordered as its variants are declared.
            (Ty::Enum(a), Ty::Enum(b)) => a == b,
            (a, b) if matches!(op, CmpOp::Eq | CmpOp::Ne) => {
                a == b
                    || self.assignable(a, b)
                    || self.assignable(b, a)
                    || matches!((a, b), (Ty::Opt(_), Ty::NoneLit) | (Ty::NoneLit, Ty::Opt(_)))
            }
            _ => false,
        };
        if !ok {
            let (a, b) = (self.ty_shown(&l.ty), self.ty_shown(&r.ty));
            self.err(
                "E0201",
                span,
                format!("cannot compare {a} with {b}"),
                "incompatible types",
                if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    None
                } else {
                    Some("only numbers, and values of one enum (in the order its variants are declared), are ordered".into())
                },
            );
        }
    }
}

pub(super) fn strip_opt(t: &Ty) -> Ty {
    match t {
        Ty::Opt(i) => (**i).clone(),
        t => t.clone(),
    }
}

/// The type of arithmetic on two numbers: `int` when both are, else `decimal`; `Error` when
/// either is not a number (reported where it was found).
pub(super) fn numeric_join(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Int, Ty::Int) => Ty::Int,
        (Ty::Int | Ty::Dec, Ty::Int | Ty::Dec) => Ty::Dec,
        _ => Ty::Error,
    }
}

pub(super) fn join_ty(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Int, Ty::Dec) | (Ty::Dec, Ty::Int) => Ty::Dec,
        (Ty::Error, x) | (x, Ty::Error) => x.clone(),
        (Ty::NoneLit, x) | (x, Ty::NoneLit) if !matches!(x, Ty::NoneLit) => {
            if matches!(x, Ty::Opt(_)) {
                x.clone()
            } else {
                Ty::Opt(Box::new(x.clone()))
            }
        }
        (Ty::Key(x), Ty::Key(y)) => {
            let mut s: BTreeSet<usize> = x.iter().copied().collect();
            s.extend(y.iter().copied());
            Ty::Key(s.into_iter().collect())
        }
        (a, _) => a.clone(),
    }
}

pub(super) fn to_dec(e: Expr) -> Expr {
    if e.ty != Ty::Int {
        return e;
    }
    let span = e.span;
    let iv = e.iv;
    Expr {
        kind: ExprKind::ToDec(Box::new(e)),
        ty: Ty::Dec,
        iv,
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    #[test]
    fn an_int_widens_to_a_decimal() {
        check_codes(
            "resolver r \"R\" [1] {\n  in a: int 0..3\n  out x: decimal\n  set x = a + 0.5\n}\n",
            &[],
        );
    }

    #[test]
    fn a_decimal_is_not_an_int() {
        let src = "resolver r \"R\" [1] {\n  in cost: decimal\n  out x: int\n  set x = 8 + cost\n}\n";
        let (msg, help) = only(src, "E0201");
        assert_eq!(msg, "expected `int`, found `decimal`");
        assert_eq!(help, "round explicitly: `floor(x)`, `ceil(x)` or `round(x)`");
    }

    #[test]
    fn an_optional_needs_a_fallback() {
        let src = "resolver r \"R\" [1] {\n  in a: int?\n  out x: int\n  set x = a\n}\n";
        assert_eq!(only(src, "E0201").1, "give a fallback for none: `value ?? 0`");
        check_codes("resolver r \"R\" [1] {\n  in a: int?\n  out x: int\n  set x = a ?? 0\n}\n", &[]);
    }

    #[test]
    fn unknown_and_cyclic_types() {
        let (msg, help) = only("resolver r \"R\" [1] {\n  in a: itn\n}\n", "E0101");
        assert_eq!((msg.as_str(), help.as_str()), ("unknown type `itn`", "did you mean `int`?"));
        check_codes("type a = b\ntype b = a\nresolver r \"R\" [1] {\n  in x: a\n}\n", &["E0201"]);
        check_codes("resolver r \"R\" [1] {\n  in a: int 3..1\n}\n", &["E0201"]);
    }

    #[test]
    fn only_numbers_are_ordered() {
        let src = "resolver r \"R\" [1] {\n  in a: text\n  out x: bool\n  set x = a < \"b\"\n}\n";
        assert_eq!(only(src, "E0201").0, "cannot compare `text` with `text`");
    }

    #[test]
    fn a_value_that_is_no_number_is_named_where_it_is() {
        let src = "enum e \"E\" [1] { a, b }\nresolver r \"R\" [1] {\n  in k: e\n  in n: int 0..5\n  out x: int\n  set x = n + k\n}\n";
        let d = super::super::testing::diagnostics(src);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].message, "`+` adds numbers, found `e`");
        let full = format!("system t \"Test\"\n{src}");
        assert_eq!(&full[d[0].span.start..d[0].span.end], "k");
        // `max` names only the argument that is not a number.
        let src = "enum e \"E\" [1] { a, b }\nresolver r \"R\" [1] {\n  in k: e\n  in n: int 0..5\n  out x: int\n  set x = max(n, k)\n}\n";
        assert_eq!(only(src, "E0201").0, "`max` compares numbers, found `e`");
    }

    #[test]
    fn types_read_as_they_are_written() {
        let src = "resolver r \"R\" [1] {\n  in a: list text = []\n  out x: list int = []\n  set x = a\n}\n";
        assert_eq!(only(src, "E0201").0, "expected `list int`, found `list text`");
    }
}
