//! Ownership: when a value is copied, lent, moved or changed in place. Liveness over what may
//! still run (`dead`, `input_dead`, `local_dead_to_give`, `unread_later`), lists moved out
//! (`value`, `take_local`), lazy copies (`lazy_copy`, `changed`), and updates and appends made in
//! place (`update_in_place`, `append_in_place`, `moved_update`).

use super::analysis::{expr_reads, field_path, is_copy, is_fresh, may_leave, stmt_reads, stmt_reads_input};
use super::{raw_ident, Gen};
use crate::ast::{Agg, BinOp};
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// `xs = map(x in xs: if c then x with (f: v) else x)` (what `xs = update(x in xs where c:
    /// ...)` is) written as a loop that changes the matching items of `xs` in place, setting only
    /// the fields that change, instead of building a new list. The same for several arms
    /// (`if ... else if ... else x`) and for a body that is a `with` on every item. It applies only
    /// when the conditions and new values do not read `xs` itself (they would see it half changed);
    /// values are all computed, and checked, before any field changes, as the copy would.
    pub(super) fn update_in_place(&self, var: &str, value: &Expr) -> Option<String> {
        let ExprKind::Agg {
            kind: Agg::Map,
            var: x,
            list,
            body,
        } = &value.kind
        else {
            return None;
        };
        if !matches!(&list.kind, ExprKind::Local(l) if l == var) || !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
            return None;
        }
        if body.mentions_local(var) {
            return None;
        }
        let arms: Vec<(Option<&Expr>, &Expr)> = match &body.kind {
            ExprKind::If(arms, otherwise) if matches!(&otherwise.kind, ExprKind::Local(o) if o == x) => {
                arms.iter().map(|(c, v)| (Some(c), v)).collect()
            }
            ExprKind::With { base, .. } if matches!(&base.kind, ExprKind::Local(b) if b == x) => vec![(None, &**body)],
            _ => return None,
        };
        self.ref_locals.borrow_mut().insert(x.clone());
        let mut o = String::new();
        let _ = writeln!(o, "for {x}_mut in {}.iter_mut() {{", self.changed(var));
        // Which arm applies, read from the item as it is.
        let mut pick = String::new();
        for (i, (c, _)) in arms.iter().enumerate() {
            match c {
                Some(c) => {
                    let _ = write!(pick, "{}if {} {{ {i}usize }}", if i == 0 { "" } else { " else " }, self.expr(c));
                }
                None => {
                    let _ = write!(pick, "{i}usize");
                }
            }
        }
        if arms.iter().any(|(c, _)| c.is_some()) {
            pick.push_str(" else { usize::MAX }");
        }
        let _ = writeln!(o, "let {x}_arm: usize = {{ let {x} = &*{x}_mut; {pick} }};");
        let _ = writeln!(o, "match {x}_arm {{");
        for (i, (_, v)) in arms.iter().enumerate() {
            let _ = writeln!(o, "{i}usize => {{");
            match &v.kind {
                ExprKind::With { base, rec, updates } if matches!(&base.kind, ExprKind::Local(b) if b == x) => {
                    // Every new value first (reading the item as it is), then every field.
                    let mut vals = String::new();
                    let mut sets = Vec::new();
                    self.with_leaves(x, &[], *rec, updates, &mut vals, &mut sets);
                    let names: Vec<&str> = sets.iter().map(|(_, u, _, _)| u.as_str()).collect();
                    let _ = writeln!(
                        o,
                        "let ({},) = {{ let {x} = &*{x}_mut; {vals} ({},) }};",
                        names.join(", "),
                        names.join(", ")
                    );
                    for (path, u, extend, list) in &sets {
                        if *extend {
                            let _ = writeln!(
                                o,
                                "if let Some(more) = {u} {{ {x}_mut.{path}.extend(more); rt::list_room({x}_mut.{path}.len())?; }}"
                            );
                        } else if *list {
                            let _ = writeln!(o, "{x}_mut.{path} = rt::List::from({u});");
                        } else {
                            let _ = writeln!(o, "{x}_mut.{path} = {u};");
                        }
                    }
                }
                _ => {
                    let _ = writeln!(o, "let {x}_new = {{ let {x} = &*{x}_mut; {} }};", self.owned_expr(v));
                    let _ = writeln!(o, "*{x}_mut = {x}_new;");
                }
            }
            o.push_str(
                "}
",
            );
        }
        o.push_str(
            "_ => {}
}
}
",
        );
        Some(o)
    }

    /// `xs = xs + more` as `xs.extend(more)`, when `more` does not read `xs`.
    pub(super) fn append_in_place(&self, var: &str, value: &Expr) -> Option<String> {
        let ExprKind::Bin(BinOp::Add, a, b) = &value.kind else {
            return None;
        };
        if !matches!(value.ty, Ty::List(_)) || !matches!(&a.kind, ExprKind::Local(l) if l == var) || b.mentions_local(var) {
            return None;
        }
        if let ExprKind::List(items) = &b.kind {
            // `xs = xs + [a, b]`: every new item first (as the list literal would), then pushed,
            // without a list for them.
            let mut code = String::from("{ ");
            for (i, x) in items.iter().enumerate() {
                let _ = write!(code, "let a{i} = {}; ", self.owned_expr(x));
            }
            for i in 0..items.len() {
                let _ = write!(code, "{}.push(a{i}); ", self.changed(var));
            }
            // A list grows no longer than `rt::MAX_LIST_LEN`.
            let _ = write!(code, "rt::list_room({var}.len())?; ");
            code.push_str("}\n");
            return Some(code);
        }
        let y = self.expr(b);
        let more = if is_fresh(b) { y } else { format!("({y}).iter().cloned()") };
        Some(format!("{}.extend({more});\nrt::list_room({var}.len())?;\n", self.changed(var)))
    }

    /// The fields a `with` on the item `x` (at `path`) sets, flattening a nested `f: x.f with (...)`
    /// into the fields it sets: each value's `let` (and the record's range checks, as the copy
    /// would do them) goes to `vals`, each `(path, value variable, extend, list)` to `sets`. A list
    /// field that only grows (`f: x.f + more`, or `f: if c then x.f + more else x.f`) is extended
    /// where it is (`extend`: the variable holds `Some(more)` or `None`), not built anew.
    fn with_leaves(
        &self,
        x: &str,
        path: &[&str],
        rec: usize,
        updates: &[(String, Expr)],
        vals: &mut String,
        sets: &mut Vec<(String, String, bool, bool)>,
    ) {
        let r = &self.sys.records[rec];
        let mut level = Vec::new();
        for (n, e) in updates {
            let mut inner = path.to_vec();
            inner.push(n);
            if let ExprKind::With {
                base,
                rec: r2,
                updates: u2,
            } = &e.kind
            {
                if field_path(base, x).is_some_and(|p| p == inner) {
                    self.with_leaves(x, &inner, *r2, u2, vals, sets);
                    continue;
                }
            }
            let u = format!("{x}_u{}", sets.len());
            let place = inner.iter().map(|f| raw_ident(f)).collect::<Vec<_>>().join(".");
            if let Some((cond, more)) = self.grows(x, &inner, e) {
                // A list literal (`x.f + [a]`) is added as an array: no list is allocated for it.
                let (more, ty) = match &more.kind {
                    ExprKind::List(items) => {
                        let items: Vec<String> = items.iter().map(|i| self.owned_expr(i)).collect();
                        (format!("[{}]", items.join(", ")), format!("[_; {}]", items.len()))
                    }
                    _ => (self.owned_expr(more), "Vec<_>".to_string()),
                };
                let code = match cond {
                    Some(c) => format!("if {} {{ Some({more}) }} else {{ None }}", self.expr(c)),
                    None => format!("Some({more})"),
                };
                let _ = write!(vals, "let {u}: Option<{ty}> = {code}; ");
                sets.push((place, u, true, true));
                continue;
            }
            if matches!(&e.kind, ExprKind::List(items) if items.is_empty()) {
                // A list field emptied (`attackers: []`, each unit at each Battle Round's end):
                // the empty `rt::List`, no list made for it first.
                let _ = write!(vals, "let {u} = rt::List::new(); ");
                level.push((n.as_str(), u.clone()));
                sets.push((place, u, false, false));
                continue;
            }
            let _ = write!(vals, "let {u} = {}; ", self.owned_expr(e));
            level.push((n.as_str(), u.clone()));
            sets.push((place, u, false, matches!(e.ty, Ty::List(_))));
        }
        vals.push_str(&self.field_checks(r, level.into_iter()));
    }

    /// Is `e`, the new value of the list field at `path` of the item `x`, that field grown:
    /// `x.f + more` (no condition) or `if c then x.f + more else x.f`? Then the condition and what
    /// is added, which must not read the field itself.
    fn grows<'e>(&self, x: &str, path: &[&str], e: &'e Expr) -> Option<(Option<&'e Expr>, &'e Expr)> {
        if !matches!(e.ty, Ty::List(_)) {
            return None;
        }
        let is_field = |f: &Expr| field_path(f, x).is_some_and(|p| p == path);
        let added = |v: &'e Expr| match &v.kind {
            ExprKind::Bin(BinOp::Add, a, b) if is_field(a) && !expr_reads(b, x, Some(path[0])) => Some(&**b),
            _ => None,
        };
        match &e.kind {
            ExprKind::If(arms, otherwise) if arms.len() == 1 && is_field(otherwise) => {
                let (c, v) = &arms[0];
                Some((Some(c), added(v)?))
            }
            _ => Some((None, added(e)?)),
        }
    }

    /// The owned value of an expression: a place (a local, an input, a field) is copied, a value
    /// the expression builds (a record, a list, a lookup) is used as it is.
    pub(super) fn owned_expr(&self, e: &Expr) -> String {
        let code = self.expr(e);
        if is_copy(&e.ty) || !is_fresh(e) {
            self.owned(&code, &e.ty)
        } else {
            code
        }
    }

    /// An owned copy of a value expression (inputs and fields are read in place).
    pub(super) fn owned(&self, code: &str, ty: &Ty) -> String {
        match ty {
            Ty::List(_) => format!("({code}).to_vec()"),
            t if is_copy(t) => code.to_string(),
            _ => format!("({code}).clone()"),
        }
    }

    /// Is this place part of an input, or of an item read in place (a reference local)? Nothing
    /// changes those while the resolver runs.
    pub(super) fn lendable_root(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Input(_) => true,
            ExprKind::Local(v) => self.ref_locals.borrow().contains(v),
            ExprKind::Field(b, _) => self.lendable_root(b),
            _ => false,
        }
    }

    /// Nothing that may still run reads `v` (or, with a field, `v.field`).
    fn dead(&self, v: &str, field: Option<&str>) -> bool {
        if self.fwd.get() {
            return false;
        }
        for l in self.later.borrow().iter().rev() {
            let fresh = l.fresh.iter().any(|f| f == v);
            if !fresh && l.stmts.iter().any(|s| stmt_reads(s, v, field)) {
                return false;
            }
            if l.last {
                break;
            }
        }
        true
    }

    /// The list input `name` may be taken (`rt::Arg::take`) here: the body holds its arguments
    /// (`owns_args`, never in a forward pass) and nothing that may still run reads the input, nor
    /// any view (a local that may borrow it). An input an output keeps until a later `set`
    /// (`Gen::deferred`) is taken only right before that `set`, which then replaces it.
    pub(super) fn input_dead(&self, name: &str) -> bool {
        if self.fwd.get() || !self.owns_args.get() {
            return false;
        }
        let kept: Vec<String> = self
            .deferred
            .borrow()
            .iter()
            .filter(|(_, i)| i.as_str() == name)
            .map(|(o, _)| o.clone())
            .collect();
        if kept.len() > 1 {
            return false;
        }
        if let Some(out) = kept.first() {
            // A later `set` of the output in this block, nothing before it able to leave the
            // block (a `return`, or a `break` of the loop around), replaces the input it kept.
            let replaced = self.later.borrow().last().is_some_and(|l| {
                l.stmts
                    .iter()
                    .take_while(|s| !may_leave(s))
                    .any(|s| matches!(s, Stmt::Set { field, .. } if field == out))
            });
            if !replaced {
                return false;
            }
        }
        self.unread_later(&|st| stmt_reads_input(st, name), None)
    }

    /// The list in the local `v` may be moved out here: nothing that may still run reads it
    /// before a new value replaces it (an assignment at the top of a block that runs next), nor
    /// any view (a local that may borrow it).
    pub(super) fn local_dead_to_give(&self, v: &str) -> bool {
        if self.fwd.get() || !self.takeable.borrow().contains(v) {
            return false;
        }
        self.unread_later(
            &|st| stmt_reads(st, v, None) && !matches!(st, Stmt::Assign { var, value, .. } if var == v && !expr_reads(value, v, None)),
            Some(v),
        )
    }

    /// `var fs = fighters` where the body still reads the input `fighters` afterwards (else the
    /// input is taken): the input, for `fs` to read where it lies until something changes `fs`
    /// (a `Cow`). A battle's Command Phase copied its army this way, to change it in a rare case.
    pub(super) fn lazy_copy(&self, value: &Expr) -> Option<String> {
        let ExprKind::Input(i) = &value.kind else {
            return None;
        };
        let copied = matches!(&value.ty, Ty::List(t) if !is_copy(t));
        (copied && !self.fwd.get() && !self.input_dead(i)).then(|| i.clone())
    }

    /// The local `v` to change in place: a lazy copy (`lazy_copy`) is copied now if it still
    /// reads its input.
    fn changed(&self, v: &str) -> String {
        if self.lazy_locals.borrow().contains_key(v) {
            format!("{v}.to_mut()")
        } else {
            v.to_string()
        }
    }

    /// `code`, a new list, as the value of the place `target`: a lazy copy holds it in its `Cow`.
    pub(super) fn new_value(&self, target: &str, code: &str) -> String {
        if self.lazy_locals.borrow().contains_key(target) {
            format!("std::borrow::Cow::Owned({code})")
        } else {
            code.to_string()
        }
    }

    /// The list in the local `v`, moved out (nothing reads it afterwards). A lazy copy that still
    /// reads its input takes the input instead where the body reads that no more (given, it is
    /// moved), else copies it.
    pub(super) fn take_local(&self, v: &str) -> String {
        let Some(input) = self.lazy_locals.borrow().get(v).cloned() else {
            return format!("std::mem::take(&mut {v})");
        };
        let (pat, unchanged) = if self.input_dead_beside(&input, v) {
            ("_", format!("inp.{}.take()", raw_ident(&input)))
        } else {
            ("rt_input", "rt_input.to_vec()".to_string())
        };
        format!("match std::mem::take(&mut {v}) {{ std::borrow::Cow::Owned(rt_list) => rt_list, std::borrow::Cow::Borrowed({pat}) => {unchanged} }}")
    }

    /// `input_dead`, not counting the lazy copy `v` (being moved out, it borrows nothing after).
    fn input_dead_beside(&self, input: &str, v: &str) -> bool {
        let kept = self.lazy_locals.borrow_mut().remove(v);
        let dead = self.input_dead(input);
        if let Some(k) = kept {
            self.lazy_locals.borrow_mut().insert(v.to_string(), k);
        }
        dead
    }

    /// The locals that may borrow a list (references to items read in place, and views).
    pub(super) fn views(&self) -> Vec<String> {
        self.ref_locals
            .borrow()
            .iter()
            .chain(self.view_locals.borrow().iter())
            .chain(self.lazy_locals.borrow().keys())
            .cloned()
            .collect()
    }

    /// Does no statement that may still run satisfy `reads`, nor read a view? Walks `later` as
    /// `dead` does; a block that ends in `break` skips the rest of its loop's body. With `local`,
    /// an assignment to it at the top of a block ends the walk (its old value is never read), and
    /// a loop body that declares it afresh does not read the old one.
    fn unread_later(&self, reads: &dyn Fn(&Stmt) -> bool, local: Option<&str>) -> bool {
        let views = self.views();
        let mut skip_loop = false;
        for l in self.later.borrow().iter().rev() {
            if skip_loop {
                skip_loop = !l.is_loop;
                continue;
            }
            if local.is_some_and(|v| l.fresh.iter().any(|f| f == v)) {
                continue;
            }
            for st in l.stmts {
                if reads(st) || views.iter().any(|v| stmt_reads(st, v, None)) {
                    return false;
                }
                if local.is_some_and(|v| matches!(st, Stmt::Assign { var, .. } if var == v)) {
                    return true;
                }
            }
            if l.last {
                break;
            }
            skip_loop = l.exits;
        }
        true
    }

    /// `target = map(x in src: ...)`, an update of the items of `src`, a list in a local that
    /// nothing reads afterwards: `src` changed in place (`update_in_place`) and then moved to
    /// `target` (an output field, or another local), instead of a copy of every item.
    pub(super) fn moved_update(&self, target: &str, value: &Expr) -> Option<String> {
        let ExprKind::Agg { kind: Agg::Map, list, .. } = &value.kind else {
            return None;
        };
        let ExprKind::Local(src) = &list.kind else {
            return None;
        };
        if target == src || !self.takeable.borrow().contains(src) || !self.dead(src, None) {
            return None;
        }
        let code = self.update_in_place(src, value)?;
        Some(format!("{code}{target} = {};\n", self.new_value(target, &self.take_local(src))))
    }

    /// A value for a `let`, `var`, assignment or `set`: a list in a local (or in a call's outcome)
    /// that nothing may read afterwards is moved out, not copied.
    pub(super) fn value(&self, e: &Expr) -> String {
        let dead = |v: &str, field: Option<&str>| self.dead(v, field);
        if matches!(e.ty, Ty::List(_)) {
            match &e.kind {
                ExprKind::Local(v) if self.takeable.borrow().contains(v) && dead(v, None) => return self.take_local(v),
                // A list input read no more: the list given (no copy), or a copy of the lent one.
                ExprKind::Input(i) if self.input_dead(i) => return format!("inp.{}.take()", raw_ident(i)),
                ExprKind::Field(b, f) if matches!(b.ty, Ty::Outcome(_)) => {
                    if let ExprKind::Local(v) = &b.kind {
                        if self.takeable.borrow().contains(v) && dead(v, Some(f)) {
                            return format!("std::mem::take(&mut {v}.{})", raw_ident(f));
                        }
                    }
                }
                _ => {}
            }
        }
        self.owned_expr(e)
    }
}
