//! The evaluator: runs a resolver statement by statement, over its body as `crate::lower` left it
//! (names resolved to slots and indices), with the same dice, trace events, errors and evaluation
//! order as the Rust that `codegen` generates from the same IR.
//!
//! Values are `V` (`rt::Value` with shared lists and records), in exactly the form generated
//! `to_value` gives. The order in which things are evaluated (arguments before a table lookup, a
//! record's updates before its base, a `??` fallback only when needed, a group of `require`s
//! stopping where it ends) is the one `docs/dsl.md` defines, which `codegen` follows too, so a
//! trace matches event for event.
//!
//! This module holds the system (`Sys`, its tables' cells as values, its resolvers lowered), the
//! state of one call (`Frame`) and the value helpers; each part adds its own `impl Sys` block:
//! `inputs` (reading a resolver's typed inputs), `calls` (running a resolver, `call` statements
//! and loops, each a step), `stmt` (blocks and statements, `let` with its modifiers), `dice` (rolls
//! and their specs), `expr` (expressions, conditions, functions and operators), `tables` (lookups
//! and key columns) and `agg` (aggregates over lists).

mod agg;
mod calls;
mod dice;
mod expr;
mod inputs;
mod stmt;
mod tables;

use crate::lower::{Code, K, X};
use crate::value::V;
use rt::{Dec, Error};
use rulebook_compiler::ir::{self, Const, TableKind, Ty};
use rulebook_runtime as rt;
use std::sync::Arc;

/// One checked system, kept for the life of the program, with every table cell already a value
/// and every resolver lowered (`crate::lower`).
pub struct Sys {
    pub ir: &'static ir::System,
    /// Per table, per row: the cells as values (column order; `=> value` tables have one).
    cells: Vec<Vec<Vec<V>>>,
    /// Per range table without a result type, per row: the row as a record of its columns.
    rows: Vec<Vec<V>>,
    /// Per resolver: its lowered body.
    code: Vec<Code>,
    /// Per resolver: does a call of it take a step (`ir::takes_steps`)?
    takes_steps: Vec<bool>,
}

/// The evaluator's result: the error boxed, so that a value's result stays small on the hot path.
type Res<T> = Result<T, Box<Error>>;

/// A fault of the interpreter itself (never of the rules: the checker proved them).
fn internal(message: impl Into<String>) -> Box<Error> {
    Box::new(Error::internal(message))
}

enum Flow {
    Next,
    Break,
    Return,
}

/// The state of one resolver call.
struct Frame<'a> {
    r: &'static ir::ResolverDef,
    inputs: &'a [V],
    out: Vec<V>,
    /// The locals by slot (`lower`): `V::None` where nothing in scope is declared.
    locals: Vec<V>,
    /// The failed `require`s of the group of checks running now.
    violations: Option<Vec<rt::Violation>>,
    /// Is a check (`ir::is_check`) running: its blocks belong to its group?
    checking: bool,
}

impl Frame<'_> {
    fn local(&self, slot: usize) -> Res<&V> {
        self.locals
            .get(slot)
            .ok_or_else(|| internal(format!("interpreter: no local slot {slot}")))
    }

    #[inline]
    fn local_mut(&mut self, slot: usize) -> Res<&mut V> {
        self.locals
            .get_mut(slot)
            .ok_or_else(|| internal(format!("interpreter: no local slot {slot}")))
    }

    /// Declares the local of `slot` (a `let`, a roll, a loop's item...).
    #[inline]
    fn bind(&mut self, slot: usize, v: V) -> Res<()> {
        *self.local_mut(slot)? = v;
        Ok(())
    }

    /// Ends the locals of these slots, as their block ends: their values are dropped.
    fn end(&mut self, slots: &[usize]) {
        for &s in slots {
            if let Some(v) = self.locals.get_mut(s) {
                *v = V::None;
            }
        }
    }
}

fn int(v: &V) -> Res<i64> {
    match v {
        V::Int(i) => Ok(*i),
        other => Err(internal(format!("interpreter: expected an int, found {other}"))),
    }
}

