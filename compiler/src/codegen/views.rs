//! Views: lists read by reference instead of copied. Filtered and sorted views of places
//! (`ref_items`), views bound to a `let` (`viewable`) or written where they are read
//! (`inlined_view`), `first(...)` read in place (`opt_ref`) or in one pass over sorts
//! (`first_of_sorted`), and filters tested as a loop goes (`filter_as_it_goes`).

use super::analysis::{
    assigns, cannot_fail, is_copy, is_place, locals_of, reads_count, reads_output, spine_reads, stmt_reads, stmt_views_only,
};
use super::{raw_ident, Gen};
use crate::ast::Agg;
use crate::ir::*;
use std::fmt::Write as _;

impl<'a> Gen<'a> {
    /// How to go through the items of a list place by reference: a view local holds references
    /// already.
    pub(super) fn place_iter(&self, list: &Expr) -> &'static str {
        match &list.kind {
            ExprKind::Local(v) if self.view_locals.borrow().contains(v) => ".iter().copied()",
            _ => ".iter()",
        }
    }

    /// The expression a local written in place stands for (`inlined`), followed through; any
    /// other expression as it is.
    pub(super) fn resolve<'e>(&self, e: &'e Expr) -> &'e Expr
    where
        'a: 'e,
    {
        let mut e = e;
        while let ExprKind::Local(v) = &e.kind {
            match self.inlined.borrow().get(v).copied() {
                Some(x) => e = x,
                None => break,
            }
        }
        e
    }

    /// The locals an expression reads, through the locals written in place (`inlined`).
    fn roots(&self, e: &Expr) -> Vec<String> {
        let mut out = Vec::new();
        for v in locals_of(e) {
            match self.inlined.borrow().get(v).copied() {
                Some(x) => out.extend(self.roots(x)),
                None => out.push(v.to_string()),
            }
        }
        out
    }

    /// Can `let var = value` be written where it is read instead (`inlined`)? The value is a view
    /// (`viewable`), outside a forward pass; the statement right after is a `let` or `set` that
    /// reads `var` once, as the first thing it works out (`spine_reads`): the list of an aggregate
    /// (or of one inside it), a field of such an aggregate, the left of `??`. Nothing else may
    /// read it. The value is then worked out at the same moment and as often as before, so traces
    /// and errors are unchanged, and no list of references is made for it: `first(sort(...))`
    /// becomes one pass (`first_of_sorted`).
    pub(super) fn inlined_view(&self, var: &str, view: &Expr) -> bool {
        if self.fwd.get() || !self.viewable(var, view) {
            return false;
        }
        let later = self.later.borrow();
        let Some(rest) = later.last().map(|l| l.stmts) else {
            return false;
        };
        let Some((next, after)) = rest.split_first() else {
            return false;
        };
        let value = match next {
            Stmt::Let { value, .. } | Stmt::Set { value, .. } => value,
            _ => return false,
        };
        if !spine_reads(value, var) || reads_count(value, var) != 1 || after.iter().any(|s| stmt_reads(s, var, None)) {
            return false;
        }
        // An error is the statement's that raised it (`docs/dsl.md`, "Run-time errors"): what the
        // view works out for each item is marked as this `let`'s (`expr`).
        let here = self.current_at.borrow().clone();
        let mut todo = vec![view];
        while let Some(x) = todo.pop() {
            if let ExprKind::Agg { body, .. } = &x.kind {
                self.view_bodies
                    .borrow_mut()
                    .insert(std::ptr::from_ref::<Expr>(body) as usize, here.clone());
            }
            todo.extend(x.children());
        }
        // Outer blocks cannot name a local of this one; a loop around runs the `let` again first.
        true
    }

    /// Can `let var = value` bind a view (see `view_locals`)? The value is a filtered or sorted
    /// view of records in lists nothing assigns while it may be read, and everything that may
    /// still run reads `var` only as a list to go through (an aggregate's or a loop's list, or
    /// `len`).
    pub(super) fn viewable(&self, var: &str, value: &Expr) -> bool {
        let ExprKind::Agg { kind, list, .. } = &value.kind else {
            return false;
        };
        if !matches!(kind, Agg::Filter | Agg::Sort | Agg::SortDesc) || !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
            return false;
        }
        // A list a last read may move out (`takeable`) must not be read again at all: the move
        // would not see that the view still borrows it.
        let roots = self.roots(value);
        let takeable = self.takeable.borrow();
        for l in self.later.borrow().iter().rev() {
            for st in l.stmts {
                let changes = |r: &String| assigns(std::slice::from_ref(st), r) || (takeable.contains(r) && stmt_reads(st, r, None));
                if roots.iter().any(changes) || !stmt_views_only(st, var) {
                    return false;
                }
            }
        }
        true
    }

    /// `Option<&T>` code for an expression of type `T?`, `T` a record, that can be read in place:
    /// `first(...)` over a place or a view of one, or a record field of such a value
    /// (`first(x in fs: ...).u`). None for anything else.
    pub(super) fn opt_ref(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Agg {
                kind: Agg::First,
                var,
                list,
                body,
            } => {
                if !matches!(&list.ty, Ty::List(t) if matches!(**t, Ty::Rec(_))) {
                    return None;
                }
                let fused = self.first_of_sorted(var, list, body);
                if let Some((code, true)) = fused {
                    return Some(code);
                }
                let items = self.items_in_place(list)?;
                self.ref_locals.borrow_mut().insert(var.clone());
                let b = self.expr(body);
                let plain = format!("{{ let mut acc = None; for {var} in {items} {{ if {b} {{ acc = Some({var}); break; }} }} acc }}");
                Some(match fused {
                    // Not tracing, the one pass first; should it fail, the plain way gives the
                    // error (or the answer) the rules' order of work gives.
                    Some((fast, _)) => format!(
                        "{{ let rt_fast = if T::ENABLED {{ None }} else {{ (|| Ok::<_, rt::Error>({fast}))().ok() }}; match rt_fast {{ Some(r) => r, None => {plain} }} }}"
                    ),
                    None => plain,
                })
            }
            ExprKind::Field(b, f) if matches!(&e.ty, Ty::Opt(t) if matches!(**t, Ty::Rec(_))) => {
                let Ty::Opt(inner) = &b.ty else {
                    return None;
                };
                let Ty::Rec(ri) = &**inner else {
                    return None;
                };
                let r = self.opt_ref(b)?;
                let optional = self.sys.records[*ri]
                    .fields
                    .iter()
                    .any(|(n, t, _)| n == f && matches!(t, Ty::Opt(_)));
                Some(if optional {
                    format!("({r}).and_then(|r| r.{}.as_ref())", raw_ident(f))
                } else {
                    format!("({r}).map(|r| &r.{})", raw_ident(f))
                })
            }
            _ => None,
        }
    }

    /// `first(x in sort(y in ys: key): cond)` (or `sort_desc`) in one pass, without sorting: the
    /// item with the least (greatest) key among those meeting `cond`, the earliest of equal keys
    /// as the stable sort would put first. Sorts of sorts compare by their keys together, the
    /// last sort's first (`sort(sort(xs: k1): k2)` orders by k2, then k1, then place), and
    /// filters under the sorts are tested in the same pass: `first(sort(sort(filter(...))))` makes
    /// no list at all.
    ///
    /// The pass works out every filter condition, every key and `cond` for every item, in the
    /// list's order. With the boolean `true`, that is the order the rules' own evaluation takes
    /// for everything that can fail or trace (`cannot_fail`): at most one of the filters'
    /// conditions and the first sort's key can, and nothing else. With `false`, the caller runs the pass only when
    /// not tracing, and goes the plain way if it fails: the plain way works out no more than the
    /// pass, so a pass that succeeds gives its answer.
    fn first_of_sorted(&self, var: &str, list: &Expr, cond: &Expr) -> Option<(String, bool)> {
        // The sorts, the last one first, then the filters under them, the last one first.
        let mut sorts: Vec<(bool, &str, &Expr)> = Vec::new();
        let mut cur = self.resolve(list);
        while let ExprKind::Agg {
            kind: kind @ (Agg::Sort | Agg::SortDesc),
            var: svar,
            list: inner,
            body: key,
        } = &cur.kind
        {
            sorts.push((matches!(kind, Agg::SortDesc), svar, key));
            cur = self.resolve(inner);
        }
        if sorts.is_empty() {
            return None;
        }
        let mut filters: Vec<(&str, &Expr)> = Vec::new();
        while let ExprKind::Agg {
            kind: Agg::Filter,
            var: fvar,
            list: inner,
            body: keep,
        } = &cur.kind
        {
            if matches!(&inner.ty, Ty::List(t) if is_copy(t)) {
                break;
            }
            filters.push((fvar, keep));
            cur = self.resolve(inner);
        }
        let items = self.items_in_place(cur)?;
        let first_stage = filters.iter().map(|(_, c)| *c).chain(sorts.last().map(|(_, _, k)| *k));
        let exact = cannot_fail(cond)
            && sorts[..sorts.len() - 1].iter().all(|(_, _, k)| cannot_fail(k))
            && first_stage.filter(|e| !cannot_fail(e)).count() <= 1;
        let mut body = String::new();
        for (fvar, keep) in filters.iter().rev() {
            self.ref_locals.borrow_mut().insert(fvar.to_string());
            let c = self.expr(keep);
            let _ = write!(body, "let {fvar} = rt_x; if !({c}) {{ continue; }} ");
        }
        let mut keys = Vec::new();
        for (i, (desc, svar, key)) in sorts.iter().rev().enumerate() {
            self.ref_locals.borrow_mut().insert(svar.to_string());
            let k = self.expr(key);
            let _ = write!(body, "let {svar} = rt_x; let rt_k{i} = {k}; ");
            keys.push(if *desc {
                format!("std::cmp::Reverse(rt_k{i})")
            } else {
                format!("rt_k{i}")
            });
        }
        keys.reverse();
        let key = if keys.len() == 1 {
            keys.remove(0)
        } else {
            format!("({})", keys.join(", "))
        };
        self.ref_locals.borrow_mut().insert(var.to_string());
        let c = self.expr(cond);
        Some((
            format!(
                "{{ let mut rt_best: Option<(_, &_)> = None; for rt_x in {items} {{ {body}let rt_key = {key}; let {var} = rt_x; if {c} && rt_best.as_ref().is_none_or(|(b, _)| rt_key < *b) {{ rt_best = Some((rt_key, {var})); }} }} rt_best.map(|(_, x)| x) }}"
            ),
            exact,
        ))
    }

    /// References to the items of a list that is a place or a view of one (`ref_items`), as an
    /// iterator expression.
    fn items_in_place(&self, list: &Expr) -> Option<String> {
        let list = self.resolve(list);
        if is_place(list) {
            Some(format!("({}){}", self.expr(list), self.place_iter(list)))
        } else {
            self.ref_items(list)
        }
    }

    /// A loop's `filter(x in list: cond)` of a place (or of a view of one) whose condition can
    /// neither fail nor trace nor read an output, as the item's local, the items to go through
    /// (views inside it made as lists first) and the condition; `None` for any other list. The
    /// caller checks that the loop's body changes no local the list reads.
    pub(super) fn filter_as_it_goes(&self, list: &Expr) -> Option<(String, String, String)> {
        let ExprKind::Agg {
            kind: Agg::Filter,
            var,
            list: inner,
            body: cond,
        } = &list.kind
        else {
            return None;
        };
        if matches!(&inner.ty, Ty::List(t) if is_copy(t)) || !cannot_fail(cond) || reads_output(cond) {
            return None;
        }
        let eager = self.eager_views.replace(true);
        let items = self.items_in_place(inner);
        self.eager_views.set(eager);
        let items = items?;
        self.ref_locals.borrow_mut().insert(var.clone());
        Some((var.clone(), items, self.expr(cond)))
    }

    /// References to the items of a filtered or sorted view (`filter(...)`, `sort(...)`) of a
    /// place or of another such view, as an iterator expression: an aggregate or loop over it
    /// reads the items where they are instead of copying each.
    pub(super) fn ref_items(&self, list: &Expr) -> Option<String> {
        let list = self.resolve(list);
        let ExprKind::Agg {
            kind,
            var,
            list: inner,
            body,
        } = &list.kind
        else {
            return None;
        };
        if !matches!(kind, Agg::Filter | Agg::Sort | Agg::SortDesc) || matches!(&inner.ty, Ty::List(t) if is_copy(t)) {
            return None;
        }
        let items = self.items_in_place(inner)?;
        self.ref_locals.borrow_mut().insert(var.clone());
        let b = self.expr(body);
        Some(match kind {
            // A condition that can neither fail nor trace, read by an aggregate that takes the
            // items at once: tested as each item comes, with no list of them made first.
            Agg::Filter if cannot_fail(body) && !self.eager_views.get() => {
                format!("({items}).filter(|rt_item| {{ let {var}: &_ = *rt_item; {b} }})")
            }
            Agg::Filter => {
                format!("{{ let mut acc: Vec<&_> = Vec::new(); for {var} in {items} {{ if {b} {{ acc.push({var}); }} }} acc }}.into_iter()")
            }
            // A key that can neither fail nor trace: no list made for items in order already.
            _ if cannot_fail(body) => format!("rt::sorted_view({items}, |{var}| {b}, {})", matches!(kind, Agg::SortDesc)),
            _ => {
                let cmp = if matches!(kind, Agg::Sort) {
                    "a.0.cmp(&b.0)"
                } else {
                    "b.0.cmp(&a.0)"
                };
                format!("{{ let rt_items = {items}; let mut keyed: Vec<(_, &_)> = Vec::with_capacity(rt::room(&rt_items)); for {var} in rt_items {{ keyed.push(({b}, {var})); }} keyed.sort_by(|a, b| {cmp}); keyed.into_iter().map(|(_, x)| x) }}")
            }
        })
    }
}
