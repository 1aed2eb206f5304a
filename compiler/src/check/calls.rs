//! Calls in expressions: the built-in functions (`floor`, `ceil`, `round`, `abs`, `sqrt`, `len`,
//! `min`, `max`, `clamp`; `first(list)` is lowered in `expr` with the list forms) and lookups in keyed, enum-keyed, range and matrix tables, with the
//! interval of what they return.
//!
//! Diagnostics owned here: E0202 (wrong number of arguments), E0101 (unknown function or table),
//! E0201 (arguments of the wrong type); range-table and whole-number matrix indexes are proved in
//! `bounds` (E0304).

use super::bounds::isqrt_i128;
use super::ctx::{Checker, Ctx};
use super::types::numeric_join;
use crate::ast::{self, Span};
use crate::diag::did_you_mean;
use crate::ir::*;

impl Checker<'_> {
    /// `f(args)`: a built-in function or a table lookup.
    pub(super) fn call(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        match f.name.as_str() {
            "floor" | "ceil" | "round" => self.call_round(ctx, f, args, span),
            "abs" => self.call_abs(ctx, f, args, span),
            "sqrt" => self.call_sqrt(ctx, f, args, span),
            "len" => self.call_len(ctx, f, args, span),
            "min" | "max" | "clamp" => self.call_min_max(ctx, f, args, span),
            // `first(list)`, the short form of `first(x in list: yes)` (a table called `first` wins).
            "first" if !self.table_idx.contains_key("first") => self.expr_first_of(ctx, f, args, span),
            _ => self.call_table(ctx, f, args, span),
        }
    }

    /// E0202 unless `f` was given exactly `want` arguments.
    pub(super) fn argc(&mut self, f: &ast::Ident, args: &[ast::Expr], span: Span, want: usize) -> bool {
        if args.len() != want {
            self.err(
                "E0202",
                span,
                format!(
                    "`{}` takes {want} argument{}, found {}",
                    f.name,
                    if want == 1 { "" } else { "s" },
                    args.len()
                ),
                "wrong number of arguments",
                None,
            );
            false
        } else {
            true
        }
    }

    /// `floor(x)`, `ceil(x)`, `round(x)`: a number to a whole number.
    fn call_round(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], None);
        if !matches!(x.ty, Ty::Int | Ty::Dec | Ty::Error) {
            let tn = self.ty_shown(&x.ty);
            self.err(
                "E0201",
                args[0].span,
                format!("`{}` rounds a number, found {tn}", f.name),
                "not a number",
                None,
            );
        }
        let func = match f.name.as_str() {
            "floor" => Func::Floor,
            "ceil" => Func::Ceil,
            _ => Func::Round,
        };
        let iv = x.iv;
        mk(ExprKind::Func(func, vec![x]), Ty::Int, iv)
    }

    /// `abs(x)`.
    fn call_abs(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], None);
        let iv = Iv {
            lo: if x.iv.lo <= 0 && x.iv.hi >= 0 {
                0
            } else {
                x.iv.lo.abs().min(x.iv.hi.abs())
            },
            hi: x.iv.lo.abs().max(x.iv.hi.abs()),
            known: x.iv.known,
        };
        let ty = x.ty.clone();
        mk(ExprKind::Func(Func::Abs, vec![x]), ty, iv)
    }

    /// `sqrt(x)`, the whole square root; `sqrt(x, places)`, rounded down at `places` decimals.
    fn call_sqrt(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if args.len() == 2 {
            let x = self.expr(ctx, &args[0], None);
            if !matches!(x.ty, Ty::Int | Ty::Dec | Ty::Error) {
                let tn = self.ty_shown(&x.ty);
                self.err(
                    "E0201",
                    args[0].span,
                    format!("`sqrt` takes a number, found {tn}"),
                    "not a number",
                    None,
                );
                return Self::err_expr(span);
            }
            let x = self.coerce(x, &Ty::Dec);
            let p = self.expr(ctx, &args[1], Some(&Ty::Int));
            let places = match (&p.kind, p.iv) {
                (ExprKind::Const(Const::Int(n)), _) if (0..=12).contains(n) => Some(*n as u32),
                _ => None,
            };
            let Some(places) = places else {
                self.err(
                    "E0201",
                    args[1].span,
                    "`sqrt(x, places)` needs the number of decimal places as a whole number from 0 to 12",
                    "not a number of places",
                    Some("write the places as a number, e.g. `sqrt(x, 2)` for hundredths (rounded down)".into()),
                );
                return Self::err_expr(span);
            };
            return mk(ExprKind::Func(Func::SqrtPlaces(places), vec![x]), Ty::Dec, Iv::UNKNOWN);
        }
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        // Read once (nested `sqrt(sqrt(...))` must not be read again): a decimal needs its
        // rounding said, `sqrt(x, places)`.
        let x = self.expr(ctx, &args[0], Some(&Ty::Int));
        if x.ty == Ty::Dec {
            self.err(
                "E0201",
                args[0].span,
                "`sqrt` of a decimal needs its rounding: the number of decimal places",
                "a decimal",
                Some(
                    "write `sqrt(x, places)`, e.g. `sqrt(x, 0)` for whole numbers or `sqrt(x, 3)` for thousandths, both rounded down"
                        .into(),
                ),
            );
            return Self::err_expr(span);
        }
        let x = self.coerce(x, &Ty::Int);
        let hi = if x.iv.known { isqrt_i128(x.iv.hi.max(0)) } else { i64::MAX as i128 };
        mk(ExprKind::Func(Func::Sqrt, vec![x]), Ty::Int, Iv { lo: 0, hi, known: true })
    }

    /// `len(list)`.
    fn call_len(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], None);
        if !matches!(x.ty, Ty::List(_) | Ty::EmptyList | Ty::Error) {
            let tn = self.ty_shown(&x.ty);
            self.err(
                "E0201",
                args[0].span,
                format!("`len` counts a list, found {tn}"),
                "not a list",
                None,
            );
        }
        mk(ExprKind::Func(Func::Len, vec![x]), Ty::Int, Iv::range(0, u32::MAX as i64))
    }

    /// `min(a, b, ...)`, `max(a, b, ...)`, `clamp(x, lo, hi)`.
    fn call_min_max(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let want = if f.name == "clamp" { Some(3) } else { None };
        if let Some(w) = want {
            if !self.argc(f, args, span, w) {
                return Self::err_expr(span);
            }
        } else if args.len() < 2 {
            self.err(
                "E0202",
                span,
                format!("`{}` needs at least two numbers", f.name),
                "too few arguments",
                Some(format!("for a list, write `{}(x in list: x.value)`", f.name)),
            );
            return Self::err_expr(span);
        }
        // `min`/`max` of values of one enum: the first or last in declaration order. An enum value
        // as the first argument tells how the others' variant names read; a number first keeps
        // the numeric reading, which names any argument that is not a number.
        // Every argument is read once (a nested `max(max(...))` must not read its inner calls
        // again, or checking would take time exponential in the depth). An enum value first tells
        // how the others' variant names read: `min`/`max` of one enum's values, the first or last
        // in declaration order; a number first keeps the numeric reading.
        let mut xs: Vec<Expr> = Vec::with_capacity(args.len());
        let mut enum_ty: Option<Ty> = None;
        for a in args {
            let x = self.expr(ctx, a, enum_ty.as_ref());
            if xs.is_empty() && f.name != "clamp" && matches!(x.ty, Ty::Enum(_)) {
                enum_ty = Some(x.ty.clone());
            }
            xs.push(x);
        }
        if let Some(t) = enum_ty {
            for x in &xs {
                if x.ty != t && x.ty != Ty::Error {
                    let (want, found) = (self.ty_shown(&t), self.ty_shown(&x.ty));
                    self.err(
                        "E0201",
                        x.span,
                        format!("`{}` compares values of one kind: {want}, found {found}", f.name),
                        "not the same kind",
                        Some(format!(
                            "`{}` takes numbers, or values of one enum (ordered as its variants are declared)",
                            f.name
                        )),
                    );
                    return Self::err_expr(span);
                }
            }
            let func = if f.name == "min" { Func::Min } else { Func::Max };
            return mk(ExprKind::Func(func, xs), t, Iv::UNKNOWN);
        }
        let mut ty = Ty::Int;
        let mut numbers = true;
        for x in &xs {
            if self.expect_number(x, &format!("`{}` compares numbers", f.name)) {
                ty = numeric_join(&ty, &x.ty);
            } else {
                numbers = false;
            }
        }
        if !numbers {
            return Self::err_expr(span);
        }
        let ivs: Vec<Iv> = xs.iter().map(|x| x.iv).collect();
        let known = ivs.iter().all(|i| i.known);
        let iv = match f.name.as_str() {
            "min" => Iv {
                lo: ivs.iter().map(|i| i.lo).min().unwrap_or(0),
                hi: ivs.iter().map(|i| i.hi).min().unwrap_or(0),
                known,
            },
            "max" => Iv {
                lo: ivs.iter().map(|i| i.lo).max().unwrap_or(0),
                hi: ivs.iter().map(|i| i.hi).max().unwrap_or(0),
                known,
            },
            _ => {
                let (x, lo, hi) = (ivs[0], ivs[1], ivs[2]);
                Iv {
                    lo: x.lo.max(lo.lo).min(hi.hi),
                    hi: x.hi.min(hi.hi).max(lo.lo),
                    known: lo.known && hi.known,
                }
            }
        };
        let xs = xs.into_iter().map(|x| self.coerce(x, &ty)).collect();
        let func = match f.name.as_str() {
            "min" => Func::Min,
            "max" => Func::Max,
            _ => Func::Clamp,
        };
        mk(ExprKind::Func(func, xs), ty, iv)
    }

    /// `table(index)` or `matrix(row, column)`: a lookup in a table of that name.
    fn call_table(&mut self, ctx: &mut Ctx, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let name = f.name.as_str();
        let Some(&tid) = self.table_idx.get(name) else {
            if self.declared_in_unparsed(name) {
                return Self::err_expr(span);
            }
            let mut cands: Vec<String> = ["floor", "ceil", "round", "abs", "min", "max", "clamp", "len", "sqrt", "first"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            cands.extend(self.tables.iter().map(|t| t.name.clone()));
            let help = did_you_mean(name, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "function or table");
            let extra = if self.resolver_idx.contains_key(name) {
                format!("; `{name}` is a resolver: call it with `call x = {name}(input: value, ...)`")
            } else {
                String::new()
            };
            self.err(
                "E0101",
                f.span,
                format!("unknown function or table `{name}`"),
                "not defined",
                Some(format!("{help}{extra}")),
            );
            return Self::err_expr(span);
        };
        self.tables[tid].used = true;
        if self.broken_tables.contains(&tid) {
            for a in args {
                self.expr(ctx, a, None);
            }
            return Self::err_expr(span);
        }
        match self.tables[tid].kind.clone() {
            TableKind::Keyed => self.lookup_keyed(ctx, tid, f, args, span),
            TableKind::Range { lo, hi } => self.lookup_range(ctx, tid, (lo, hi), f, args, span),
            TableKind::DecRange => self.lookup_band(ctx, tid, f, args, span),
            TableKind::Matrix { rows, cols } => self.lookup_matrix(ctx, tid, (rows, cols), f, args, span),
            TableKind::ByEnum { key_enum } => self.lookup_by_enum(ctx, tid, key_enum, f, args, span),
        }
    }

    /// `keyed(key)`: the key itself, typed as a key of the table.
    fn lookup_keyed(&mut self, ctx: &mut Ctx, tid: usize, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let kt = Ty::Key(vec![tid]);
        let x = self.expr(ctx, &args[0], Some(&kt));
        let x = self.coerce(x, &kt);
        let xspan = x.span;
        Expr { span: xspan, ..x }
    }

    /// A lookup of table `tid` with its checked arguments, typed by the table's result.
    fn lookup_expr(&self, tid: usize, args: Vec<Expr>, span: Span) -> Expr {
        let (ty, iv) = self.lookup_result(tid);
        Expr {
            kind: ExprKind::Lookup { table: tid, args },
            ty,
            iv,
            span,
        }
    }

    /// `range_table(index)`, the index proved to stay within the rows.
    fn lookup_range(&mut self, ctx: &mut Ctx, tid: usize, (lo, hi): (i64, i64), f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], Some(&Ty::Int));
        let x = self.coerce(x, &Ty::Int);
        self.check_index(&f.name, &x, args[0].span, lo, hi);
        self.lookup_expr(tid, vec![x], span)
    }

    /// `decimal_table(x)`: any number (a whole number is read as a decimal); the rows cover every
    /// decimal.
    fn lookup_band(&mut self, ctx: &mut Ctx, tid: usize, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], Some(&Ty::Dec));
        let x = self.coerce(x, &Ty::Dec);
        self.lookup_expr(tid, vec![x], span)
    }

    /// `matrix(row, column)`, a whole-number argument proved to stay on its axis.
    fn lookup_matrix(
        &mut self,
        ctx: &mut Ctx,
        tid: usize,
        (rows, cols): (Axis, Axis),
        f: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Expr {
        if !self.argc(f, args, span, 2) {
            return Self::err_expr(span);
        }
        let a = self.axis_arg(ctx, &f.name, &args[0], rows);
        let b = self.axis_arg(ctx, &f.name, &args[1], cols);
        self.lookup_expr(tid, vec![a, b], span)
    }

    /// One argument of a matrix lookup: a value of the axis's enum, or a whole number proved to
    /// stay within the axis (E0304).
    fn axis_arg(&mut self, ctx: &mut Ctx, table: &str, arg: &ast::Expr, axis: Axis) -> Expr {
        match axis {
            Axis::Enum(e) => {
                let x = self.expr(ctx, arg, Some(&Ty::Enum(e)));
                self.coerce(x, &Ty::Enum(e))
            }
            Axis::Int { lo, hi } => {
                let x = self.expr(ctx, arg, Some(&Ty::Int));
                let x = self.coerce(x, &Ty::Int);
                self.check_index(table, &x, arg.span, lo, hi);
                x
            }
        }
    }

    /// `enum_table(variant)`: the row of that variant; read its columns with a dot.
    fn lookup_by_enum(&mut self, ctx: &mut Ctx, tid: usize, e: usize, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        if !self.argc(f, args, span, 1) {
            return Self::err_expr(span);
        }
        let x = self.expr(ctx, &args[0], Some(&Ty::Enum(e)));
        let x = self.coerce(x, &Ty::Enum(e));
        self.lookup_expr(tid, vec![x], span)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    fn set(e: &str) -> String {
        format!("resolver r \"R\" [1] {{\n  in a: int 0..9\n  out x: int\n  set x = {e}\n}}\n")
    }

    #[test]
    fn built_in_functions() {
        check_codes(&set("max(a, 2) + clamp(a, 0, 3) + abs(a) + sqrt(a) + floor(a)"), &[]);
        assert_eq!(only(&set("floor(a, 1)"), "E0202").0, "`floor` takes 1 argument, found 2");
        check_codes(&set("max(a)"), &["E0202"]);
    }

    #[test]
    fn an_unknown_function_may_be_a_resolver() {
        let src = format!("resolver q \"Q\" [1] {{\n  out y: int = 0\n}}\n{}", set("q(a)"));
        assert!(only(&src, "E0101")
            .1
            .ends_with("; `q` is a resolver: call it with `call x = q(input: value, ...)`"));
    }
}