fn dec(v: &V) -> Res<Dec> {
    match v {
        V::Dec(d) => Ok(*d),
        other => Err(internal(format!("interpreter: expected a decimal, found {other}"))),
    }
}

fn boolean(v: &V) -> Res<bool> {
    match v {
        V::Bool(b) => Ok(*b),
        other => Err(internal(format!("interpreter: expected a bool, found {other}"))),
    }
}

fn key(v: &V) -> Res<rt::Key> {
    match v {
        V::Key(k) => Ok(*k),
        other => Err(internal(format!("interpreter: expected a key, found {other}"))),
    }
}

/// The items of a list value, owned: shared lists are copied item by item (each item a cheap
/// reference-counted copy), a list nobody else holds is taken as it is.
fn list(v: V) -> Res<Vec<V>> {
    match v {
        V::List(xs) => Ok(Arc::unwrap_or_clone(xs)),
        other => Err(internal(format!("interpreter: expected a list, found {other}"))),
    }
}

/// Field `name` of a record, found at `at` when the lowering knows its place (the names are the
/// very same text, so a pointer comparison confirms it), else by name.
#[inline]
fn field<'v>(v: &'v V, name: &'static str, at: Option<usize>) -> Res<&'v V> {
    if let V::Record(fields) = v {
        if let Some((k, x)) = at.and_then(|i| fields.get(i)) {
            if std::ptr::eq(k.as_ptr(), name.as_ptr()) || *k == name {
                return Ok(x);
            }
        }
    }
    v.field(name)
        .ok_or_else(|| internal(format!("interpreter: no field `{name}` in {v}")))
}

/// `none`, for a field read through an optional place that holds none.
static NONE: V = V::None;

/// The value of a place (`X::place`: a local, an input, an output, or a path of fields from
/// one), read where it is. A place has no effects, so reading it before or after anything else is
/// the same.
#[inline(always)]
fn place<'f>(x: &'f X, f: &'f Frame) -> Res<&'f V> {
    match &x.k {
        K::Path { root, steps } => {
            let mut v = root_place(root, f)?;
            for s in steps.iter() {
                // The field where the lowering placed it (the very same name text confirms it).
                if let (V::Record(fields), Some(at)) = (v, s.at) {
                    if let Some((k, x)) = fields.get(at) {
                        if std::ptr::eq(k.as_ptr(), s.name.as_ptr()) {
                            v = x;
                            continue;
                        }
                    }
                }
                if s.optional && matches!(v, V::None) {
                    return Ok(&NONE);
                }
                v = field(v, s.name, s.at)?;
            }
            Ok(v)
        }
        _ => root_place(x, f),
    }
}

/// A place that is a local, an input or an output.
#[inline(always)]
fn root_place<'f>(x: &'f X, f: &'f Frame) -> Res<&'f V> {
    let found = match &x.k {
        K::Const(v) => Some(v),
        K::Local(slot) => f.locals.get(*slot),
        K::Input(i) => f.inputs.get(*i),
        K::Output(i) => f.out.get(*i),
        _ => None,
    };
    found.ok_or_else(|| not_a_place(x))
}

#[cold]
fn not_a_place(x: &X) -> Box<Error> {
    internal(format!("interpreter: no place for {:?}", x.ir.kind))
}

/// The same, to change it.
fn field_slot<'v>(fields: &'v mut [(&'static str, V)], name: &'static str, at: Option<usize>) -> Option<&'v mut V> {
    let i = match at.and_then(|i| fields.get(i)) {
        Some((k, _)) if std::ptr::eq(k.as_ptr(), name.as_ptr()) || *k == name => at,
        _ => fields.iter().position(|(k, _)| *k == name),
    }?;
    fields.get_mut(i).map(|(_, v)| v)
}

fn dec_of(v: &V) -> Res<Dec> {
    match v {
        V::Int(i) => Ok(Dec::from_int(*i)),
        other => dec(other),
    }
}

