//! Names and fields: what a bare name means where it stands (a local, an input, an output, a
//! constant or an enum variant, the expected type deciding between them), variants qualified by
//! their enum (`unit_rule.flanking`), and `.field` on keys, outcomes, rows and records.
//!
//! Diagnostics owned here: E0101 (unknown name, variant, column, input, output or field), E0201 (a
//! variant of several enums, a column typed differently across a union, fields of a non-record)
//! and W0005 (a bare name read as the input after the output of that name is set).

use super::ctx::{Checker, Ctx};
use super::types::strip_opt;
use crate::ast::{self, Span};
use crate::diag::did_you_mean;
use crate::ir::*;

impl Checker<'_> {
    /// W0005: a bare `n` read as the input after the output `n` is set.
    fn warn_input_after_set(&mut self, n: &str, span: Span) {
        self.warn(
            "W0005",
            span,
            format!("`{n}` here is the input `{n}`, though the output `{n}` is set above"),
            "the input, as it came",
            Some(format!(
                "say which one you mean: `in.{n}` for the input as it came, `out.{n}` for the output as set so far"
            )),
        );
    }

    /// `in.name` (`output` false) or `out.name`: the input, or the output as set so far, of that
    /// name, whatever else is called so.
    pub(super) fn io_ref(&mut self, ctx: &Ctx, id: &ast::Ident, output: bool, span: Span) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        let (kw, kind) = if output { ("out", "output") } else { ("in", "input") };
        if ctx.rid == usize::MAX {
            self.err(
                "E0101",
                span,
                format!("`{kw}.{}` is only for a resolver's {kind}s", id.name),
                "outside a resolver",
                None,
            );
            return Self::err_expr(span);
        }
        let r = &self.resolvers[ctx.rid];
        let names: Vec<String> = if output {
            r.outputs.iter().map(|p| p.name.clone()).collect()
        } else {
            r.inputs.iter().filter(|p| !p.is_option).map(|p| p.name.clone()).collect()
        };
        let found = if output {
            r.outputs
                .iter()
                .find(|p| p.name == id.name)
                .map(|p| (ExprKind::Output(p.name.clone()), p.ty.clone(), Iv::UNKNOWN))
        } else {
            r.inputs.iter().find(|p| p.name == id.name && !p.is_option).map(|p| {
                let iv = p.bounds.map_or(Iv::UNKNOWN, |(lo, hi)| Iv::range(lo, hi));
                (ExprKind::Input(p.name.clone()), p.ty.clone(), iv)
            })
        };
        match found {
            Some((k, ty, iv)) => mk(k, ty, iv),
            None => {
                let rname = r.name.clone();
                self.err_unknown(
                    id.span,
                    format!("`{}` is not an {kind} of `{rname}`", id.name),
                    &format!("unknown {kind}"),
                    &id.name,
                    names,
                    kind,
                );
                Self::err_expr(span)
            }
        }
    }

    /// A bare name, resolved by scope and by the type the context expects.
    pub(super) fn name(&mut self, ctx: &mut Ctx, n: &str, span: Span, hint: Option<&Ty>) -> Expr {
        let mk = |kind: ExprKind, ty: Ty, iv: Iv| Expr { kind, ty, iv, span };
        // Where an enum is expected and it has a variant of this name, a binding of another type
        // (a local, input or output called `hit`) does not hide the variant `hit`.
        let variant_here = match hint.map(strip_opt) {
            Some(Ty::Enum(e)) => self.enums[e].variants.iter().position(|(v, _)| v == n).map(|i| (e, i)),
            _ => None,
        };
        let fits = |t: &Ty| variant_here.is_none_or(|(e, _)| strip_opt(t) == Ty::Enum(e));
        if let Some(l) = ctx.lookup(n).cloned() {
            if fits(&l.ty) {
                return mk(ExprKind::Local(l.rust), l.ty, l.iv);
            }
        }
        if ctx.rid != usize::MAX {
            let r = &self.resolvers[ctx.rid];
            if let Some(p) = r.inputs.iter().find(|p| p.name == n && !p.is_option && fits(&p.ty)) {
                let iv = match (p.bounds, &p.ty) {
                    (Some((lo, hi)), _) => Iv::range(lo, hi),
                    _ => Iv::UNKNOWN,
                };
                let (name, ty) = (p.name.clone(), p.ty.clone());
                if ctx.set.contains(n) && r.outputs.iter().any(|o| o.name == n) {
                    self.warn_input_after_set(n, span);
                }
                return mk(ExprKind::Input(name), ty, iv);
            }
            if let Some(p) = r.outputs.iter().find(|p| p.name == n && fits(&p.ty)) {
                return mk(ExprKind::Output(p.name.clone()), p.ty.clone(), Iv::UNKNOWN);
            }
        }
        if let Some((c, ty, iv)) = self.consts.get(n).cloned() {
            return mk(ExprKind::Const(c), ty, iv);
        }
        // An enum variant, resolved by the type the context expects.
        let want = hint.map(strip_opt);
        if let Some(Ty::Enum(e)) = &want {
            if let Some(i) = self.enums[*e].variants.iter().position(|(v, _)| v == n) {
                return mk(ExprKind::Const(Const::Enum(*e, i)), Ty::Enum(*e), Iv::UNKNOWN);
            }
        }
        if n == "none" {
            return mk(ExprKind::Const(Const::None), Ty::NoneLit, Iv::UNKNOWN);
        }
        if let Some(Ty::Enum(e)) = &want {
            let en = self.enums[*e].name.clone();
            self.err_unknown(
                span,
                format!("`{n}` is not a variant of `{en}`"),
                "unknown variant",
                n,
                self.enums[*e].variants.iter().map(|(v, _)| v.clone()).collect(),
                "variant",
            );
            return Self::err_expr(span);
        }
        let owners: Vec<usize> = (0..self.enums.len())
            .filter(|&e| self.enums[e].variants.iter().any(|(v, _)| v == n))
            .collect();
        if owners.len() == 1 {
            let e = owners[0];
            let i = self.enums[e].variants.iter().position(|(v, _)| v == n).unwrap_or(0);
            return mk(ExprKind::Const(Const::Enum(e, i)), Ty::Enum(e), Iv::UNKNOWN);
        }
        let mut cands: Vec<String> = ctx.scopes.iter().flat_map(|s| s.keys().cloned()).collect();
        if ctx.rid != usize::MAX {
            cands.extend(
                self.resolvers[ctx.rid]
                    .inputs
                    .iter()
                    .filter(|p| !p.is_option)
                    .map(|p| p.name.clone()),
            );
            cands.extend(self.resolvers[ctx.rid].outputs.iter().map(|p| p.name.clone()));
        }
        cands.extend(self.consts.keys().cloned());
        // Names a file that failed to parse probably declares are candidates too.
        cands.extend(self.unparsed.iter().flat_map(|u| u.names.iter().cloned()));
        if owners.len() > 1 {
            let names: Vec<String> = owners.iter().map(|&e| format!("`{}`", self.enums[e].name)).collect();
            self.err(
                "E0201",
                span,
                format!(
                    "`{n}` is a variant of several enums ({}) and nothing here says which",
                    names.join(", ")
                ),
                "ambiguous",
                Some("compare it with a value of the enum you mean".into()),
            );
        } else if !self.declared_in_unparsed(n) {
            let help = if self.option_idx.contains_key(n) {
                format!("`{n}` is an optional rule: write `option {n}`")
            } else {
                did_you_mean(n, cands.iter().map(|s| s.as_str()).collect::<Vec<_>>(), "name")
            };
            self.err("E0101", span, format!("unknown name `{n}`"), "not defined here", Some(help));
        }
        Self::err_expr(span)
    }

    /// `enum_name.variant`: a variant named with its enum, which no local, input or output hides.
    /// `None` when `base` is not an enum's name, or names a value with fields (a record, key, row
    /// or outcome), whose field is read as usual.
    pub(super) fn qualified_variant(&mut self, ctx: &Ctx, base: &ast::Expr, field: &ast::Ident, span: Span) -> Option<Expr> {
        let ast::ExprKind::Name(n) = &base.kind else {
            return None;
        };
        let &e = self.enum_idx.get(n)?;
        let has_fields = |t: &Ty| matches!(strip_opt(t), Ty::Key(_) | Ty::Outcome(_) | Ty::Row(_) | Ty::Rec(_));
        let mut bound: Vec<Ty> = ctx.lookup(n).map(|l| l.ty.clone()).into_iter().collect();
        if ctx.rid != usize::MAX {
            let r = &self.resolvers[ctx.rid];
            bound.extend(r.inputs.iter().filter(|p| p.name == *n && !p.is_option).map(|p| p.ty.clone()));
            bound.extend(r.outputs.iter().filter(|p| p.name == *n).map(|p| p.ty.clone()));
        }
        // The name resolves as a bare name would: the first binding found decides.
        if bound.first().is_some_and(has_fields) {
            return None;
        }
        match self.enums[e].variants.iter().position(|(v, _)| *v == field.name) {
            Some(i) => Some(Expr {
                kind: ExprKind::Const(Const::Enum(e, i)),
                ty: Ty::Enum(e),
                iv: Iv::UNKNOWN,
                span,
            }),
            None => {
                self.err_unknown(
                    field.span,
                    format!("`{}` is not a variant of `{n}`", field.name),
                    "unknown variant",
                    &field.name,
                    self.enums[e].variants.iter().map(|(v, _)| v.clone()).collect(),
                    "variant",
                );
                Some(Self::err_expr(span))
            }
        }
    }

    /// `.field` on a key (a column of its table, or its name), an outcome, a row or a record; on
    /// an optional value the result is optional too.
    pub(super) fn field(&mut self, b: Expr, field: &ast::Ident, span: Span) -> Expr {
        let (inner, optional) = match &b.ty {
            Ty::Opt(t) => ((**t).clone(), true),
            t => (t.clone(), false),
        };
        match inner {
            Ty::Key(ts) => self.field_key(b, ts, optional, field, span),
            Ty::Outcome(r) if !optional => self.field_outcome(b, r, field, span),
            Ty::Row(t) if !optional => self.field_row(b, t, field, span),
            Ty::Rec(r) => self.field_record(b, r, optional, field, span),
            Ty::Error => Self::err_expr(span),
            other => {
                let tn = self.ty_shown(&b.ty);
                let _ = other;
                self.err(
                    "E0201",
                    field.span,
                    format!("{tn} has no fields"),
                    format!("`.{}` on {tn}", field.name),
                    None,
                );
                Self::err_expr(span)
            }
        }
    }

    /// A column of a key's table (the same column in every table of a union), or its name.
    fn field_key(&mut self, b: Expr, ts: Vec<usize>, optional: bool, field: &ast::Ident, span: Span) -> Expr {
        let key_col = ts.first().map(|&t| self.tables[t].key_column.clone()).unwrap_or_default();
        if field.name == key_col || field.name == "name" {
            return Expr {
                kind: ExprKind::KeyName {
                    key: Box::new(b),
                    optional,
                },
                ty: wrap_opt(optional, Ty::Text),
                iv: Iv::UNKNOWN,
                span,
            };
        }
        let Some((col_ty, iv)) = self.union_column(&ts, field) else {
            return Self::err_expr(span);
        };
        let cty = col_ty.unwrap_or(Ty::Error);
        let iv = if cty == Ty::Int { iv.unwrap_or(Iv::UNKNOWN) } else { Iv::UNKNOWN };
        Expr {
            kind: ExprKind::KeyCol {
                key: Box::new(b),
                tables: ts,
                column: field.name.clone(),
                optional,
            },
            ty: wrap_opt(optional, cty),
            iv,
            span,
        }
    }

    /// The type of column `field` in every table of `ts`, and the interval of its integer
    /// cells; `None` (reported) when a table lacks it or the tables disagree on its type.
    fn union_column(&mut self, ts: &[usize], field: &ast::Ident) -> Option<(Option<Ty>, Option<Iv>)> {
        let mut col_ty: Option<Ty> = None;
        let mut iv: Option<Iv> = None;
        for &t in ts {
            let Some(ci) = self.tables[t].columns.iter().position(|(n, _)| *n == field.name) else {
                let in_none = ts.iter().all(|&x| !self.tables[x].columns.iter().any(|(n, _)| *n == field.name));
                let table = if in_none && ts.len() > 1 {
                    self.ty_name(&Ty::Key(ts.to_vec()))
                } else {
                    self.tables[t].name.clone()
                };
                self.err_unknown(
                    field.span,
                    format!("`{table}` has no column `{}`", field.name),
                    "unknown column",
                    &field.name,
                    self.tables[t].columns.iter().map(|(n, _)| n.clone()).collect(),
                    "column",
                );
                return None;
            };
            let cty = self.tables[t].columns[ci].1.clone();
            if let Some(prev) = &col_ty {
                if *prev != cty {
                    let table = self.tables[t].name.clone();
                    let (a, c) = (self.ty_shown(prev), self.ty_shown(&cty));
                    self.err(
                        "E0201",
                        field.span,
                        format!("column `{}` is {a} in one table and {c} in `{table}`", field.name),
                        "differs across the union",
                        None,
                    );
                    return None;
                }
            }
            col_ty = Some(cty);
            for row in &self.tables[t].rows {
                if let Some(Const::Int(v)) = row.cells.get(ci) {
                    iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                }
            }
        }
        Some((col_ty, iv))
    }

    /// An output of a called resolver.
    fn field_outcome(&mut self, b: Expr, r: usize, field: &ast::Ident, span: Span) -> Expr {
        match self.resolvers[r].outputs.iter().find(|o| o.name == field.name) {
            Some(o) => {
                let ty = o.ty.clone();
                Expr {
                    kind: ExprKind::Field(Box::new(b), field.name.clone()),
                    ty,
                    iv: Iv::UNKNOWN,
                    span,
                }
            }
            None => {
                let rn = self.resolvers[r].name.clone();
                self.err_unknown(
                    field.span,
                    format!("resolver `{rn}` has no output `{}`", field.name),
                    "unknown output",
                    &field.name,
                    self.resolvers[r].outputs.iter().map(|o| o.name.clone()).collect(),
                    "output",
                );
                Self::err_expr(span)
            }
        }
    }

    /// A column of a row-valued table lookup.
    fn field_row(&mut self, b: Expr, t: usize, field: &ast::Ident, span: Span) -> Expr {
        match self.tables[t].columns.iter().position(|(n, _)| *n == field.name) {
            Some(ci) => {
                let ty = self.tables[t].columns[ci].1.clone();
                let mut iv: Option<Iv> = None;
                for row in &self.tables[t].rows {
                    if let Some(Const::Int(v)) = row.cells.get(ci) {
                        iv = Some(iv.map_or(Iv::exact(*v), |i| i.join(Iv::exact(*v))));
                    }
                }
                Expr {
                    kind: ExprKind::Field(Box::new(b), field.name.clone()),
                    ty,
                    iv: iv.unwrap_or(Iv::UNKNOWN),
                    span,
                }
            }
            None => {
                let tn = self.tables[t].name.clone();
                self.err_unknown(
                    field.span,
                    format!("table `{tn}` has no column `{}`", field.name),
                    "unknown column",
                    &field.name,
                    self.tables[t].columns.iter().map(|(n, _)| n.clone()).collect(),
                    "column",
                );
                Self::err_expr(span)
            }
        }
    }

    /// A field of a record.
    fn field_record(&mut self, b: Expr, r: usize, optional: bool, field: &ast::Ident, span: Span) -> Expr {
        match self.records[r].fields.iter().find(|(n, _, _)| *n == field.name) {
            Some((_, fty, bounds)) => {
                let ty = wrap_opt(optional, fty.clone());
                let iv = match bounds {
                    Some((lo, hi)) => Iv::range(*lo, *hi),
                    None => Iv::UNKNOWN,
                };
                Expr {
                    kind: ExprKind::Field(Box::new(b), field.name.clone()),
                    ty,
                    iv,
                    span,
                }
            }
            None => {
                let rn = self.records[r].name.clone();
                self.err_unknown(
                    field.span,
                    format!("record `{rn}` has no field `{}`", field.name),
                    "unknown field",
                    &field.name,
                    self.records[r].fields.iter().map(|(n, _, _)| n.clone()).collect(),
                    "field",
                );
                Self::err_expr(span)
            }
        }
    }
}

