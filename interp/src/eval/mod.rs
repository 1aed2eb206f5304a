//! The evaluator: runs a resolver's checked IR statement by statement, with the same dice, trace
//! events, errors and evaluation order as the Rust that `codegen` generates from the same IR.
//!
//! Values are `V` (`rt::Value` with shared lists and records), in exactly the form generated
//! `to_value` gives. The order in which things are evaluated (arguments before a table lookup, a
//! record's updates before its base, a `??` fallback only when needed, a group of `require`s
//! stopping where it ends) is the one `docs/dsl.md` defines, which `codegen` follows too, so a
//! trace matches event for event.
//!
//! This module holds the system (`Sys`, its tables' cells as values), the state of one call
//! (`Frame`) and the value helpers; each part adds its own `impl Sys` block: `inputs` (reading a
//! resolver's typed inputs), `calls` (running a resolver, `call` statements and loops, each a
//! step), `stmt` (blocks and statements, `let` with its modifiers), `dice` (rolls and their
//! specs), `expr` (expressions, functions and operators), `tables` (lookups and key columns) and
//! `agg` (aggregates over lists).

mod agg;
mod calls;
mod dice;
mod expr;
mod inputs;
mod stmt;
mod tables;

use crate::value::V;
use rt::{Dec, Error};
use rulebook_compiler::ir::{self, Const, Stmt, TableKind, Ty};
use rulebook_runtime as rt;
use std::sync::Arc;

/// One checked system, kept for the life of the program, with every table cell already a value.
pub struct Sys {
    pub ir: &'static ir::System,
    /// Per table, per row: the cells as values (column order; `=> value` tables have one).
    cells: Vec<Vec<Vec<V>>>,
    /// Per range table without a result type, per row: the row as a record of its columns.
    rows: Vec<Vec<V>>,
    /// Per call statement (by address) whose callee exact odds branch over, as generated code
    /// does (`rt::memo_call`): the fields of the outcome read after it, `None` for all.
    memo_calls: std::collections::BTreeMap<usize, Option<Vec<String>>>,
    /// Per roll statement (by address) read only through one range table (`ir::classed_rolls`):
    /// the table's rows, which exact odds branch over (`Dice::roll_classed`), as generated code
    /// does.
    classed_rolls: std::collections::BTreeMap<usize, Vec<(i64, i64)>>,
    /// Per resolver: does a call of it take a step (`ir::takes_steps`)?
    takes_steps: Vec<bool>,
}

/// The call statements of `sys` that generated code makes through `rt::memo_call` (a callee
/// without policies), each with the fields its caller reads (`ir::call_reads`).
fn memo_calls(sys: &'static ir::System) -> std::collections::BTreeMap<usize, Option<Vec<String>>> {
    let branches = ir::branches_over_calls(sys);
    let mut out = std::collections::BTreeMap::new();
    for r in &sys.resolvers {
        let reads = ir::call_reads(&r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Call { var, resolver, .. } = s {
                if branches.get(*resolver).copied().unwrap_or(false) {
                    let fields = reads.get(var).cloned().flatten().map(|f| f.into_iter().collect());
                    out.insert(s as *const Stmt as usize, fields);
                }
            }
        });
    }
    out
}

/// The roll statements of `sys` read only through one range table, with that table's rows.
fn classed_rolls(sys: &'static ir::System) -> std::collections::BTreeMap<usize, Vec<(i64, i64)>> {
    let mut out = std::collections::BTreeMap::new();
    for r in &sys.resolvers {
        let classed = ir::classed_rolls(sys, &r.body);
        ir::each_stmt(&r.body, |s| {
            if let Stmt::Roll { var, .. } = s {
                if let Some(t) = classed.get(var).and_then(|t| sys.tables.get(*t)) {
                    out.insert(s as *const Stmt as usize, t.rows.iter().map(|row| row.range).collect());
                }
            }
        });
    }
    out
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
    locals: Vec<(&'static str, V)>,
    /// The failed `require`s of the group of checks running now.
    violations: Option<Vec<rt::Violation>>,
    /// Is a check (`ir::is_check`) running: its blocks belong to its group?
    checking: bool,
}

impl Frame<'_> {
    fn local(&self, name: &str) -> Result<&V, Error> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| Error::internal(format!("interpreter: no local `{name}`")))
    }

    fn local_mut(&mut self, name: &str) -> Result<&mut V, Error> {
        self.locals
            .iter_mut()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| Error::internal(format!("interpreter: no local `{name}`")))
    }

    fn input(&self, name: &str) -> Result<&V, Error> {
        self.r
            .inputs
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| self.inputs.get(i))
            .ok_or_else(|| Error::internal(format!("interpreter: no input `{name}`")))
    }

    fn output_index(&self, name: &str) -> Result<usize, Error> {
        self.r
            .outputs
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| Error::internal(format!("interpreter: no output `{name}`")))
    }
}

fn int(v: &V) -> Result<i64, Error> {
    match v {
        V::Int(i) => Ok(*i),
        other => Err(Error::internal(format!("interpreter: expected an int, found {other}"))),
    }
}

fn dec(v: &V) -> Result<Dec, Error> {
    match v {
        V::Dec(d) => Ok(*d),
        other => Err(Error::internal(format!("interpreter: expected a decimal, found {other}"))),
    }
}

fn boolean(v: &V) -> Result<bool, Error> {
    match v {
        V::Bool(b) => Ok(*b),
        other => Err(Error::internal(format!("interpreter: expected a bool, found {other}"))),
    }
}

fn key(v: &V) -> Result<rt::Key, Error> {
    match v {
        V::Key(k) => Ok(*k),
        other => Err(Error::internal(format!("interpreter: expected a key, found {other}"))),
    }
}

/// The items of a list value, owned: shared lists are copied item by item (each item a cheap
/// reference-counted copy), a list nobody else holds is taken as it is.
fn list(v: V) -> Result<Vec<V>, Error> {
    match v {
        V::List(xs) => Ok(Arc::unwrap_or_clone(xs)),
        other => Err(Error::internal(format!("interpreter: expected a list, found {other}"))),
    }
}

fn field<'v>(v: &'v V, name: &str) -> Result<&'v V, Error> {
    v.field(name)
        .ok_or_else(|| Error::internal(format!("interpreter: no field `{name}` in {v}")))
}

fn dec_of(v: &V) -> Result<Dec, Error> {
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
            memo_calls: memo_calls(ir),
            classed_rolls: classed_rolls(ir),
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