impl Sys {
    pub fn new(ir: &'static ir::System) -> Sys {
        let mut cells = Vec::new();
        let mut rows = Vec::new();
        for t in &ir.tables {
            let cols: Vec<Ty> = match (&t.kind, &t.result) {
                (TableKind::Range { .. } | TableKind::DecRange | TableKind::Matrix { .. }, Some(r)) => vec![r.clone()],
                _ => t.columns.iter().map(|(_, ty)| ty.clone()).collect(),
            };
            let table_cells: Vec<Vec<V>> = t
                .rows
                .iter()
                .map(|r| match (&t.kind, &t.result) {
                    // A matrix row holds one cell per column variant, all of the result type.
                    (TableKind::Matrix { .. }, Some(ty)) => r.cells.iter().map(|c| konst(ir, c, ty)).collect(),
                    _ => r.cells.iter().zip(&cols).map(|(c, ty)| konst(ir, c, ty)).collect(),
                })
                .collect();
            let names: Vec<&'static str> = match (&t.kind, &t.result) {
                (TableKind::Range { .. } | TableKind::DecRange | TableKind::Matrix { .. }, Some(_)) => vec!["value"],
                _ => t.columns.iter().map(|(n, _)| n.as_str()).collect(),
            };
            rows.push(
                table_cells
                    .iter()
                    .map(|cs| V::record(names.iter().copied().zip(cs.iter().cloned()).collect()))
                    .collect(),
            );
            cells.push(table_cells);
        }
        Sys {
            ir,
            cells,
            rows,
            code: crate::lower::system(ir),
            takes_steps: ir.resolvers.iter().map(|r| ir::takes_steps(&r.body)).collect(),
        }
    }
}

/// A constant of the rules as the value of type `t` (generated `konst`, then `to_value`).
pub fn konst(sys: &'static ir::System, c: &'static Const, t: &Ty) -> V {
    match (c, t) {
        (Const::None, Ty::Opt(_)) => V::None,
        (c, Ty::Opt(i)) => konst(sys, c, i),
        (Const::Int(v), Ty::Dec) => V::Dec(Dec::from_int(*v)),
        (Const::Int(v), _) => V::Int(*v),
        (Const::Dec(n, d), _) => V::Dec(Dec::raw(*n, *d)),
        (Const::Bool(b), _) => V::Bool(*b),
        (Const::Text(s), _) => V::text(s),
        (Const::Enum(e, v), _) => V::Enum(*v as u16, sys.enums[*e].variants[*v].0.as_str()),
        (Const::Key { table, row, name }, _) => V::Key(rt::Key {
            table: *table as u16,
            row: *row as u16,
            name: name.as_str(),
        }),
        (Const::List(items), Ty::List(i)) => V::list(items.iter().map(|x| konst(sys, x, i)).collect()),
        (Const::List(_), _) | (Const::None, Ty::List(_)) => V::list(Vec::new()),
        (Const::None, t) => default_of(sys, t),
    }
}

/// The zero value of a type (an output nobody set; a record's blank).
pub fn default_of(sys: &'static ir::System, t: &Ty) -> V {
    match t {
        Ty::Int => V::Int(0),
        Ty::Dec => V::Dec(Dec::ZERO),
        Ty::Bool => V::Bool(false),
        Ty::Text => V::text(""),
        Ty::Enum(e) => V::Enum(0, sys.enums[*e].variants.first().map(|(v, _)| v.as_str()).unwrap_or("")),
        Ty::Key(_) => V::Key(rt::Key {
            table: 0,
            row: 0,
            name: "",
        }),
        Ty::Opt(_) => V::None,
        Ty::List(_) => V::list(Vec::new()),
        Ty::Outcome(r) => V::record(
            sys.resolvers[*r]
                .outputs
                .iter()
                .map(|p| (p.name.as_str(), default_of(sys, &p.ty)))
                .collect(),
        ),
        Ty::Rec(r) => V::record(
            sys.records[*r]
                .fields
                .iter()
                .map(|(f, t, b)| {
                    let v = match (t, b) {
                        (Ty::Int, Some((lo, hi))) => V::Int((*lo).max((*hi).min(0))),
                        _ => default_of(sys, t),
                    };
                    (f.as_str(), v)
                })
                .collect(),
        ),
        _ => V::None,
    }
}