/// `t`, made optional when the value it was read from is optional (and it is not already).
fn wrap_opt(optional: bool, t: Ty) -> Ty {
    if optional && !matches!(t, Ty::Opt(_)) {
        Ty::Opt(Box::new(t))
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_codes, only};

    #[test]
    fn an_unknown_name_suggests_the_nearest_in_scope() {
        let src = "resolver r \"R\" [1] {\n  in target_size: int 0..5\n  out x: int\n  set x = targt_size\n}\n";
        let (msg, help) = only(src, "E0101");
        assert_eq!(
            (msg.as_str(), help.as_str()),
            ("unknown name `targt_size`", "did you mean `target_size`?")
        );
    }

    #[test]
    fn variants_resolve_by_the_expected_type() {
        let enums = "enum e \"E\" [1] { a, b }\nenum f \"F\" [1] { b, c }\n";
        check_codes(&format!("{enums}resolver r \"R\" [1] {{\n  out x: e\n  set x = b\n}}\n"), &[]);
        check_codes(
            &format!("{enums}resolver r \"R\" [1] {{\n  out x: bool\n  set x = b == b\n}}\n"),
            &["E0201", "E0201"],
        );
    }

    #[test]
    fn a_variant_qualified_by_its_enum_is_never_hidden() {
        let src = |e: &str| {
            format!("enum rule \"R\" [1] {{ blockable, flanking }}\nresolver r \"R\" [1] {{\n  in flanking: bool = no\n  in rule: rule = blockable\n  out x: bool\n  set x = {e}\n}}\n")
        };
        check_codes(&src("rule == rule.flanking and flanking"), &[]);
        // Without an expected type the bare name is the input; qualified, it is the variant.
        check_codes(&src("flanking"), &[]);
        check_codes(&src("rule.flanking"), &["E0201"]);
        let (msg, help) = only(&src("rule == rule.flankng"), "E0101");
        assert_eq!(
            (msg.as_str(), help.as_str()),
            ("`flankng` is not a variant of `rule`", "did you mean `flanking`?")
        );
        // A record-valued name keeps its fields.
        let rec = "enum p \"P\" [1] { a }\nrecord q \"Q\" [1] { a: int }\nresolver r \"R\" [1] {\n  out x: p\n  set x = p.a\n}\n";
        check_codes(rec, &[]);
    }

    #[test]
    fn fields_of_records_and_keys() {
        let src = |field: &str| {
            format!("record p \"P\" [1] {{ a: int, b: bool }}\nresolver r \"R\" [1] {{\n  in v: p\n  out x: int\n  set x = v.{field}\n}}\n")
        };
        check_codes(&src("a"), &[]);
        assert_eq!(only(&src("c"), "E0101").0, "record `p` has no field `c`");
    }
}
