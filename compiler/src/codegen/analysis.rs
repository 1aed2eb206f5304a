//! Analyses of the IR the generator decides by, free of its state: what a statement or
//! expression reads (`stmt_reads`, `expr_reads`, `fields_read`, `locals_of`, `assigns`), what an
//! expression's code is (`is_place`, `is_fresh`, `cannot_fail`), the outputs kept as flags
//! (`deferred_sets`), how inputs are lent (`lend_inputs`) and which types are `Copy` (`is_copy`).

use super::raw_ident;
use crate::ast::{Agg, BinOp};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Is this expression's code a value built for it (a record, a list, a choice between owned
/// values), rather than a place or a table's static data, which must be copied to be kept?
pub(super) fn is_fresh(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Construct { .. } | ExprKind::With { .. } | ExprKind::List(_) | ExprKind::If(..) | ExprKind::Some(_) => true,
        ExprKind::Agg { kind, .. } => matches!(kind, Agg::Map | Agg::Filter | Agg::Sort | Agg::SortDesc | Agg::First),
        ExprKind::Bin(BinOp::Add, _, _) => matches!(e.ty, Ty::List(_)),
        ExprKind::Bin(BinOp::Coalesce, _, _) => true,
        // A field of a record that may be none: `.as_ref().map(|r| r.f.clone())`.
        ExprKind::Field(b, _) => matches!(b.ty, Ty::Opt(_)),
        _ => false,
    }
}

/// Is this expression's code a place (a local, an input, a field of one), which can be lent?
pub(super) fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Input(_) => true,
        ExprKind::Field(b, _) => matches!(b.ty, Ty::Rec(_) | Ty::Outcome(_)) && is_place(b),
        _ => false,
    }
}

/// Can the statement end the block it is in early: a `return` anywhere inside, or a `break` not
/// inside a loop of its own?
pub(super) fn may_leave(s: &Stmt) -> bool {
    fn returns(s: &Stmt) -> bool {
        matches!(s, Stmt::Return) || s.blocks().iter().any(|b| b.iter().any(returns))
    }
    match s {
        Stmt::Return | Stmt::Break => true,
        Stmt::For { .. } | Stmt::Repeat { .. } => returns(s),
        _ => s.blocks().iter().any(|b| b.iter().any(may_leave)),
    }
}

/// The outputs `Gen::deferred` holds for a resolver's body: each set at the top level of the
/// body to a list input (`set fighters = fighters`), always to the same input, and read back by no
/// expression. Such an output is written as a flag: the input is copied into it at the end only
/// if no other `set` has replaced it by then, which saves the copy on every path that does.
pub(super) fn deferred_sets(body: &[Stmt]) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, Option<String>> = BTreeMap::new();
    for s in body {
        if let Stmt::Set { field, value, .. } = s {
            if let (ExprKind::Input(i), Ty::List(_)) = (&value.kind, &value.ty) {
                let slot = found.entry(field.clone()).or_insert_with(|| Some(i.clone()));
                if slot.as_deref() != Some(i.as_str()) {
                    *slot = None;
                }
            }
        }
    }
    let mut todo: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = todo.pop() {
        let mut exprs = s.exprs();
        while let Some(e) = exprs.pop() {
            if let ExprKind::Output(f) = &e.kind {
                found.remove(f);
            }
            exprs.extend(e.children());
        }
        for b in s.blocks() {
            todo.extend(b.iter());
        }
    }
    found.into_iter().filter_map(|(f, i)| Some((f, i?))).collect()
}

/// Can this expression neither fail nor write to the trace: made only of values, fields,
/// comparisons, `and`, `or`, `not` and `is`? (No lookup, arithmetic, call or record built.)
pub(super) fn cannot_fail(e: &Expr) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        let ok = matches!(
            &x.kind,
            ExprKind::Const(_)
                | ExprKind::Local(_)
                | ExprKind::Input(_)
                | ExprKind::Output(_)
                | ExprKind::Field(..)
                | ExprKind::Cmp(..)
                | ExprKind::Bin(BinOp::And | BinOp::Or, ..)
                | ExprKind::Not(_)
                | ExprKind::Is(..)
        );
        if !ok {
            return false;
        }
        todo.extend(x.children());
    }
    true
}

