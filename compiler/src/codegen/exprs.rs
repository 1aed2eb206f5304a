//! Expressions: each expression kind, aggregates (`agg_code`), operators (`bin`), messages, a
//! `let`'s modifiers and dice specs.

use super::analysis::{is_copy, is_fresh};
use super::items::into_field;
use super::tables::from_static;
use super::{camel, lit, raw_ident, Gen};
use crate::ast::{Agg, BinOp, CmpOp};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// A `String` expression for a message with `{value}` parts (`require`, `note`).
    pub(super) fn message(&self, parts: &[MsgPart]) -> String {
        let mut fmt = String::new();
        let mut args = Vec::new();
        for p in parts {
            match p {
                MsgPart::Text(t) => fmt.push_str(&t.replace('{', "{{").replace('}', "}}")),
                MsgPart::Value(e) => {
                    fmt.push_str("{}");
                    args.push(self.to_value(&self.expr(e), &e.ty));
                }
            }
        }
        if args.is_empty() {
            format!("{}.to_string()", lit(&fmt))
        } else {
            format!("format!({}, {})", lit(&fmt), args.join(", "))
        }
    }

    pub(super) fn modifier(&self, m: &Mod, var: &str, ty: &Ty, base: &str, o: &mut String) {
        match m {
            Mod::One { value, name, when, cite } => {
                let v = self.num_as(value, ty);
                let apply = format!(
                    "let m: {rt} = {v}; {add}\nif T::ENABLED && m != {zero} {{ {base} trace.event(rt::Event::Modifier {{ name: {n}.to_string(), value: {mv}, cite: {c}.to_string() }}); }}",
                    rt = self.rty(ty),
                    add = self.add_assign(var, "m", ty),
                    zero = if *ty == Ty::Dec { "rt::Dec::ZERO" } else { "0" },
                    n = lit(name),
                    mv = self.to_value("m", ty),
                    c = lit(cite)
                );
                match when {
                    Some(w) => {
                        let _ = writeln!(o, "if {} {{ {apply} }}", self.expr(w));
                    }
                    None => {
                        let _ = writeln!(o, "{{ {apply} }}");
                    }
                }
            }
            Mod::Highest { name, mods } => {
                // Only the highest applicable modifier of the group counts.
                let _ = writeln!(o, "{{ let mut best: Option<({}, &'static str, &'static str)> = None;", self.rty(ty));
                for m in mods {
                    if let Mod::One { value, name, when, cite } = m {
                        let cond = when.as_ref().map(|w| self.expr(w)).unwrap_or_else(|| "true".into());
                        let _ = writeln!(
                            o,
                            "if {cond} {{ let m = {}; if best.map_or(true, |b| m > b.0) {{ best = Some((m, {}, {})); }} }}",
                            self.num_as(value, ty),
                            lit(name),
                            lit(cite)
                        );
                    }
                }
                let _ = writeln!(
                    o,
                    "if let Some((m, n, c)) = best {{ {} if T::ENABLED {{ {base} trace.event(rt::Event::Modifier {{ name: format!(\"{{}} ({})\", n), value: {}, cite: c.to_string() }}); }} }} }}",
                    self.add_assign(var, "m", ty),
                    name.replace('{', "{{").replace('}', "}}"),
                    self.to_value("m", ty)
                );
            }
        }
    }

    fn add_assign(&self, var: &str, m: &str, ty: &Ty) -> String {
        if *ty == Ty::Dec {
            format!("{var} = {var}.checked_add({m})?;")
        } else {
            format!("{var} = {var}.checked_add({m}).ok_or_else(|| rt::Error::Overflow)?;")
        }
    }

    fn num_as(&self, e: &Expr, ty: &Ty) -> String {
        if *ty == Ty::Dec && e.ty == Ty::Int {
            format!("rt::Dec::from_int({})", self.expr(e))
        } else {
            self.expr(e)
        }
    }

    /// `label` names the roll in the error for a dice count outside 0..=65535.
    pub(super) fn spec(&self, d: &Dice, label: &str) -> String {
        let read = match &d.read {
            Read::Sum => "rt::Read::Sum".to_string(),
            Read::KeepHighest(k) => format!("rt::Read::KeepHighest({k})"),
            Read::KeepLowest(k) => format!("rt::Read::KeepLowest({k})"),
            Read::Flux => "rt::Read::Flux".into(),
            Read::BadFlux => "rt::Read::BadFlux".into(),
            Read::Percentile => "rt::Read::Percentile".into(),
            Read::Explode(depth) => format!("rt::Read::Explode({depth})"),
            Read::SumFloor { per_die, floor } => format!(
                "rt::Read::SumFloor {{ per_die: i8::try_from({}).map_err(|_| rt::Error::Overflow)?, floor: {floor} }}",
                self.expr(per_die)
            ),
            Read::Opposed { first_mod, second_mod, .. } => {
                let side_mod = |m: &Expr| match m.kind {
                    ExprKind::Const(Const::Int(v)) => format!("{v}"),
                    _ => format!("i32::try_from({}).map_err(|_| rt::Error::Overflow)?", self.expr(m)),
                };
                format!(
                    "rt::Read::Opposed {{ first: first_count, first_mod: {}, second_mod: {} }}",
                    side_mod(first_mod),
                    side_mod(second_mod)
                )
            }
        };
        // A computed reroll range is evaluated after the count and the read, as the fields are written.
        let reroll = match (d.const_reroll(), &d.reroll) {
            (Some(Some((a, b))), _) => format!("Some(({a}, {b}))"),
            (Some(None), _) | (None, None) => "None".into(),
            (None, Some((a, b))) => format!("Some(({}, {}))", self.expr(a), self.expr(b)),
        };
        let count_of = |e: &Expr| {
            match &e.kind {
            ExprKind::Const(Const::Int(n)) => format!("{n}"),
            _ => format!(
                "{{ let n: i64 = {}; u16::try_from(n).map_err(|_| rt::Error::Domain {{ what: format!(\"dice count {{}} is {{}} in roll `{{}}` ({{}})\", n, if n < 0 {{ \"negative\" }} else {{ \"too large\" }}, {}, {}) }})? }}",
                self.expr(e),
                lit(label),
                lit(&d.notation)
            ),
        }
        };
        let count = count_of(&d.count);
        let body = format!(
            "rt::DiceSpec {{ count: {}, sides: {}, zero_based: {}, read: {read}, reroll: {reroll} }}",
            if matches!(d.read, Read::Opposed { .. }) {
                "first_count.checked_add(second_count).ok_or(rt::Error::Overflow)?"
            } else {
                &count
            },
            d.sides,
            d.zero_based
        );
        // An opposed roll counts both sides' dice: each side's count first, then the spec.
        if let Read::Opposed { second, .. } = &d.read {
            return format!(
                "{{ let first_count: u16 = {count}; let second_count: u16 = {}; {body} }}",
                count_of(second)
            );
        }
        if body.contains('?') || d.const_reroll().is_none() {
            return format!("({body})");
        }
        let mut specs = self.specs.borrow_mut();
        let text = |i: usize| format!("const SPEC_{i}: rt::DiceSpec = {body};");
        if let Some(i) = (0..specs.len()).find(|&i| specs[i] == text(i)) {
            return format!("SPEC_{i}");
        }
        let i = specs.len();
        specs.push(text(i));
        format!("SPEC_{i}")
    }

    fn plain_int(&self, e: &Expr) -> bool {
        e.iv.known && e.iv.fits_i64()
    }

    /// An expression's code. What a view moved into a later statement works out for an item
    /// (`Gen::view_bodies`) is marked as its `let`'s while it runs, then as the statement's again.
    pub(super) fn expr(&self, e: &Expr) -> String {
        let view_of = self.view_bodies.borrow().get(&(std::ptr::from_ref::<Expr>(e) as usize)).cloned();
        let code = self.expr_code(e);
        let Some(view_at) = view_of else {
            return code;
        };
        let now = self.current_at.borrow().clone();
        match (self.site_index(&view_at), self.site_index(&now)) {
            (Some(v), Some(n)) if code.contains('?') || code.contains("Err(") => {
                format!("{{ rt_at.set({v}); let rt_k = {code}; rt_at.set({n}); rt_k }}")
            }
            _ => code,
        }
    }

    fn expr_code(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => self.konst(c, &e.ty, false),
            ExprKind::Local(v) => {
                if let Some(inl) = self.inlined.borrow().get(v).copied() {
                    return self.expr(inl);
                }
                // A lazy copy (a `Cow`) reads as the slice it holds, as a list input does: it
                // compares with any other list.
                if self.ref_locals.borrow().contains(v) || self.lazy_locals.borrow().contains_key(v) {
                    format!("(*{v})")
                } else {
                    v.clone()
                }
            }
            // The body reads its arguments (`RtArgs…`), where an input that is not `Copy` is a
            // reference to the caller's value.
            ExprKind::Input(n) => {
                if is_copy(&e.ty) {
                    format!("inp.{}", raw_ident(n))
                } else {
                    format!("(*inp.{})", raw_ident(n))
                }
            }
            ExprKind::Output(n) => format!("out.{}", raw_ident(n)),
            ExprKind::KeyCol {
                key,
                tables,
                column,
                optional,
            } => self.key_col_code(key, tables, column, *optional, e),
            ExprKind::KeyName { key, optional } => {
                if *optional {
                    format!("({}).map(|k| rt::Text::Static(k.name))", self.expr(key))
                } else {
                    format!("rt::Text::Static(({}).name)", self.expr(key))
                }
            }
            ExprKind::Field(b, f) => self.field_code(b, f, e),
            ExprKind::Lookup { table, args } => self.lookup_code(*table, args, e),
            ExprKind::Func(f, args) => self.func_code(f, args),
            ExprKind::Agg { kind, var, list, body } => self.agg_expr(*kind, var, list, body),
            ExprKind::Neg(x) => {
                if x.ty == Ty::Dec {
                    format!("({}).checked_neg()?", self.expr(x))
                } else if self.plain_int(x) && self.plain_int(e) {
                    format!("(-({}))", self.expr(x))
                } else {
                    format!("({}).checked_neg().ok_or_else(|| rt::Error::Overflow)?", self.expr(x))
                }
            }
            ExprKind::Not(x) => format!("(!({}))", self.expr(x)),
            ExprKind::Bin(op, a, b) => self.bin(*op, a, b, e),
            ExprKind::Cmp(op, a, b) => self.cmp_code(*op, a, b),
            ExprKind::In(x, list) => {
                let xs = self.expr(x);
                let ls = self.expr(list);
                match &x.ty {
                    Ty::Opt(_) => {
                        format!("(match {xs} {{ Some(v) => ({ls}).contains(&v), None => false }})")
                    }
                    _ => format!("({ls}).contains(&{xs})"),
                }
            }
            ExprKind::Is(x, tables) => {
                let ids: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
                match &x.ty {
                    Ty::Opt(_) => format!(
                        "(match {} {{ Some(k) => matches!(k.table, {}), None => false }})",
                        self.expr(x),
                        ids.join(" | ")
                    ),
                    _ => format!("matches!(({}).table, {})", self.expr(x), ids.join(" | ")),
                }
            }
            ExprKind::If(arms, otherwise) => {
                let mut s = String::new();
                for (i, (c, v)) in arms.iter().enumerate() {
                    let _ = write!(
                        s,
                        "{}if {} {{ {} }}",
                        if i == 0 { "" } else { " else " },
                        self.expr(c),
                        self.owned_expr(v)
                    );
                }
                let _ = write!(s, " else {{ {} }}", self.owned_expr(otherwise));
                format!("({s})")
            }
            ExprKind::ToDec(x) => format!("rt::Dec::from_int({})", self.expr(x)),
            ExprKind::Construct { rec, fields } => self.construct_code(*rec, fields),
            ExprKind::With { base, rec, updates } => self.with_code(base, *rec, updates),
            ExprKind::Some(x) => format!("Some({})", self.owned_expr(x)),
            ExprKind::List(items) => format!("vec![{}]", items.iter().map(|x| self.owned_expr(x)).collect::<Vec<_>>().join(", ")),
        }
    }

    /// A column of the row a key names (`key_col_…`), none for a key that may be none and is.
    fn key_col_code(&self, key: &Expr, tables: &[usize], column: &str, optional: bool, e: &Expr) -> String {
        let id = self.key_col_id(tables, column);
        if optional {
            let code = format!(
                "(match {} {{ Some(k) => Some(key_col_{id}(k)?), None => None }}){}",
                self.expr(key),
                self.flatten_suffix(tables, column)
            );
            from_static(&code, &e.ty)
        } else {
            from_static(&format!("key_col_{id}({})?", self.expr(key)), &e.ty)
        }
    }

    /// A field of a record, an outcome or a table row; of a record that may be none, none then.
    fn field_code(&self, b: &Expr, f: &str, e: &Expr) -> String {
        if let Ty::Opt(inner) = &b.ty {
            // A field of a record that may be none is itself none then.
            let field_ty = match &e.ty {
                Ty::Opt(x) => (**x).clone(),
                x => x.clone(),
            };
            let inner_code = self.owned(&format!("r.{}", raw_ident(f)), &field_ty);
            let nested_opt =
                matches!(&**inner, Ty::Rec(ri) if self.sys.records[*ri].fields.iter().any(|(n, t, _)| n == f && matches!(t, Ty::Opt(_))));
            // Read through a reference to the record where one can be had: only the field
            // is copied, not the record (and the records it is in).
            if let Some(r) = self.opt_ref(b) {
                let step = if nested_opt { "and_then" } else { "map" };
                return format!("({r}).{step}(|r| {inner_code})");
            }
            return if nested_opt {
                format!("({}).as_ref().and_then(|r| {inner_code})", self.expr(b))
            } else {
                format!("({}).as_ref().map(|r| {inner_code})", self.expr(b))
            };
        }
        let code = format!("{}.{}", self.expr(b), raw_ident(f));
        if matches!(b.ty, Ty::Row(_)) {
            from_static(&code, &e.ty)
        } else {
            code
        }
    }

    /// A table lookup (`lookup_…`), its arguments worked out first.
    fn lookup_code(&self, table: usize, args: &[Expr], e: &Expr) -> String {
        let t = &self.sys.tables[table];
        // Arguments are evaluated first: one of them may itself look up a table (and use `trace`).
        let lets: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(i, x)| format!("let a{i} = {};", self.expr(x)))
            .collect();
        let names: Vec<String> = (0..args.len()).map(|i| format!("a{i}")).collect();
        let code = format!("{{ {} lookup_{}(trace, {})? }}", lets.join(" "), t.name, names.join(", "));
        if t.result.is_some() {
            from_static(&code, &e.ty)
        } else {
            code
        }
    }

    /// A built-in function.
    fn func_code(&self, f: &Func, args: &[Expr]) -> String {
        let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
        let is_dec = args.first().is_some_and(|x| x.ty == Ty::Dec);
        match f {
            Func::Floor => {
                if is_dec {
                    format!("({}).floor()", a[0])
                } else {
                    a[0].clone()
                }
            }
            Func::Ceil => {
                if is_dec {
                    format!("({}).ceil()", a[0])
                } else {
                    a[0].clone()
                }
            }
            Func::Round => {
                if is_dec {
                    format!("({}).round_half_up()", a[0])
                } else {
                    a[0].clone()
                }
            }
            Func::Abs => {
                if is_dec {
                    format!("{{ let a = {}; if a < rt::Dec::ZERO {{ a.checked_neg()? }} else {{ a }} }}", a[0])
                } else {
                    format!("({}).checked_abs().ok_or_else(|| rt::Error::Overflow)?", a[0])
                }
            }
            Func::Sqrt => format!("rt::isqrt({})?", a[0]),
            Func::SqrtPlaces(p) => format!("rt::dec_sqrt({}, {p})?", a[0]),
            Func::Len => format!("(({}).len() as i64)", a[0]),
            Func::Min => a.iter().skip(1).fold(a[0].clone(), |acc, x| format!("std::cmp::min({acc}, {x})")),
            Func::Max => a.iter().skip(1).fold(a[0].clone(), |acc, x| format!("std::cmp::max({acc}, {x})")),
            Func::Clamp => format!(
                "std::cmp::min(std::cmp::max({}, {}), std::cmp::max({}, {}))",
                a[0], a[1], a[1], a[2]
            ),
        }
    }

    /// An aggregate over a list: over references to the items of a place or of a view of one,
    /// else over the list's items (copied only when kept).
    fn agg_expr(&self, kind: Agg, var: &str, list: &Expr, body: &Expr) -> String {
        // Over the items of a place, or of a filtered or sorted view of one: references.
        if let Some(items) = self.ref_items(list) {
            self.ref_locals.borrow_mut().insert(var.to_string());
            return self.agg_code(kind, var, &items, body, &format!("{var}.clone()"));
        }
        let l = self.expr(list);
        let elem = match &list.ty {
            Ty::List(t) => (**t).clone(),
            _ => Ty::Error,
        };
        // Copy elements are iterated by value, others in place by reference (cloned only
        // when kept).
        let it = if is_copy(&elem) {
            ".iter().copied()"
        } else {
            self.ref_locals.borrow_mut().insert(var.to_string());
            self.place_iter(list)
        };
        let keep = if is_copy(&elem) {
            var.to_string()
        } else {
            format!("{var}.clone()")
        };
        self.agg_code(kind, var, &format!("({l}){it}"), body, &keep)
    }

    /// A comparison; keys compare by their row (`rt_key_eq`).
    fn cmp_code(&self, op: CmpOp, a: &Expr, b: &Expr) -> String {
        // An optional value against a value that is not (made optional, `Some(...)`):
        // compared by reference, without copying the value.
        if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            fn some_of(e: &Expr) -> Option<&Expr> {
                match &e.kind {
                    ExprKind::Some(x) if !is_copy(&x.ty) => Some(x),
                    _ => None,
                }
            }
            let pair = match (some_of(a), some_of(b)) {
                (None, Some(y)) if matches!(a.ty, Ty::Opt(_)) => Some((a, y)),
                (Some(x), None) if matches!(b.ty, Ty::Opt(_)) => Some((b, x)),
                _ => None,
            };
            if let Some((opt, val)) = pair {
                let (o, v) = (self.expr(opt), self.expr(val));
                return format!("((({o}).as_ref()) {} (Some(&{v})))", op.symbol());
            }
        }
        let (x, y) = (self.expr(a), self.expr(b));
        match (&a.ty, &b.ty, op) {
            (Ty::Opt(_), _, CmpOp::Eq | CmpOp::Ne) | (_, Ty::Opt(_), CmpOp::Eq | CmpOp::Ne) => {
                format!("(({x}) {} ({y}))", op.symbol())
            }
            (Ty::Key(_), Ty::Key(_), CmpOp::Eq) => format!("rt_key_eq({x}, {y})"),
            (Ty::Key(_), Ty::Key(_), CmpOp::Ne) => format!("(!rt_key_eq({x}, {y}))"),
            _ => format!("(({x}) {} ({y}))", op.symbol()),
        }
    }

    /// A record built from its fields, each bounded one checked.
    fn construct_code(&self, rec: usize, fields: &[(String, Expr)]) -> String {
        let r = &self.sys.records[rec];
        let mut code = String::from("{ ");
        for (i, (_, x)) in fields.iter().enumerate() {
            let _ = write!(code, "let f{i} = {}; ", self.owned_expr(x));
        }
        code.push_str(&self.field_checks(r, fields.iter().enumerate().map(|(i, (n, _))| (n.as_str(), format!("f{i}")))));
        let inits: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(i, (n, x))| format!("{}: {}", raw_ident(n), into_field(format!("f{i}"), &x.ty)))
            .collect();
        let _ = write!(code, "{} {{ {} }} }}", camel(&r.name), inits.join(", "));
        code
    }

    /// `base with (...)`: every new value worked out (and checked) before any field changes; a
    /// record read in place copies only the fields that keep their value.
    fn with_code(&self, base: &Expr, rec: usize, updates: &[(String, Expr)]) -> String {
        let r = &self.sys.records[rec];
        // Every new value is computed from the old record before any field changes.
        let mut code = String::from("{ ");
        for (i, (_, x)) in updates.iter().enumerate() {
            let _ = write!(code, "let u{i} = {}; ", self.owned_expr(x));
        }
        code.push_str(&self.field_checks(r, updates.iter().enumerate().map(|(i, (n, _))| (n.as_str(), format!("u{i}")))));
        if !is_fresh(base) && !is_copy(&base.ty) {
            // A record read in place: copy only the fields that keep their value.
            let _ = write!(code, "let rt_base = &{}; ", self.expr(base));
            let inits: Vec<String> = r
                .fields
                .iter()
                .map(|(n, t, _)| match updates.iter().position(|(u, _)| u == n) {
                    Some(i) => format!("{}: {}", raw_ident(n), into_field(format!("u{i}"), t)),
                    // A list field is shared, not copied item by item (`rt::List`).
                    None if matches!(t, Ty::List(_)) => format!("{}: rt_base.{}.clone()", raw_ident(n), raw_ident(n)),
                    None => format!("{}: {}", raw_ident(n), self.owned(&format!("rt_base.{}", raw_ident(n)), t)),
                })
                .collect();
            let _ = write!(code, "{} {{ {} }} }}", camel(&r.name), inits.join(", "));
            return code;
        }
        let _ = write!(code, "let mut r = {}; ", self.owned_expr(base));
        for (i, (n, x)) in updates.iter().enumerate() {
            let _ = write!(code, "r.{} = {}; ", raw_ident(n), into_field(format!("u{i}"), &x.ty));
        }
        code.push_str("r }");
        code
    }

    /// An aggregate over `items`, an iterator expression; `keep` is an item's owned copy.
    fn agg_code(&self, kind: Agg, var: &str, items: &str, body: &Expr, keep: &str) -> String {
        let dec = body.ty == Ty::Dec;
        let b = self.expr(body);
        match kind {
            Agg::Map => {
                let pushed = if is_fresh(body) { b.clone() } else { self.owned(&b, &body.ty) };
                // As many items as the list has: one allocation.
                return format!("{{ match {items} {{ rt_items => {{ let mut acc = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ acc.push({pushed}); }} acc }} }} }}");
            }
            Agg::Filter => {
                // Room for every item (up to 64) at the first one kept; none kept, no allocation.
                return format!("{{ match {items} {{ rt_items => {{ let rt_room = rt::room(&rt_items).min(64); let mut acc = Vec::new(); for {var} in rt_items {{ if {b} {{ if acc.capacity() == 0 {{ acc.reserve_exact(rt_room); }} acc.push({keep}); }} }} acc }} }} }}");
            }
            Agg::First => {
                return format!("{{ let mut acc = None; for {var} in {items} {{ if {b} {{ acc = Some({keep}); break; }} }} acc }}")
            }
            Agg::Sort | Agg::SortDesc => {
                let cmp = if matches!(kind, Agg::Sort) {
                    "a.0.cmp(&b.0)"
                } else {
                    "b.0.cmp(&a.0)"
                };
                // Items read by reference are sorted as references and copied once, in order: a
                // large item (a unit) moved at every step of the sort was a large copy.
                let take = if keep == var { "x" } else { "x.clone()" };
                return format!("{{ match {items} {{ rt_items => {{ let mut keyed = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ keyed.push(({b}, {var})); }} keyed.sort_by(|a, b| {cmp}); keyed.into_iter().map(|(_, x)| {take}).collect::<Vec<_>>() }} }} }}");
            }
            _ => {}
        }
        match kind {
            Agg::Sum => {
                if dec {
                    format!("{{ let mut acc = rt::Dec::ZERO; for {var} in {items} {{ acc = acc.checked_add({b})?; }} acc }}")
                } else {
                    format!("{{ let mut acc: i64 = 0; for {var} in {items} {{ acc = acc.checked_add({b}).ok_or_else(|| rt::Error::Overflow)?; }} acc }}")
                }
            }
            Agg::Product => {
                if dec {
                    format!("{{ let mut acc = rt::Dec::ONE; for {var} in {items} {{ acc = acc.checked_mul({b})?; }} acc }}")
                } else {
                    format!("{{ let mut acc: i64 = 1; for {var} in {items} {{ acc = acc.checked_mul({b}).ok_or_else(|| rt::Error::Overflow)?; }} acc }}")
                }
            }
            Agg::Count => {
                format!("{{ let mut acc: i64 = 0; for {var} in {items} {{ if {b} {{ acc += 1; }} }} acc }}")
            }
            Agg::Any => {
                format!("{{ let mut acc = false; for {var} in {items} {{ if {b} {{ acc = true; break; }} }} acc }}")
            }
            Agg::All => format!("{{ let mut acc = true; for {var} in {items} {{ if !({b}) {{ acc = false; break; }} }} acc }}"),
            Agg::Map | Agg::Filter | Agg::First | Agg::Sort | Agg::SortDesc => String::new(),
            Agg::Max | Agg::Min => {
                let (zero, cmp) = (
                    if dec { "rt::Dec::ZERO" } else { "0i64" },
                    if matches!(kind, Agg::Max) { ">" } else { "<" },
                );
                format!("{{ let mut acc = None; for {var} in {items} {{ let x = {b}; if acc.map_or(true, |a| x {cmp} a) {{ acc = Some(x); }} }} acc.unwrap_or({zero}) }}")
            }
        }
    }

    fn bin(&self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> String {
        let (x, y) = (self.expr(a), self.expr(b));
        match op {
            BinOp::And => format!("({x} && {y})"),
            BinOp::Or => format!("({x} || {y})"),
            // The fallback is evaluated only when needed (`docs/dsl.md`, "Optional values"): a
            // `match`, not `unwrap_or`, and not a closure, since the fallback may return an error
            // from the resolver; by reference where the value is not `Copy`, so a value inside an
            // input or record is cloned, not moved.
            BinOp::Coalesce => {
                let copy = is_copy(&e.ty);
                let v = if copy { "v" } else { "v.clone()" };
                let (some, fallback) = if matches!(b.ty, Ty::Opt(_)) {
                    // Both optional: the first that is set.
                    (format!("Some({v})"), self.owned(&y, &b.ty))
                } else if e.ty == Ty::Dec && a.ty == Ty::Opt(Box::new(Ty::Int)) {
                    // `int? ?? decimal`: the whole number, when set, as an exact decimal.
                    (format!("rt::Dec::from_int({v})"), y)
                } else {
                    (v.to_string(), self.owned(&y, &e.ty))
                };
                let scrutinee = if copy { x } else { format!("&{x}") };
                format!("(match {scrutinee} {{ Some(v) => {some}, None => {fallback} }})")
            }
            BinOp::Add if matches!(e.ty, Ty::List(_)) => {
                // Lists built for the sum are taken as they are; lists in places are copied.
                let first = if is_fresh(a) { x } else { format!("({x}).to_vec()") };
                let more = if is_fresh(b) { y } else { format!("({y}).iter().cloned()") };
                format!("{{ let mut v = {first}; v.extend({more}); rt::list_room(v.len())?; v }}")
            }
            _ if e.ty == Ty::Dec => {
                let m = match op {
                    BinOp::Add => "checked_add",
                    BinOp::Sub => "checked_sub",
                    BinOp::Mul => "checked_mul",
                    _ => "checked_div",
                };
                format!("({x}).{m}({y})?")
            }
            _ => {
                let plain = self.plain_int(a) && self.plain_int(b) && self.plain_int(e);
                let (sym, m) = match op {
                    BinOp::Add => ("+", "checked_add"),
                    BinOp::Sub => ("-", "checked_sub"),
                    BinOp::Mul => ("*", "checked_mul"),
                    _ => ("%", "checked_rem_euclid"),
                };
                if plain && op != BinOp::Rem {
                    format!("({x} {sym} {y})")
                } else if op == BinOp::Rem {
                    format!("rt::rem({x}, {y})?")
                } else {
                    format!("({x}).{m}({y}).ok_or_else(|| rt::Error::Overflow)?")
                }
            }
        }
    }
}