/// The fields of the local `var` that `body` reads, when it reads `var` only field by field
/// (`var.f`); `None` when it reads or assigns `var` whole anywhere.
pub(super) fn fields_read(body: &[Stmt], var: &str) -> Option<BTreeSet<String>> {
    fn in_expr(e: &Expr, var: &str, read: &mut BTreeSet<String>) -> bool {
        let mut todo = vec![e];
        while let Some(x) = todo.pop() {
            match &x.kind {
                ExprKind::Local(v) if v == var => return false,
                ExprKind::Field(b, g) if matches!(&b.kind, ExprKind::Local(v) if v == var) => {
                    read.insert(g.clone());
                }
                _ => todo.extend(x.children()),
            }
        }
        true
    }
    fn in_stmt(s: &Stmt, var: &str, read: &mut BTreeSet<String>) -> bool {
        !matches!(s, Stmt::Assign { var: v, .. } if v == var)
            && s.exprs().iter().all(|e| in_expr(e, var, read))
            && s.blocks().iter().all(|b| b.iter().all(|x| in_stmt(x, var, read)))
    }
    let mut read = BTreeSet::new();
    body.iter().all(|s| in_stmt(s, var, &mut read)).then_some(read)
}

/// Does the statement (or any inside it) read the local `var`, or, given `field`, read that field
/// of it or the whole of it (reading another field does not count)? Assigning it counts too.
pub(super) fn stmt_reads(s: &Stmt, var: &str, field: Option<&str>) -> bool {
    if matches!(s, Stmt::Assign { var: v, .. } if v == var) {
        return true;
    }
    s.exprs().iter().any(|e| expr_reads(e, var, field)) || s.blocks().iter().any(|b| b.iter().any(|x| stmt_reads(x, var, field)))
}

/// Does the statement (or any inside it) read the input `name`?
pub(super) fn stmt_reads_input(s: &Stmt, name: &str) -> bool {
    s.exprs().iter().any(|e| e.mentions_input(name)) || s.blocks().iter().any(|b| b.iter().any(|x| stmt_reads_input(x, name)))
}

pub(super) fn expr_reads(e: &Expr, var: &str, field: Option<&str>) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        match &x.kind {
            ExprKind::Local(v) if v == var => return true,
            ExprKind::Field(b, g) if matches!(&b.kind, ExprKind::Local(v) if v == var) && field.is_some_and(|f| f != g) => {}
            _ => todo.extend(x.children()),
        }
    }
    false
}

/// The fields of `r`'s `RtArgs…` lent from its inputs `{from}.…` (a `…Inputs`): the `Copy` ones
/// by value, a list as `rt::Arg::Lent`, the others by reference.
pub(super) fn lend_inputs(r: &ResolverDef, from: &str) -> Vec<String> {
    r.inputs
        .iter()
        .map(|p| {
            let n = raw_ident(&p.name);
            if is_copy(&p.ty) {
                format!("{n}: {from}.{n}")
            } else if matches!(p.ty, Ty::List(_)) {
                format!("{n}: rt::Arg::Lent(&{from}.{n})")
            } else {
                format!("{n}: &{from}.{n}")
            }
        })
        .collect()
}

/// One text per input of `r`, from its Rust name: `copy` for a `Copy` input, `other` for the rest.
pub(super) fn per_input(r: &ResolverDef, copy: impl Fn(&str) -> String, other: impl Fn(&str) -> String) -> Vec<String> {
    r.inputs
        .iter()
        .map(|p| {
            let n = raw_ident(&p.name);
            if is_copy(&p.ty) {
                copy(&n)
            } else {
                other(&n)
            }
        })
        .collect()
}

/// Does the statement (and every one inside it) read the local `var` only as a list to go through:
/// the list of an aggregate or of a loop, or the argument of `len`?
pub(super) fn stmt_views_only(s: &Stmt, var: &str) -> bool {
    if matches!(s, Stmt::Assign { var: v, .. } if v == var) {
        return false;
    }
    if let Stmt::For { list, body, .. } = s {
        let list_ok = matches!(&list.kind, ExprKind::Local(v) if v == var) || expr_views_only(list, var);
        return list_ok && body.iter().all(|x| stmt_views_only(x, var));
    }
    s.exprs().iter().all(|e| expr_views_only(e, var)) && s.blocks().iter().all(|b| b.iter().all(|x| stmt_views_only(x, var)))
}

fn expr_views_only(e: &Expr, var: &str) -> bool {
    let is_var = |x: &Expr| matches!(&x.kind, ExprKind::Local(v) if v == var);
    match &e.kind {
        ExprKind::Local(v) => v != var,
        ExprKind::Agg { list, body, .. } => (is_var(list) || expr_views_only(list, var)) && expr_views_only(body, var),
        ExprKind::Func(Func::Len, args) if args.len() == 1 && is_var(&args[0]) => true,
        _ => e.children().iter().all(|x| expr_views_only(x, var)),
    }
}

/// Does the expression read any output of the resolver (which a `set` may change)?
pub(super) fn reads_output(e: &Expr) -> bool {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if matches!(x.kind, ExprKind::Output(_)) {
            return true;
        }
        todo.extend(x.children());
    }
    false
}

/// Is `e` the local `var`, or does working it out start with reading `var`: the list of an
/// aggregate, a field of such a value, or the left of `??`?
pub(super) fn spine_reads(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::Local(v) => v == var,
        ExprKind::Field(b, _) | ExprKind::Bin(BinOp::Coalesce, b, _) => spine_reads(b, var),
        ExprKind::Agg { list, .. } => spine_reads(list, var),
        _ => false,
    }
}

/// How many times the expression names the local `var`.
pub(super) fn reads_count(e: &Expr, var: &str) -> usize {
    let mut n = 0;
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if matches!(&x.kind, ExprKind::Local(v) if v == var) {
            n += 1;
        }
        todo.extend(x.children());
    }
    n
}

/// Every local an expression reads.
pub(super) fn locals_of(e: &Expr) -> Vec<&str> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if let ExprKind::Local(v) = &x.kind {
            out.push(v.as_str());
        }
        todo.extend(x.children());
    }
    out
}

/// Does any statement of `stmts` (at any depth) assign the local `var`?
pub(super) fn assigns(stmts: &[Stmt], var: &str) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Assign { var: v, .. } => v == var,
        Stmt::If { arms, otherwise, .. } => arms.iter().any(|(_, b)| assigns(b, var)) || assigns(otherwise, var),
        Stmt::Match { arms, .. } => arms.iter().any(|(_, b)| assigns(b, var)),
        Stmt::Repeat { body, .. } | Stmt::For { body, .. } => assigns(body, var),
        _ => false,
    })
}

/// Is this expression's code a value built for it (a list it makes), not a place to copy from?
pub(super) fn is_owned_temp(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Agg { kind, .. } => matches!(kind, Agg::Map | Agg::Filter | Agg::Sort | Agg::SortDesc),
        ExprKind::List(_) => true,
        ExprKind::Bin(BinOp::Add, _, _) => matches!(e.ty, Ty::List(_)),
        _ => false,
    }
}

/// The fields from the local `x` to this place (`x.u.status` is `[u, status]`), if it is one.
pub(super) fn field_path<'e>(e: &'e Expr, x: &str) -> Option<Vec<&'e str>> {
    match &e.kind {
        ExprKind::Local(v) if v == x => Some(Vec::new()),
        ExprKind::Field(b, f) if !matches!(b.ty, Ty::Opt(_) | Ty::Row(_)) => {
            let mut p = field_path(b, x)?;
            p.push(f);
            Some(p)
        }
        _ => None,
    }
}

pub(super) fn is_copy(t: &Ty) -> bool {
    match t {
        Ty::Int | Ty::Dec | Ty::Bool | Ty::Enum(_) | Ty::Key(_) | Ty::Row(_) => true,
        Ty::Opt(i) => is_copy(i),
        _ => false,
    }
}
